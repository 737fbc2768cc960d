"""The GPU-aware rules through the analyzer protocol: gpu-inference-fallback, gpu-sharing-isolation,
gpu-allocator-exclusive and gpu-reservation-drain, each over small stacks of node pools, workloads, Helm releases and
Auto Scaling groups (properties in wire form), asserting the exact (policy, resource, level) set reported; and the
"never crashes" and "unknown never passes silently" contracts over their shapes, with hypothesis."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.policy import run_policy_pack
from gpu_cloud.policies.gpucloud_rules import (
    gpu_allocator_exclusive,
    gpu_inference_fallback,
    gpu_reservation_drain,
    gpu_sharing_isolation,
)
from gpu_cloud.policies.gpucloud_rules.rule import StackResource, StackRule, effective_config, run_stack_rule
from tests.policies.fixtures import GPU_TAINT_ALICLOUD, GPU_TAINT_AWS, compliant
from tests.policies.wire import UNKNOWN, resource, stack_resource, urn, wire

FALLBACK, SHARING, ALLOCATOR, DRAIN = (
    "gpu-inference-fallback",
    "gpu-sharing-isolation",
    "gpu-allocator-exclusive",
    "gpu-reservation-drain",
)
GPU_RULES = (FALLBACK, SHARING, ALLOCATOR, DRAIN)
M, A = "mandatory", "advisory"
NODE_GROUP, NODE_POOL = "aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool"
DEPLOYMENT, JOBSET = "kubernetes:apps/v1:Deployment", "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
RELEASE, DAEMON_SET = "kubernetes:helm.sh/v3:Release", "kubernetes:apps/v1:DaemonSet"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
ASG, SCHEDULE = "aws:autoscaling/group:Group", "aws:autoscaling/schedule:Schedule"
POOL = "gpucloud.io/pool"
SPOT_TAINT = {"key": "gpucloud.io/capacity", "value": "spot", "effect": "NO_SCHEDULE"}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
SPOT_TOLERATION = {"key": "gpucloud.io/capacity", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
TIME_SLICED = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"
MPS = "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n"


def node_group(
    name: str, pool: str, capacity: str = "ON_DEMAND", taints: Sequence[dict[str, Any]] = (GPU_TAINT_AWS,), **props: Any
) -> tuple[str, str, dict[str, Any]]:
    labels = {POOL: pool, **props.pop("labels", {})}
    return (
        NODE_GROUP,
        name,
        compliant(
            NODE_GROUP,
            capacityType=capacity,
            taints=list(taints),
            labels=labels,
            nodeGroupNamePrefix=f"{name}-",
            **props,
        ),
    )


def ack_pool(name: str, pool: str, **props: Any) -> tuple[str, str, dict[str, Any]]:
    labels = [{"key": POOL, "value": pool}, *props.pop("labels", [])]
    return NODE_POOL, name, compliant(NODE_POOL, labels=labels, nodePoolName=name, **props)


def pod_spec(pool: str | None, gpus: int = 1, **spec: Any) -> dict[str, Any]:
    return {
        **({"nodeSelector": {POOL: pool}} if pool else {}),
        "tolerations": spec.pop("tolerations", [GPU_TOLERATION]),
        "containers": [
            {
                "name": "server",
                "image": "vllm/vllm-openai:v0.11.0",
                "resources": {"limits": {"nvidia.com/gpu": gpus} if gpus else {}},
            }
        ],
        **spec,
    }


def deployment(name: str, pool: str | None, gpus: int = 1, **spec: Any) -> tuple[str, str, dict[str, Any]]:
    return (
        DEPLOYMENT,
        name,
        {"metadata": {"name": name}, "spec": {"replicas": 2, "template": {"spec": pod_spec(pool, gpus, **spec)}}},
    )


def release(name: str, chart: str, values: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    return RELEASE, name, {"chart": chart, "name": name, "namespace": "kube-system", "values": values}


DRA_VALUES = {"gpuResourcesEnabledOverride": True, "resources": {"computeDomains": {"enabled": False}}}


def run(
    pack_dir: Path,
    stack: str,
    specs: Sequence[tuple[str, str, dict[str, Any]]],
    config: dict[str, Any] | None = None,
    deps: dict[str, dict[str, str]] | None = None,
) -> set[tuple[str, str, str]]:
    """The GPU-aware findings (policy, resource name, level) of a pack run over ``specs``."""
    types = {name: type_ for type_, name, _ in specs}
    recorded: list[RecordedResource] = [stack_resource(stack)]
    for type_, name, props in specs:
        dependencies = {k: [urn(stack, types[v], v)] for k, v in (deps or {}).get(name, {}).items()}
        recorded.append(resource(stack, type_, name, props, property_dependencies=dependencies))
    report = run_policy_pack(pack_dir, recorded, project="gpu-cloud", stack=stack, config=config or {})
    return {(v.policy, v.name, v.level) for v in report.violations if v.policy in GPU_RULES}


# --- gpu-inference-fallback ----------------------------------------------------------------------------------------

FALLBACK_STACK = [
    # spot only: the pods of "spot-only" may land on one spot group
    node_group("only-spot", "spot-only", "SPOT", [GPU_TAINT_AWS, SPOT_TAINT]),
    deployment("spot-only", "spot-only", tolerations=[GPU_TOLERATION, SPOT_TOLERATION]),
    # a SpotGpuGroup: spot and on-demand groups of one pool label
    node_group("group-spot", "group", "SPOT", [GPU_TAINT_AWS, SPOT_TAINT]),
    node_group("group-ondemand", "group"),
    deployment("with-fallback", "group", tolerations=[GPU_TOLERATION, SPOT_TOLERATION]),
    # the fall-back exists but carries a taint the pods do not tolerate: unreachable
    node_group("walled-spot", "walled", "SPOT", [GPU_TAINT_AWS, SPOT_TAINT]),
    node_group(
        "walled-ondemand", "walled", taints=[GPU_TAINT_AWS, {"key": "team", "value": "a", "effect": "NO_EXECUTE"}]
    ),
    deployment("fallback-unreachable", "walled", tolerations=[GPU_TOLERATION, SPOT_TOLERATION]),
    # no GPU request: not GPU inference
    deployment("cpu-only", "spot-only", gpus=0, tolerations=[GPU_TOLERATION, SPOT_TOLERATION]),
    # ACK: a spot pool that falls back to on-demand nodes, and one that does not
    ack_pool("ack-compensated", "ack-a", spotStrategy="SpotAsPriceGo", compensateWithOnDemand=True),
    deployment("ack-compensated", "ack-a"),
    ack_pool("ack-spot", "ack-b", spotStrategy="SpotWithPriceLimit"),
    deployment("ack-spot", "ack-b"),
    # its pools are outside the stack (Karpenter, another stack): not judged
    deployment("elsewhere", "not-in-this-stack"),
    # a capacity type the pack cannot read yet: could not decide, never a pass
    node_group("unknown-capacity", "unknown", UNKNOWN),
    deployment("capacity-unknown", "unknown"),
]


def test_latency_critical_inference_needs_an_on_demand_fallback(pack_dir: Path) -> None:
    assert run(pack_dir, "prod", FALLBACK_STACK) == {
        (FALLBACK, "spot-only", M),
        (FALLBACK, "fallback-unreachable", M),
        (FALLBACK, "ack-spot", M),
        (FALLBACK, "capacity-unknown", M),  # could not decide
    }


def test_outside_production_only_critical_priority_counts(pack_dir: Path) -> None:
    specs = [
        node_group("only-spot", "spot-only", "SPOT", [GPU_TAINT_AWS, SPOT_TAINT]),
        deployment("standard", "spot-only", tolerations=[GPU_TOLERATION, SPOT_TOLERATION]),
        deployment(
            "critical", "spot-only", tolerations=[GPU_TOLERATION, SPOT_TOLERATION], priorityClassName="gpu-critical"
        ),
    ]
    assert run(pack_dir, "dev", specs) == {(FALLBACK, "critical", M)}
    assert run(pack_dir, "dev", specs, {FALLBACK: {"criticalPriorityClasses": ["latency"]}}) == set()


# --- gpu-sharing-isolation -----------------------------------------------------------------------------------------

PLUGIN = release(
    "device-plugin",
    "nvidia-device-plugin",
    {"config": {"map": {"default": "version: v1\n", "shared": TIME_SLICED, "mps": MPS}, "default": "default"}},
)
SHARING_STACK = [
    PLUGIN,
    node_group("sliced", "sliced", labels={"nvidia.com/device-plugin.config": "shared"}),
    deployment("on-time-slicing", "sliced"),
    node_group("mps", "mps", labels={"nvidia.com/device-plugin.config": "mps"}),
    deployment("on-mps", "mps"),
    node_group("whole", "whole"),
    deployment("on-whole-gpus", "whole"),
    ack_pool("ack-share", "share", labels=[{"key": "ack.node.gpu.schedule", "value": "share"}]),
    deployment("on-ack-share", "share"),
    ack_pool("ack-cgpu", "cgpu", labels=[{"key": "ack.node.gpu.schedule", "value": "cgpu"}]),
    deployment("on-ack-cgpu", "cgpu"),
]


def test_production_inference_on_gpus_shared_without_isolation_is_advisory(pack_dir: Path) -> None:
    assert run(pack_dir, "prod", SHARING_STACK) == {(SHARING, "on-time-slicing", A), (SHARING, "on-ack-share", A)}


def test_sharing_is_mandatory_with_the_config_switch_and_silent_outside_production(pack_dir: Path) -> None:
    assert run(pack_dir, "prod", SHARING_STACK, {SHARING: "mandatory"}) == {
        (SHARING, "on-time-slicing", M),
        (SHARING, "on-ack-share", M),
    }
    assert run(pack_dir, "staging", SHARING_STACK) == set()


def test_a_time_slicing_default_config_shares_every_unlabelled_node(pack_dir: Path) -> None:
    plugin = release(
        "device-plugin", "nvidia-device-plugin", {"config": {"map": {"all": TIME_SLICED}, "default": "all"}}
    )
    specs = [plugin, node_group("plain", "plain"), deployment("server", "plain")]
    assert run(pack_dir, "prod", specs) == {(SHARING, "server", A)}


# --- gpu-allocator-exclusive ---------------------------------------------------------------------------------------


def _affinity(*pools: str) -> dict[str, Any]:
    expression = {"key": POOL, "operator": "In", "values": list(pools)}
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [expression]}]
            }
        }
    }


BOTTLEROCKET_OFF = base64.b64encode(b"[settings.kubelet-device-plugins.nvidia]\nenabled = false\n").decode()


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        pytest.param(
            [
                node_group("a", "a"),
                release("plugin", "nvidia-device-plugin", {}),
                release("dra", "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu", DRA_VALUES),
            ],
            {(ALLOCATOR, "dra", M)},
            id="both-everywhere",
        ),
        pytest.param(
            [
                node_group("a", "a"),
                node_group("b", "b"),
                release("plugin", "nvidia-device-plugin", {"affinity": _affinity("a")}),
                release("dra", "dra-driver-nvidia-gpu", {**DRA_VALUES, "kubeletPlugin": {"nodeSelector": {POOL: "b"}}}),
            ],
            set(),
            id="disjoint-pools",
        ),
        pytest.param(
            [
                node_group("a", "a"),
                release("plugin", "nvidia-device-plugin", {}),
                release("dra", "dra-driver-nvidia-gpu", {}),
            ],
            set(),
            id="dra-without-gpu-override-allocates-no-gpus",
        ),
        pytest.param(
            [
                node_group("a", "a"),
                release("plugin", "nvidia-device-plugin", {}),
                release("dra", "nvidia-dra-driver-gpu", {**DRA_VALUES, "resources": {"gpus": {"enabled": "false"}}}),
            ],
            set(),
            id="dra-gpus-disabled",
        ),
        pytest.param(
            [
                node_group("a", "a"),
                release("operator", "gpu-operator", {"devicePlugin": {"enabled": False}}),
                release("dra", "dra-driver-nvidia-gpu", DRA_VALUES),
            ],
            set(),
            id="gpu-operator-without-its-plugin",
        ),
        pytest.param(
            [
                node_group("br", "br", amiType="BOTTLEROCKET_x86_64_NVIDIA"),
                release("dra", "dra-driver-nvidia-gpu", DRA_VALUES),
            ],
            {(ALLOCATOR, "dra", M)},
            id="bottlerocket-builtin-plugin",
        ),
        pytest.param(
            [
                (LAUNCH_TEMPLATE, "br-lt", {"name": "br-lt", "userData": BOTTLEROCKET_OFF}),
                node_group("br", "br", amiType="BOTTLEROCKET_x86_64_NVIDIA", launchTemplate={"name": "br-lt"}),
                release("dra", "dra-driver-nvidia-gpu", DRA_VALUES),
            ],
            set(),
            id="bottlerocket-plugin-turned-off",
        ),
        pytest.param(
            [
                release("plugin", "nvidia-device-plugin", {"nodeSelector": {"allocator": "plugin"}}),
                release(
                    "dra",
                    "dra-driver-nvidia-gpu",
                    {**DRA_VALUES, "kubeletPlugin": {"nodeSelector": {"allocator": "dra"}}},
                ),
            ],
            set(),
            id="no-pools-provably-disjoint",
        ),
        pytest.param(
            [
                (
                    DAEMON_SET,
                    "static-plugin",
                    {
                        "spec": {
                            "template": {
                                "spec": {
                                    "containers": [{"name": "p", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.4"}]
                                }
                            }
                        }
                    },
                ),
                release(
                    "dra",
                    "dra-driver-nvidia-gpu",
                    {**DRA_VALUES, "kubeletPlugin": {"nodeSelector": {"allocator": "dra"}}},
                ),
            ],
            {(ALLOCATOR, "dra", M)},
            id="no-pools-plugin-daemonset-everywhere",
        ),
    ],
)
def test_device_plugin_and_dra_driver_never_share_nodes(
    pack_dir: Path, specs: list[tuple[str, str, dict[str, Any]]], expected: set[tuple[str, str, str]]
) -> None:
    assert run(pack_dir, "dev", specs) == expected


# --- gpu-reservation-drain -----------------------------------------------------------------------------------------


def jobset(name: str, pool: str, grace: int | None) -> tuple[str, str, dict[str, Any]]:
    spec = pod_spec(pool, **({"terminationGracePeriodSeconds": grace} if grace is not None else {}))
    return (
        JOBSET,
        name,
        {"spec": {"replicatedJobs": [{"name": "workers", "template": {"spec": {"template": {"spec": spec}}}}]}},
    )


def test_capacity_block_pods_must_stop_within_the_drain_window(pack_dir: Path) -> None:
    specs = [
        node_group("block", "block", "CAPACITY_BLOCK"),
        jobset("slow-checkpoint", "block", 900),
        jobset("fast-checkpoint", "block", 300),
        jobset("default-grace", "block", None),
        node_group("ondemand", "ondemand"),
        jobset("elsewhere", "ondemand", 3600),
    ]
    assert run(pack_dir, "dev", specs) == {(DRAIN, "slow-checkpoint", M)}


def test_a_self_managed_capacity_block_group_needs_a_scale_down(pack_dir: Path) -> None:
    template = (
        LAUNCH_TEMPLATE,
        "block-lt",
        {"name": "block-lt", "instanceType": "p5.48xlarge", "instanceMarketOptions": {"marketType": "capacity-block"}},
    )
    group = (
        ASG,
        "block-asg",
        {"name": "block-asg", "launchTemplate": {"id": UNKNOWN, "version": "1"}, "maxSize": 2, "minSize": 0},
    )
    other = (
        ASG,
        "plain-asg",
        {"name": "plain-asg", "launchTemplate": {"name": "plain-lt"}, "maxSize": 2, "minSize": 0},
    )
    plain = (LAUNCH_TEMPLATE, "plain-lt", {"name": "plain-lt", "instanceType": "p5.48xlarge"})
    deps = {"block-asg": {"launchTemplate": "block-lt"}}
    assert run(pack_dir, "dev", [template, group, plain, other], deps=deps) == {(DRAIN, "block-asg", M)}
    schedule = (
        SCHEDULE,
        "scale-down",
        {"autoscalingGroupName": UNKNOWN, "desiredCapacity": 0, "minSize": 0, "maxSize": 0},
    )
    deps["scale-down"] = {"autoscalingGroupName": "block-asg"}
    assert run(pack_dir, "dev", [template, group, plain, other, schedule], deps=deps) == set()


# --- never crashes, unknown never passes silently ------------------------------------------------------------------

RULES: dict[str, StackRule] = {
    rule.name: rule
    for rule in (
        gpu_inference_fallback.RULE,
        gpu_sharing_isolation.RULE,
        gpu_allocator_exclusive.RULE,
        gpu_reservation_drain.RULE,
    )
}
# One stack with a finding of every rule: spot-only critical inference on time-sliced GPUs, a DRA driver beside the
# device plugin, a JobSet too slow for a Capacity Block's drain window.
FUZZ_STACK = [
    release("plugin", "nvidia-device-plugin", {"config": {"map": {"shared": TIME_SLICED}, "default": "shared"}}),
    release("dra", "dra-driver-nvidia-gpu", DRA_VALUES),
    node_group("spot", "serve", "SPOT", [GPU_TAINT_AWS, SPOT_TAINT]),
    deployment("server", "serve", tolerations=[GPU_TOLERATION, SPOT_TOLERATION]),
    node_group("block", "block", "CAPACITY_BLOCK"),
    jobset("trainer", "block", 900),
    ack_pool("ack", "ack", taints=[GPU_TAINT_ALICLOUD], labels=[{"key": "ack.node.gpu.schedule", "value": "share"}]),
]


def _stack(specs: Sequence[tuple[str, str, dict[str, Any]]]) -> list[StackResource]:
    return [StackResource(urn("prod", t, n), t, wire(p), True, {}) for t, n, p in specs]


def _verdicts(resources: list[StackResource]) -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for rule in RULES.values():
        mine = [r for r in resources if r.type in rule.resource_types]
        for finding in run_stack_rule(rule, mine, effective_config(rule, None), "prod"):
            found.setdefault((rule.name, finding.urn), []).append(finding.message)
    return found


def test_the_fuzzed_stack_has_a_finding_of_every_rule() -> None:
    assert {name for name, _ in _verdicts(_stack(FUZZ_STACK))} == set(RULES)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return (
            [path] + [p for k, v in value.items() for p in _paths(v, (*path, k))]
            if path
            else [p for k, v in value.items() for p in _paths(v, (k,))]
        )
    if isinstance(value, list):
        return [path] + [p for i, v in enumerate(value) for p in _paths(v, (*path, i))]
    return [path]


def _replaced(props: dict[str, Any], path: tuple[Any, ...], junk: Any) -> dict[str, Any]:
    import copy

    result = copy.deepcopy(props)
    parent: Any = result
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = junk
    return result


JUNK = st.one_of(
    st.sampled_from([UNKNOWN, None, [], {}, [[]], "", 0, -1.5, True, "true", {"a": [[{}]]}, "NO_SCHEDULE"]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=4),
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
        max_leaves=4,
    ),
)
FUZZ_PATHS = [(i, path) for i, (_, _, props) in enumerate(FUZZ_STACK) for path in _paths(props)]


@settings(max_examples=400, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_junk_anywhere_in_the_gpu_shapes_never_crashes(data: st.DataObject) -> None:
    specs = list(FUZZ_STACK)
    for index, path in data.draw(st.lists(st.sampled_from(FUZZ_PATHS), min_size=1, max_size=3, unique=True)):
        type_, name, props = specs[index]
        try:
            specs[index] = (type_, name, _replaced(props, path, data.draw(JUNK)))
        except (KeyError, IndexError, TypeError):
            continue  # a shorter path already replaced its parent
    for messages in _verdicts(_stack(specs)).values():
        assert all(isinstance(m, str) and m for m in messages)


# Values each rule's finding in FUZZ_STACK rests on: unknown there, the rule still reports (could not decide).
DECIDING = [
    (FALLBACK, 3, ("spec", "template", "spec", "nodeSelector", POOL)),
    (FALLBACK, 2, ("capacityType",)),
    (SHARING, 0, ("values", "config", "map", "shared")),
    (SHARING, 3, ("spec", "template", "spec", "containers")),
    (ALLOCATOR, 1, ("values", "gpuResourcesEnabledOverride")),
    (ALLOCATOR, 0, ("values",)),
    (DRAIN, 4, ("capacityType",)),
    (DRAIN, 5, ("spec", "replicatedJobs", 0, "template", "spec", "template", "spec", "terminationGracePeriodSeconds")),
]


@pytest.mark.parametrize(("rule", "index", "path"), DECIDING, ids=[f"{r}-{i}-{p[-1]}" for r, i, p in DECIDING])
def test_an_unknown_deciding_value_never_passes(rule: str, index: int, path: tuple[Any, ...]) -> None:
    specs = list(FUZZ_STACK)
    type_, name, props = specs[index]
    specs[index] = (type_, name, _replaced(props, path, UNKNOWN))
    reported = [m for (policy, _), messages in _verdicts(_stack(specs)).items() if policy == rule for m in messages]
    assert reported, f"{rule} passed with {name}.{'.'.join(map(str, path))} unknown"
