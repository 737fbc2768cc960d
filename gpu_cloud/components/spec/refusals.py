"""Stack config values the clouds would refuse, or that make no sense, refused before anything is declared.

Each check is a function of a validated :class:`~gpu_cloud.components.spec.StackConfig` returning its problems,
registered in the one validation model (``spec.stack``) with the fields it reads, so that it runs whenever those
fields are valid; they run in the order declared here. Cloud facts (regions, zones, CIDR sizes, tag limits, log
retention values) come from ``components.cloud_limits``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from ipaddress import IPv4Network

from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.cloud_limits import ZONE_SEPARATOR, limits
from gpu_cloud.components.spec.cluster import DEFAULT_SYSTEM_INSTANCE_TYPES, SYSTEM_POOL_NAME
from gpu_cloud.components.spec.network import SubnetSpec
from gpu_cloud.components.spec.pools import GpuNodePoolSpec, PoolPurpose, SpotGroupSpec, max_nodes, pool_gpus
from gpu_cloud.components.spec.problems import Problem
from gpu_cloud.components.spec.stack import StackConfig, item_check, stack_check
from gpu_cloud.components.spec.workloads import InferenceServiceSpec

__all__ = [
    "SYSTEM_NAMESPACES",
    "cidr_problems",
    "duplicate_problems",
    "inference_capacity_problems",
    "log_retention_problems",
    "namespace_problems",
    "region_problems",
    "stack_reference_problems",
    "subnet_capacity_problems",
    "tag_problems",
    "zone_problems",
]

SYSTEM_NAMESPACES = frozenset({"default", "monitoring", "kueue-system", "jobset-system"})
"""Namespaces that are not GPU namespaces besides every ``kube-*`` one (reserved for Kubernetes system namespaces,
Kubernetes docs "Namespaces"): ``default``, and those of the cluster add-ons (``components.k8s``: monitoring, Kueue,
JobSet)."""

# Names Pulumi accepts for a stack reference: [<owner>/[<project>/]]<stack>. pulumi/pulumi
# pkg/backend/httpstate/backend.go (read 2026-12-03): stackOwnerRegexp ^[a-zA-Z0-9][a-zA-Z0-9-_]{1,38}[a-zA-Z0-9]$,
# stackNameAndProjectRegexp ^[A-Za-z0-9_.-]{1,100}$ for projects and stacks.
_OWNER = r"[a-zA-Z0-9][a-zA-Z0-9_-]{1,38}[a-zA-Z0-9]"
_NAME = r"[A-Za-z0-9_.-]{1,100}"
_STACK_REFERENCE = re.compile(rf"^(?:{_OWNER}/(?:{_NAME}/)?)?{_NAME}$")

# Alibaba Cloud tags: "cannot ... contain https:// or http://" (pulumi-alicloud 4.0.0, cs.NodePool tags).
_ALICLOUD_TAG_URL = re.compile(r"https?://")


@stack_check("cloud", "region", "peering")
def region_problems(config: StackConfig) -> list[Problem]:
    """A region or peer region that is not a region of the cloud."""
    regions = limits(config.cloud).regions
    found = [("region", config.region)]
    if config.peering is not None:
        found.append(("peering.peerRegion", config.peering.peer_region))
    return [Problem(path, f"not a region of {config.cloud.value}", r) for path, r in found if r not in regions]


def _subnets(config: StackConfig) -> list[tuple[str, bool, SubnetSpec]]:
    """(path, in the peer region, subnet) for every subnet the config declares."""
    found = [(f"network.privateSubnets.{i}", False, s) for i, s in enumerate(config.network.private_subnets)]
    found += [(f"network.natSubnets.{i}", False, s) for i, s in enumerate(config.network.nat_subnets)]
    found += [(f"network.podSubnets.{i}", False, s) for i, s in enumerate(config.network.pod_subnets)]
    if config.peering is not None:
        found += [
            (f"peering.peerPrivateSubnets.{i}", True, s) for i, s in enumerate(config.peering.peer_private_subnets)
        ]
    return found


@stack_check("cloud", "region", "network", "peering")
def zone_problems(config: StackConfig) -> list[Problem]:
    """A subnet's zone that is not a zone of its region: exactly one of the region's listed zones, or, where no zone
    list was sourced, the region's name and one zone letter (``us-east-1a``, ``cn-hangzhou-h``)."""
    cloud_limits = limits(config.cloud)
    separator = ZONE_SEPARATOR[config.cloud]
    problems = []
    for path, peer, subnet in _subnets(config):
        region = config.peering.peer_region if peer and config.peering is not None else config.region
        listed = cloud_limits.zones.get(region)
        if listed is not None:
            if subnet.zone not in listed:
                problems.append(
                    Problem(f"{path}.zone", f"not a zone of region {region} ({', '.join(listed)})", subnet.zone)
                )
        elif not re.fullmatch(re.escape(region + separator) + "[a-z]", subnet.zone):
            problems.append(Problem(f"{path}.zone", f"not a zone of region {region}", subnet.zone))
    return problems


def _node_groups(config: StackConfig) -> list[tuple[str, tuple[str, ...], int, tuple[str, ...]]]:
    """(name, instance types, most nodes, zones) of every node group the cloud components declare: the system pool
    over every zone, each GPU pool over its zones (all when none), and each spot group's spot and on-demand fall-back
    groups over every zone; both of a spot group's groups may be at their maximum at once."""
    every = config.network.zones
    system = config.cluster.system_instance_types or DEFAULT_SYSTEM_INSTANCE_TYPES[config.cloud]
    groups = [(SYSTEM_POOL_NAME, system, config.cluster.system_max_size, every)]
    groups += [(p.name, p.instance_types, p.max_size, p.zones or every) for p in config.node_pools]
    for g in config.spot_groups:
        groups.append((f"{g.name} (spot)", g.instance_types, g.max_size, every))
        if g.on_demand_fallback:
            groups.append((f"{g.name} (on-demand)", g.instance_types, g.fallback_max_size or g.max_size, every))
    return groups


@stack_check("cloud", "network", "cluster", "node_pools", "spot_groups")
def subnet_capacity_problems(config: StackConfig) -> list[Problem]:
    """A zone whose private subnets cannot hold the addresses the nodes placed there may take (AWS).

    The VPC CNI gives every pod an address of its node's subnet, so a node can take up to its network interfaces x
    IPv4 addresses per interface (``CloudLimits.node_addresses``). A node group may run all its nodes in any one of
    its zones, so a zone must hold, over every node group using it (``_node_groups``), its most nodes x the most
    addresses of its instance types; the zone holds its private subnets' addresses less those the cloud reserves in
    each. A type without a sourced address count adds nothing. Alibaba Cloud is not checked yet: the 4 addresses a
    vSwitch reserves are sourced (``cloud_limits.json``) and so is Terway's rule: in shared-ENI mode
    (``terway-eniip``) pods take the addresses of a node's secondary ENIs, (EniQuantity - 1) x
    EniPrivateIpAddressQuantity of ECS DescribeInstanceTypes (ACK "Manage pod capacity on nodes",
    https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/adjusting-the-number-of-node-pods;
    AliyunContainerService/terway pkg/aliyun/client/limit.go ``MultiIPPod`` at commit 89aadf8b; both read
    2026-12-03). Those two figures per ECS type were not found in Alibaba's instance-family material for the types
    the project runs, so ``node_addresses`` has none for Alibaba Cloud."""
    cloud_limits = limits(config.cloud)
    reserved = cloud_limits.cidr.reserved_per_subnet
    if reserved is None or not cloud_limits.node_addresses:
        return []
    problems = []
    for zone in config.network.zones:
        subnets = [(i, s) for i, s in enumerate(config.network.private_subnets) if s.zone == zone]
        usable = sum(s.cidr.num_addresses - reserved for _, s in subnets)
        taken = []
        for name, types, nodes, zones in _node_groups(config):
            addresses = max((cloud_limits.node_addresses.get(t, 0) for t in types), default=0)
            if zone in zones and addresses:
                taken.append((name, nodes, addresses))
        need = sum(nodes * addresses for _, nodes, addresses in taken)
        if need > usable:
            groups = ", ".join(f"{name} {nodes} x {addresses}" for name, nodes, addresses in taken)
            message = (
                f"the private subnets of zone {zone} hold {usable} addresses, but the nodes there may take {need} "
                f"with their pods ({groups})"
            )
            first, subnet = subnets[0]
            problems.append(Problem(f"network.privateSubnets.{first}.cidr", message, str(subnet.cidr)))
    return problems


@stack_check("cloud", "network", "deploy", "peering")
def cidr_problems(config: StackConfig) -> list[Problem]:
    """VPC and subnet ranges of a size the cloud refuses."""
    cidr = limits(config.cloud).cidr
    vpcs: list[tuple[str, IPv4Network]] = [("network.vpcCidr", config.network.vpc_cidr)]
    vpcs.append(("deploy.runnerVpcCidr", config.deploy.runner_vpc_cidr))
    if config.peering is not None:
        vpcs.append(("peering.peerVpcCidr", config.peering.peer_vpc_cidr))
    subnets = [(f"{path}.cidr", subnet.cidr) for path, _, subnet in _subnets(config)]
    cloud = config.cloud.value
    return [
        Problem(path, f"{cloud} takes a {kind} of /{low} to /{high}", str(network))
        for kind, (low, high), ranges in (("VPC", cidr.vpc, vpcs), ("subnet", cidr.subnet, subnets))
        for path, network in ranges
        if not low <= network.prefixlen <= high
    ]


@stack_check("cloud", "tags")
def tag_problems(config: StackConfig) -> list[Problem]:
    """Tags the cloud refuses (too many, too long, a reserved prefix) and tags without a value."""
    tags = limits(config.cloud).tags
    problems = []
    if len(config.tags) > tags.max_tags:
        problems.append(
            Problem("tags", f"more than the {tags.max_tags} tags {config.cloud.value} allows", len(config.tags))
        )
    for key, value in config.tags.items():
        path = f"tags.{key}"
        for part, text, most in (("key", key, tags.max_key_length), ("value", value, tags.max_value_length)):
            if len(text) > most:
                problems.append(Problem(path, f"a tag {part} of more than {most} characters", text))
            if text.lower().startswith(tags.reserved_prefixes):
                reserved = " or ".join(tags.reserved_prefixes)
                problems.append(Problem(path, f"a tag {part} may not start with {reserved} (reserved)", text))
            if config.cloud is Cloud.ALICLOUD and _ALICLOUD_TAG_URL.search(text):
                problems.append(Problem(path, f"a tag {part} may not contain http:// or https://", text))
        if not value.strip():
            problems.append(Problem(path, "a tag needs a value", value))
    return problems


@stack_check("cloud", "cluster", "network")
def log_retention_problems(config: StackConfig) -> list[Problem]:
    """Log retention periods the cloud's log service does not accept (CloudWatch Logs takes a fixed set)."""
    accepted = limits(config.cloud).log_retention_days
    if accepted is None:
        return []
    found = [
        ("cluster.logRetentionDays", config.cluster.log_retention_days),
        ("network.flowLogRetentionDays", config.network.flow_log_retention_days),
    ]
    message = f"not a retention period CloudWatch Logs accepts ({', '.join(map(str, accepted))})"
    return [Problem(path, message, days) for path, days in found if days not in accepted]


@stack_check("peering")
def stack_reference_problems(config: StackConfig) -> list[Problem]:
    """Names of other stacks that Pulumi would refuse as a stack reference."""
    found = []
    if config.peering is not None and config.peering.peer_stack is not None:
        found.append(("peering.peerStack", config.peering.peer_stack))
    message = "not a stack name Pulumi accepts ([<owner>/[<project>/]]<stack>; letters, digits, '_', '.', '-')"
    return [Problem(path, message, name) for path, name in found if not _STACK_REFERENCE.match(name)]


def _repeats(path: str, names: Iterable[str], what: str) -> list[Problem]:
    seen: set[str] = set()
    problems = []
    for i, name in enumerate(names):
        if name in seen:
            problems.append(Problem(f"{path}.{i}", f"{what} listed twice", name))
        seen.add(name)
    return problems


@stack_check("node_pools", "spot_groups", "access", "inference")
def duplicate_problems(config: StackConfig) -> list[Problem]:
    """One instance type twice in a pool or spot group (no diversity), one GPU namespace twice, two inference
    services of one name (their Kubernetes objects would collide)."""
    problems = []
    types = [(f"nodePools.{i}", p.instance_types) for i, p in enumerate(config.node_pools)]
    types += [(f"spotGroups.{i}", g.instance_types) for i, g in enumerate(config.spot_groups)]
    for path, listed in types:
        problems += _repeats(f"{path}.instanceTypes", listed, "an instance type")
    problems += _repeats("access.gpuNamespaces", config.access.gpu_namespaces, "a namespace")
    names = [service.name for service in config.inference]
    return problems + [
        Problem(f"inference.{i}.name", "already used by another inference service", name)
        for i, name in enumerate(names)
        if name in names[:i]
    ]


@stack_check("access")
def namespace_problems(config: StackConfig) -> list[Problem]:
    """System namespaces given as GPU namespaces (gpu-admin would administer pods there)."""
    return [
        Problem(f"access.gpuNamespaces.{i}", "a system namespace, not a GPU namespace", name)
        for i, name in enumerate(config.access.gpu_namespaces)
        if name.startswith("kube-") or name in SYSTEM_NAMESPACES
    ]


@item_check("inference", "cloud", "node_pools", "spot_groups")
def inference_capacity_problems(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    """A replica asking for more GPUs than a node of its pool has, or more replicas at minimum than the pool holds at
    its largest."""
    pools: dict[str, GpuNodePoolSpec | SpotGroupSpec] = {p.name: p for p in config.node_pools}
    pools |= {g.name: g for g in config.spot_groups}
    pool = pools.get(service.pool)
    gpus = 0 if pool is None else pool_gpus(config.cloud, pool)
    if pool is None or pool.purpose is not PoolPurpose.INFERENCE or gpus == 0:
        return []  # an unknown or training pool, or an unknown instance type, is reported by its own check
    shares = pool.gpu_time_slicing_replicas if isinstance(pool, GpuNodePoolSpec) else None
    per_node = gpus * (shares or 1)
    if service.gpus_per_replica > per_node:
        message = f"more than the {per_node} GPUs a node of pool {service.pool} offers"
        return [Problem(f"{path}.gpusPerReplica", message, service.gpus_per_replica)]
    nodes = max_nodes(pool)
    most = per_node // service.gpus_per_replica * nodes
    if service.min_replicas > most:
        message = f"more replicas than the {nodes} nodes of pool {service.pool} hold ({most})"
        return [Problem(f"{path}.minReplicas", message, service.min_replicas)]
    return []
