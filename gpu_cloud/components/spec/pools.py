"""GPU capacity: on-demand node pools and spot groups with their on-demand fall-back, and what a pool offers (GPUs,
memory, nodes) on a cloud."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator
from pydantic.alias_generators import to_camel

from gpu_cloud.components.catalog import Cloud, InstanceType, lookup
from gpu_cloud.components.spec._base import K8sName, Spec
from gpu_cloud.components.spec.problems import Problem, given, raise_problems

__all__ = [
    "ALICLOUD_FLAT_SPOT_CAP",
    "AwsCapacityReservationSpec",
    "GpuNodePoolSpec",
    "PoolPurpose",
    "SpotGroupSpec",
    "max_nodes",
    "pool_gpus",
    "pool_memory_gib",
    "pool_problems",
    "spot_problems",
]


class PoolPurpose(StrEnum):
    """What a GPU pool runs."""

    TRAINING = "training"
    INFERENCE = "inference"


class AwsCapacityReservationSpec(Spec):
    """AWS only: the reserved capacity a training pool's nodes launch into, set in the launch template's
    ``CapacityReservationSpecification.CapacityReservationTarget`` (botocore ec2 model, CapacityReservationTarget:
    a CapacityReservationId or a CapacityReservationResourceGroupArn, one of the two)."""

    reservation_id: str | None = Field(default=None, pattern=r"^cr-[0-9a-f]+$")
    """The On-Demand Capacity Reservation or Capacity Block, e.g. ``cr-02168da1478b509e0``."""
    resource_group_arn: str | None = Field(
        default=None, pattern=r"^arn:aws(-cn|-us-gov)?:resource-groups:[a-z0-9-]+:\d{12}:group/[A-Za-z0-9_.-]+$"
    )
    """A Capacity Reservation resource group, instead of one reservation."""
    capacity_block: bool = False
    """The reservation is a Capacity Block for ML: the node group's capacity type is ``CAPACITY_BLOCK`` and the
    launch template's market type ``capacity-block`` (EKS User Guide, "Create a managed node group with Capacity
    Blocks for ML", capacity-blocks-mng, read 2026-12-03). Needs ``reservationId``, one instance type, one zone."""

    @model_validator(mode="after")
    def _one_target(self) -> AwsCapacityReservationSpec:
        problems = []
        if (self.reservation_id is None) == (self.resource_group_arn is None):
            problems.append(Problem("reservationId", "set exactly one of reservationId and resourceGroupArn", None))
        elif self.capacity_block and self.reservation_id is None:
            problems.append(Problem("capacityBlock", "a Capacity Block is targeted by its reservationId", True))
        raise_problems(problems)
        return self


class GpuNodePoolSpec(Spec):
    """A pool of on-demand GPU nodes for training or inference."""

    name: K8sName
    """The pool's name, unique in the environment."""
    purpose: PoolPurpose
    """Training or inference."""
    instance_types: tuple[str, ...] = Field(min_length=1)
    """GPU instance types from the catalog of the environment's cloud."""
    min_size: int = Field(ge=0, le=1000)
    """Fewest nodes (0 lets the pool scale to zero)."""
    desired_size: int = Field(ge=0, le=1000)
    """Nodes at creation; the cluster autoscaler owns it afterwards."""
    max_size: int = Field(ge=1, le=1000)
    """Most nodes."""
    disk_size_gib: int = Field(default=200, ge=50, le=16384)
    """Root (system) disk size in GiB; container images of GPU frameworks are large."""
    efa: bool = False
    """AWS only: attach every EFA interface the instance type supports (training on EFA types)."""
    placement_group: bool = False
    """Place nodes close together (AWS cluster placement group) for NCCL all-reduce."""
    zones: tuple[str, ...] = ()
    """Zones to use; empty means every private subnet's zone. EFA training pools need exactly one."""
    aws_ami_type: (
        Literal[
            "AL2023_x86_64_NVIDIA", "AL2023_ARM_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA", "BOTTLEROCKET_ARM_64_NVIDIA"
        ]
        | None
    ) = None
    """AWS only: the EKS AMI type; default AL2023 NVIDIA for the instance type's architecture."""
    aws_ami_release_version: str | None = None
    """AWS only: pin the AMI release so driver updates are deliberate rolling updates."""
    aws_capacity_reservation: AwsCapacityReservationSpec | None = None
    """AWS training only: launch the nodes into a Capacity Reservation, reservation group or Capacity Block."""
    gpu_time_slicing_replicas: int | None = Field(default=None, ge=2, le=16)
    """Inference only: share each GPU between this many pods (time-slicing / GPU sharing)."""
    labels: dict[str, str] = Field(default_factory=dict)
    """Extra Kubernetes node labels."""

    @model_validator(mode="after")
    def _coherent(self) -> GpuNodePoolSpec:
        problems = _size_problems(self.min_size, self.desired_size, self.max_size)
        if self.purpose is not PoolPurpose.TRAINING:
            for field in ("efa", "placement_group", "aws_capacity_reservation"):
                if getattr(self, field):
                    problems.append(Problem(to_camel(field), "only training pools use it", given(getattr(self, field))))
        reservation = self.aws_capacity_reservation
        if reservation is not None and reservation.capacity_block:
            # The launch template names the one instance type of the block, in the block's zone.
            if len(self.instance_types) != 1:
                problems.append(
                    Problem("instanceTypes", "a Capacity Block pool has one instance type", list(self.instance_types))
                )
            if len(self.zones) != 1:
                problems.append(
                    Problem("zones", "a Capacity Block pool runs in its block's one zone", list(self.zones))
                )
        if self.purpose is not PoolPurpose.INFERENCE and self.gpu_time_slicing_replicas is not None:
            problems.append(
                Problem("gpuTimeSlicingReplicas", "only inference pools share GPUs", self.gpu_time_slicing_replicas)
            )
        if self.efa and len(self.zones) != 1:
            problems.append(Problem("zones", "an EFA training pool runs in exactly one zone", list(self.zones)))
        if self.gpu_time_slicing_replicas is not None and (self.aws_ami_type or "").startswith("BOTTLEROCKET"):
            # The NVIDIA device plugin chart, whose config time-slices GPUs, skips Bottlerocket (components.k8s.addons).
            message = (
                f"Bottlerocket runs its own device plugin, which this project does not time-slice ({self.aws_ami_type})"
            )
            problems.append(Problem("gpuTimeSlicingReplicas", message, self.gpu_time_slicing_replicas))
        raise_problems(problems)
        return self


class SpotGroupSpec(Spec):
    """Spot GPU capacity over diversified instance types, with an on-demand fall-back pool."""

    name: K8sName
    """The group's name, unique in the environment."""
    purpose: PoolPurpose
    """Training (non-critical) or inference."""
    instance_types: tuple[str, ...] = Field(min_length=1)
    """Catalog types of one GPU class; on AWS also of one capacity (vCPUs, memory, GPUs), as the cluster autoscaler
    sizes the group from its first type."""
    min_size: int = Field(default=0, ge=0, le=1000)
    """Fewest spot nodes."""
    desired_size: int = Field(default=0, ge=0, le=1000)
    """Spot nodes at creation; the autoscaler owns it afterwards."""
    max_size: int = Field(ge=1, le=1000)
    """Most spot nodes."""
    disk_size_gib: int = Field(default=200, ge=50, le=16384)
    """Root disk size in GiB."""
    max_price_per_hour: float | None = Field(default=None, gt=0)
    """One price cap per instance-hour for every type; none means pay up to on-demand. Refused on both clouds: EKS
    managed node groups cannot cap the spot price, and ACK caps each instance type at its own pay-as-you-go price
    (SpotAsPriceGo) where one figure for every size would price out the large types or overpay for the small."""
    on_demand_fallback: bool = True
    """Create an on-demand pool (min 0) of the same GPU class the autoscaler uses when spot runs out."""
    fallback_max_size: int | None = Field(default=None, ge=1, le=1000)
    """Most on-demand fall-back nodes; defaults to maxSize."""

    @model_validator(mode="after")
    def _coherent(self) -> SpotGroupSpec:
        problems = _size_problems(self.min_size, self.desired_size, self.max_size)
        if self.fallback_max_size is not None and not self.on_demand_fallback:
            problems.append(Problem("fallbackMaxSize", "set without onDemandFallback", self.fallback_max_size))
        raise_problems(problems)
        return self


def _size_problems(min_size: int, desired: int, max_size: int) -> list[Problem]:
    problems = []
    if min_size > desired:
        problems.append(Problem("minSize", f"greater than desiredSize {desired}", min_size))
    if desired > max_size:
        problems.append(Problem("desiredSize", f"greater than maxSize {max_size}", desired))
    return problems


def _type_problems(cloud: Cloud, path: str, types: Iterable[str]) -> list[Problem]:
    return [
        Problem(f"{path}.{i}", f"not a GPU instance type of the {cloud.value} catalog", name)
        for i, name in enumerate(types)
        if lookup(cloud, name) is None
    ]


def pool_problems(cloud: Cloud, pool: GpuNodePoolSpec, path: str = "") -> list[Problem]:
    """What is wrong with ``pool`` on ``cloud``: unknown types, EFA on types without it, AWS-only knobs."""
    prefix = f"{path}." if path else ""
    problems = _type_problems(cloud, f"{prefix}instanceTypes", pool.instance_types)
    if cloud is Cloud.AWS and pool.efa:
        for i, name in enumerate(pool.instance_types):
            found = lookup(cloud, name)
            if found is not None and not found.has_efa:
                problems.append(Problem(f"{prefix}instanceTypes.{i}", "does not support EFA (efa is true)", name))
    if cloud is not Cloud.AWS:
        for field in ("efa", "aws_ami_type", "aws_ami_release_version", "aws_capacity_reservation"):
            if getattr(pool, field):
                problems.append(
                    Problem(f"{prefix}{to_camel(field)}", "is an AWS-only setting", given(getattr(pool, field)))
                )
    return problems


def spot_problems(cloud: Cloud, group: SpotGroupSpec, path: str = "", autoscaler_sizing: bool = True) -> list[Problem]:
    """What is wrong with ``group`` on ``cloud``: unknown types, types of different GPU classes or (when the cluster
    autoscaler sizes it, not Karpenter) capacities, a flat price cap on Alibaba Cloud."""
    prefix = f"{path}." if path else ""
    problems = _type_problems(cloud, f"{prefix}instanceTypes", group.instance_types)
    found = [t for name in group.instance_types if (t := lookup(cloud, name)) is not None]
    classes = {t.gpu_class for t in found}
    if len(classes) > 1:
        problems.append(Problem(f"{prefix}instanceTypes", "mixes GPU classes; use one GPU model", sorted(classes)))
    if cloud is Cloud.AWS and autoscaler_sizing and len({_capacity(t) for t in found}) > 1:
        shapes = ", ".join(f"{t.name}: {_capacity_text(t)}" for t in found)
        message = f"differ in capacity ({shapes}); the cluster autoscaler sizes the group from its first type only"
        problems.append(Problem(f"{prefix}instanceTypes", message, list(group.instance_types)))
    if cloud is Cloud.ALICLOUD and group.max_price_per_hour is not None:
        problems.append(Problem(f"{prefix}maxPricePerHour", ALICLOUD_FLAT_SPOT_CAP, group.max_price_per_hour))
    return problems


def _capacity(instance_type: InstanceType) -> tuple[int, float, int, float]:
    """What the cluster autoscaler reads from a group's first type to size the group: vCPUs, memory, GPUs (and size).

    kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md at tag cluster-autoscaler-1.35.0 (the
    appVersion of chart 9.59.0, read 2026-12-03): each group "should be composed of instance types that provide
    approximately equal capacity", as "each of those provide 4 vCPUs and 16GiB RAM"; the autoscaler "will attempt
    to determine the CPU, memory, and GPU resources" of a group from its instance type and, with several, "only the
    first instance type found will be used"; for mixed instances "the instance types should have the same amount of
    RAM and number of CPU cores". "Approximately equal" is taken as that: the same vCPUs, memory and GPU count, and
    the same memory per GPU (not a resource the autoscaler counts, but what a pod's model must fit in).
    Checked on AWS only: ACK scales node pools with its own node autoscaling, whose sizing this project has not
    verified (the upstream Alibaba Cloud provider sizes a group from its scaling configuration's one InstanceType,
    cloudprovider/alicloud/alicloud_manager.go getAsgTemplate, same tag).
    """
    return instance_type.vcpu, instance_type.memory_gib, instance_type.gpu_count, instance_type.gpu_memory_gib


def _capacity_text(instance_type: InstanceType) -> str:
    vcpu, memory, gpus, gpu_memory = _capacity(instance_type)
    return f"{vcpu} vCPU {memory:g} GiB {gpus}x{gpu_memory:.1f} GiB GPU"


ALICLOUD_FLAT_SPOT_CAP = (
    "ACK caps the spot price of each instance type, and no cap per type can be derived from one figure (the price "
    "book has no Alibaba Cloud prices); leave it out: each type then bids the market price up to its own "
    "pay-as-you-go price (SpotAsPriceGo)"
)
"""Why a flat spot price cap is refused on Alibaba Cloud (components.alicloud.spot.SPOT_AS_PRICE_GO)."""


def pool_gpus(cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    """GPUs every node of ``pool`` has (the fewest of its catalog types; 0 when none is in the catalog)."""
    counts = [t.gpu_count for name in pool.instance_types if (t := lookup(cloud, name)) is not None]
    return min(counts, default=0)


def pool_memory_gib(cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> float:
    """Memory every node of ``pool`` has, in GiB (the least of its catalog types)."""
    sizes = [t.memory_gib for name in pool.instance_types if (t := lookup(cloud, name)) is not None]
    return min(sizes, default=0.0)


def max_nodes(pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    """Most nodes ``pool`` runs at once: a spot group's spot nodes or its on-demand fall-back, the larger."""
    if isinstance(pool, SpotGroupSpec) and pool.on_demand_fallback:
        return max(pool.max_size, pool.fallback_max_size or pool.max_size)
    return pool.max_size
