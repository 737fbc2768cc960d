"""The training layer of each environment against the nodes the same plan creates: every Kueue flavor selects exactly
the node groups (pools) it stands for, with their taints, and each team queue tries spot before on-demand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpu_cloud.planner.model import RecordedResource
from tests.stacks.test_environments import plan

KUEUE_STACKS = ("staging", "prod", "prod-cn", "staging@nodegroups", "prod@nodegroups")
EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def _of(stack: str, kind: str) -> list[RecordedResource]:
    return [r for r in plan(stack).resources if r.type.endswith(f":{kind}")]


def _nodes(stack: str) -> dict[str, tuple[dict[str, str], list[dict[str, str]]]]:
    """Labels and taints (Kubernetes effect names) of every node group or node pool, by resource name."""
    nodes = {}
    for r in [*_of(stack, "NodeGroup"), *_of(stack, "NodePool")]:
        if r.type == "kubernetes:karpenter.sh/v1:NodePool":
            template = r.inputs["spec"]["template"]
            nodes[r.name] = (template["metadata"]["labels"], template["spec"]["taints"])
            continue
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
        "training-h100": ["prod-training-h100-training-h100"],
        "training-spot-spot": ["prod-training-spot-training-spot-spot"],
        "training-spot-ondemand": ["prod-training-spot-training-spot-ondemand"],
    }
    stack = "prod@nodegroups"
    selected = {f.inputs["metadata"]["name"]: _selected(stack, f) for f in _of(stack, "ResourceFlavor")}
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


def _jobset(stack: str, name: str) -> dict[str, Any]:
    [found] = [r.inputs for r in _of(stack, "JobSet") if r.inputs["metadata"]["name"] == name]
    return found


@pytest.mark.parametrize("stack", ("prod", "prod-cn"))
def test_the_example_job_runs_on_two_8_gpu_nodes_of_a_declared_queue(stack: str) -> None:
    job = _jobset(stack, "llm-pretrain")
    queue = job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    assert queue in [q.inputs["metadata"]["name"] for q in _of(stack, "LocalQueue")]
    [replicated] = job["spec"]["replicatedJobs"]
    assert replicated["template"]["spec"]["parallelism"] == 2
    [container] = replicated["template"]["spec"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "8"


def test_prod_job_reaches_only_its_checkpoint_prefix_through_its_own_pod_identity() -> None:
    [association] = [r for r in _of("prod", "PodIdentityAssociation") if r.inputs["serviceAccount"] == "llm-pretrain"]
    assert association.inputs["namespace"] == "gpu-training"
    [policy] = [r for r in _of("prod", "RolePolicy") if r.name == "prod-llm-pretrain-identity-policy"]
    statements = json.loads(policy.inputs["policy"])["Statement"]
    resources = [s["Resource"] for s in statements if s["Sid"] == "ReadCheckpoints"]
    assert len(resources) == 1 and resources[0].endswith("/jobs/llm-pretrain/*")
    listing = [s for s in statements if s["Sid"] == "ListCheckpoints"]
    assert listing[0]["Condition"] == {"StringLike": {"s3:prefix": ["jobs/llm-pretrain/", "jobs/llm-pretrain/*"]}}
    pod = _jobset("prod", "llm-pretrain")["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "llm-pretrain"


def test_prod_cn_job_reaches_only_its_checkpoint_prefix_through_its_own_rrsa_role() -> None:
    [account] = [r for r in _of("prod-cn", "ServiceAccount") if r.inputs["metadata"]["name"] == "llm-pretrain"]
    role = account.inputs["metadata"]["annotations"]["pod-identity.alibabacloud.com/role-name"]
    [ram_role] = [r for r in _of("prod-cn", "Role") if r.type.startswith("alicloud:") and r.inputs["roleName"] == role]
    # Its trust policy (rrsa_trust_policy, unknown until the cluster exists) names this namespace/ServiceAccount.
    assert ram_role.inputs["description"] == "RRSA role of gpu-training/llm-pretrain"
    [policy] = [r for r in _of("prod-cn", "Policy") if r.name == "prod-cn-llm-pretrain-identity-policy"]
    document = json.loads(policy.inputs["policyDocument"])
    objects = [s["Resource"] for s in document["Statement"] if "oss:PutObject" in s["Action"]]
    assert len(objects) == 1 and objects[0][0].endswith("/jobs/llm-pretrain/*")


@pytest.mark.parametrize(
    ("stack", "pool"), [("staging", "training-a10g"), ("prod", "training-h100"), ("prod-cn", "training")]
)
def test_each_listed_pool_gets_its_acceptance_job(stack: str, pool: str) -> None:
    job = _jobset(stack, f"accept-{pool}")
    worker = job["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert worker["nodeSelector"] == {"gpucloud.io/pool": pool}
