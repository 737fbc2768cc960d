"""SpotGpuGroup: a spot ACK node pool over diversified GPU types, with an on-demand fall-back pool."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from components import labels
from components.alicloud._common import check
from components.alicloud._pool import Placement, PoolShape, gpu_node_pool
from components.alicloud.node_pool import ON_DEMAND
from components.catalog import Cloud
from components.spec import SpotGroupSpec, spot_problems

__all__ = ["SPOT", "SpotGpuGroup", "SpotGpuGroupArgs", "spot_capacity"]

SPOT = "spot"
"""The capacity label's value and the spot taint's value."""

SPOT_TAINT = alicloud.cs.NodePoolTaintArgs(key=labels.SPOT_TAINT_KEY, value=SPOT, effect="NoSchedule")
"""Only preemptible workloads tolerate spot nodes."""

MAX_SPOT_INSTANCE_POOLS = 10
"""cs.NodePool ``spot_instance_pools`` takes 1 to 10 instance types."""

# cs.NodePool spot_strategy values: SpotWithPriceLimit caps the price per type; SpotAsPriceGo follows the market
# price (at most the pay-as-you-go price).
SPOT_WITH_PRICE_LIMIT = "SpotWithPriceLimit"
SPOT_AS_PRICE_GO = "SpotAsPriceGo"

COST_OPTIMIZED = "COST_OPTIMIZED"
"""cs.NodePool ``multi_az_policy``: cheapest vCPU price first, spot before pay-as-you-go; the policy under which
``compensate_with_on_demand`` takes effect."""


def spot_capacity(spec: SpotGroupSpec) -> dict[str, object]:
    """The cs.NodePool buying options of a spot group: strategy, price limits, pools, remedy, fall-back."""
    limits = None
    if spec.max_price_per_hour is not None:
        price = f"{spec.max_price_per_hour:g}"
        limits = [
            alicloud.cs.NodePoolSpotPriceLimitArgs(instance_type=t, price_limit=price) for t in spec.instance_types
        ]
    return {
        "spot_strategy": SPOT_AS_PRICE_GO if limits is None else SPOT_WITH_PRICE_LIMIT,
        "spot_price_limits": limits,
        # Spread over every type given: a shortage of one spot pool is not an outage.
        "spot_instance_pools": min(len(spec.instance_types), MAX_SPOT_INSTANCE_POOLS),
        # Replace a spot node as soon as its reclaim notice arrives.
        "spot_instance_remedy": True,
        "multi_az_policy": COST_OPTIMIZED,
        # When no spot capacity is left, buy pay-as-you-go instead of failing the scale-out.
        "compensate_with_on_demand": spec.on_demand_fallback,
        # These two are strings in pulumi-alicloud: no on-demand base; everything above it is spot.
        "on_demand_base_capacity": "0",
        "on_demand_percentage_above_base_capacity": "0",
    }


@dataclass
class SpotGpuGroupArgs:
    """Inputs of a SpotGpuGroup."""

    spec: SpotGroupSpec
    """The group: purpose, catalog types of one GPU class, sizes, price cap, fall-back."""
    cluster_id: pulumi.Input[str]
    """The ACK cluster."""
    vswitch_ids_by_zone: Mapping[str, Sequence[pulumi.Input[str]]]
    """The network's vswitches per zone; spot pools use every zone."""
    kms_key_id: pulumi.Input[str]
    """The key that encrypts system and data disks."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the nodes."""


class SpotGpuGroup(pulumi.ComponentResource):
    """Spot GPU nodes (``<name>-spot``) and, unless turned off, an on-demand fall-back pool (``<name>-ondemand``).

    Both carry the group's pool label; the spot pool also the ``spot`` capacity label and the spot taint, so
    only preemptible workloads land there. The fall-back pool starts empty (min 0) for the autoscaler's
    priority expander, which prefers ``-spot`` pools.
    """

    spot_node_pool_id: pulumi.Output[str]
    """The spot node pool's id."""
    fallback_node_pool_id: pulumi.Output[str] | None
    """The on-demand fall-back node pool's id, if there is one."""

    def __init__(self, name: str, args: SpotGpuGroupArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        check(spot_problems(Cloud.ALICLOUD, spec))
        super().__init__("gpucloud:alicloud:SpotGpuGroup", name, None, opts)
        shape = PoolShape(
            pool_name=f"{spec.name}{labels.SPOT_SUFFIX}",
            group=spec.name,
            purpose=spec.purpose,
            instance_types=spec.instance_types,
            min_size=spec.min_size,
            max_size=spec.max_size,
            disk_size_gib=spec.disk_size_gib,
            capacity=SPOT,
            extra_taints=(SPOT_TAINT,),
        )
        placement = Placement(args.cluster_id, args.vswitch_ids_by_zone, args.kms_key_id, args.tags)
        spot = gpu_node_pool(f"{name}{labels.SPOT_SUFFIX}", shape, placement, self, **spot_capacity(spec))
        self.spot_node_pool_id = spot.node_pool_id
        self.fallback_node_pool_id = None
        if spec.on_demand_fallback:
            fallback = PoolShape(
                pool_name=f"{spec.name}{labels.FALLBACK_SUFFIX}",
                group=spec.name,
                purpose=spec.purpose,
                instance_types=spec.instance_types,
                min_size=0,
                max_size=spec.fallback_max_size or spec.max_size,
                disk_size_gib=spec.disk_size_gib,
                capacity=ON_DEMAND,
            )
            pool = gpu_node_pool(f"{name}{labels.FALLBACK_SUFFIX}", fallback, placement, self)
            self.fallback_node_pool_id = pool.node_pool_id
        self.register_outputs({"spotNodePoolId": self.spot_node_pool_id})
