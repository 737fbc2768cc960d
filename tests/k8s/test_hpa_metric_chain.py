"""The HPA's metric exists: exporter series -> prometheus-adapter rule -> the metric name the HPA asks for.

For each HPA the InferenceService declares, the adapter rule serving its metric name is found in the values the
GpuAddons release gives the prometheus-adapter chart (``rules.custom`` for Pods metrics, ``rules.external`` for
External ones), its seriesQuery must select the exporter's series, its name rule must turn that series into the
HPA's name, and its metricsQuery, expanded as prometheus-adapter v0.12.0 expands it (pkg/naming/metrics_query.go:
Build for custom rules, ``namespace="<ns>",pod=~"<a>|<b>"`` and group by ``pod``; BuildExternal for external
ones, the HPA's selector and no namespace with ``namespaced: false``), is evaluated by promtool over series shaped
as dcgm-exporter 4.5.2-4.8.1 writes them (counters from its default-counters.csv, vendored in data/; the
Kubernetes mapping's ``pod``/``namespace``/``container`` labels, internal/pkg/transformation/const.go and
kubernetes.go), and must give the GPU signal of exactly the service's pods, or pool; vLLM's waiting requests come
from its own ``/metrics`` through the PodMonitor, per pod on any pool.

Which of the two a service may use follows from the exporter's pod mapping (data/dcgm-exporter-4.5.2-4.8.1-pod-
mapping.json, cited there): only GPUs a pod got as ``nvidia.com/gpu``, a ``nvidia.com/mig-`` resource or a name in
``NVIDIA_RESOURCE_NAMES`` carry the pod's labels; a GPU requested as anything else (ACK's ``aliyun.com/gpu-mem``)
keeps the exporter's own, so a Pods metric of such a service would never have a value.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_cloud.components.k8s import GpuAddons, GpuAddonsArgs, InferenceService, InferenceServiceArgs
from gpu_cloud.components.k8s.monitoring import POOL_SERIES_LABEL, REQUEST_METRICS
from gpu_cloud.components.spec import AddonsSpec, Cloud, GpuMetric, InferenceServiceSpec, ModelServer
from tests.k8s.conftest import inference_pool, one, run, service

COUNTERS = Path(__file__).parent / "data" / "dcgm-exporter-4.5.2-4.8.1-default-counters.csv"
POD_MAPPING = json.loads((Path(__file__).parent / "data" / "dcgm-exporter-4.5.2-4.8.1-pod-mapping.json").read_text())
PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not found: install Debian package prometheus (make test does, as root)"
)

# Two replicas of the service and a pod of another namespace on the pool's GPUs, and an unmapped GPU (the
# exporter's own labels, as for a shared GPU); FB in MiB.
SERIES = [
    # (labels, FB used, FB free, GPU util)
    ({"namespace": "gpu-inference", "pod": "resnet-a", "container": "server", "gpu": "0", "node": "n1"}, 14, 6, 90),
    ({"namespace": "gpu-inference", "pod": "resnet-b", "container": "server", "gpu": "0", "node": "n2"}, 8, 12, 40),
    ({"namespace": "gpu-training", "pod": "train-0", "container": "trainer", "gpu": "0", "node": "n3"}, 20, 0, 100),
    (
        {"namespace": "monitoring", "pod": "dcgm-exporter-x", "container": "exporter", "gpu": "1", "node": "n1"},
        2,
        18,
        5,
    ),
]
POOLS = {"n1": "inference-a10g", "n2": "inference-a10g", "n3": "training"}


def _counters() -> set[str]:
    lines = COUNTERS.read_text().splitlines()
    return {line.split(",")[0].strip() for line in lines if line.strip() and not line.startswith("#")}


def _adapter_rules(cloud: Cloud) -> dict[str, list[dict[str, Any]]]:
    pool = inference_pool() if cloud is Cloud.AWS else inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",))
    # The autoscaler is not part of the chain (and needs the cluster's expander priorities).
    args = GpuAddonsArgs(
        addons=AddonsSpec(cluster_autoscaler=False),
        cloud=cloud,
        pools=(pool,),
        cluster_name="gpu" if cloud is Cloud.AWS else None,
        region="us-east-1" if cloud is Cloud.AWS else None,
    )
    plan = run(lambda opts: GpuAddons("addons", args, opts=opts))
    rules: dict[str, list[dict[str, Any]]] = one(plan, "addons-prometheus-adapter").inputs["values"]["rules"]
    return rules


def _exporter_maps(resource: str, exporter_env: list[dict[str, Any]]) -> bool:
    """Whether dcgm-exporter labels a GPU the pod requested as ``resource`` with the pod (its pod mapping's filter,
    with the NVIDIA_RESOURCE_NAMES the exporter's container gets)."""
    extra = [e["value"] for e in exporter_env if e["name"] == POD_MAPPING["extra_resources_env"]]
    named = {n.strip() for value in extra for n in value.split(",")}
    return (
        resource == POD_MAPPING["mapped_resource"]
        or resource in named
        or resource.startswith(POD_MAPPING["mapped_resource_prefix"])
    )


def _exporter_env(cloud: Cloud) -> list[dict[str, Any]]:
    """The dcgm-exporter container's extra environment as GpuAddons gives the chart (``extraEnv``)."""
    pool = inference_pool() if cloud is Cloud.AWS else inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",))
    args = GpuAddonsArgs(
        addons=AddonsSpec(cluster_autoscaler=False), cloud=cloud, pools=(pool,), region="us-east-1", cluster_name="gpu"
    )
    plan = run(lambda opts: GpuAddons("addons", args, opts=opts))
    env: list[dict[str, Any]] = (
        one(plan, "addons-dcgm-exporter").inputs["values"].get("extraEnv", POD_MAPPING["chart_default_env"])
    )
    return env


def _serving(metric: GpuMetric) -> InferenceServiceSpec:
    """A service that may scale on ``metric``: GPU memory only for a custom server (TensorFlow Serving and vLLM
    reserve theirs when they start), waiting requests only for vLLM."""
    if metric is GpuMetric.MEMORY:
        return service(metric=metric, server=ModelServer.CUSTOM, image="example/server:1", probe_path="/ready")
    if metric is GpuMetric.REQUESTS:
        return service(metric=metric, server=ModelServer.VLLM)
    return service(metric=metric)


def _service_plan(metric: GpuMetric, shared: bool) -> Any:
    cloud = Cloud.ALICLOUD if shared else Cloud.AWS
    pool = (
        inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",), gpu_time_slicing_replicas=4)
        if shared
        else inference_pool()
    )
    args = InferenceServiceArgs(
        service=_serving(metric),
        pool=pool,
        cloud=cloud,
        model_bucket="b",
        region="r",
        identity_role="role" if shared else None,
    )
    return run(lambda opts: InferenceService("resnet", args, opts=opts))


def _hpa_metric(metric: GpuMetric, shared: bool) -> dict[str, Any]:
    [metric_spec] = one(_service_plan(metric, shared), "resnet-hpa").inputs["spec"]["metrics"]
    return dict(metric_spec)


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("metric", [GpuMetric.MEMORY, GpuMetric.UTILIZATION])
def test_a_pods_metric_only_where_the_exporter_maps_the_pods_gpus_to_them(metric: GpuMetric, shared: bool) -> None:
    """The HPA follows its own pods only if every GPU resource its pods request is one the exporter maps to pods;
    otherwise it follows the pool (ACK's shared aliyun.com/gpu-mem: the exporter skips it)."""
    cloud = Cloud.ALICLOUD if shared else Cloud.AWS
    plan = _service_plan(metric, shared)
    [container] = one(plan, "resnet-deployment").inputs["spec"]["template"]["spec"]["containers"]
    gpu_resources = [r for r in container["resources"]["limits"] if r not in ("cpu", "memory", "ephemeral-storage")]
    assert gpu_resources == (["aliyun.com/gpu-mem"] if shared else ["nvidia.com/gpu"])
    mapped = all(_exporter_maps(r, _exporter_env(cloud)) for r in gpu_resources)
    [hpa] = one(plan, "resnet-hpa").inputs["spec"]["metrics"]
    assert hpa["type"] == ("Pods" if mapped else "External")
    assert mapped is not shared


def _rule_for(rules: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The adapter rule that serves ``name``: the HPA's metric exists only if exactly one does."""
    serving = [r for r in rules if r["name"]["as"] == name]
    assert len(serving) == 1, f"no prometheus-adapter rule serves the HPA's metric {name!r}"
    return serving[0]


def _selector_name(series_query: str) -> str:
    match = re.match(r"^([A-Za-z_:][A-Za-z0-9_:]*)\{", series_query)
    assert match, series_query
    return match.group(1)


def _input_series() -> list[dict[str, str]]:
    out = []
    for labels, used, free, util in SERIES:
        text = ",".join(f'{k}="{v}"' for k, v in labels.items())
        out += [
            {"series": f"DCGM_FI_DEV_FB_USED{{{text}}}", "values": f"{used}000+0x5"},
            {"series": f"DCGM_FI_DEV_FB_FREE{{{text}}}", "values": f"{free}000+0x5"},
            {"series": f"DCGM_FI_DEV_GPU_UTIL{{{text}}}", "values": f"{util}+0x5"},
        ]
    for node, pool in POOLS.items():
        out.append({"series": f'kube_node_labels{{node="{node}",{POOL_SERIES_LABEL}="{pool}"}}', "values": "1+0x5"})
    return out


def _evaluate(tmp_path: Path, tests: list[dict[str, Any]]) -> None:
    """Run promtool over the input series with ``tests`` (expr, exp_samples); fail with its output."""
    _promtool(tmp_path, _input_series(), tests)


def _expand(query: str, series: str, matchers: str, group_by: str) -> str:
    return (
        query.replace("<<.Series>>", series).replace("<<.LabelMatchers>>", matchers).replace("<<.GroupBy>>", group_by)
    )


def test_the_exporter_writes_the_counters_the_rules_read() -> None:
    assert {"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_GPU_UTIL"} <= _counters()


@needs_promtool
@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        (GpuMetric.MEMORY, {"resnet-a": "70", "resnet-b": "40"}),
        (GpuMetric.UTILIZATION, {"resnet-a": "90", "resnet-b": "40"}),
    ],
)
def test_a_pods_hpa_gets_its_own_pods_gpu_signal(tmp_path: Path, metric: GpuMetric, expected: dict[str, str]) -> None:
    hpa = _hpa_metric(metric, shared=False)
    assert hpa["type"] == "Pods"
    rule = _rule_for(_adapter_rules(Cloud.AWS)["custom"], hpa["pods"]["metric"]["name"])
    series = _selector_name(rule["seriesQuery"])
    assert series in _counters()
    assert re.search(rule["name"]["matches"], series)
    assert rule["resources"]["overrides"] == {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}
    pods = "|".join(expected)
    query = _expand(rule["metricsQuery"], series, f'namespace="gpu-inference",pod=~"{pods}"', "pod")
    _evaluate(
        tmp_path,
        [
            # The series the adapter lists for the rule include the service's pods.
            {"expr": f"count({rule['seriesQuery']}) by (namespace)", "exp_samples": _counts_by_namespace()},
            {
                "expr": query,
                "exp_samples": [
                    {"labels": f'{{pod="{pod}"}}', "value": float(value)} for pod, value in expected.items()
                ],
            },
        ],
    )


def _counts_by_namespace() -> list[dict[str, Any]]:
    counts: dict[str, int] = {}
    for labels, *_ in SERIES:
        counts[labels["namespace"]] = counts.get(labels["namespace"], 0) + 1
    return [{"labels": f'{{namespace="{ns}"}}', "value": n} for ns, n in counts.items()]


@needs_promtool
@pytest.mark.parametrize(("metric", "expected"), [(GpuMetric.MEMORY, "40"), (GpuMetric.UTILIZATION, "45")])
def test_an_hpa_on_shared_gpus_gets_its_pools_gpu_signal(tmp_path: Path, metric: GpuMetric, expected: str) -> None:
    hpa = _hpa_metric(metric, shared=True)
    assert hpa["type"] == "External"
    selector = hpa["external"]["metric"]["selector"]["matchLabels"]
    assert selector == {POOL_SERIES_LABEL: "inference-a10g"}
    rule = _rule_for(_adapter_rules(Cloud.ALICLOUD)["external"], hpa["external"]["metric"]["name"])
    assert rule["resources"] == {"namespaced": False}
    series = _selector_name(rule["seriesQuery"])
    assert series in _counters()
    assert re.search(rule["name"]["matches"], series)
    [(label, pool)] = selector.items()
    query = _expand(rule["metricsQuery"], series, f'{label}="{pool}"', "")
    # Both GPUs of the pool's nodes n1 and n2 (the unmapped one included), not the training pool's.
    _evaluate(
        tmp_path, [{"expr": query, "exp_samples": [{"labels": f'{{{label}="{pool}"}}', "value": float(expected)}]}]
    )


def _hpa_metrics(metric: GpuMetric, shared: bool) -> list[dict[str, Any]]:
    return [dict(m) for m in one(_service_plan(metric, shared), "resnet-hpa").inputs["spec"]["metrics"]]


@needs_promtool
@pytest.mark.parametrize("shared", [False, True])
def test_a_vllm_hpa_gets_its_own_pods_running_and_waiting_requests(tmp_path: Path, shared: bool) -> None:
    """vLLM's requests are the server's own gauges, scraped per pod by the service's PodMonitor (which adds
    ``namespace`` and ``pod``), so its HPA follows its own pods on shared GPUs too: the sum over each pod's engines."""
    metrics = _hpa_metrics(GpuMetric.REQUESTS, shared=shared)
    assert [(m["type"], m["pods"]["metric"]["name"], m["pods"]["target"]) for m in metrics] == [
        ("Pods", "vllm_requests_running", {"type": "AverageValue", "averageValue": "16"}),
        ("Pods", "vllm_requests_waiting", {"type": "AverageValue", "averageValue": "5"}),
    ]
    rules = _adapter_rules(Cloud.ALICLOUD if shared else Cloud.AWS)["custom"]
    # Two engines (data-parallel ranks) in resnet-a, one in resnet-b, and another namespace's vLLM pod.
    values = [
        ("gpu-inference", "resnet-a", "0", 7),
        ("gpu-inference", "resnet-a", "1", 5),
        ("gpu-inference", "resnet-b", "0", 0),
        ("other", "chat-a", "0", 40),
    ]
    for series, name in REQUEST_METRICS.items():
        rule = _rule_for(rules, name)
        assert _selector_name(rule["seriesQuery"]) == series
        assert re.search(rule["name"]["matches"], series)
        assert rule["resources"]["overrides"] == {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}
        query = _expand(rule["metricsQuery"], series, 'namespace="gpu-inference",pod=~"resnet-a|resnet-b"', "pod")
        # The other gauge with the same labels must not leak into this one's value.
        other = next(s for s in REQUEST_METRICS if s != series)
        inputs = [
            {"series": f'{gauge}{{namespace="{ns}",pod="{pod}",engine="{e}",model_name="m"}}', "values": f"{v}+0x5"}
            for ns, pod, e, value in values
            for gauge, v in ((series, value), (other, 100 + value))
        ]
        tests = [
            {
                "expr": query,
                "exp_samples": [
                    {"labels": '{pod="resnet-a"}', "value": 12},
                    {"labels": '{pod="resnet-b"}', "value": 0},
                ],
            },
            {
                "expr": f"count({rule['seriesQuery']}) by (namespace)",
                "exp_samples": [
                    {"labels": '{namespace="gpu-inference"}', "value": 3},
                    {"labels": '{namespace="other"}', "value": 1},
                ],
            },
        ]
        _promtool(tmp_path, inputs, tests)


def _promtool(tmp_path: Path, inputs: list[dict[str, str]], tests: list[dict[str, Any]]) -> None:
    spec = {
        "rule_files": ["empty.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": inputs,
                "promql_expr_test": [{"eval_time": "2m", **t} for t in tests],
            }
        ],
    }
    (tmp_path / "empty.yaml").write_text("groups: []\n")
    (tmp_path / "chain.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    assert PROMTOOL is not None
    done = subprocess.run(
        [PROMTOOL, "test", "rules", "chain.yaml"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
