"""A model of the HorizontalPodAutoscaler driven by series the adapter rules are evaluated over with promtool.

The HPA (kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale, "Algorithm details", read 2026-12-03):
``desired = ceil(current * value / target)``, where ``value`` is the average of the pods' values (a Pods metric with
an AverageValue target) or the metric (an External metric with a Value target); no change while ``value / target`` is
within the tolerance (0.1); the result is clamped to [minReplicas, maxReplicas]; a scale-down takes the highest
recommendation of the stabilization window (300 s) and a scale-up the newest. The model syncs once a minute (the
controller syncs every 15 s; the default scale-up policies allow doubling per 15 s, so a minute's recommendation is
reached within the minute) and a replica serves from the next minute.

The series are what the exporters write for a given load, per pod (dcgm-exporter's ``DCGM_FI_DEV_*`` with the pod's
namespace and pod, vLLM's ``vllm:num_requests_waiting`` with the PodMonitor's namespace and pod) or per GPU of a pool
(with ``node``, joined to ``kube_node_labels``). Each minute's metric value is not computed here: promtool evaluates
the adapter rule's expanded metricsQuery (as prometheus-adapter v0.12.0 builds it: pkg/naming/metrics_query.go) over
the series written so far, and the HPA step uses what promtool returned (checked against the model's own value, so a
rule that reads the wrong series, labels or expression fails the test).
"""

from __future__ import annotations

import math
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

PROMTOOL = shutil.which("promtool")

TOLERANCE = 0.1
"""--horizontal-pod-autoscaler-tolerance's default."""

STABILIZATION_MINUTES = 5
"""The scale-down stabilization window's default (300 s)."""


@dataclass
class Hpa:
    """One HorizontalPodAutoscaler."""

    min_replicas: int
    max_replicas: int
    targets: tuple[float, ...]
    """One per metric of the HPA, in its order."""
    replicas: int = 0
    recommendations: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.replicas = self.replicas or self.min_replicas

    def sync(self, *values: float) -> int:
        """Take one value per metric; return the replicas the HPA sets (with several metrics, the most any of them
        proposes: "Algorithm details", multiple metrics)."""
        assert len(values) == len(self.targets)
        proposals = []
        for value, target in zip(values, self.targets, strict=True):
            ratio = value / target
            proposals.append(self.replicas if abs(ratio - 1) <= TOLERANCE else math.ceil(self.replicas * ratio))
        recommended = max(self.min_replicas, min(self.max_replicas, max(proposals)))
        self.recommendations.append(recommended)
        if recommended < self.replicas:
            recommended = max(self.recommendations[-STABILIZATION_MINUTES:])
        self.replicas = recommended
        return recommended


@dataclass(frozen=True)
class Series:
    """One series over the run: its labels and one value per minute (None: absent)."""

    name: str
    labels: dict[str, str]
    values: list[float | None]

    def promtool(self) -> dict[str, str]:
        """The series as promtool's input: ``_`` before it starts, ``stale`` once after it ends (a gone pod's or
        node's series is not looked back at for 5 minutes, as Prometheus marks a vanished target's series stale)."""
        text = ",".join(f'{k}="{v}"' for k, v in sorted(self.labels.items()))
        words, seen = [], False
        for v in self.values:
            if v is not None:
                words.append(repr(float(v)))
                seen = True
            elif seen and words[-1] not in ("stale", "_"):
                words.append("stale")
            else:
                words.append("_")
        return {"series": f"{self.name}{{{text}}}", "values": " ".join(words)}


def evaluate(tmp_path: Path, series: Sequence[Series], checks: Sequence[tuple[int, str, list[dict[str, Any]]]]) -> None:
    """Run ``promtool test rules`` over ``series`` (one sample a minute) with ``checks`` of (minute, PromQL
    expression, expected samples ``{"labels": "{...}", "value": v}``); fail with promtool's output."""
    assert PROMTOOL is not None
    (tmp_path / "none.yaml").write_text("groups: []\n")
    spec = {
        "rule_files": ["none.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [s.promtool() for s in series],
                "promql_expr_test": [
                    {"expr": expr, "eval_time": f"{minute}m", "exp_samples": samples}
                    for minute, expr, samples in checks
                ],
            }
        ],
    }
    (tmp_path / "hpa.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    done = subprocess.run(
        [PROMTOOL, "test", "rules", "hpa.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]


def expand(query: str, series: str, matchers: str, group_by: str) -> str:
    """A metricsQuery as prometheus-adapter expands it."""
    return (
        query.replace("<<.Series>>", series).replace("<<.LabelMatchers>>", matchers).replace("<<.GroupBy>>", group_by)
    )


@dataclass
class Run:
    """A simulated run: the HPA's replicas each minute and the checks promtool must pass."""

    replicas: list[int] = field(default_factory=list)
    checks: list[tuple[int, str, list[dict[str, Any]]]] = field(default_factory=list)


@dataclass(frozen=True)
class PodsMetric:
    """One Pods metric of an HPA: ``query(pods)`` is the adapter's expanded query for those pods; ``value_of`` turns
    one pod's series values (by series name) into the value promtool must return for it."""

    query: Callable[[list[str]], str]
    value_of: Callable[[dict[str, float]], float]


def simulate_pods(
    hpa: Hpa,
    load: Sequence[float],
    per_pod: Callable[[float, int], dict[str, float]],
    metrics: Sequence[PodsMetric],
    pod_prefix: str,
    namespace: str = "gpu-inference",
    decimals: int = 6,
) -> tuple[Run, list[Series]]:
    """Drive ``hpa`` with its Pods ``metrics`` over ``load`` (one value a minute): ``per_pod(load, replicas)``,
    called once a minute in order, gives each series' value (by series name) on every replica."""
    minutes = len(load)
    history: dict[tuple[str, str], list[float | None]] = {}
    run = Run()
    for minute, offered in enumerate(load):
        pods = [f"{pod_prefix}-{i}" for i in range(hpa.replicas)]
        values = per_pod(offered, len(pods))
        for pod in pods:
            for name, value in values.items():
                history.setdefault((pod, name), [None] * minutes)[minute] = round(value, decimals)
        expected = [round(m.value_of(values), decimals) for m in metrics]
        for metric, value in zip(metrics, expected, strict=True):
            run.checks.append(
                (minute, metric.query(pods), [{"labels": f'{{pod="{pod}"}}', "value": value} for pod in pods])
            )
        run.replicas.append(hpa.replicas)
        hpa.sync(*expected)
    series = [
        Series(name, {"namespace": namespace, "pod": pod, "container": "server"}, values)
        for (pod, name), values in history.items()
    ]
    return run, series
