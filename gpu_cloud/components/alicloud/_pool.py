"""What every ACK node pool shares: image, disks, network, labels, taints, scaling and auto repair.

GpuNodePool and SpotGpuGroup differ only in how they buy capacity; both build their cs.NodePool here, and so does
GpuCluster for its untainted system pool (CPU types: no GPU taint, no GPU labels, no pinned driver).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components import labels
from gpu_cloud.components.catalog import Cloud, lookup
from gpu_cloud.components.spec import GpuNodePoolSpec, PoolPurpose, Problem, SpotGroupSpec
from gpu_cloud.components.versions import ACK_NVIDIA_DRIVER_VERSION

__all__ = [
    "CGROUP_V1_REMOVED",
    "CGROUP_V2_IMAGE_TYPES",
    "CHARGE_POST_PAID",
    "DRIVER_VERSION_LABEL",
    "GPU_TAINT",
    "IMAGE_TYPES",
    "SCALING_GPU",
    "SCALING_GPU_SHARE",
    "SCALING_SPOT",
    "Placement",
    "PoolArgs",
    "PoolShape",
    "node_pool",
    "shape_of",
    "vswitch_problems",
]

CHARGE_POST_PAID = "PostPaid"
"""Pay-as-you-go nodes (cs.NodePool ``instance_charge_type``): scale-in releases them; subscription nodes would
only leave the cluster and keep billing (https://www.alibabacloud.com/help/document_detail/119099.html)."""

_ARM_FAMILIES = re.compile(r"^ecs\.[a-z]+\d+[ry]\.")
"""ECS families on Arm CPUs end their name in ``r`` (Ampere Altra, e.g. g6r) or ``y`` (Yitian 710, e.g. g8y)
(Alibaba Cloud ECS instance families: g8y, c8y, r8y, g6r, c6r). GPU types come from the catalog."""

CGROUP_V1_REMOVED = "1.35"
"""The first Kubernetes minor whose kubelet refuses to start on cgroup v1: "As of version 1.35, Kubernetes no longer
supports cgroup v1 ... Node operating systems must support cgroup v2. Otherwise, the kubelet will not start" (ACK,
"ACK Releases Kubernetes 1.35 Version Guide", https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/
user-guide/kubernetes-1-35-release-notes, updated Mar 01, 2026, read 2026-12-03)."""

CGROUP_V2_IMAGE_TYPES = frozenset(
    {"AliyunLinux3ContainerOptimized", "AliyunLinux4ContainerOptimized", "AliyunLinux4ContainerOptimizedArm64"}
)
"""The cs.NodePool ``image_type`` values whose OS runs cgroup v2 by default (sources at IMAGE_TYPES)."""

IMAGE_TYPES = {"x86_64": "AliyunLinux3ContainerOptimized", "arm64": "AliyunLinux4ContainerOptimizedArm64"}
"""Node OS per CPU architecture (cs.NodePool ``image_type``, whose pulumi-alicloud 4.0.0 docstring lists
``AliyunLinux3ContainerOptimized`` "Alinux3 container-optimized image" and ``AliyunLinux4ContainerOptimizedArm64``
"Alinux4 container-optimized image ARM version"). Every Kubernetes minor the project pins on ACK is 1.35 or later
(versions.ACK_KUBERNETES_RELEASES), so every node needs cgroup v2 (CGROUP_V1_REMOVED):

* "Alibaba Cloud Linux 3 container-optimized images use control group (cgroup) v2" (Alibaba Cloud Linux, "Alibaba
  Cloud Linux 3 container-optimized images", https://www.alibabacloud.com/help/id/alinux/user-guide/
  alibaba-cloud-linux-3-container-optimized-images, read 2026-12-03); ACK's "Migrate nodes to cgroup v2" lists
  "Alibaba Cloud Linux 3.2104 LTS 64-bit container-optimized, Alibaba Cloud Linux 4 LTS 64-bit container-optimized"
  among the systems on cgroup v2 by default, and not the standard Alibaba Cloud Linux 3 (``AliyunLinux3``, cgroup v1
  by default), nor Alinux 3's Arm image (review alicloud.md F1, quoting
  https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/migrate-nodes-to-cgroupv2).
* x86_64 keeps Alibaba Cloud Linux 3 (kernel 5.10, like the standard image ACK's NVIDIA driver list was written for)
  rather than Alinux 4: the pinned driver (versions.ACK_NVIDIA_DRIVER_VERSION) is listed as supported for ACK 1.28
  and later, and ACK installs its default driver instead of a pinned one it finds incompatible with the OS kernel
  ("List of NVIDIA driver versions supported by ACK", https://www.alibabacloud.com/help/en/document_detail/
  2402382.html, updated Mar 26, 2026). ContainerOS is not used: "Not supported on GPU nodes" (review F1,
  doc-detail/353150).
* Arm has no Alinux 3 container-optimized image, so Arm CPU pools (no GPU type in the catalog is Arm) use Alinux 4's.

ACK installs the NVIDIA driver on GPU nodes of system images itself
(https://www.alibabacloud.com/help/en/document_detail/207292.html)."""

DRIVER_VERSION_LABEL = "ack.aliyun.com/nvidia-driver-version"
"""Node pool label that pins the NVIDIA driver ACK installs on new nodes
(https://www.alibabacloud.com/help/en/document_detail/207292.html)."""

DISK_CATEGORY = "cloud_essd"
"""ESSD disks (cs.NodePool ``system_disk_category`` / ``data_disks.category``)."""

SYSTEM_DISK_GIB = 120
"""The OS disk. Container images and kubelet data live on the data disk (``disk_size_gib`` of the spec), which
ACK formats and mounts for the container runtime."""

HTTP_TOKENS_REQUIRED = "required"
"""Instance metadata only in hardened (token) mode, ACK 1.28+ (cs.NodePool ``instance_metadata_options``)."""

GPU_TAINT = alicloud.cs.NodePoolTaintArgs(key=labels.GPU_TAINT_KEY, value="true", effect="NoSchedule")
"""Only pods that tolerate GPUs land on GPU nodes (the gpu-node-isolation policy)."""

# cs.NodePool ``scaling_config.type``, the ACK node pool's auto_scaling.type: "The type of instances to which auto
# scaling applies. This determines the scaling behavior": cpu (the default), gpu, gpushare, spot (CreateClusterNodePool
# and the nodepool struct, https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/developer-reference/
# api-cs-2015-12-15-struct-nodepool, read 2026-12-03: still documented, unlike the EIP fields deprecated beside it;
# terraform-provider-alicloud sends it on create, commit 81c43b6727a0). Set at creation: ACK's own template resource
# marks a node pool's AutoScaling as not updatable (ROS ALIYUN::CS::ClusterNodePool, "Update allowed: No",
# https://alibabacloud.com/help/en/ros/developer-reference/aliyun-cs-clusternodepool, updated 2026-02-11), so another
# type means another pool.
SCALING_GPU = "gpu"
SCALING_GPU_SHARE = "gpushare"
SCALING_SPOT = "spot"


@dataclass(frozen=True)
class PoolShape:
    """The plain data of one ACK node pool: what it runs and how big it may grow."""

    pool_name: str
    """The node pool's name in ACK."""
    group: str
    """The spec's pool or group name (the pool label)."""
    purpose: str
    """Training or inference (a PoolPurpose), or system."""
    instance_types: tuple[str, ...]
    """Catalog GPU types (CPU types for the system pool), in order of preference."""
    min_size: int
    """Fewest nodes."""
    max_size: int
    """Most nodes."""
    disk_size_gib: int
    """The data disk for container images."""
    capacity: str
    """The capacity label's value: ``spot`` or ``on-demand``."""
    extra_labels: Mapping[str, str] = field(default_factory=dict)
    """More node labels (the spec's own, GPU sharing)."""
    extra_taints: tuple[alicloud.cs.NodePoolTaintArgs, ...] = ()
    """Taints besides the GPU taint."""
    autoscaled: bool = True
    """Scaled by the cluster autoscaler between min and max; False: a fixed ``min_size`` nodes. ACK labels the
    nodes of an autoscaled pool ``k8s.aliyun.com=true`` "to prevent system pods such as coredns, metrics-servers
    from being scheduled to elastic nodes" (cs.NodePool ``scaling_config`` docstring, read 2026-12-02), so the
    system pool is not autoscaled."""
    gpu: bool = True
    """GPU nodes: GPU taint, pool/GPU labels and the pinned driver. False for the system pool, whose nodes carry
    only the purpose and capacity labels (no pool label: GPU node agents select on it)."""
    scaling_type: str = SCALING_GPU
    """An autoscaled pool's ``scaling_config.type``: ``gpu``, ``gpushare`` (shared GPUs) or ``spot``."""


@dataclass(frozen=True)
class Placement:
    """Where a node pool's nodes go and what they are encrypted and tagged with."""

    cluster_id: pulumi.Input[str]
    """The ACK cluster."""
    vswitch_ids_by_zone: Mapping[str, Sequence[pulumi.Input[str]]]
    """The network's vswitches per zone."""
    kms_key_id: pulumi.Input[str]
    """The key of the system and data disks."""
    tags: Mapping[str, str]
    """Tags on the nodes."""
    zones: Sequence[str] = ()
    """The zones to use; empty means every zone."""


@dataclass(kw_only=True)
class PoolArgs:
    """Where a GPU pool's nodes go: the references GpuNodePoolArgs and SpotGpuGroupArgs share."""

    cluster_id: pulumi.Input[str]
    """The ACK cluster."""
    vswitch_ids_by_zone: Mapping[str, Sequence[pulumi.Input[str]]]
    """The network's vswitches per zone (PrivateNetwork.vswitch_ids_by_zone)."""
    kms_key_id: pulumi.Input[str]
    """The key that encrypts system and data disks."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the nodes."""

    def placement(self, zones: Sequence[str] = ()) -> Placement:
        """The placement of a pool in ``zones`` (empty: every zone)."""
        return Placement(self.cluster_id, self.vswitch_ids_by_zone, self.kms_key_id, self.tags, zones)


def shape_of(
    spec: GpuNodePoolSpec | SpotGroupSpec, *, pool_name: str, capacity: str, min_size: int, max_size: int, **extra: Any
) -> PoolShape:
    """The shape of an ACK pool for ``spec`` (a pool or a spot group), named ``pool_name`` in ACK."""
    return PoolShape(
        pool_name=pool_name,
        group=spec.name,
        purpose=spec.purpose,
        instance_types=spec.instance_types,
        min_size=min_size,
        max_size=max_size,
        disk_size_gib=spec.disk_size_gib,
        capacity=capacity,
        **extra,
    )


def vswitch_problems(zones: Sequence[str], vswitch_ids_by_zone: Mapping[str, object]) -> list[Problem]:
    """Zones a pool asks for that have no vswitch."""
    return [Problem("zones", "no vswitch in that zone", z) for z in zones if z not in vswitch_ids_by_zone]


_TRAINING_KUBELET = alicloud.cs.NodePoolKubeletConfigurationArgs(
    cpu_manager_policy="static", topology_manager_policy="best-effort"
)
"""Training nodes align a Guaranteed pod's whole cores with its GPUs, as on EKS (aws._node_group
TRAINING_KUBELET_CONFIG, which explains the choice): cs.NodePool ``kubelet_configuration`` ``cpu_manager_policy``
("Valid value is none or static") and ``topology_manager_policy`` (pulumi-alicloud NodePoolKubeletConfigurationArgs,
read 2026-12-03). The provider has no topology manager scope; the kubelet's default, per container, is the same for
the one-container training pods."""


def _vswitches(placement: Placement) -> list[Any]:
    chosen = placement.zones or list(placement.vswitch_ids_by_zone)
    return [v for zone in chosen for v in placement.vswitch_ids_by_zone[zone]]


def _node_labels(shape: PoolShape) -> list[alicloud.cs.NodePoolLabelArgs]:
    values = {labels.PURPOSE_LABEL: str(shape.purpose), labels.CAPACITY_LABEL: shape.capacity}
    if shape.gpu:
        first = lookup(Cloud.ALICLOUD, shape.instance_types[0])
        values = {
            labels.PURPOSE_LABEL: str(shape.purpose),
            labels.GPU_CLASS_LABEL: labels.label_value(first.gpu_class) if first is not None else "unknown",
            labels.POOL_LABEL: shape.group,
            labels.CAPACITY_LABEL: shape.capacity,
            DRIVER_VERSION_LABEL: ACK_NVIDIA_DRIVER_VERSION,
        }
    values.update(shape.extra_labels)
    return [alicloud.cs.NodePoolLabelArgs(key=k, value=v) for k, v in values.items()]


def _arch(shape: PoolShape) -> str:
    first = lookup(Cloud.ALICLOUD, shape.instance_types[0])
    if first is not None:
        return first.arch
    return "arm64" if _ARM_FAMILIES.match(shape.instance_types[0]) else "x86_64"


def node_pool(
    resource_name: str,
    shape: PoolShape,
    placement: Placement,
    parent: pulumi.Resource,
    **capacity: Any,
) -> alicloud.cs.NodePool:
    """Register one cs.NodePool of ``shape`` at ``placement`` as a child of ``parent``.

    ``capacity`` adds the buying options (spot strategy and the like) as cs.NodePool arguments.

    The node count of an autoscaled shape belongs to the autoscaler: scaling is enabled between min and max and
    ``desired_size`` is left unset (ACK starts the pool at its minimum); other shapes get ``min_size`` nodes.
    """
    return alicloud.cs.NodePool(
        resource_name,
        node_pool_name=shape.pool_name,
        cluster_id=placement.cluster_id,
        vswitch_ids=_vswitches(placement),
        instance_types=list(shape.instance_types),
        instance_charge_type=CHARGE_POST_PAID,
        image_type=IMAGE_TYPES[_arch(shape)],
        # No public IP on any node: no public bandwidth and no EIP. ``internet_max_bandwidth_out`` is left unset: its
        # values are "[1,100]" Mbit/s (cs.NodePool docstring) and the provider sends it only when set (GetOk,
        # terraform-provider-alicloud@81c43b67 resource_alicloud_cs_kubernetes_node_pool.go:1441), so an explicit 0
        # was never sent; unset is what gives a node no public bandwidth (review alicloud.md N1).
        system_disk_category=DISK_CATEGORY,
        system_disk_size=SYSTEM_DISK_GIB,
        system_disk_encrypted=True,
        system_disk_kms_key=placement.kms_key_id,
        data_disks=[
            alicloud.cs.NodePoolDataDiskArgs(
                category=DISK_CATEGORY,
                size=shape.disk_size_gib,
                # A string in pulumi-alicloud ("true"/"false"), unlike system_disk_encrypted.
                encrypted="true",
                kms_key_id=placement.kms_key_id,
            )
        ],
        instance_metadata_options=alicloud.cs.NodePoolInstanceMetadataOptionsArgs(http_tokens=HTTP_TOKENS_REQUIRED),
        kubelet_configuration=_TRAINING_KUBELET if shape.gpu and shape.purpose == PoolPurpose.TRAINING.value else None,
        labels=_node_labels(shape),
        taints=[*([GPU_TAINT] if shape.gpu else []), *shape.extra_taints],
        scaling_config=alicloud.cs.NodePoolScalingConfigArgs(
            enable=True, min_size=shape.min_size, max_size=shape.max_size, is_bond_eip=False, type=shape.scaling_type
        )
        if shape.autoscaled
        else None,
        desired_size=None if shape.autoscaled else str(shape.min_size),
        management=alicloud.cs.NodePoolManagementArgs(
            enable=True,
            auto_repair=True,
            auto_repair_policy=alicloud.cs.NodePoolManagementAutoRepairPolicyArgs(restart_node=True),
            max_unavailable=1,
        ),
        tags=dict(placement.tags),
        opts=pulumi.ResourceOptions(parent=parent),
        **capacity,
    )
