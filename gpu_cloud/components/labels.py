"""Names shared by the cloud back ends and the Kubernetes layer: labels, taints, groups, priority classes.

The cloud components put these on nodes and in access mappings; the Kubernetes layer selects, tolerates
and binds them. Changing one is a breaking change for running clusters.
"""

__all__ = [
    "ADMIN_GROUP",
    "CAPACITY_LABEL",
    "DEVICE_PLUGIN_CONFIG_LABEL",
    "FALLBACK_SUFFIX",
    "GPU_CLASS_LABEL",
    "GPU_TAINT_KEY",
    "POOL_LABEL",
    "PRIORITY_CRITICAL",
    "PRIORITY_PREEMPTIBLE",
    "PRIORITY_STANDARD",
    "PURPOSE_LABEL",
    "SPOT_SUFFIX",
    "SPOT_TAINT_KEY",
    "SYSTEM_PURPOSE",
    "USER_GROUP",
    "label_value",
]

GPU_TAINT_KEY = "nvidia.com/gpu"
"""Taint key on every GPU node (effect NoSchedule): only pods that ask for GPUs land there.
The NVIDIA device plugin's resource name, as used by the EKS and ACK GPU node guides."""

SPOT_TAINT_KEY = "gpucloud.io/capacity"
"""Taint key (value ``spot``, effect NoSchedule) on spot nodes: only preemptible workloads tolerate it."""

CAPACITY_LABEL = "gpucloud.io/capacity"
"""Node label: ``spot`` or ``on-demand``."""

PURPOSE_LABEL = "gpucloud.io/purpose"
"""Node label: ``training`` or ``inference`` on GPU nodes, ``SYSTEM_PURPOSE`` on the system pool."""

SYSTEM_PURPOSE = "system"
"""PURPOSE_LABEL value of the untainted CPU nodes of each cluster's system pool, where cluster add-ons run."""

GPU_CLASS_LABEL = "gpucloud.io/gpu-class"
"""Node label: the GPU model, as a label value (e.g. ``nvidia-a10g``)."""

POOL_LABEL = "gpucloud.io/pool"
"""Node label: the pool or spot group name from the spec."""

DEVICE_PLUGIN_CONFIG_LABEL = "nvidia.com/device-plugin.config"
"""Node label that picks a named entry of the NVIDIA device plugin's config map (time-slicing per pool). The AWS
node pool of a time-sliced inference pool labels its nodes with it, value = the pool's name
(NVIDIA k8s-device-plugin README, "Multiple Config File Example": ``nvidia.com/device-plugin.config``)."""

SPOT_SUFFIX = "-spot"
"""Suffix of a spot node group's name; the autoscaler's priority expander prefers these."""

FALLBACK_SUFFIX = "-ondemand"
"""Suffix of a spot group's on-demand fall-back node group; the expander uses it when spot runs out."""

ADMIN_GROUP = "gpucloud:gpu-admin"
"""Kubernetes group the cloud's gpu-admin role maps to; bound to the gpu-admin ClusterRole."""

USER_GROUP = "gpucloud:gpu-user"
"""Kubernetes group the cloud's gpu-user role maps to; bound to the gpu-user Role."""

PRIORITY_CRITICAL = "gpu-critical"
"""PriorityClass for critical training (value 1000000)."""

PRIORITY_STANDARD = "gpu-standard"
"""PriorityClass for ordinary GPU work."""

PRIORITY_PREEMPTIBLE = "gpu-preemptible"
"""PriorityClass for work that may run on spot capacity (preemptionPolicy Never)."""


def label_value(text: str) -> str:
    """``text`` as a Kubernetes label value: lower case, alphanumerics and dashes, at most 63 characters."""
    value = "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
    return value[:63].rstrip("-")
