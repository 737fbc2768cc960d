"""The pinned Helm charts' ``Chart.yaml`` and ``values.yaml``, vendored at their tags (``vendor.py``), and the check
that every values key path the project sets is a key of the chart.

A path is a key of a chart when its ``values.yaml`` at the pinned version has it, when it is under a subchart's
name (``Chart.yaml`` dependencies, alias first) and that subchart's vendored ``values.yaml`` has the rest, or when
the chart's templates read it although ``values.yaml`` does not list it (:data:`TEMPLATE_READS`, each with the
template line at the tag). Free-form maps and lists are leaves: a key the templates pass through whole
(``toYaml``/``range``) names no chart key below it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent

Path_ = tuple[str, ...]

FREE_FORM_KEYS = frozenset(
    {
        "affinity",
        "annotations",
        "env",
        "extraArgs",
        "labels",
        "nodeSelector",
        "podAnnotations",
        "podLabels",
        "resources",
        "tolerations",
    }
)
"""Keys that hold a Kubernetes field or the chart's pass-through map under any chart (pod spec fields, labels,
container flags): the map is one value."""


@dataclass(frozen=True)
class TemplateRead:
    """A values path (``*`` matches one key) the chart's templates read, with where they read it."""

    pattern: str
    source: str
    leaf: bool = True
    """The templates take the value whole (``toYaml``, ``range`` over its entries): no chart key below it."""

    def matches(self, path: Path_) -> bool:
        parts = self.pattern.split(".")
        return len(parts) == len(path) and all(fnmatchcase(k, p) for k, p in zip(path, parts, strict=True))


_GH = "https://github.com"
_CA = f"{_GH}/kubernetes/autoscaler/blob/cluster-autoscaler-chart-9.59.0/cluster-autoscaler/charts/cluster-autoscaler"
_GRAFANA = f"{_GH}/grafana-community/helm-charts/blob/grafana-12.11.1/charts/grafana/templates/_config.tpl"
_KPS = f"{_GH}/prometheus-community/helm-charts/blob/kube-prometheus-stack-88.5.3/charts/kube-prometheus-stack"
_NVDP = f"{_GH}/NVIDIA/k8s-device-plugin/blob/v0.20.0/deployments/helm/nvidia-device-plugin/templates/_helpers.tpl"

TEMPLATE_READS: Mapping[str, tuple[TemplateRead, ...]] = {
    "cluster-autoscaler": (
        # priority-expander-configmap.yaml renders `{{- range $k,$v := .Values.expanderPriorities }}` (priority ->
        # list of node group patterns) into the priorities ConfigMap.
        TemplateRead("expanderPriorities", f"{_CA}/templates/priority-expander-configmap.yaml#L19"),
    ),
    "grafana": (
        # _config.tpl writes each dashboardProviders entry as a provisioning file (`range $key, $value`, toYaml).
        TemplateRead("dashboardProviders.*", f"{_GRAFANA}#L68-L80"),
        # ...and downloads each dashboards.<provider>.<name> with gnetId, revision (default 1) and datasource from
        # grafana.com: keys the templates read that values.yaml lists only in a comment.
        TemplateRead("dashboards.*.*.gnetId", f"{_GRAFANA}#L87", leaf=False),
        TemplateRead("dashboards.*.*.revision", f"{_GRAFANA}#L120", leaf=False),
        TemplateRead("dashboards.*.*.datasource", f"{_GRAFANA}#L122-L127", leaf=False),
    ),
    "kube-prometheus-stack": (
        # templates/alertmanager/secret.yaml: `alertmanager.yaml: {{ tpl (toYaml .Values.alertmanager.config) . }}`;
        # what is inside is Alertmanager's configuration, not the chart's.
        TemplateRead("alertmanager.config", f"{_KPS}/templates/alertmanager/secret.yaml#L21"),
    ),
    "nvidia-device-plugin": (
        # _helpers.tpl: `range $name, $contents := $.Values.config.map` (config name -> device plugin config file).
        TemplateRead("config.map", f"{_NVDP}#L149"),
    ),
}
"""Per chart: the values paths its templates read beyond what ``values.yaml`` lists, or take whole."""


@dataclass(frozen=True)
class VendoredChart:
    """One chart's vendored files at its pinned version."""

    chart: dict[str, Any]
    values: dict[str, Any]
    source: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.chart["name"])

    def subchart(self, key: str) -> VendoredChart | None:
        """The vendored subchart whose values live under ``key``, or None (no such dependency, or not vendored)."""
        for dep in self.chart.get("dependencies") or ():
            if dep.get("alias", dep["name"]) == key:
                return vendored().get((dep["name"], str(dep["version"])))
        return None

    def reads(self, path: Path_) -> TemplateRead | None:
        return next((r for r in TEMPLATE_READS.get(self.name, ()) if r.matches(path)), None)

    def is_leaf(self, path: Path_) -> bool:
        """Whether the project's value at ``path`` is one value of this chart (nothing below it is a chart key)."""
        if path and path[-1] in FREE_FORM_KEYS:
            return True
        read = self.reads(path)
        if read is not None:
            return read.leaf
        sub = self.subchart(path[0]) if path else None
        return sub is not None and len(path) > 1 and sub.is_leaf(path[1:])

    def defines(self, path: Path_) -> bool:
        """Whether ``path`` is a key of this chart."""
        if _has(self.values, path) or self.reads(path) is not None:
            return True
        sub = self.subchart(path[0])
        return sub is not None and sub.defines(path[1:])

    def key_paths(self, values: Mapping[str, Any], prefix: Path_ = ()) -> Iterator[Path_]:
        """Every key path of ``values`` as this chart reads it: maps are walked down to their leaves."""
        for key, value in values.items():
            path = (*prefix, key)
            if isinstance(value, Mapping) and value and not self.is_leaf(path):
                yield from self.key_paths(value, path)
            else:
                yield path

    def undefined(self, values: Mapping[str, Any]) -> list[str]:
        """The key paths of ``values`` that are no key of this chart, dotted."""
        return [".".join(p) for p in self.key_paths(values) if not self.defines(p)]


def _has(values: Any, path: Path_) -> bool:
    for key in path:
        if not isinstance(values, dict) or key not in values:
            return False
        values = values[key]
    return True


@cache
def vendored() -> dict[tuple[str, str], VendoredChart]:
    """Every vendored chart by (name, version)."""
    charts = {}
    for source in sorted(HERE.glob("*/SOURCE.json")):
        chart = VendoredChart(
            yaml.safe_load((source.parent / "Chart.yaml").read_text()),
            yaml.safe_load((source.parent / "values.yaml").read_text()),
            json.loads(source.read_text()),
        )
        charts[(chart.name, str(chart.chart["version"]))] = chart
    return charts
