"""The cluster autoscaler's priority expander on EKS: exact patterns per node group, spot above its fall-back.

The expander (kubernetes/autoscaler cluster-autoscaler/expander/priority/priority.go at cluster-autoscaler-1.35.0,
the appVersion of the pinned chart 9.59.0, the same matching since 1.31.0; read 2026-12-02) compiles every
pattern with Go's ``regexp.Compile`` and matches it against the node group id with ``FindStringIndex``: an
unanchored search. A group gets the highest priority whose list matches it, and a group no pattern matches "won't
be used". On AWS the node group id is the Auto Scaling group's name, which EKS sets to
``eks-<nodegroup name>-<nodegroup uuid>`` for a managed node group (terraform-aws-modules/terraform-aws-eks#3007,
eksctl-io/eksctl#7543). The node group name is itself generated (:func:`node_group_name_prefix`), so the pattern
covers the generated part too. Unanchored ``.*-spot.*`` therefore also matches ``eks-x-spot-ondemand-<uuid>``, the
fall-back of a spot group named ``x-spot``: both rank alike and the expander picks at random. The patterns here
are anchored on the whole ASG name, with the uuid's exact shape, and use only syntax Go's RE2 and Python's ``re``
read alike (``^``, ``$``, escaped literals, ``[0-9a-f]{n}``), so tests can apply the expander's rule in Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gpu_cloud.components import labels
from gpu_cloud.components.spec import SYSTEM_POOL_NAME, NodeProvisioner, Problem, SpotGroupSpec, StackConfig

__all__ = [
    "FALLBACK_PRIORITY",
    "OTHER_PRIORITY",
    "SPOT_PRIORITY",
    "NodeGroupNames",
    "asg_pattern",
    "expander_priorities",
    "expander_problems",
    "node_group_name_prefix",
    "node_group_name_problem",
    "node_group_names",
    "priority_of",
    "sample_asg_name",
    "spot_node_group_names",
]

SPOT_PRIORITY = 50
"""Priority of every spot node group (higher wins)."""
FALLBACK_PRIORITY = 20
"""Priority of every spot group's on-demand fall-back: below every spot group."""
OTHER_PRIORITY = 10
"""Priority of every other node group (on-demand pools, the system group): the catch-all ``.*``, so that no group
goes unmatched and unused."""

NODE_GROUP_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
"""The node group uuid EKS appends to the ASG name (8-4-4-4-12 lower-case hex)."""


NAME_SUFFIX = "[0-9]{18}[0-9a-f]{8}"
"""What Terraform appends to a node group's name prefix: ``id.PrefixedUniqueId``, a UTC timestamp to four fractional
digits without the dot (18 digits) and an 8-digit lower-case hex counter (hashicorp/terraform-plugin-sdk v2
``helper/id/id.go``, ``UniqueIDSuffixLength = 26``; read 2026-12-03)."""
NAME_SUFFIX_LENGTH = 26
MAX_NODE_GROUP_NAME = 63
"""EKS node group names have at most 63 characters (pulumi-aws 7.51.1 ``eks.NodeGroup`` node_group_name docstring)."""
MAX_POOL_NAME = MAX_NODE_GROUP_NAME - NAME_SUFFIX_LENGTH - 1
"""The longest pool name whose prefix ``<name>-`` Terraform accepts: terraform-provider-aws
``internal/service/eks/node_group.go`` validates node_group_name_prefix with ``StringLenBetween(0,
63-id.UniqueIDSuffixLength)`` (commit 012e0a32f0686212f447447fd3d81c3d0ce256ad, read 2026-12-03)."""


def node_group_name_prefix(pool_name: str) -> str:
    """The ``node_group_name_prefix`` of the node group of ``pool_name``: ``<pool_name>-``.

    Node groups are named by prefix, never by ``node_group_name``, so that a change EKS cannot make in place
    (instance types, capacity type, subnets, AMI type, launch template id: ForceNew in terraform-provider-aws
    node_group.go) creates the replacement before it deletes the old group. An explicit ``node_group_name``
    would make Pulumi delete first: pulumi-aws maps it with ``AutoName`` (provider/resources.go), and
    pulumi-terraform-bridge ``nameRequiresDeleteBeforeReplace`` (pkg/tfbridge/schema.go) asks for
    delete-before-replace when an auto-named property is given explicitly. With a prefix, Terraform generates a
    new name at every create (``create.Name`` in node_group.go), and the bridge leaves the auto-name unset because
    node_group_name conflicts with node_group_name_prefix (schema.go ``applyDefaults`` skips conflicting fields).
    """
    return f"{pool_name}-"


def node_group_name_problem(pool_name: str) -> str | None:
    """Why ``pool_name`` cannot name an EKS node group by prefix, or None."""
    if len(pool_name) > MAX_POOL_NAME:
        return (
            f"node group name {pool_name!r} has {len(pool_name)} characters; EKS allows {MAX_NODE_GROUP_NAME} and "
            f"the part generated for replacements takes {NAME_SUFFIX_LENGTH + 1}: at most {MAX_POOL_NAME}"
        )
    return None


def spot_node_group_names(spec: SpotGroupSpec) -> tuple[str, str | None]:
    """The EKS node group names of a spot group: ``<name>-spot`` and, with a fall-back, ``<name>-ondemand``."""
    fallback = f"{spec.name}{labels.FALLBACK_SUFFIX}" if spec.on_demand_fallback else None
    return f"{spec.name}{labels.SPOT_SUFFIX}", fallback


_LITERAL_NAME = re.compile(r"^[a-z0-9-]+$")


def asg_pattern(node_group_name: str) -> str:
    """The anchored pattern of the ASG EKS creates for the managed node group named by prefix ``node_group_name``.

    Node group names here are DNS labels (spec K8sName plus a suffix): letters, digits and ``-``, none of them
    special outside a character class, so the name stands as itself (no backslashes for the chart's YAML).
    """
    if not _LITERAL_NAME.match(node_group_name):
        raise ValueError(f"not a node group name of letters, digits and '-': {node_group_name!r}")
    return f"^eks-{node_group_name_prefix(node_group_name)}{NAME_SUFFIX}-{NODE_GROUP_UUID}$"


def expander_priorities(groups: Iterable[SpotGroupSpec]) -> dict[str, list[str]]:
    """The priority expander's config (chart value ``expanderPriorities``): each spot node group's exact pattern
    at SPOT_PRIORITY, each fall-back's at FALLBACK_PRIORITY, ``.*`` at OTHER_PRIORITY. Keys are strings: Helm values
    travel as JSON, and the chart's ConfigMap template writes them as the YAML ``map[int][]string`` keys the
    expander parses."""
    spot: list[str] = []
    fallback: list[str] = []
    for group in groups:
        spot_name, fallback_name = spot_node_group_names(group)
        spot.append(asg_pattern(spot_name))
        if fallback_name is not None:
            fallback.append(asg_pattern(fallback_name))
    priorities = {str(SPOT_PRIORITY): spot, str(FALLBACK_PRIORITY): fallback, str(OTHER_PRIORITY): [".*"]}
    return {prio: patterns for prio, patterns in priorities.items() if patterns}


def priority_of(group_id: str, priorities: Mapping[str, Sequence[str]]) -> int | None:
    """The priority the expander gives ``group_id``: the highest whose patterns match it (unanchored search, as
    ``FindStringIndex``), or None when nothing matches (the expander then does not use the group)."""
    matched = [int(prio) for prio, patterns in priorities.items() if any(re.search(p, group_id) for p in patterns)]
    return max(matched, default=None)


@dataclass(frozen=True)
class NodeGroupNames:
    """The EKS node group names of an environment, each with the config path it comes from."""

    pools: tuple[tuple[str, str], ...]
    """(config path, node group name) of the system group and every on-demand pool."""
    spot: tuple[tuple[str, str, str | None], ...]
    """(config path, spot node group name, fall-back node group name or None) of every spot group."""

    def all(self) -> list[tuple[str, str]]:
        """(config path, node group name) of every node group."""
        found = list(self.pools)
        for path, spot, fallback in self.spot:
            found += [(path, spot), *([(path, fallback)] if fallback is not None else [])]
        return found


def node_group_names(config: StackConfig) -> NodeGroupNames:
    """The node group names ``config`` declares on EKS (GpuCluster's system group, GpuNodePool, SpotGpuGroup); with
    Karpenter the system group only."""
    if config.node_provisioner is NodeProvisioner.KARPENTER:
        return NodeGroupNames((("cluster", SYSTEM_POOL_NAME),), ())
    pools = [("cluster", SYSTEM_POOL_NAME)] + [(f"nodePools.{i}.name", p.name) for i, p in enumerate(config.node_pools)]
    spot = [(f"spotGroups.{i}.name", *spot_node_group_names(g)) for i, g in enumerate(config.spot_groups)]
    return NodeGroupNames(tuple(pools), tuple(spot))


def expander_problems(names: NodeGroupNames, priorities: Mapping[str, Sequence[str]]) -> list[Problem]:
    """Where the expander would not prefer a spot group over its own fall-back, given ``priorities``: a node group
    name too long for its generated suffix, a name used twice (its ASG would match the other's pattern), or a
    fall-back that ranks as high as its spot group. Judged on the ASG names EKS would create (sample suffixes)."""
    problems: list[Problem] = []
    bases = {path: spot.removesuffix(labels.SPOT_SUFFIX) for path, spot, _ in names.spot}
    too_long_at: set[str] = set()
    seen: dict[str, str] = {}
    for path, name in names.all():
        if path not in too_long_at and (too_long := node_group_name_problem(name)) is not None:
            problems.append(Problem(path, too_long, bases.get(path, name)))
            too_long_at.add(path)
        # Two pools or groups of one name are spec's to report (one problem each, not two).
        if name in seen and seen[name] != path and bases.get(seen[name], name) != bases.get(path, name):
            problems.append(Problem(path, f"node group name {name!r} is also the node group of {seen[name]}", name))
        seen.setdefault(name, path)
    for path, spot, fallback in names.spot:
        if fallback is None:
            continue
        spot_rank = priority_of(sample_asg_name(spot), priorities)
        fallback_rank = priority_of(sample_asg_name(fallback), priorities)
        if spot_rank is None or fallback_rank is None or fallback_rank >= spot_rank:
            message = (
                f"the autoscaler's priority expander would not rank fall-back {fallback} "
                f"({fallback_rank}) below spot {spot} ({spot_rank})"
            )
            problems.append(Problem(path, message, spot.removesuffix(labels.SPOT_SUFFIX)))
    return problems


def sample_asg_name(node_group_name: str) -> str:
    """An ASG name EKS could give the node group of ``node_group_name`` (a sample generated suffix and uuid)."""
    generated = "202612031500000000" + "00000001"  # a timestamp to 1/10000 s, then the counter
    return f"eks-{node_group_name_prefix(node_group_name)}{generated}-0123abcd-4567-89ef-0123-456789abcdef"
