"""The cluster of an environment: its KMS key, its managed control plane and system pool, who administers GPUs,
and its add-ons."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from pydantic import Field, model_validator

from gpu_cloud.components.catalog import Cloud, lookup
from gpu_cloud.components.cloud_limits import limits
from gpu_cloud.components.spec._base import K8sName, Spec
from gpu_cloud.components.spec.problems import Problem, raise_problems
from gpu_cloud.components.versions import DEFAULT_KUBERNETES_VERSION

__all__ = [
    "ACK_MIN_MAINTENANCE_HOURS_PER_MONTH",
    "ALICLOUD_KMS_INSTANCE_REQUIRED",
    "ALICLOUD_ROTATION_DAYS",
    "AWS_ROTATION_DAYS",
    "DEFAULT_SYSTEM_INSTANCE_TYPES",
    "DELETION_WINDOW_DAYS",
    "SYSTEM_POOL_NAME",
    "AccessSpec",
    "AddonsSpec",
    "AlicloudMaintenanceWindowSpec",
    "ClusterSpec",
    "KmsKeySpec",
    "system_pool_problems",
]


# Bounds of automatic key rotation the clouds accept, in days. AWS: RotationPeriodInDays 90..2560
# (AWS KMS API reference, EnableKeyRotation). Alibaba Cloud: the environment's 90-day rule caps the
# KMS rotation interval (7 days minimum per the KMS CreateKey API, RotationInterval) at 90.
AWS_ROTATION_DAYS = (90, 2560)
ALICLOUD_ROTATION_DAYS = (7, 90)

# Deletion windows the clouds accept, in days: AWS PendingWindowInDays 7..30 (KMS ScheduleKeyDeletion);
# Alibaba PendingWindowInDays 7..366 (KMS ScheduleKeyDeletion). The protect-stateful policy wants >= 30.
DELETION_WINDOW_DAYS = (7, 30)

SYSTEM_POOL_NAME = "system"
"""The name of the untainted, non-GPU pool every cluster gets for its add-ons; no GPU pool may take it."""

DEFAULT_SYSTEM_INSTANCE_TYPES: Mapping[Cloud, tuple[str, ...]] = {
    Cloud.AWS: ("m6i.xlarge",),
    Cloud.ALICLOUD: ("ecs.g7.xlarge",),
}
"""Default types of the system pool per cloud, when ``cluster.systemInstanceTypes`` is empty (why these:
``components.aws.cluster`` and ``components.alicloud.cluster``, ``SYSTEM_INSTANCE_TYPES``)."""

# Instance type names (EC2 User Guide, "Amazon EC2 instance type naming conventions": family, generation,
# attributes, a dot, the size; ECS: "ecs.<family>.<size>", Alibaba Cloud ECS "Instance type naming").
_INSTANCE_TYPE_NAMES = {
    Cloud.AWS: re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$"),
    Cloud.ALICLOUD: re.compile(r"^ecs\.[a-z0-9-]+\.[a-z0-9]+$"),
}
# Accelerated families, GPU or not, that must never be an untainted system node: EC2 accelerated computing
# (p, g, gr, inf, trn, dl, f, vt families) and ECS GPU/FPGA families (gn*, ebmgn*, sgn*, vgn*, f*).
_ACCELERATED_FAMILIES = {
    Cloud.AWS: re.compile(r"^(p|g|gr|inf|trn|dl|f|vt)\d"),
    Cloud.ALICLOUD: re.compile(r"^ecs\.(gn|ebmgn|sgn|vgn|f)\d"),
}


ALICLOUD_KMS_INSTANCE_REQUIRED = (
    "required on Alibaba Cloud (kms.alicloudKmsInstanceId, or the bootstrap's): only keys of a software KMS instance "
    "rotate every rotationDays (a default key rotates every 365 days)"
)


class KmsKeySpec(Spec):
    """A customer-managed KMS key with automatic rotation."""

    rotation_days: int = Field(default=90, ge=1)
    """Days between automatic rotations; the policy allows at most 90."""
    deletion_window_days: int = Field(default=30, ge=DELETION_WINDOW_DAYS[0], le=DELETION_WINDOW_DAYS[1])
    """Days a deleted key stays recoverable."""
    alicloud_kms_instance_id: str | None = None
    """Alibaba Cloud only: the software KMS instance that holds the key, when not the one the account's bootstrap
    publishes (``bootstrap_facts.KMS_INSTANCE_ID``, which the environment reads by default)."""


Weekday = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
"""A day of ACK's weekly maintenance period (maintenance_window ``weekly_period`` values)."""

ACK_MIN_MAINTENANCE_HOURS_PER_MONTH = 48
"""ACK: "Set each window to at least 4 hours. Total available maintenance time per month must be at least 48 hours"
so that long tasks such as upgrades do not fail (ACK user guide, "Cluster maintenance window", best practices,
https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/user-guide/cluster-maintenance-window, read 2026-12-03)."""


class AlicloudMaintenanceWindowSpec(Spec):
    """When ACK may run its planned maintenance of the cluster (cs.ManagedKubernetes ``maintenance_window``).

    The default is off-peak for a China region: 00:00-04:00 China Standard Time on Tuesday, Wednesday and Thursday
    nights (mid-week, with staff at work the morning after), 12 hours a week: ACK's 48-hour monthly minimum even in
    February.
    """

    start: str = Field(default="00:00+08:00", pattern=r"^([01]\d|2[0-3]):[0-5]\d[+-](0\d|1[0-4]):[0-5]\d$")
    """Local start time with its UTC offset (``HH:MM+HH:MM``); set the offset of the region's users."""
    weekdays: tuple[Weekday, ...] = Field(default=("Tuesday", "Wednesday", "Thursday"), min_length=1, max_length=7)
    """The days the window opens on."""
    duration_hours: int = Field(default=4, ge=4, le=24)
    """Hours the window stays open: ACK recommends at least 4, its API takes at most 24."""

    @model_validator(mode="after")
    def _enough_time(self) -> AlicloudMaintenanceWindowSpec:
        problems = []
        if len(set(self.weekdays)) != len(self.weekdays):
            problems.append(Problem("weekdays", "names a day twice", list(self.weekdays)))
        # A month has at least four of each weekday.
        elif 4 * len(self.weekdays) * self.duration_hours < ACK_MIN_MAINTENANCE_HOURS_PER_MONTH:
            message = (
                f"opens {len(self.weekdays)} day(s) x {self.duration_hours} h a week, under ACK's "
                f"{ACK_MIN_MAINTENANCE_HOURS_PER_MONTH} hours a month; add days or hours"
            )
            problems.append(Problem("weekdays", message, list(self.weekdays)))
        raise_problems(problems)
        return self


class ClusterSpec(Spec):
    """The managed Kubernetes control plane."""

    kubernetes_version: str = Field(default=DEFAULT_KUBERNETES_VERSION, pattern=r"^1\.\d{2}$")
    """The Kubernetes minor version, e.g. ``1.35``; node images follow it. It must be in standard support on the
    cloud today and have every pin (``components.kubernetes_support.version_problem``)."""
    log_retention_days: int = Field(default=90, ge=1, le=3653)
    """How long control-plane logs are kept."""
    system_instance_types: tuple[str, ...] = ()
    """Non-GPU instance types of the untainted system pool where coredns, the cluster autoscaler and monitoring
    run; empty means the cloud component's default."""
    system_min_size: int = Field(default=2, ge=1, le=100)
    """Fewest system nodes (two, so the add-ons survive the loss of one)."""
    system_max_size: int = Field(default=4, ge=1, le=100)
    """Most system nodes (AWS; the ACK system pool is not autoscaled and runs ``system_min_size`` nodes)."""
    system_disk_size_gib: int = Field(default=100, ge=40, le=2048)
    """Disk size of each system node in GiB (the root volume on AWS, the data disk on Alibaba Cloud)."""
    alicloud_maintenance_window: AlicloudMaintenanceWindowSpec | None = None
    """Alibaba Cloud only: when ACK may maintain the cluster; none means the default window (off-peak China time)."""

    @model_validator(mode="after")
    def _system_sizes(self) -> ClusterSpec:
        if self.system_min_size > self.system_max_size:
            raise_problems(
                [Problem("systemMinSize", f"greater than systemMaxSize {self.system_max_size}", self.system_min_size)]
            )
        return self


class AccessSpec(Spec):
    """Who administers GPU scheduling and who runs GPU jobs."""

    admin_principals: tuple[str, ...] = Field(min_length=1)
    """IAM (AWS) or RAM (Alibaba) role/user ARNs that may assume gpu-admin."""
    user_principals: tuple[str, ...] = ()
    """ARNs that may assume the read-only gpu-user role."""
    gpu_namespaces: tuple[K8sName, ...] = ("gpu-training", "gpu-inference")
    """Namespaces where gpu-admin may delete pods/jobs and manage quotas."""


class AddonsSpec(Spec):
    """Cluster add-ons for GPUs (versions are pinned in ``components.versions``)."""

    monitoring: bool = True
    """DCGM exporter, kube-prometheus-stack with a GPU dashboard, and GPU alerts."""
    cluster_autoscaler: bool = True
    """Cluster autoscaler with the priority expander (spot first, on-demand fall-back)."""
    prometheus_adapter: bool = True
    """Expose DCGM metrics to the HPA."""


def system_pool_problems(cloud: Cloud, cluster: ClusterSpec, path: str = "") -> list[Problem]:
    """What is wrong with the cluster's system pool types on ``cloud``: not instance type names of that cloud, not a
    type the cloud has (AWS: EC2's InstanceType list in botocore's model, ``ec2_facts.json``; Alibaba Cloud has no
    sourced list, so its names are checked by form only), or GPU/accelerated types (the system pool is untainted; a
    GPU there would take any pod)."""
    prefix = f"{path}." if path else ""
    known = limits(cloud).instance_types
    problems = []
    for i, name in enumerate(cluster.system_instance_types):
        where = f"{prefix}systemInstanceTypes.{i}"
        if not _INSTANCE_TYPE_NAMES[cloud].match(name):
            problems.append(Problem(where, f"not a {cloud.value} instance type name", name))
        elif known is not None and name not in known:
            problems.append(Problem(where, f"not an instance type of {cloud.value}", name))
        elif lookup(cloud, name) is not None or _ACCELERATED_FAMILIES[cloud].match(name):
            problems.append(Problem(where, "a GPU or accelerated type; the system pool runs CPU types only", name))
    return problems
