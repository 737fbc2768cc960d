"""The training layer of each environment against the nodes the same plan creates: every Kueue flavor selects exactly
the node groups (pools) it stands for, with their taints, and each team queue tries spot before on-demand."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_cloud.planner.model import RecordedResource
from tests.stacks.test_environments import plan

KUEUE_STACKS = ("staging", "prod", "prod-cn")
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def _of(stack: str, kind: str) -> list[RecordedResource]:
    return [r for r in plan(stack).resources if r.type.endswith(f":{kind}")]


def _nodes(stack: str) -> dict[str, tuple[dict[str, str], list[dict[str, str]]]]:
    """Labels and taints (Kubernetes effect names) of every node group or node pool, by resource name."""
    nodes = {}
    for r in [*_of(stack, "NodeGroup"), *_of(stack, "NodePool")]:
        raw: Any = r.inputs.get("labels") or {}
        found = raw if isinstance(raw, dict) else {item["key"]: item["value"] for item in raw}
        taints = [
            {"key": t["key"], "value": t["value"], "effect": EFFECTS.get(t["effect"], t["effect"])}
            for t in r.inputs.get("taints") or []
        ]
        nodes[r.name] = (found, taints)
    return nodes


def _selected(stack: str, flavor: RecordedResource) -> list[str]:
    spec = flavor.inputs["spec"]
    wanted = spec["nodeLabels"]
    return sorted(name for name, (found, _) in _nodes(stack).items() if wanted.items() <= found.items())


@pytest.mark.parametrize("stack", KUEUE_STACKS)
def test_every_flavor_selects_one_gpu_node_group_and_carries_its_spot_taint(stack: str) -> None:
    nodes = _nodes(stack)
    for flavor in _of(stack, "ResourceFlavor"):
        [group] = _selected(stack, flavor)
        spot_taints = [t for t in nodes[group][1] if t["key"] == "gpucloud.io/capacity"]
        assert flavor.inputs["spec"].get("nodeTaints", []) == spot_taints, flavor.name


def test_prod_flavors_are_the_h100_pool_and_the_spot_group_with_its_fall_back() -> None:
    selected = {f.inputs["metadata"]["name"]: _selected("prod", f) for f in _of("prod", "ResourceFlavor")}
    assert selected == {
        "training-h100": ["prod-training-h100-nodes"],
        "training-spot-spot": ["prod-training-spot-spot"],
        "training-spot-ondemand": ["prod-training-spot-ondemand"],
    }


def test_prod_cn_flavors_are_the_training_pool_and_the_batch_spot_pool_with_its_fall_back() -> None:
    selected = {f.inputs["metadata"]["name"]: _selected("prod-cn", f) for f in _of("prod-cn", "ResourceFlavor")}
    assert selected == {
        "training": ["prod-cn-training-pool"],
        "batch-spot": ["prod-cn-batch-spot"],
        "batch-ondemand": ["prod-cn-batch-ondemand"],
    }


@pytest.mark.parametrize("stack", ("prod", "prod-cn"))
def test_team_queues_try_the_spot_flavor_before_its_on_demand_fall_back(stack: str) -> None:
    for queue in _of(stack, "ClusterQueue"):
        [group] = queue.inputs["spec"]["resourceGroups"]
        order = [f["name"] for f in group["flavors"]]
        spot = [i for i, name in enumerate(order) if name.endswith("-spot")]
        assert spot, queue.name
        for i in spot:
            assert order[i + 1] == order[i].removesuffix("-spot") + "-ondemand", (queue.name, order)


@pytest.mark.parametrize("stack", KUEUE_STACKS)
def test_each_team_queue_has_its_local_queue_in_the_training_namespace(stack: str) -> None:
    clusters = sorted(q.inputs["metadata"]["name"] for q in _of(stack, "ClusterQueue"))
    locals_ = sorted(
        (q.inputs["metadata"]["namespace"], q.inputs["spec"]["clusterQueue"]) for q in _of(stack, "LocalQueue")
    )
    assert locals_ == [("gpu-training", name) for name in clusters]
