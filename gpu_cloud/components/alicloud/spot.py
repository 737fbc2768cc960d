"""SpotGpuGroup: a spot ACK node pool over diversified GPU types, with an on-demand fall-back pool."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components import labels
from gpu_cloud.components.alicloud._common import check
from gpu_cloud.components.alicloud._pool import SCALING_SPOT, PoolArgs, node_pool, shape_of
from gpu_cloud.components.alicloud.node_pool import ON_DEMAND
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import SpotGroupSpec, spot_problems

__all__ = ["SPOT", "SpotGpuGroup", "SpotGpuGroupArgs", "spot_capacity"]

SPOT = "spot"
"""The capacity label's value and the spot taint's value."""

SPOT_TAINT = alicloud.cs.NodePoolTaintArgs(key=labels.SPOT_TAINT_KEY, value=SPOT, effect="NoSchedule")
"""Only preemptible workloads tolerate spot nodes."""

MAX_SPOT_INSTANCE_POOLS = 10
"""cs.NodePool ``spot_instance_pools`` takes 1 to 10 instance types."""

SPOT_AS_PRICE_GO = "SpotAsPriceGo"
"""cs.NodePool ``spot_strategy``: "The system automatically bids, following the actual price of the current market",
at most the pay-as-you-go price of each instance type ("SpotAsPriceGo: The system provides a price automatically,
and the maximum value is the Pay-As-You-Go price", Alibaba Cloud Batch Compute, "Bidding resources",
https://www.alibabacloud.com/help/doc-detail/51590.htm, read 2026-12-03). So each type is capped at its own price,
never by one figure for every size (``SpotWithPriceLimit`` caps "the maximum price of a single instance" per type,
NodePoolSpotPriceLimitArgs). A per-type cap below pay-as-you-go would only move the demand to the on-demand
fall-back pool, at the full price; a flat ``maxPricePerHour`` is refused (spec.spot_problems)."""

COST_OPTIMIZED = "COST_OPTIMIZED"
"""cs.NodePool ``multi_az_policy``: cheapest vCPU price first, spot before pay-as-you-go; the policy under which
``compensate_with_on_demand`` takes effect."""


def spot_capacity(spec: SpotGroupSpec) -> dict[str, object]:
    """The cs.NodePool buying options of a spot group: strategy, pools, remedy, fall-back."""
    return {
        "spot_strategy": SPOT_AS_PRICE_GO,
        # Spread over every type given: a shortage of one spot pool is not an outage.
        "spot_instance_pools": min(len(spec.instance_types), MAX_SPOT_INSTANCE_POOLS),
        # Replace a spot node as soon as its reclaim notice arrives.
        "spot_instance_remedy": True,
        "multi_az_policy": COST_OPTIMIZED,
        # Never pay-as-you-go inside the spot pool: those nodes would carry the pool's spot label and taint (node pool
        # labels and taints apply to every node of the pool), so only preemptible pods could use them and cost
        # reports would count them as spot. The fall-back is the separate on-demand pool, which the cluster
        # autoscaler's priority expander ranks below the spot pool (components.alicloud.autoscaling).
        "compensate_with_on_demand": False,
        # These two are strings in pulumi-alicloud: no on-demand base; everything above it is spot.
        "on_demand_base_capacity": "0",
        "on_demand_percentage_above_base_capacity": "0",
    }


@dataclass(kw_only=True)
class SpotGpuGroupArgs(PoolArgs):
    """Inputs of a SpotGpuGroup: the spec, and the cluster, vswitches, key and tags of PoolArgs (every zone)."""

    spec: SpotGroupSpec
    """The group: purpose, catalog types of one GPU class, sizes, price cap, fall-back."""


class SpotGpuGroup(pulumi.ComponentResource):
    """Spot GPU nodes (``<name>-spot``) and, unless turned off, an on-demand fall-back pool (``<name>-ondemand``).

    Both carry the group's pool label; the spot pool also the ``spot`` capacity label and the spot taint, so
    only preemptible workloads land there. The fall-back pool starts empty (min 0); the cluster autoscaler's
    priority expander (components.alicloud.autoscaling) ranks it below the spot pool.
    """

    spot_node_pool_id: pulumi.Output[str]
    """The spot node pool's id."""
    spot_scaling_group_id: pulumi.Output[str]
    """The spot node pool's scaling group (what the autoscaler's priorities name)."""
    fallback_scaling_group_id: pulumi.Output[str] | None
    """The fall-back pool's scaling group, if there is one."""
    fallback_node_pool_id: pulumi.Output[str] | None
    """The on-demand fall-back node pool's id, if there is one."""

    def __init__(self, name: str, args: SpotGpuGroupArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        check(spot_problems(Cloud.ALICLOUD, spec))
        super().__init__("gpucloud:alicloud:SpotGpuGroup", name, None, opts)
        shape = shape_of(
            spec,
            pool_name=f"{spec.name}{labels.SPOT_SUFFIX}",
            capacity=SPOT,
            min_size=spec.min_size,
            max_size=spec.max_size,
            extra_taints=(SPOT_TAINT,),
            scaling_type=SCALING_SPOT,
        )
        placement = args.placement()
        spot = node_pool(f"{name}{labels.SPOT_SUFFIX}", shape, placement, self, **spot_capacity(spec))
        self.spot_node_pool_id = spot.node_pool_id
        self.spot_scaling_group_id = spot.scaling_group_id
        self.fallback_node_pool_id = None
        self.fallback_scaling_group_id = None
        if spec.on_demand_fallback:
            fallback = shape_of(
                spec,
                pool_name=f"{spec.name}{labels.FALLBACK_SUFFIX}",
                capacity=ON_DEMAND,
                min_size=0,
                max_size=spec.fallback_max_size or spec.max_size,
            )
            pool = node_pool(f"{name}{labels.FALLBACK_SUFFIX}", fallback, placement, self)
            self.fallback_node_pool_id = pool.node_pool_id
            self.fallback_scaling_group_id = pool.scaling_group_id
        self.register_outputs(
            {"spotNodePoolId": self.spot_node_pool_id, "fallbackNodePoolId": self.fallback_node_pool_id}
        )
