"""ClusterAutoscaling: ACK's cluster-level node autoscaling, spot pools first, idle GPU nodes released at 30 %.

"Node pool auto scaling only takes effect after you enable it at the cluster level" (ACK, "Enable node
autoscaling", https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/auto-scaling-of-nodes,
read 2026-12-02): the pools' ``scaling_config.enable`` alone adds no node. ``cs.AutoscalingConfig`` (pulumi-alicloud)
is that cluster-level setting: ``scaler_type`` ``cluster-autoscaler``; ``expander`` ``priority`` with
``priorities`` "key-value pairs where the key is the priority value, and the value is a comma-separated list of
scaling group IDs. High numerical values indicate higher priority" (only with cluster-autoscaler);
``gpu_utilization_threshold`` "The scale-in threshold for GPU instance. Default is 0.5" (installed SDK docstrings,
read 2026-12-02). It is the upstream cluster autoscaler's priority expander, which leaves a group no priority
names unused, so every autoscaled pool is listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import child_options
from gpu_cloud.components.k8s.monitoring import IDLE_GPU_PERCENT

__all__ = ["GPU_UTILIZATION_THRESHOLD", "ClusterAutoscaling", "ClusterAutoscalingArgs", "priorities"]

SPOT_PRIORITY = 50
"""Every spot pool (higher wins)."""
FALLBACK_PRIORITY = 20
"""Every spot group's on-demand fall-back pool: below every spot pool."""
OTHER_PRIORITY = 10
"""Every other autoscaled pool (the on-demand GPU pools; the system pool is not autoscaled)."""

GPU_UTILIZATION_THRESHOLD = f"{IDLE_GPU_PERCENT / 100:g}"
"""GPU nodes whose pods request under 30 % of their GPUs may be scaled in (the idle threshold, as on EKS)."""


@dataclass(frozen=True)
class ClusterAutoscalingArgs:
    """Inputs of a ClusterAutoscaling.

    Attributes:
        cluster_id: The ACK cluster.
        spot_groups: (spot scaling group, fall-back scaling group or None) of every spot group.
        other_pools: Scaling groups of every other autoscaled pool (the on-demand GPU pools).
    """

    cluster_id: pulumi.Input[str]
    spot_groups: Sequence[tuple[pulumi.Input[str], pulumi.Input[str] | None]] = ()
    other_pools: Sequence[pulumi.Input[str]] = ()


def priorities(args: ClusterAutoscalingArgs) -> dict[str, pulumi.Output[str]]:
    """The ``priorities`` map: spot pools at SPOT_PRIORITY, their fall-backs at FALLBACK_PRIORITY, the rest at
    OTHER_PRIORITY; levels without a pool are left out."""
    levels: dict[int, list[pulumi.Input[str]]] = {
        SPOT_PRIORITY: [spot for spot, _ in args.spot_groups],
        FALLBACK_PRIORITY: [fallback for _, fallback in args.spot_groups if fallback is not None],
        OTHER_PRIORITY: list(args.other_pools),
    }
    return {
        str(level): pulumi.Output.all(*ids).apply(lambda found: ",".join(str(i) for i in found))
        for level, ids in levels.items()
        if ids
    }


class ClusterAutoscaling(pulumi.ComponentResource):
    """Cluster-level node autoscaling of an ACK cluster. Child: ``<name>-autoscaling`` (cs.AutoscalingConfig)."""

    def __init__(self, name: str, args: ClusterAutoscalingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:alicloud:ClusterAutoscaling", name, None, opts)
        alicloud.cs.AutoscalingConfig(
            f"{name}-autoscaling",
            cluster_id=args.cluster_id,
            scaler_type="cluster-autoscaler",
            expander="priority",
            priorities=priorities(args),
            scale_up_from_zero=True,
            scale_down_enabled=True,
            # The same policy as the EKS autoscaler's flags (components.k8s.addons): CPU nodes under half requested,
            # GPU nodes under 30 %. ``unneeded_duration`` is not how long a node must be unneeded: it is the delay
            # "after the most recent scale-out" before scale-in is considered, and ``cool_down_duration`` the wait
            # "between detecting a scale-in requirement ... and actually executing" it (cs.AutoscalingConfig
            # docstrings, pulumi-alicloud 4.0.0; the provider's Read swaps the two, terraform-provider-alicloud@81c43b67
            # resource_alicloud_cs_autoscaling_config.go:152-156, so only equal values read back unchanged). Both are
            # set to ACK's default, 10 minutes (review alicloud.md F13).
            utilization_threshold="0.5",
            gpu_utilization_threshold=GPU_UTILIZATION_THRESHOLD,
            unneeded_duration="10m",
            cool_down_duration="10m",
            opts=child_options(self),
        )
        self.register_outputs({})
