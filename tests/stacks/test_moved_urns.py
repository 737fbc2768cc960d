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
from tests.stacks.test_environments import STACKS, plan

OLD = json.loads((Path(__file__).parent / "urns_d33a4b8.json").read_text())
WRAPPERS = {"gpucloud:aws:GpuEnvironment", "gpucloud:alicloud:GpuEnvironment", "gpucloud:k8s:KubernetesLayer"}
ADDED = {
    # The ACK API server's allow list (review alicloud.md F3) and the deployer roles' cluster administration (F4).
    ("alicloud:slb/acl:Acl", ".+"),
    ("alicloud:slb/aclEntryAttachment:AclEntryAttachment", ".+"),
    ("alicloud:oos/template:Template", ".+"),
    ("alicloud:oos/execution:Execution", ".+"),
    ("gpucloud:alicloud:ClusterAdmins", ".+"),
    # Terway's pod vswitches and their SNAT entries (F7).
    ("alicloud:vpc/switch:Switch", r".+-pod-vswitch-\d+"),
    ("alicloud:vpc/snatEntry:SnatEntry", r".+-pod-snat-\d+"),
}
"""Resources added on purpose after d33a4b8, as (type, name pattern): new resources, which no old URN names."""


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


@pytest.mark.parametrize("stack", STACKS)
def test_every_old_resource_is_found_under_its_urn_or_an_alias_by_exactly_one_resource(stack: str) -> None:
    olds = set(OLD[stack])
    resources = plan(stack).resources
    found = found_by_the_engine(resources, olds)
    claimed = sorted(found.values())
    assert [urn for urn in claimed if claimed.count(urn) > 1] == []
    assert olds - set(claimed) == set()
    # Only the new wrappers and what was added on purpose are new; everything else is an old resource.
    new = [r for r in resources if r.urn not in found]
    assert {r.type for r in new if r.type in WRAPPERS} == WRAPPERS & {r.type for r in resources}
    added = [r for r in new if any(r.type == t and re.fullmatch(n, r.name) for t, n in ADDED)]
    assert [r.urn for r in new if r.type not in WRAPPERS and r not in added] == []


@pytest.mark.parametrize("stack", STACKS)
def test_the_moved_resources_are_found_by_an_alias_not_by_chance(stack: str) -> None:
    # The engine would not find them without their aliases: today's URNs differ from the old ones.
    resources = plan(stack).resources
    unchanged = {r.type for r in resources if r.urn in set(OLD[stack])}
    assert unchanged == {"pulumi:pulumi:Stack", f"pulumi:providers:{'alicloud' if stack == 'prod-cn' else 'aws'}"}
    without_aliases = tuple(
        RecordedResource(**{**vars(r), "aliases": ()}) if r.type not in WRAPPERS else r for r in resources
    )
    assert len(found_by_the_engine(without_aliases, set(OLD[stack]))) < len(OLD[stack]) / 2


def test_an_inherited_alias_keeps_the_type_chain_and_name_of_the_old_parent() -> None:
    key = next(r for r in plan("dev").resources if r.type == "aws:kms/key:Key")
    old_parent = "urn:pulumi:dev::gpu-cloud::gpucloud:aws:KmsKey::dev-kms"
    assert _inherited(key, key.type, key.name, old_parent) == (
        "urn:pulumi:dev::gpu-cloud::gpucloud:aws:KmsKey$aws:kms/key:Key::dev-kms-key"
    )
