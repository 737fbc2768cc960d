"""Where GPU work may run: the tolerations and node selection every GPU workload of the layer shares."""

from __future__ import annotations

import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.spec import GpuNodePoolSpec, SpotGroupSpec

__all__ = ["ON_DEMAND_CAPACITY", "SPOT_TAINT_VALUE", "daemonset_tolerations", "is_spot", "workload_tolerations"]

SPOT_TAINT_VALUE = "spot"
"""Value of the spot taint (``labels.SPOT_TAINT_KEY``) the cloud spot groups put on their nodes."""

ON_DEMAND_CAPACITY = "on-demand"
"""``labels.CAPACITY_LABEL`` of on-demand GPU nodes, a spot group's fall-back included (aws.node_pool, aws.spot,
alicloud.node_pool.ON_DEMAND)."""


def is_spot(pool: GpuNodePoolSpec | SpotGroupSpec) -> bool:
    """True when ``pool`` is a spot group (its spot nodes carry the spot taint)."""
    return isinstance(pool, SpotGroupSpec)


def workload_tolerations(pool: GpuNodePoolSpec | SpotGroupSpec) -> list[k8s.core.v1.TolerationArgs]:
    """Tolerations of a pod that runs on ``pool``: the GPU taint, and the spot taint only on a spot group."""
    tolerations = [k8s.core.v1.TolerationArgs(key=labels.GPU_TAINT_KEY, operator="Exists", effect="NoSchedule")]
    if is_spot(pool):
        tolerations.append(
            k8s.core.v1.TolerationArgs(
                key=labels.SPOT_TAINT_KEY, operator="Equal", value=SPOT_TAINT_VALUE, effect="NoSchedule"
            )
        )
    return tolerations


def daemonset_tolerations() -> list[dict[str, str]]:
    """Helm-value tolerations that let a node agent (device plugin, DCGM exporter) run on every GPU node."""
    return [
        {"key": labels.GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"},
        {"key": labels.SPOT_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"},
    ]
