"""GpuNodePool: on-demand GPU nodes for training or inference as an EKS managed node group."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from gpu_cloud.components import labels
from gpu_cloud.components.aws._node_group import (
    CAPACITY_BLOCK,
    NodeGroupPlan,
    NodeGroupTarget,
    catalog_types,
    declare_node_group,
    node_labels,
    node_role,
    plan_problems,
)
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import ConfigError, GpuNodePoolSpec, pool_problems

__all__ = ["GpuNodePool", "GpuNodePoolArgs", "NodeGroupTarget"]


@dataclass(frozen=True)
class GpuNodePoolArgs:
    """Arguments of a GpuNodePool."""

    spec: GpuNodePoolSpec
    """The pool: purpose, instance types, sizes, EFA and placement."""
    target: NodeGroupTarget
    """The cluster, subnets and key the nodes use."""
    node_role_arn: pulumi.Input[str] | None = None
    """An existing node role; by default the pool creates its own."""


class GpuNodePool(pulumi.ComponentResource):
    """A GPU node pool: tainted ``nvidia.com/gpu``, IMDSv2 only, no public IP, KMS-encrypted root volume.

    Training pools on EFA types get a cluster placement group, one zone and every EFA interface; inference
    pools spread over every zone. Children: ``<name>-node-role`` and its ``<name>-node-<policy>`` attachments
    (unless a role is given), ``<name>-pg`` (placement), ``<name>-lt`` (launch template), ``<name>-nodes``.
    """

    node_group_name: pulumi.Output[str]
    """The EKS node group's name: the pool's name, a dash and what EKS generated at creation."""
    node_role_arn: pulumi.Output[str]
    """The nodes' IAM role."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        problems = pool_problems(Cloud.AWS, spec)
        if problems:
            raise ConfigError(problems)
        plan = pool_plan(spec, args.target)
        problems = plan_problems(plan, args.target)
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:aws:GpuNodePool", name, None, opts)
        role_arn, depends_on = node_role(name, self, args.node_role_arn)
        group = declare_node_group(name, self, plan, args.target, role_arn, depends_on)
        self.node_group_name = group.node_group_name
        self.node_role_arn = role_arn
        self.register_outputs({"nodeGroupName": self.node_group_name, "nodeRoleArn": self.node_role_arn})


def pool_plan(spec: GpuNodePoolSpec, target: NodeGroupTarget) -> NodeGroupPlan:
    """The node group of an on-demand pool."""
    types = catalog_types(spec.instance_types)
    reservation = spec.aws_capacity_reservation
    return NodeGroupPlan(
        suffix="nodes",
        node_group_name=spec.name,
        instance_types=types,
        capacity_type=CAPACITY_BLOCK if reservation is not None and reservation.capacity_block else "ON_DEMAND",
        min_size=spec.min_size,
        desired_size=spec.desired_size,
        max_size=spec.max_size,
        disk_size_gib=spec.disk_size_gib,
        zones=spec.zones or tuple(target.subnets),
        labels=node_labels(spec.name, spec.purpose.value, types[0].gpu_class, "on-demand", extra_labels(spec)),
        ami_type=spec.aws_ami_type,
        release_version=spec.aws_ami_release_version,
        efa=spec.efa,
        placement_group=spec.placement_group,
        capacity_reservation=reservation,
    )


def extra_labels(spec: GpuNodePoolSpec) -> dict[str, str]:
    """The spec's own labels, and on a time-sliced pool the device plugin config its nodes use (named after the
    pool by the Kubernetes layer's GpuAddons)."""
    sharing = {labels.DEVICE_PLUGIN_CONFIG_LABEL: spec.name} if spec.gpu_time_slicing_replicas is not None else {}
    return {**spec.labels, **sharing}
