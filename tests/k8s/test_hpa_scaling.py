"""Inference autoscaling follows load: scale-out under load, scale-in when idle (issue 25 item 1, k8s.md W1).

Each case drives the HPA model (tests/k8s/hpa_model.py) with the metric the InferenceService's HPA names, served by
the adapter rule GpuAddons configures, evaluated by promtool over the series the exporters would write for a load
profile: idle, then a load that needs several replicas, then idle again. The load is in replicas' worth of work (1.0
keeps one replica's GPU busy).

The old default, GPU memory, is the case that never scales in: TensorFlow Serving maps nearly all of the GPU's memory
when it loads its model, whatever the traffic (tensorflow/serving 2.18.0 main.cc: per_process_gpu_memory_fraction
0.0, "Tensorflow will automatically select a value"), so every replica reads about 95 % and the HPA climbs to
maxReplicas and stays there. The defaults now follow traffic: GPU utilisation for TensorFlow Serving, and for vLLM
its running and waiting requests (spec.GpuMetric.REQUESTS), modelled here as a queue in front of the replicas' batch
slots.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from gpu_cloud.components.k8s import GpuAddons, GpuAddonsArgs, InferenceService, InferenceServiceArgs
from gpu_cloud.components.k8s.monitoring import POOL_SERIES_LABEL
from gpu_cloud.components.spec import AddonsSpec, Cloud, GpuMetric, ModelServer
from tests.k8s.conftest import inference_pool, one, run, service
from tests.k8s.hpa_model import PROMTOOL, Hpa, PodsMetric, Run, Series, evaluate, expand, simulate_pods

pytestmark = pytest.mark.skipif(PROMTOOL is None, reason="promtool not found: `make test` installs it")

IDLE, BUSY, QUIET = 10, 30, 40
"""Minutes of each phase of the load profile."""


def load_profile(busy: float, idle: float = 0.2, quiet: float = 0.1) -> list[float]:
    return [idle] * IDLE + [busy] * BUSY + [quiet] * QUIET


def _rules(cloud: Cloud, pool: Any) -> dict[str, list[dict[str, Any]]]:
    args = GpuAddonsArgs(addons=AddonsSpec(cluster_autoscaler=False), cloud=cloud, pools=(pool,))
    values = one(run(lambda opts: GpuAddons("addons", args, opts=opts)), "addons-prometheus-adapter").inputs["values"]
    rules: dict[str, list[dict[str, Any]]] = values["rules"]
    return rules


def _hpa(spec: Any, pool: Any, cloud: Cloud = Cloud.AWS) -> dict[str, Any]:
    args = InferenceServiceArgs(
        service=spec,
        pool=pool,
        cloud=cloud,
        model_bucket="b",
        region="r",
        identity_role="role" if cloud is Cloud.ALICLOUD else None,
    )
    hpa: dict[str, Any] = one(run(lambda opts: InferenceService("svc", args, opts=opts)), "svc-hpa").inputs["spec"]
    return hpa


def _rule(rules: list[dict[str, Any]], name: str) -> dict[str, Any]:
    [rule] = [r for r in rules if r["name"]["as"] == name]
    return rule


def _series_name(rule: dict[str, Any]) -> str:
    return str(rule["seriesQuery"]).split("{", 1)[0]


def _pods_run(
    tmp_path: Path,
    spec: Any,
    pool: Any,
    load: list[float],
    per_pod: Any,
    values_of: dict[str, Any],
    cloud: Cloud = Cloud.AWS,
    only: str | None = None,
) -> Run:
    """Simulate the service's HPA, whose Pods metrics are ``values_of``'s keys (in its order), each pod's value from its
    series by ``values_of[metric]``; ``only``: keep that one metric of the HPA."""
    hpa_spec = _hpa(spec, pool, cloud)
    declared = [m for m in hpa_spec["metrics"] if only is None or m["pods"]["metric"]["name"] == only]
    assert all(m["type"] == "Pods" and m["pods"]["target"]["type"] == "AverageValue" for m in declared)
    names = [m["pods"]["metric"]["name"] for m in declared]
    assert names == [n for n in values_of if only is None or n == only]
    rules = _rules(cloud, pool)["custom"]

    def query_of(rule: dict[str, Any]) -> Any:
        def query(pods: list[str]) -> str:
            matchers = f'namespace="gpu-inference",pod=~"{"|".join(pods)}"'
            return expand(rule["metricsQuery"], _series_name(rule), matchers, "pod")

        return query

    metrics = [PodsMetric(query_of(_rule(rules, n)), values_of[n]) for n in names]
    targets = tuple(float(m["pods"]["target"]["averageValue"]) for m in declared)
    hpa = Hpa(hpa_spec["minReplicas"], hpa_spec["maxReplicas"], targets)
    result, series = simulate_pods(hpa, load, per_pod, metrics, spec.name)
    evaluate(tmp_path, series, result.checks)
    return result


def _tf_gpu(load: float, replicas: int) -> dict[str, float]:
    """A TensorFlow Serving replica's DCGM series: the work spreads over the replicas (GPU busy time, %), and its
    memory is what it mapped at load (19 of 20 GB used: ~95 %, whatever the traffic)."""
    return {
        "DCGM_FI_DEV_GPU_UTIL": min(100, round(100 * load / replicas)),
        "DCGM_FI_DEV_FB_USED": 19000,
        "DCGM_FI_DEV_FB_FREE": 1000,
    }


def test_tensorflow_serving_scales_out_under_load_and_back_in_when_idle(tmp_path: Path) -> None:
    """TensorFlow Serving's default metric, GPU utilisation."""
    spec = service(min_replicas=2, max_replicas=16)
    assert spec.metric is None and spec.server is ModelServer.TENSORFLOW_SERVING
    pool = inference_pool(max_size=16)
    util = {"gpu_utilization": lambda v: v["DCGM_FI_DEV_GPU_UTIL"]}
    result = _pods_run(tmp_path, spec, pool, load_profile(busy=6.0), _tf_gpu, util)
    busy = result.replicas[IDLE + 5 : IDLE + BUSY]
    # 6 replicas' worth of work at a 70 % target: 2 -> 3 -> 5 -> 8 replicas, which run at 75 %, within the 10 %
    # tolerance of the target, so the HPA holds there.
    assert set(busy) == {8}, result.replicas
    assert result.replicas[:IDLE] == [2] * IDLE
    assert result.replicas[-10:] == [2] * 10


def test_the_old_gpu_memory_default_sits_at_max_replicas_through_idle(tmp_path: Path) -> None:
    """The cost of W1: prod's resnet (min 2, max 16 on 16 single-GPU g5.2xlarge) never leaves 16 replicas. A
    TensorFlow Serving service may no longer scale on GPU memory (tests/gpucloud/test_refused_inference.py), so the old
    default is rebuilt as what it was: TensorFlow Serving's image run as a custom server, on GPU memory."""
    spec = service(
        server=ModelServer.CUSTOM,
        image="tensorflow/serving:2.18.0-gpu",
        probe_path="/v1/models/resnet",
        metric=GpuMetric.MEMORY,
        min_replicas=2,
        max_replicas=16,
    )
    pool = inference_pool(max_size=16)
    memory = {
        "gpu_memory_utilization": lambda v: (
            100 * v["DCGM_FI_DEV_FB_USED"] / (v["DCGM_FI_DEV_FB_USED"] + v["DCGM_FI_DEV_FB_FREE"])
        )
    }
    result = _pods_run(tmp_path, spec, pool, load_profile(busy=6.0), _tf_gpu, memory)
    assert result.replicas[IDLE:] == [16] * (BUSY + QUIET), result.replicas
    assert max(result.replicas[:IDLE]) == 16


SHARE = 4
"""Replicas per GPU on the shared pool (prod-cn's gpuTimeSlicingReplicas)."""


def test_on_a_shared_pool_the_pool_signal_scales_out_and_in(tmp_path: Path) -> None:
    """ACK shares each A10 between 4 replicas: the HPA follows the pool's average GPU utilisation (an External
    metric), and the cluster autoscaler adds a node for every 4 replicas (a node has one GPU)."""
    cloud = Cloud.ALICLOUD
    pool = inference_pool(
        instance_types=("ecs.gn7i-c8g1.2xlarge",), gpu_time_slicing_replicas=SHARE, min_size=1, max_size=8
    )
    spec = service(min_replicas=2, max_replicas=32)
    hpa_spec = _hpa(spec, pool, cloud)
    [metric] = hpa_spec["metrics"]
    assert metric["type"] == "External" and metric["external"]["target"]["type"] == "Value"
    selector = metric["external"]["metric"]["selector"]["matchLabels"]
    rule = _rule(_rules(cloud, pool)["external"], metric["external"]["metric"]["name"])
    [(label, pool_name)] = selector.items()
    query = expand(rule["metricsQuery"], _series_name(rule), f'{label}="{pool_name}"', "")
    hpa = Hpa(hpa_spec["minReplicas"], hpa_spec["maxReplicas"], (float(metric["external"]["target"]["value"]),))

    load = load_profile(busy=3.0)
    minutes = len(load)
    gpu: dict[str, list[float | None]] = {}
    nodes_seen: list[int] = []
    result = Run()
    for minute, offered in enumerate(load):
        nodes = max(pool.min_size, math.ceil(hpa.replicas / SHARE))
        nodes_seen.append(nodes)
        util = min(100, round(100 * offered / nodes))
        for n in range(nodes):
            gpu.setdefault(f"n{n}", [None] * minutes)[minute] = util
        result.checks.append((minute, query, [{"labels": f'{{{label}="{pool_name}"}}', "value": util}]))
        result.replicas.append(hpa.replicas)
        hpa.sync(util)
    series = [
        Series("DCGM_FI_DEV_GPU_UTIL", {"gpu": "0", "node": node, "namespace": "monitoring", "pod": "dcgm-x"}, values)
        for node, values in gpu.items()
    ] + [
        Series(
            "kube_node_labels",
            {"node": node, POOL_SERIES_LABEL: pool_name},
            [1.0 if v is not None else None for v in values],
        )
        for node, values in gpu.items()
    ]
    evaluate(tmp_path, series, result.checks)
    assert max(result.replicas) > spec.min_replicas, result.replicas
    assert max(nodes_seen) > pool.min_size
    assert result.replicas[-10:] == [spec.min_replicas] * 10, result.replicas


BATCH = 32
"""The requests a vLLM replica runs at once at full load (its batch slots; what its KV cache holds)."""

PER_MINUTE = 60
"""The requests a vLLM replica completes a minute when its batch is full (1.0 of load)."""


def _vllm_queue() -> Any:
    """vLLM replicas behind one Service: each minute ``load * PER_MINUTE`` requests arrive, the replicas complete up
    to ``PER_MINUTE`` each and the rest waits (a backlog carried to the next minute, spread over the replicas); a
    replica runs requests in proportion to what it completes (Little's law at a fixed latency), ``BATCH`` when full."""
    backlog = 0.0

    def per_pod(load: float, replicas: int) -> dict[str, float]:
        nonlocal backlog
        demand, capacity = load * PER_MINUTE + backlog, replicas * PER_MINUTE
        served = min(demand, capacity)
        backlog = demand - served
        return {
            "vllm:num_requests_running": BATCH * served / capacity,
            "vllm:num_requests_waiting": backlog / replicas,
        }

    return per_pod


VLLM_VALUES = {
    "vllm_requests_running": lambda v: v["vllm:num_requests_running"],
    "vllm_requests_waiting": lambda v: v["vllm:num_requests_waiting"],
}


def test_vllm_scales_out_under_load_holds_and_scales_back_in_when_idle(tmp_path: Path) -> None:
    """prod's llm (min 2, max 8): 3 replicas' worth of requests queue at 2 replicas, the waiting requests send the
    HPA to 8, the running ones (16 a replica, half the batch) bring it to the 6 the load fills and hold it there;
    idle, back to 2."""
    spec = service(server=ModelServer.VLLM, name="llm", min_replicas=2, max_replicas=8)
    assert spec.metric is None and spec.scaling_metric is GpuMetric.REQUESTS
    result = _pods_run(tmp_path, spec, inference_pool(max_size=8), load_profile(busy=3.0), _vllm_queue(), VLLM_VALUES)
    assert result.replicas[:IDLE] == [2] * IDLE
    assert result.replicas[IDLE + 1] == 8, result.replicas
    assert set(result.replicas[IDLE + 10 : IDLE + BUSY]) == {6}, result.replicas
    assert result.replicas[-10:] == [2] * 10, result.replicas


def test_vllm_waiting_requests_alone_do_not_hold_a_replica_count(tmp_path: Path) -> None:
    """Why the HPA also follows the running requests: the queue is empty as soon as the replicas keep up, so on the
    waiting requests alone the HPA falls back to minReplicas under the same load, queues again and jumps back."""
    spec = service(server=ModelServer.VLLM, name="llm", min_replicas=2, max_replicas=8)
    result = _pods_run(
        tmp_path,
        spec,
        inference_pool(max_size=8),
        load_profile(busy=3.0),
        _vllm_queue(),
        VLLM_VALUES,
        only="vllm_requests_waiting",
    )
    busy = result.replicas[IDLE + 5 : IDLE + BUSY]
    assert {2, 8} <= set(busy), result.replicas
