"""Every resource the stacks had before the environment moved into GpuEnvironment and KubernetesLayer is found again
by the engine, under its old URN or through an alias, so `pulumi up` of an existing stack replaces nothing.

The old URNs are recorded in urns_d33a4b8.json (how: its "_how"). The engine's rule is applied to today's plan: a
resource is the old one whose URN is its own or one of its aliases; a child of a resource found by an alias also
has the aliases it inherits from that parent (pulumi/pulumi pkg/resource/deploy/step_generator.go,
``generateAliases``, ``inheritedChildAlias`` and ``collapseAliasToUrn``, read 2026-12-03), and two resources may not
claim one old URN.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpu_cloud.planner.model import RecordedResource
from tests.stacks.test_environments import ON_NODE_GROUPS, plan

OLD = json.loads((Path(__file__).parent / "urns_d33a4b8.json").read_text())
MOVED = ("prod-cn", *ON_NODE_GROUPS)
"""The stacks as they were before the move: staging and prod on node groups (they run Karpenter since)."""
WRAPPERS = {"gpucloud:aws:GpuEnvironment", "gpucloud:alicloud:GpuEnvironment", "gpucloud:k8s:KubernetesLayer"}
ADDED = re.compile(r"^[a-z-]+?-(ebs-csi|workload-identities|llm(?!-pretrain))(-.*)?$|-gpucloud-(encrypted|acceptance)$")
"""What issue 25 added after d33a4b8 (the EBS CSI driver, the workload-identity policy, prod's and prod-cn's vLLM
service ``llm``, the encrypted StorageClass, the acceptance queue)."""
DATA_VPC_INTERFACE_ENDPOINTS = {"endpoints-sg", "ecr-api", "ecr-dkr", "sts", "ec2", "logs"}
"""The children of a data network (``<env>-data-network-<part>``) that were its interface endpoints."""


ALICLOUD_ADDED = {
    # The ACK API server's allow list (alicloud.md F3) and the deployer roles' cluster administration (F4).
    ("alicloud:slb/acl:Acl", ".+"),
    ("alicloud:slb/aclEntryAttachment:AclEntryAttachment", ".+"),
    ("alicloud:oos/template:Template", ".+"),
    ("alicloud:oos/execution:Execution", ".+"),
    ("gpucloud:alicloud:ClusterAdmins", ".+"),
    ("alicloud:cs/kubernetesPermission:KubernetesPermission", r".+-admins-.+"),
    # Terway's pod vswitches and their SNAT entries (F7).
    ("alicloud:vpc/switch:Switch", r".+-pod-vswitch-\d+"),
    ("alicloud:vpc/snatEntry:SnatEntry", r".+-pod-snat-\d+"),
}
"""prod-cn's resources added after d33a4b8, as (type, name pattern)."""


def added_on_purpose(stack: str, resource: RecordedResource) -> bool:
    """What issues 24 and 25 added after d33a4b8: the deployer role's EKS access entry (aws.md A8), :data:`ADDED`,
    staging's own data VPC (the stack it referenced was in no backend of the documented sequence) and prod-cn's
    :data:`ALICLOUD_ADDED`."""
    if resource.name.startswith(f"{stack}-gpu-admin-") or ADDED.search(resource.name):
        return True
    if stack == "prod-cn":
        return any(resource.type == t and re.fullmatch(n, resource.name) for t, n in ALICLOUD_ADDED)
    return stack == "staging" and resource.name.startswith(("staging-data-network", "staging-peer-kms", "aws-peer"))


def removed_on_purpose(old: str) -> bool:
    """What issue 24 removed after d33a4b8: the interface endpoints of data VPCs, where no node runs (aws.md A11), and
    prod-cn's security group rule on 6443, which gated nothing behind ACK's API load balancer (alicloud.md F3)."""
    if old == "urn:pulumi:prod-cn::gpu-cloud::alicloud:ecs/securityGroupRule:SecurityGroupRule::prod-cn-deploy-api":
        return True
    _, data_network, part = _name(old).partition("-data-network-")
    return bool(data_network) and part in DATA_VPC_INTERFACE_ENDPOINTS


def _qualified_type(urn: str) -> str:
    return urn.split("::")[2]


def _name(urn: str) -> str:
    return urn.split("::", 3)[3]


def _inherited(resource: RecordedResource, type_: str, name: str, parent_alias: str) -> str:
    """inheritedChildAlias: the child under its parent's old URN; a name that starts with the parent's name gets the
    old parent's name instead."""
    parent_name = _name(resource.parent)
    if name.startswith(parent_name):
        name = _name(parent_alias) + name[len(parent_name) :]
    stack_and_project = parent_alias.split("::")[:2]
    return "::".join([*stack_and_project, f"{_qualified_type(parent_alias)}${type_}", name])


def found_by_the_engine(resources: tuple[RecordedResource, ...], olds: set[str]) -> dict[str, str]:
    """New URN -> the old URN the engine finds it under (itself, an alias or an inherited alias), parents first."""
    found: dict[str, str] = {}
    matched_alias: dict[str, str] = {}
    for resource in sorted(resources, key=lambda r: _qualified_type(r.urn).count("$")):
        candidates = [resource.urn, *resource.aliases]
        parent_alias = matched_alias.get(resource.parent)
        if parent_alias is not None:
            own = (resource.type, resource.name)
            listed = [(_qualified_type(a).rsplit("$", 1)[-1], _name(a)) for a in resource.aliases]
            candidates += [_inherited(resource, type_, name, parent_alias) for type_, name in [own, *listed]]
        old = next((urn for urn in candidates if urn in olds), None)
        if old is not None:
            found[resource.urn] = old
            if old != resource.urn:
                matched_alias[resource.urn] = old
    return found


@pytest.mark.parametrize("stack", MOVED)
def test_every_old_resource_is_found_under_its_urn_or_an_alias_by_exactly_one_resource(stack: str) -> None:
    env = stack.partition("@")[0]
    olds = {urn for urn in OLD[env] if not removed_on_purpose(urn)}
    resources = plan(stack).resources
    found = found_by_the_engine(resources, olds)
    claimed = sorted(found.values())
    assert [urn for urn in claimed if claimed.count(urn) > 1] == []
    assert olds - set(claimed) == set()
    # Only the new wrappers (and what issues 24 and 25 added) are new; everything else is an old resource.
    new = [r for r in resources if r.urn not in found and not added_on_purpose(env, r)]
    assert {r.type for r in new} == WRAPPERS & {r.type for r in resources}


@pytest.mark.parametrize("stack", MOVED)
def test_the_moved_resources_are_found_by_an_alias_not_by_chance(stack: str) -> None:
    # The engine would not find them without their aliases: today's URNs differ from the old ones.
    resources = plan(stack).resources
    old = OLD[stack.partition("@")[0]]
    unchanged = {r.type for r in resources if r.urn in set(old)}
    assert unchanged == {"pulumi:pulumi:Stack", f"pulumi:providers:{'alicloud' if stack == 'prod-cn' else 'aws'}"}
    without_aliases = tuple(
        RecordedResource(**{**vars(r), "aliases": ()}) if r.type not in WRAPPERS else r for r in resources
    )
    assert len(found_by_the_engine(without_aliases, set(old))) < len(old) / 2


def test_an_inherited_alias_keeps_the_type_chain_and_name_of_the_old_parent() -> None:
    key = next(r for r in plan("dev").resources if r.type == "aws:kms/key:Key")
    old_parent = "urn:pulumi:dev::gpu-cloud::gpucloud:aws:KmsKey::dev-kms"
    assert _inherited(key, key.type, key.name, old_parent) == (
        "urn:pulumi:dev::gpu-cloud::gpucloud:aws:KmsKey$aws:kms/key:Key::dev-kms-key"
    )
