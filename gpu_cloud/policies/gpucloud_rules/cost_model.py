"""What a resource costs by the hour, read from its properties, and the arithmetic of a monthly estimate.

One copy for both users: the policy pack's ``gpu-cost-guard`` (which stands on pulumi-policy and the
standard library alone) and ``gpucloud``'s cost estimate, which imports it as
``policies.gpucloud_rules.cost_model``. So it uses the standard library and ``values`` only.
Properties are the engine's camelCase inputs, as ``gpucloud plan`` records them or as a policy receives
them: numbers may be floats, booleans the strings "true"/"false", ``desiredSize`` a string, and a value
computed during deployment is unknown. Reading never guesses: what cannot be read is reported with the
reason, never taken as zero.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from . import values

__all__ = [
    "ALICLOUD_INSTANCE",
    "ALICLOUD_MANAGED_KUBERNETES",
    "ALICLOUD_NAT_GATEWAY",
    "ALICLOUD_NODE_POOL",
    "AWS_EKS_CLUSTER",
    "AWS_INSTANCE",
    "AWS_LAUNCH_TEMPLATE",
    "AWS_NAT_GATEWAY",
    "AWS_NODE_GROUP",
    "AWS_VPC_ENDPOINT",
    "HOURS_PER_MONTH",
    "KARPENTER_NODE_POOL",
    "Billable",
    "Capacity",
    "Sizes",
    "at_gpu_limit",
    "is_unknown",
    "launch_template_of",
    "monthly",
    "most_expensive",
    "read_billable",
    "read_capacity",
    "region_of",
    "spot_hourly",
]

HOURS_PER_MONTH: Final = Decimal(730)
"""Hours in the month of an estimate: 365 x 24 / 12, the convention of the AWS and Alibaba Cloud calculators."""

AWS_NODE_GROUP: Final = "aws:eks/nodeGroup:NodeGroup"
AWS_LAUNCH_TEMPLATE: Final = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_INSTANCE: Final = "aws:ec2/instance:Instance"
AWS_NAT_GATEWAY: Final = "aws:ec2/natGateway:NatGateway"
AWS_EKS_CLUSTER: Final = "aws:eks/cluster:Cluster"
AWS_VPC_ENDPOINT: Final = "aws:ec2/vpcEndpoint:VpcEndpoint"
ALICLOUD_NODE_POOL: Final = "alicloud:cs/nodePool:NodePool"
ALICLOUD_INSTANCE: Final = "alicloud:ecs/instance:Instance"
ALICLOUD_NAT_GATEWAY: Final = "alicloud:vpc/natGateway:NatGateway"
ALICLOUD_MANAGED_KUBERNETES: Final = "alicloud:cs/managedKubernetes:ManagedKubernetes"
KARPENTER_NODE_POOL: Final = "kubernetes:karpenter.sh/v1:NodePool"

# components/aws/karpenter_pool.py INSTANCE_GPUS_ANNOTATION (the pack cannot import components): the catalog types a
# NodePool's requirements select and the GPUs of each, as JSON.
_INSTANCE_GPUS: Final = "gpucloud.io/instance-gpus"
# The NodePool limit that caps its GPUs (Karpenter nodepools.md "spec.limits") and its capacity-type requirement.
_GPU_LIMIT: Final = "nvidia.com/gpu"
# components/aws/karpenter_pool.py REGION_ANNOTATION: the region a NodePool's nodes launch in.
_REGION: Final = "gpucloud.io/region"
_CAPACITY_TYPE: Final = "karpenter.sh/capacity-type"

# How an unknown value looks in gpucloud's records; a policy's props carry the engine's sentinels instead
# (``values.is_unknown``).
_RECORDED_UNKNOWN: Final = "[unknown]"
# EKS: "If you don't specify an instance type in a launch template or for instanceTypes, then t3.medium is
# used" (EKS API reference, CreateNodegroup, instanceTypes).
_EKS_DEFAULT_INSTANCE_TYPE: Final = "t3.medium"
# ACK node pool spotStrategy values that request preemptible instances (NodePool docs: NoSpot,
# SpotWithPriceLimit, SpotAsPriceGo); the same values on an ECS instance.
_ALICLOUD_SPOT_STRATEGIES: Final = frozenset({"SpotWithPriceLimit", "SpotAsPriceGo"})
# ACK cluster specs: ack.standard (Basic) has no cluster management fee; the ack.pro.* specs have one
# (ACK docs, "Billing for ACK managed and dedicated clusters").
_ACK_BASIC_SPEC: Final = "ack.standard"

Props = Mapping[str, Any]


def is_unknown(value: object) -> bool:
    """True for a value computed during deployment, in either of the forms a plan or a policy sees."""
    return value == _RECORDED_UNKNOWN or values.is_unknown(value)


@dataclass(frozen=True)
class Sizes:
    """Node counts of a pool at its minimum, desired and maximum size.

    Attributes:
        minimum: The minimum node count (what scale-to-zero brings it down to).
        desired: The desired node count at creation.
        maximum: The maximum node count (what the autoscaler may reach).
    """

    minimum: int
    desired: int
    maximum: int

    def as_tuple(self) -> tuple[int, int, int]:
        """(minimum, desired, maximum)."""
        return (self.minimum, self.desired, self.maximum)


@dataclass(frozen=True)
class Capacity:
    """The compute a node pool, spot group or single instance asks for.

    Attributes:
        cloud: ``aws`` or ``alicloud``.
        instance_types: The instance types it may launch, as written (several for a mixed pool).
        sizes: Node counts, or None when they cannot be read (``unread`` says why).
        spot: Whether it runs on spot (preemptible) capacity.
        unread: Why the types or sizes cannot be read ("" when they can).
        notes: Caveats of the estimate, e.g. subscription billing.
        gpu_limit: A Karpenter NodePool's limit on GPUs: its node counts follow from the type it is priced as
            (``sizes`` is then None until the estimate picks that type).
        gpus_per_node: With ``gpu_limit``: (instance type, GPUs per node) of each type it may launch.
    """

    cloud: str
    instance_types: tuple[str, ...]
    sizes: Sizes | None
    spot: bool
    unread: str = ""
    notes: tuple[str, ...] = ()
    gpu_limit: int | None = None
    gpus_per_node: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class Billable:
    """A non-GPU item billed by the hour: a NAT gateway, a control plane, an interface endpoint.

    Attributes:
        cloud: ``aws`` or ``alicloud``.
        item: Its price key, e.g. ``nat-gateway`` or ``ack.pro.small``.
        description: What it is, for a reader.
        quantity: How many units are billed each hour (endpoint-zones for an endpoint), None if unknown.
        unread: Why the quantity or kind cannot be read ("" when it can).
        notes: What the hourly price leaves out (data processing, capacity units ...).
    """

    cloud: str
    item: str
    description: str
    quantity: int | None
    unread: str = ""
    notes: tuple[str, ...] = ()


class _Unread(Exception):
    """A value the estimate needs is unknown or malformed; the message says which and why."""


def _value(props: Props, key: str, path: str) -> Any:
    """The value at ``key`` (None when absent); an unknown value raises ``_Unread``."""
    value = props.get(key)
    if is_unknown(value):
        raise _Unread(f"{path} is unknown until deployment")
    return value


def _object(props: Props, key: str) -> Props:
    value = _value(props, key, key)
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    raise _Unread(f"{key} is not an object")


def _text(props: Props, key: str, path: str) -> str | None:
    value = _value(props, key, path)
    if value is None or isinstance(value, str):
        return value
    raise _Unread(f"{path} is not a string (got {value!r})")


def _flag(props: Props, key: str, path: str) -> bool | None:
    value = _value(props, key, path)
    if value is None or isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return bool(value == "true")
    raise _Unread(f"{path} is not a boolean (got {value!r})")


def _count(props: Props, key: str, path: str) -> int | None:
    """A node count: an int, an integral float (policy wire form) or a digit string (``desiredSize``)."""
    value = _value(props, key, path)
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, int | float) and not isinstance(value, bool) and value == int(value) and value >= 0:
        return int(value)
    raise _Unread(f"{path} is not a node count (got {value!r})")


def _required_count(props: Props, key: str, path: str) -> int:
    count = _count(props, key, path)
    if count is None:
        raise _Unread(f"{path} is not set")
    return count


def _types(props: Props, key: str) -> tuple[str, ...]:
    value = props.get(key)
    if value is None:
        return ()
    if isinstance(value, str) and not is_unknown(value):
        return (value,)
    if not isinstance(value, list) or any(not isinstance(t, str) or is_unknown(t) for t in value):
        raise _Unread(f"{key} is unknown until deployment")
    return tuple(value)


def _launch_template_types(props: Props, launch_template: Props | None, default: tuple[str, ...]) -> tuple[str, ...]:
    """The instance type of the launch template a resource refers to, when the resource names none itself."""
    if props.get("launchTemplate") is None:
        return default
    if launch_template is None:
        raise _Unread("the launch template it refers to is not in the plan")
    found = _types(launch_template, "instanceType")
    return found or default


def _aws_node_group(props: Props, launch_template: Props | None) -> Capacity:
    scaling = _object(props, "scalingConfig")
    sizes = Sizes(
        _required_count(scaling, "minSize", "scalingConfig.minSize"),
        _required_count(scaling, "desiredSize", "scalingConfig.desiredSize"),
        _required_count(scaling, "maxSize", "scalingConfig.maxSize"),
    )
    types = _types(props, "instanceTypes") or _launch_template_types(
        props, launch_template, (_EKS_DEFAULT_INSTANCE_TYPE,)
    )
    spot = _text(props, "capacityType", "capacityType") == "SPOT"
    return Capacity("aws", types, sizes, spot)


def _aws_instance(props: Props, launch_template: Props | None) -> Capacity:
    types = _types(props, "instanceType") or _launch_template_types(props, launch_template, ())
    if not types:
        raise _Unread("instanceType is not set")
    market = _text(_object(props, "instanceMarketOptions"), "marketType", "instanceMarketOptions.marketType")
    return Capacity("aws", types, Sizes(1, 1, 1), market == "spot")


def _prepaid_notes(props: Props) -> tuple[str, ...]:
    if _text(props, "instanceChargeType", "instanceChargeType") == "PrePaid":
        return ("subscription (PrePaid) billing: priced at the pay-as-you-go rate, which overstates it",)
    return ()


def _alicloud_node_pool(props: Props, launch_template: Props | None) -> Capacity:
    del launch_template
    scaling = _object(props, "scalingConfig")
    desired = _count(props, "desiredSize", "desiredSize")
    if scaling and _flag(scaling, "enable", "scalingConfig.enable") is not False:
        minimum = _count(scaling, "minSize", "scalingConfig.minSize") or 0
        maximum = _required_count(scaling, "maxSize", "scalingConfig.maxSize")
        sizes = Sizes(minimum, minimum if desired is None else desired, maximum)
    else:
        fixed = desired if desired is not None else _count(props, "nodeCount", "nodeCount")
        if fixed is None:
            raise _Unread("none of desiredSize, nodeCount and scalingConfig is set")
        sizes = Sizes(fixed, fixed, fixed)
    spot = _text(props, "spotStrategy", "spotStrategy") in _ALICLOUD_SPOT_STRATEGIES
    types = _types(props, "instanceTypes")
    if not types:
        raise _Unread("instanceTypes is not set")
    return Capacity("alicloud", types, sizes, spot, notes=_prepaid_notes(props))


def _alicloud_instance(props: Props, launch_template: Props | None) -> Capacity:
    del launch_template
    types = _types(props, "instanceType")
    if not types:
        raise _Unread("instanceType is not set")
    spot = _text(props, "spotStrategy", "spotStrategy") in _ALICLOUD_SPOT_STRATEGIES
    return Capacity("alicloud", types, Sizes(1, 1, 1), spot, notes=_prepaid_notes(props))


def _karpenter_node_pool(props: Props, launch_template: Props | None) -> Capacity:
    """A Karpenter NodePool: no nodes until pods are pending, at most its GPU limit; the types it may launch and their
    GPUs from its annotation; spot when its capacity types allow spot (Karpenter prefers spot to on demand)."""
    del launch_template
    path = f"metadata.annotations.{_INSTANCE_GPUS}"
    text = _text(_object(_object(props, "metadata"), "annotations"), _INSTANCE_GPUS, path)
    if text is None:
        raise _Unread(f"{path} is not set: the instance types it may launch are not known")
    try:
        gpus = json.loads(text)
    except json.JSONDecodeError:
        gpus = None
    if not isinstance(gpus, dict) or not gpus or any(not isinstance(n, int) or n < 1 for n in gpus.values()):
        raise _Unread(f"{path} is not an object of instance types and their GPU counts")
    spec = _object(props, "spec")
    limit = _count(_object(spec, "limits"), _GPU_LIMIT, f"spec.limits.{_GPU_LIMIT}")
    if limit is None:
        raise _Unread(f"spec.limits.{_GPU_LIMIT} is not set: its GPUs are unbounded")
    template = _object(_object(spec, "template"), "spec")
    requirements = _value(template, "requirements", "spec.template.spec.requirements") or []
    capacity = {v for r in requirements if r.get("key") == _CAPACITY_TYPE for v in r.get("values") or []}
    notes = [f"Karpenter NodePool: no nodes until pods wait for them, at most {limit} GPUs (spec.limits)"]
    if "reserved" in capacity:
        notes.append("reserved capacity is billed whether it runs nodes or not; priced here at the on-demand rate")
    pairs = tuple(sorted((str(name), int(n)) for name, n in gpus.items()))
    return Capacity(
        "aws",
        tuple(n for n, _ in pairs),
        None,
        "spot" in capacity,
        notes=tuple(notes),
        gpu_limit=limit,
        gpus_per_node=pairs,
    )


_CAPACITY_READERS: Final[Mapping[str, Callable[[Props, Props | None], Capacity]]] = {
    AWS_NODE_GROUP: _aws_node_group,
    AWS_INSTANCE: _aws_instance,
    ALICLOUD_NODE_POOL: _alicloud_node_pool,
    ALICLOUD_INSTANCE: _alicloud_instance,
    KARPENTER_NODE_POOL: _karpenter_node_pool,
}


def launch_template_of(props: Props, dependencies: Sequence[str], templates: Mapping[str, Props]) -> Props | None:
    """The properties of the launch template a node group or instance refers to, None if not found.

    Args:
        props: The node group's or instance's properties.
        dependencies: The URNs its ``launchTemplate`` input depends on (its property dependencies).
        templates: URN -> properties of every AWS launch template of the stack.

    Found through the property dependency, else by the ``name`` the reference gives.
    """
    reference = props.get("launchTemplate")
    if not isinstance(reference, Mapping):
        return None
    for urn in dependencies:
        if urn in templates:
            return templates[urn]
    name = reference.get("name")
    if name is None:
        return None
    return next((t for t in templates.values() if t.get("name") == name), None)


def read_capacity(type_: str, props: Props, launch_template: Props | None = None) -> Capacity | None:
    """Read the compute a resource asks for; None if the type is not a node pool or an instance.

    Args:
        type_: The resource's type token.
        props: Its properties.
        launch_template: The properties of the launch template its ``launchTemplate`` refers to, if any
            (an EKS node group or EC2 instance may take its instance type from there).
    """
    reader = _CAPACITY_READERS.get(type_)
    if reader is None:
        return None
    try:
        return reader(props, launch_template)
    except _Unread as unread:
        return Capacity(type_.split(":", 1)[0], (), None, False, unread=str(unread))


_DATA_PROCESSING: Final = "per-GB data processing is not included"


def _aws_nat_gateway(props: Props) -> Billable | None:
    if _text(props, "connectivityType", "connectivityType") == "private":
        return Billable("aws", "private-nat-gateway", "private NAT gateway", 1, notes=(_DATA_PROCESSING,))
    if _text(props, "availabilityMode", "availabilityMode") == "regional":
        raise _Unread("a regional NAT gateway is billed per active zone, which the plan does not know")
    return Billable("aws", "nat-gateway", "NAT gateway", 1, notes=(_DATA_PROCESSING,))


def _aws_eks_cluster(props: Props) -> Billable | None:
    del props
    extended = "standard support; a Kubernetes version in extended support costs more per hour"
    return Billable("aws", "eks-control-plane", "EKS control plane", 1, notes=(extended,))


def _aws_vpc_endpoint(props: Props) -> Billable | None:
    if _text(props, "vpcEndpointType", "vpcEndpointType") != "Interface":
        return None  # Gateway endpoints (the default type) have no hourly charge.
    subnets = props.get("subnetIds")
    if subnets is None:
        raise _Unread("subnetIds is not set: the number of zones it is billed in is unknown")
    if not isinstance(subnets, list):
        raise _Unread("subnetIds is unknown until deployment")
    # One network interface per subnet, one subnet per zone: billed per endpoint per zone.
    return Billable(
        "aws", "vpc-interface-endpoint", "interface VPC endpoint (per zone)", len(subnets), notes=(_DATA_PROCESSING,)
    )


def _alicloud_nat_gateway(props: Props) -> Billable | None:
    cu = "capacity-unit (CU) fees, which depend on traffic, are not included"
    if _text(props, "networkType", "networkType") == "intranet":
        return Billable("alicloud", "vpc-nat-gateway", "VPC NAT gateway", 1, notes=(cu,))
    return Billable("alicloud", "nat-gateway", "Internet NAT gateway", 1, notes=(cu,))


def _alicloud_managed_kubernetes(props: Props) -> Billable | None:
    spec = _text(props, "clusterSpec", "clusterSpec")
    if spec == _ACK_BASIC_SPEC:
        return None  # ACK Basic has no cluster management fee.
    if spec is None:
        raise _Unread("clusterSpec is not set, so whether a cluster management fee applies is not known")
    return Billable("alicloud", spec, f"ACK control plane ({spec})", 1)


_BILLABLE_READERS: Final[Mapping[str, Callable[[Props], Billable | None]]] = {
    AWS_NAT_GATEWAY: _aws_nat_gateway,
    AWS_EKS_CLUSTER: _aws_eks_cluster,
    AWS_VPC_ENDPOINT: _aws_vpc_endpoint,
    ALICLOUD_NAT_GATEWAY: _alicloud_nat_gateway,
    ALICLOUD_MANAGED_KUBERNETES: _alicloud_managed_kubernetes,
}


def read_billable(type_: str, props: Props) -> Billable | None:
    """Read the hourly-billed non-GPU item a resource is; None if it is none (or is free, e.g. ACK Basic)."""
    reader = _BILLABLE_READERS.get(type_)
    if reader is None:
        return None
    try:
        return reader(props)
    except _Unread as unread:
        cloud = type_.split(":", 1)[0]
        return Billable(cloud, type_, type_, None, unread=str(unread))


def region_of(props: Props, provider_props: Props, configured: str | None) -> str | None:
    """The region a resource is billed in, None if nothing names one.

    The resource's own ``region`` input first (pulumi-aws 7 lets a resource override its provider's
    region; a Karpenter NodePool's ``gpucloud.io/region`` annotation), then its provider's ``region``, then the
    stack's ``<cloud>:region`` config (which the default provider reads).
    """
    metadata = props.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, Mapping) else None
    annotated = annotations.get(_REGION) if isinstance(annotations, Mapping) else None
    for value in (props.get("region"), annotated, provider_props.get("region"), configured):
        if isinstance(value, str) and value and not is_unknown(value):
            return value
    return None


def at_gpu_limit(limit: int, gpus: Mapping[str, int], hourly: Mapping[str, Decimal]) -> tuple[str, int]:
    """The type a Karpenter NodePool is priced as and its node count at the pool's GPU limit: of the types it may
    launch, the one whose nodes cost most when the limit is filled with it (``limit // gpus`` nodes), an upper
    bound of what the NodePool can cost."""
    cost = {name: (limit // gpus[name]) * price for name, price in hourly.items()}
    priced_as = max(sorted(cost), key=lambda name: cost[name])
    return priced_as, limit // gpus[priced_as]


def most_expensive(hourly: Mapping[str, Decimal]) -> str:
    """The instance type a mixed pool is priced as: the most expensive (ties: the first name in order).

    An autoscaler may launch any of a pool's types, so the most expensive one gives the upper bound of its
    bill; any other choice could understate it.
    """
    if not hourly:
        raise ValueError("no prices to choose from")
    return min(hourly, key=lambda name: (-hourly[name], name))


def spot_hourly(on_demand: Decimal, discount: Decimal) -> Decimal:
    """The estimated spot price: the on-demand price less a typical discount (0.6 = 60% off)."""
    return on_demand * (1 - discount)


def monthly(hourly: Decimal, count: int = 1) -> Decimal:
    """The cost of ``count`` units running a whole month at ``hourly``; exact, never rounded."""
    return hourly * count * HOURS_PER_MONTH
