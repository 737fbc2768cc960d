"""SpotGpuGroup: spot GPU capacity over diversified instance types with an on-demand fall-back node group."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from gpu_cloud.components import labels
from gpu_cloud.components.aws._node_group import (
    NodeGroupPlan,
    NodeGroupTarget,
    catalog_types,
    declare_node_group,
    node_labels,
    node_role,
    plan_problems,
)
from gpu_cloud.components.aws.expander import spot_node_group_names
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import ConfigError, Problem, SpotGroupSpec, spot_problems

__all__ = ["SPOT_TAINT_VALUE", "SpotGpuGroup", "SpotGpuGroupArgs"]

SPOT_TAINT_VALUE = "spot"
"""Value of the labels.SPOT_TAINT_KEY taint on spot nodes (and of labels.CAPACITY_LABEL)."""


@dataclass(frozen=True)
class SpotGpuGroupArgs:
    """Arguments of a SpotGpuGroup."""

    spec: SpotGroupSpec
    """Instance types (one GPU class), sizes and the fall-back."""
    target: NodeGroupTarget
    """The cluster, subnets and key the nodes use."""
    node_role_arn: pulumi.Input[str] | None = None
    """An existing node role; by default the group creates one for both node groups."""


class SpotGpuGroup(pulumi.ComponentResource):
    """A SPOT node group ``<spec.name>-spot`` and its on-demand fall-back ``<spec.name>-ondemand`` (min 0).

    The cluster autoscaler's priority expander prefers the spot group and scales the fall-back when spot
    capacity runs out (components.aws.expander: exact patterns of both groups' ASG names). Spot nodes are
    labelled ``gpucloud.io/capacity=spot`` and tainted so that only preemptible workloads land there. Children:
    the node role (unless given), then ``<name>-spot-lt``, ``<name>-spot`` and ``<name>-ondemand-lt``,
    ``<name>-ondemand``.
    """

    spot_node_group_name: pulumi.Output[str]
    """The spot node group's EKS name (``<spec.name>-spot-`` and what EKS generated at creation)."""
    fallback_node_group_name: pulumi.Output[str] | None
    """The on-demand fall-back node group's EKS name (None without a fall-back)."""

    def __init__(self, name: str, args: SpotGpuGroupArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        problems = spot_problems(Cloud.AWS, args.spec)
        if args.spec.max_price_per_hour is not None:
            # EKS pays at most the on-demand price for spot and rejects launch templates with market options
            # (EKS User Guide, "Customize managed nodes with launch templates": InstanceMarketOptions).
            problems.append(
                Problem(
                    "maxPricePerHour", "EKS managed node groups cannot cap the spot price", args.spec.max_price_per_hour
                )
            )
        if problems:
            raise ConfigError(problems)
        plans = spot_plans(args.spec, args.target)
        problems = [p for plan in plans for p in plan_problems(plan, args.target)]
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:aws:SpotGpuGroup", name, None, opts)
        role_arn, depends_on = node_role(name, self, args.node_role_arn)
        groups = [declare_node_group(name, self, plan, args.target, role_arn, depends_on) for plan in plans]
        self.spot_node_group_name = groups[0].node_group_name
        self.fallback_node_group_name = groups[1].node_group_name if len(groups) > 1 else None
        self.register_outputs(
            {"spotNodeGroupName": self.spot_node_group_name, "fallbackNodeGroupName": self.fallback_node_group_name}
        )


def spot_plans(spec: SpotGroupSpec, target: NodeGroupTarget) -> list[NodeGroupPlan]:
    """The spot node group and, when asked for, its on-demand fall-back over the same types and zones."""
    types = catalog_types(spec.instance_types)
    gpu_class = types[0].gpu_class
    purpose = spec.purpose.value
    spot_name, fallback_name = spot_node_group_names(spec)
    spot = NodeGroupPlan(
        suffix="spot",
        node_group_name=spot_name,
        instance_types=types,
        capacity_type="SPOT",
        min_size=spec.min_size,
        desired_size=spec.desired_size,
        max_size=spec.max_size,
        disk_size_gib=spec.disk_size_gib,
        zones=tuple(target.subnets),
        labels=node_labels(spec.name, purpose, gpu_class, SPOT_TAINT_VALUE, {}),
        taints=((labels.SPOT_TAINT_KEY, SPOT_TAINT_VALUE),),
    )
    if fallback_name is None:
        return [spot]
    fallback = NodeGroupPlan(
        suffix="ondemand",
        node_group_name=fallback_name,
        instance_types=types,
        capacity_type="ON_DEMAND",
        min_size=0,
        desired_size=0,
        max_size=spec.fallback_max_size or spec.max_size,
        disk_size_gib=spec.disk_size_gib,
        zones=tuple(target.subnets),
        labels=node_labels(spec.name, purpose, gpu_class, "on-demand", {}),
    )
    return [spot, fallback]
