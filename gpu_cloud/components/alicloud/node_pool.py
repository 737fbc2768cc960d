"""GpuNodePool: an autoscaled, auto-repaired ACK node pool of on-demand GPU nodes."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

from gpu_cloud.components.alicloud._common import check
from gpu_cloud.components.alicloud._pool import (
    SCALING_GPU,
    SCALING_GPU_SHARE,
    PoolArgs,
    node_pool,
    shape_of,
    vswitch_problems,
)
from gpu_cloud.components.alicloud.gpu_sharing import GPU_SHARE_LABEL, GPU_SHARING_ADDON, GpuSharing
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import GpuNodePoolSpec, Problem, pool_problems

__all__ = ["GPU_SHARE_LABEL", "GpuNodePool", "GpuNodePoolArgs"]

ON_DEMAND = "on-demand"
"""The capacity label's value on on-demand pools (components.labels.CAPACITY_LABEL)."""


@dataclass(kw_only=True)
class GpuNodePoolArgs(PoolArgs):
    """Inputs of a GpuNodePool: the spec, and the cluster, vswitches, key and tags of PoolArgs."""

    spec: GpuNodePoolSpec
    """The pool: purpose, catalog types, sizes, zones, labels."""
    gpu_sharing: GpuSharing | None = None
    """The cluster's GPU sharing component; required when the pool shares GPUs (``gpu_time_slicing_replicas``)."""


class GpuNodePool(pulumi.ComponentResource):
    """On-demand GPU nodes: tainted for GPU pods only, encrypted disks, no public IP, autoscaled, auto-repaired.

    ACK has no close-placement group for node pools (deployment sets spread nodes apart), so
    ``spec.placement_group`` has no effect here.
    """

    node_pool_id: pulumi.Output[str]
    """The ACK node pool's id."""
    scaling_group_id: pulumi.Output[str]
    """The node pool's scaling group (what the autoscaler's priorities name)."""
    node_pool_name: str
    """The node pool's name in ACK (the spec's name)."""

    def __init__(self, name: str, args: GpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        problems = pool_problems(Cloud.ALICLOUD, spec) + vswitch_problems(spec.zones, args.vswitch_ids_by_zone)
        if spec.gpu_time_slicing_replicas is not None and args.gpu_sharing is None:
            message = f"shares GPUs, but the cluster has no GPU sharing component ({GPU_SHARING_ADDON}; GpuSharing)"
            problems.append(Problem("gpuTimeSlicingReplicas", message, spec.gpu_time_slicing_replicas))
        check(problems)
        super().__init__("gpucloud:alicloud:GpuNodePool", name, None, opts)
        shares = spec.gpu_time_slicing_replicas is not None
        shape = shape_of(
            spec,
            pool_name=spec.name,
            capacity=ON_DEMAND,
            min_size=spec.min_size,
            max_size=spec.max_size,
            extra_labels={**spec.labels, **(dict([GPU_SHARE_LABEL]) if shares else {})},
            scaling_type=SCALING_GPU_SHARE if shares else SCALING_GPU,
        )
        pool = node_pool(f"{name}-pool", shape, args.placement(spec.zones), self)
        self.node_pool_id = pool.node_pool_id
        self.scaling_group_id = pool.scaling_group_id
        self.node_pool_name = spec.name
        self.register_outputs({"nodePoolId": self.node_pool_id})
