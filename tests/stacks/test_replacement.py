"""A change the cloud cannot make in place replaces a GPU node group without taking the pool down first: Pulumi
creates the replacement, then deletes the old group.

The chain, each link read at its source (2026-12-03):
- terraform-provider-aws ``internal/service/eks/node_group.go`` (commit 012e0a32f0686212f447447fd3d81c3d0ce256ad)
  marks ami_type, capacity_type, cluster_name, disk_size, instance_types, launch_template id/name,
  node_group_name(_prefix), node_role_arn, remote_access and subnet_ids ForceNew: a change of any of them is a
  replacement.
- pulumi/pulumi ``pkg/resource/deploy/step_generator.go``: a replacement deletes first when the provider's Diff
  asks for it (``diff.DeleteBeforeReplace``) or the resource option ``deleteBeforeReplace`` says so; otherwise it
  creates the new resource first and deletes the old one last.
- pulumi-terraform-bridge ``pkg/tfbridge/schema.go`` ``nameRequiresDeleteBeforeReplace``: the Diff asks for it when
  the inputs hold an auto-named property that the auto-namer did not fill in (pulumi-aws has no UniqueNameFields
  for node groups), and pulumi-aws ``provider/resources.go`` auto-names ``nodeGroupName`` of aws_eks_node_group.
- A replacement created first must not collide with the old group's name: named by prefix, the group gets a name
  Terraform generates at every create (``create.Name``).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from gpu_cloud.components.aws.expander import FALLBACK_PRIORITY, OTHER_PRIORITY, SPOT_PRIORITY, priority_of
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.project import load_project
from tests.stacks.test_environments import ON_NODE_GROUPS, ROOT, of_type
from tests.stacks.test_environments import settings as environment_settings

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
NODE_POOL = "alicloud:cs/nodePool:NodePool"
AUTO_NAMED = {NODE_GROUP: "nodeGroupName", NODE_POOL: "name"}
"""The auto-named input of each pool type: pulumi-aws provider/resources.go ``tfbridge.AutoName("nodeGroupName", ...)``;
pulumi-alicloud provider/resources.go ``SetAutonaming(255, "-")``, which names the Terraform ``name`` field of
alicloud_cs_kubernetes_node_pool (deprecated for ``node_pool_name``, which is not auto-named), read 2026-12-03."""
FORCE_NEW = {
    NODE_GROUP: {
        "amiType",
        "capacityType",
        "clusterName",
        "diskSize",
        "instanceTypes",
        "nodeGroupName",
        "nodeGroupNamePrefix",
        "nodeRoleArn",
        "remoteAccess",
        "subnetIds",
    },
    # terraform-provider-alicloud resource_alicloud_cs_kubernetes_node_pool.go (v1.285.0 to v1.289.0, the same
    # at each; no CustomizeDiff): node_pool_name, instance_types, vswitch_ids, scaling_config, labels, taints, spot
    # settings and disks change in place.
    NODE_POOL: {
        "autoMode",
        "cisEnabled",
        "clusterId",
        "deploymentSetId",
        "instanceMetadataOptions",
        "loginAsNonRoot",
        "nodeNameMode",
        "ramRoleName",
        "securityGroupId",
        "securityGroupIds",
        "securityHardeningOs",
        "socEnabled",
        "teeConfig",
        "type",
    },
}
"""Top-level inputs whose change replaces the pool (terraform-provider-aws node_group.go ``ForceNew``)."""
AWS_STACKS = ON_NODE_GROUPS
OTHER_SPOT_TYPE = "g5.2xlarge"
"""Another type of prod's spot group's GPU model (the catalog's g5 family)."""


def replacement_steps(resource: RecordedResource) -> tuple[str, str]:
    """The order in which the engine replaces ``resource``: ("delete", "create") or ("create", "delete")."""
    provider_asks = AUTO_NAMED[resource.type] in resource.inputs
    delete_first = resource.delete_before_replace or provider_asks
    return ("delete", "create") if delete_first else ("create", "delete")


def replaced_by(before: RecordedResource, after: RecordedResource) -> set[str]:
    """The ForceNew inputs that differ between two plans of one resource: their values, or the resources their
    values come from (ids unknown offline, such as subnet ids, are known and differ in a real preview)."""

    def source(r: RecordedResource, key: str) -> tuple[Any, set[str]]:
        return r.inputs.get(key), set(r.property_dependencies.get(key, ()))

    return {key for key in FORCE_NEW[before.type] if source(before, key) != source(after, key)}


@cache
def changed_prod() -> Plan:
    """prod planned with two changes EKS cannot make in place: the spot group's instance type changed (aws.md D2's
    example), and the training pool moved to the next zone."""
    project = load_project(ROOT)
    settings = environment_settings("prod@nodegroups")
    config = dict(settings.config)
    spot = json.loads(config["gpu-cloud:spotGroups"])
    assert spot[0]["instanceTypes"] != [OTHER_SPOT_TYPE]
    spot[0]["instanceTypes"] = [OTHER_SPOT_TYPE]
    pools = json.loads(config["gpu-cloud:nodePools"])
    zones = [subnet["zone"] for subnet in json.loads(config["gpu-cloud:network"])["privateSubnets"]]
    pools[0]["zones"] = [zones[(zones.index(pools[0]["zones"][0]) + 1) % len(zones)]]
    config |= {"gpu-cloud:spotGroups": json.dumps(spot), "gpu-cloud:nodePools": json.dumps(pools)}
    changed = type(settings)(settings.name, settings.file, config, settings.secret_keys)
    return run_program(project, changed, load_offline_answers(project.config_dir))


@pytest.mark.parametrize("stack", AWS_STACKS)
def test_every_node_group_is_replaced_create_first(stack: str) -> None:
    groups = of_type(stack, NODE_GROUP)
    assert groups
    assert {r.name: replacement_steps(r) for r in groups} == {r.name: ("create", "delete") for r in groups}
    assert all(r.inputs["nodeGroupNamePrefix"].endswith("-") for r in groups)
    # The same groups given their name, as gpu-cloud declared them before, are deleted first.
    named = [RecordedResource(**{**vars(r), "inputs": r.inputs | {"nodeGroupName": r.name}}) for r in groups]
    assert {replacement_steps(r) for r in named} == {("delete", "create")}


def test_ack_node_pools_are_replaced_create_first_and_only_with_their_cluster() -> None:
    # A pool keeps its node_pool_name through a replacement; ACK's word on two pools of one name in a cluster was not
    # found. Of the ForceNew inputs a pool sets, only clusterId can change (instanceMetadataOptions is gpu-cloud's
    # constant), and then the replacement lives in another cluster: no two pools of one name meet.
    pools = of_type("prod-cn", NODE_POOL)
    assert pools
    assert {replacement_steps(r) for r in pools} == {("create", "delete")}
    assert {key for r in pools for key in FORCE_NEW[NODE_POOL] & set(r.inputs)} == {
        "clusterId",
        "instanceMetadataOptions",
    }
    assert {json.dumps(r.inputs["instanceMetadataOptions"], sort_keys=True) for r in pools} == {
        json.dumps({"httpTokens": "required"}, sort_keys=True)
    }


def test_a_force_new_change_plans_the_replacement_before_the_delete() -> None:
    before = {r.urn: r for r in of_type("prod@nodegroups", NODE_GROUP)}
    replaced = {
        r.name: (replaced_by(before[r.urn], r), replacement_steps(r))
        for r in changed_prod().resources
        if r.type == NODE_GROUP and replaced_by(before[r.urn], r)
    }
    assert replaced == {
        "prod-training-spot-spot": ({"instanceTypes"}, ("create", "delete")),
        "prod-training-spot-ondemand": ({"instanceTypes"}, ("create", "delete")),
        "prod-training-h100-nodes": ({"subnetIds"}, ("create", "delete")),
    }


def test_while_old_and_new_node_groups_both_exist_spot_still_ranks_above_its_fall_back() -> None:
    # The replacement and the group it replaces share a prefix, and differ in their generated part.
    (autoscaler,) = [r for r in changed_prod().resources if r.name == "prod-gpu-addons-cluster-autoscaler"]
    priorities = autoscaler.inputs["values"]["expanderPriorities"]
    uuid = "0123abcd-4567-89ef-0123-456789abcdef"
    old, new = "202612011200000000" + "00000001", "202612031545123456" + "0000002f"
    ranks = {
        (pool, when): priority_of(f"eks-{pool}-{generated}-{uuid}", priorities)
        for pool in ("training-spot-spot", "training-spot-ondemand", "training-h100")
        for when, generated in (("old", old), ("new", new))
    }
    assert ranks == {
        ("training-spot-spot", "old"): SPOT_PRIORITY,
        ("training-spot-spot", "new"): SPOT_PRIORITY,
        ("training-spot-ondemand", "old"): FALLBACK_PRIORITY,
        ("training-spot-ondemand", "new"): FALLBACK_PRIORITY,
        ("training-h100", "old"): OTHER_PRIORITY,
        ("training-h100", "new"): OTHER_PRIORITY,
    }
