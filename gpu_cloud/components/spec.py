"""The typed vocabulary of a GPU environment: frozen pydantic specs shared by both clouds.

Every spec is immutable and rejects unknown fields. Field names are snake_case in Python and camelCase
in stack config files (``nodePools``, ``vpcCidr``). A spec validates itself; checks that need the cloud
(the instance catalog, key rotation bounds, principal formats) live in :func:`cloud_problems`, which
:class:`StackConfig` and the components both run, so that nothing is registered from invalid input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from ipaddress import IPv4Network
from typing import Annotated, Any, Literal, get_args, get_origin

import pulumi
from pulumi.runtime import config as runtime_config
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from gpu_cloud.components.catalog import Cloud, InstanceType, lookup
from gpu_cloud.components.cloud_limits import limits
from gpu_cloud.components.versions import DEFAULT_KUBERNETES_VERSION, version_problem

__all__ = [
    "ACK_SERVICE_CIDR",
    "AWS_TLS13_SSL_POLICIES",
    "CONFIG_NAMESPACE",
    "DEFAULT_SYSTEM_INSTANCE_TYPES",
    "SPOT_NOTICE_SECONDS",
    "SYSTEM_POOL_NAME",
    "AccessSpec",
    "AddonsSpec",
    "AlertReceiverKind",
    "AlertsSpec",
    "AlicloudMaintenanceWindowSpec",
    "AwsCapacityReservationSpec",
    "CheckpointBucketSpec",
    "Cloud",
    "ClusterSpec",
    "ConfigError",
    "DeploySpec",
    "EgressMode",
    "GpuMetric",
    "GpuNodePoolSpec",
    "InferenceServiceSpec",
    "KmsKeySpec",
    "ModelServer",
    "NetworkSpec",
    "PeeringSpec",
    "PoolPurpose",
    "Problem",
    "QueueSpec",
    "SpotGroupSpec",
    "StackConfig",
    "StackConfigError",
    "SubnetSpec",
    "TrainingJobSpec",
    "TrainingSpec",
    "alert_problems",
    "cloud_problems",
    "config_error",
    "load_stack_config",
    "max_nodes",
    "parse_stack_config",
    "pool_gpus",
    "pool_memory_gib",
    "pool_problems",
    "spot_problems",
    "system_pool_problems",
    "training_problems",
]

# Bounds of automatic key rotation the clouds accept, in days. AWS: RotationPeriodInDays 90..2560
# (AWS KMS API reference, EnableKeyRotation). Alibaba Cloud: the environment's 90-day rule caps the
# KMS rotation interval (7 days minimum per the KMS CreateKey API, RotationInterval) at 90.
AWS_ROTATION_DAYS = (90, 2560)
ALICLOUD_ROTATION_DAYS = (7, 90)

# Deletion windows the clouds accept, in days: AWS PendingWindowInDays 7..30 (KMS ScheduleKeyDeletion);
# Alibaba PendingWindowInDays 7..366 (KMS ScheduleKeyDeletion). The protect-stateful policy wants >= 30.
DELETION_WINDOW_DAYS = (7, 30)

REQUIRED_TAGS = ("environment", "owner", "cost-center")
"""Tags every environment carries (the required-tags policy's default)."""

ACK_SERVICE_CIDR = IPv4Network("172.21.0.0/20")
"""The Service range of every ACK cluster; no VPC may overlap it."""

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

_K8S_NAME = r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$"
_AWS_PRINCIPAL = re.compile(r"^arn:aws(-cn|-us-gov)?:iam::\d{12}:(role|user)/[\w+=,.@/-]+$")
_ACM_CERTIFICATE = re.compile(r"^arn:aws(-cn|-us-gov)?:acm:[a-z0-9-]+:\d{12}:certificate/[0-9a-f-]{36}$")
_ALICLOUD_PRINCIPAL = re.compile(r"^acs:ram::\d+:(role|user)/[\w+=,.@/-]+$")

K8sName = Annotated[str, Field(pattern=_K8S_NAME, description="A DNS-1123 label of at most 40 characters.")]


class _Spec(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,
    )


class EgressMode(StrEnum):
    """How private GPU nodes reach the internet."""

    NAT = "nat"
    """NAT gateways in small public subnets that hold nothing else."""
    ENDPOINTS_ONLY = "endpoints-only"
    """No internet path at all: only private endpoints to cloud services."""


class PoolPurpose(StrEnum):
    """What a GPU pool runs."""

    TRAINING = "training"
    INFERENCE = "inference"


class GpuMetric(StrEnum):
    """The GPU signal inference autoscaling follows (from the DCGM exporter via prometheus-adapter)."""

    UTILIZATION = "gpu-utilization"
    """DCGM_FI_DEV_GPU_UTIL."""
    MEMORY = "gpu-memory"
    """Framebuffer used over total: DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE)."""


class SubnetSpec(_Spec):
    """One subnet (a vswitch on Alibaba Cloud) in one zone."""

    zone: str = Field(min_length=1)
    """The availability zone, e.g. ``us-east-1a`` or ``cn-hangzhou-h``."""
    cidr: IPv4Network
    """The subnet's IPv4 range; must lie inside the VPC."""


class NetworkSpec(_Spec):
    """A private VPC for GPU nodes."""

    vpc_cidr: IPv4Network
    """The VPC's IPv4 range."""
    private_subnets: tuple[SubnetSpec, ...] = Field(min_length=2)
    """Private subnets for nodes, at least two zones."""
    egress: EgressMode = EgressMode.NAT
    """How nodes reach the internet."""
    nat_subnets: tuple[SubnetSpec, ...] = ()
    """Small subnets that hold only NAT gateways (AWS: public; required when egress is nat on AWS)."""
    nat_per_zone: bool = True
    """One NAT gateway per zone (prod) or a single shared one (dev)."""
    flow_log_retention_days: int = Field(default=90, ge=1, le=3653)
    """How long VPC flow logs are kept."""

    @model_validator(mode="after")
    def _subnets_fit(self) -> NetworkSpec:
        subnets = {"privateSubnets": self.private_subnets, "natSubnets": self.nat_subnets}
        problems = _layout_problems("vpcCidr", self.vpc_cidr, subnets)
        if self.egress is EgressMode.ENDPOINTS_ONLY and self.nat_subnets:
            problems.append(Problem("natSubnets", "must be empty when egress is endpoints-only", len(self.nat_subnets)))
        _raise(problems)
        return self

    @property
    def zones(self) -> tuple[str, ...]:
        """The zones of the private subnets, in order, without repeats."""
        return tuple(dict.fromkeys(s.zone for s in self.private_subnets))


ALICLOUD_KMS_INSTANCE_REQUIRED = (
    "required on Alibaba Cloud: only keys of a software KMS instance rotate every rotationDays "
    "(a default key rotates every 365 days)"
)


class KmsKeySpec(_Spec):
    """A customer-managed KMS key with automatic rotation."""

    rotation_days: int = Field(default=90, ge=1)
    """Days between automatic rotations; the policy allows at most 90."""
    deletion_window_days: int = Field(default=30, ge=DELETION_WINDOW_DAYS[0], le=DELETION_WINDOW_DAYS[1])
    """Days a deleted key stays recoverable."""
    alicloud_kms_instance_id: str | None = None
    """Alibaba Cloud only, and required there unless ``alicloudKmsInstanceStack`` names where it comes from: the
    software KMS instance that holds the key."""
    alicloud_kms_instance_stack: str | None = None
    """Alibaba Cloud only: the stack that exports ``kmsInstanceId`` (the account's bootstrap stack, which owns the
    KMS instance), read through a StackReference instead of a copied id."""


Weekday = Literal["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
"""A day of ACK's weekly maintenance period (maintenance_window ``weekly_period`` values)."""

ACK_MIN_MAINTENANCE_HOURS_PER_MONTH = 48
"""ACK: "Set each window to at least 4 hours. Total available maintenance time per month must be at least 48 hours"
so that long tasks such as upgrades do not fail (ACK user guide, "Cluster maintenance window", best practices,
https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/user-guide/cluster-maintenance-window, read 2026-12-03)."""


class AlicloudMaintenanceWindowSpec(_Spec):
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
        _raise(problems)
        return self


class ClusterSpec(_Spec):
    """The managed Kubernetes control plane."""

    kubernetes_version: str = Field(default=DEFAULT_KUBERNETES_VERSION, pattern=r"^1\.\d{2}$")
    """The Kubernetes minor version, e.g. ``1.35``; node images follow it. It must be in standard support on the
    cloud today and have every pin (``components.versions.version_problem``)."""
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
            _raise(
                [Problem("systemMinSize", f"greater than systemMaxSize {self.system_max_size}", self.system_min_size)]
            )
        return self


class AwsCapacityReservationSpec(_Spec):
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
        _raise(problems)
        return self


class GpuNodePoolSpec(_Spec):
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
                    problems.append(
                        Problem(to_camel(field), "only training pools use it", _given(getattr(self, field)))
                    )
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
        _raise(problems)
        return self


class SpotGroupSpec(_Spec):
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
        _raise(problems)
        return self


class PeeringSpec(_Spec):
    """Private peering to a VPC in another region (e.g. a data VPC)."""

    peer_region: str = Field(min_length=1)
    """The peer VPC's region."""
    peer_vpc_cidr: IPv4Network
    """The peer VPC's range; must not overlap this VPC."""
    peer_private_subnets: tuple[SubnetSpec, ...] = ()
    """When the peer VPC is created by this program: its private subnets (at least two zones)."""
    peer_stack: str | None = None
    """When the peer VPC lives in another stack: that stack's name (outputs vpcId and privateRouteTableIds on
    AWS, vpcId and routeTableId on Alibaba Cloud)."""
    peer_route_table_count: int = Field(default=1, ge=1, le=16)
    """With peerStack on AWS: how many ids its privateRouteTableIds output lists (one per zone). A route to this
    VPC goes into each; the count must be known before the other stack's outputs are read."""

    @model_validator(mode="after")
    def _one_source(self) -> PeeringSpec:
        if bool(self.peer_private_subnets) == bool(self.peer_stack):
            _raise(
                [
                    Problem(
                        "peerStack", "give either peerPrivateSubnets or peerStack, not both or neither", self.peer_stack
                    )
                ]
            )
        if self.peer_private_subnets and self.peer_route_table_count != 1:
            _raise([Problem("peerRouteTableCount", "only with peerStack", self.peer_route_table_count)])
        if self.peer_private_subnets:
            _raise(
                _layout_problems("peerVpcCidr", self.peer_vpc_cidr, {"peerPrivateSubnets": self.peer_private_subnets})
            )
        return self

    @property
    def peer_network(self) -> NetworkSpec | None:
        """The data VPC this program creates in the peer region (endpoints only), or None with ``peer_stack``."""
        if not self.peer_private_subnets:
            return None
        return NetworkSpec(
            vpc_cidr=self.peer_vpc_cidr, private_subnets=self.peer_private_subnets, egress=EgressMode.ENDPOINTS_ONLY
        )


class AccessSpec(_Spec):
    """Who administers GPU scheduling and who runs GPU jobs."""

    admin_principals: tuple[str, ...] = Field(min_length=1)
    """IAM (AWS) or RAM (Alibaba) role/user ARNs that may assume gpu-admin."""
    user_principals: tuple[str, ...] = ()
    """ARNs that may assume the read-only gpu-user role."""
    gpu_namespaces: tuple[K8sName, ...] = ("gpu-training", "gpu-inference")
    """Namespaces where gpu-admin may delete pods/jobs and manage quotas."""


class AddonsSpec(_Spec):
    """Cluster add-ons for GPUs (versions are pinned in ``components.versions``)."""

    monitoring: bool = True
    """DCGM exporter, kube-prometheus-stack with a GPU dashboard, and GPU alerts."""
    cluster_autoscaler: bool = True
    """Cluster autoscaler with the priority expander (spot first, on-demand fall-back)."""
    prometheus_adapter: bool = True
    """Expose DCGM metrics to the HPA."""


class ModelServer(StrEnum):
    """The model server an inference service runs."""

    TENSORFLOW_SERVING = "tensorflow-serving"
    """TensorFlow Serving (the default image, or another build of it): the component passes the model name and base
    path and probes the model status endpoint."""
    CUSTOM = "custom"
    """Another server: it gets ``MODEL_NAME`` and ``MODEL_BASE_PATH`` and must name its readiness path."""


AWS_TLS13_SSL_POLICIES = ("ELBSecurityPolicy-TLS13-1-3-2021-06", "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04")
"""ELB security policies that negotiate TLS 1.3 only (Elastic Load Balancing, "Security policies for your Network
Load Balancer": the TLS13-1-3 policies support TLSv1.3 alone); the first is the default."""

_PATH_SEGMENT = re.compile(r"^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$")


class AlertReceiverKind(StrEnum):
    """Where Alertmanager sends the environment's alerts (its receiver integrations, Alertmanager 0.30)."""

    WEBHOOK = "webhook"
    """An HTTP endpoint taking Alertmanager's webhook JSON, e.g. a DingTalk bridge such as
    prometheus-webhook-dingtalk (Alertmanager has no DingTalk integration)."""
    SLACK = "slack"
    """A Slack incoming webhook and its channel."""
    SNS = "sns"
    """An Amazon SNS topic (AWS only); Alertmanager publishes with its Pod Identity role."""


class AlertsSpec(_Spec):
    """The receiver every alert of the environment goes to. Its URL, a credential, is never here: it is the Pulumi
    secret ``alertReceiverUrl`` of the stack (``pulumi config set --secret alertReceiverUrl <url>``)."""

    receiver: AlertReceiverKind
    """webhook, slack or sns."""
    slack_channel: str | None = Field(default=None, pattern=r"^#[a-z0-9][a-z0-9._-]{0,79}$")
    """Slack only: the channel, e.g. ``#gpu-alerts``."""
    sns_topic_arn: str | None = Field(
        default=None, pattern=r"^arn:aws(-cn|-us-gov)?:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$"
    )
    """SNS only: the topic, in the environment's region."""

    @model_validator(mode="after")
    def _receiver_fields(self) -> AlertsSpec:
        wanted = {AlertReceiverKind.SLACK: "slack_channel", AlertReceiverKind.SNS: "sns_topic_arn"}
        problems = [
            Problem(to_camel(field), f"required for receiver {kind.value}", None)
            for kind, field in wanted.items()
            if self.receiver is kind and getattr(self, field) is None
        ]
        problems += [
            Problem(to_camel(field), f"only receiver {kind.value} uses it", getattr(self, field))
            for kind, field in wanted.items()
            if self.receiver is not kind and getattr(self, field) is not None
        ]
        _raise(problems)
        return self

    @property
    def needs_url(self) -> bool:
        """The receiver posts to a URL (webhook, Slack), which the ``alertReceiverUrl`` secret holds."""
        return self.receiver is not AlertReceiverKind.SNS


class InferenceServiceSpec(_Spec):
    """A GPU model server with GPU-driven autoscaling, its model staged from the environment's bucket."""

    name: K8sName
    """The service's name (its Kubernetes objects and ServiceAccount)."""
    pool: K8sName
    """The inference pool (or spot group) it runs on."""
    model_source: str = Field(min_length=1)
    """Key prefix of the model in the environment's bucket (checkpointBucket), e.g. ``models/resnet50``; its
    numeric sub-prefixes (``models/resnet50/1/``) are the versions, each a SavedModel."""
    model_name: str | None = None
    """The name the server serves the model as (a path segment); default: the service's name."""
    model_version: Literal["latest"] | Annotated[int, Field(ge=0)] = "latest"
    """Which version to stage and serve: the highest-numbered one, or that number."""
    server: ModelServer = ModelServer.TENSORFLOW_SERVING
    """The model server of ``image``."""
    image: str | None = None
    """The server image; default TensorFlow Serving GPU (``components.versions``)."""
    probe_path: str | None = Field(default=None, pattern=r"^/[!-~]*$")
    """A custom server's HTTP path that answers 200 once the model is served (startup and readiness probes)."""
    port: int = Field(default=8501, ge=1, le=65535)
    """The server's HTTP port (probes; the Service's target)."""
    gpus_per_replica: int = Field(default=1, ge=1, le=8)
    """``nvidia.com/gpu`` limit per pod."""
    cpu: str = Field(default="1", pattern=r"^([1-9][0-9]*m|[0-9]+(\.[0-9]+)?)$")
    """CPU request and limit of the server (a Kubernetes quantity)."""
    memory: str = Field(default="4Gi", pattern=r"^[1-9][0-9]*(Mi|Gi)$")
    """Memory request and limit of the server."""
    min_replicas: int = Field(default=1, ge=1, le=1000)
    """Fewest replicas."""
    max_replicas: int = Field(default=4, ge=1, le=1000)
    """Most replicas."""
    metric: GpuMetric = GpuMetric.MEMORY
    """The GPU signal the HPA follows (the guide's default: GPU memory utilisation)."""
    target_percent: int = Field(default=70, ge=1, le=100)
    """The HPA target for the metric, in percent."""
    internal_load_balancer: bool = False
    """Expose through the cloud's internal load balancer with a TLS 1.3 listener instead of ClusterIP (never
    internet-facing)."""
    tls_certificate: str | None = None
    """The load balancer listener's certificate: an ACM certificate ARN (AWS) or a Certificate Management Service
    certificate id (Alibaba Cloud); needed with ``internal_load_balancer``."""
    aws_ssl_policy: str | None = None
    """AWS: the TLS listener's ELB security policy, one of :data:`AWS_TLS13_SSL_POLICIES` (default the first)."""
    cuda_version: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    """The CUDA version the image needs; checked against the pool's driver."""
    framework: str | None = Field(default=None, pattern=r"^[a-z]+-\d+\.\d+$")
    """The framework release whose GPU serving image this is, e.g. ``tensorflow-2.18`` for a build of TensorFlow
    Serving 2.18; the CUDA of that release's serving image (components.k8s.cuda) is checked against the pool's driver.
    A ``tensorflow/serving:<X.Y.Z>-gpu`` image, the default one included, is checked from its tag without it."""

    @property
    def served_model_name(self) -> str:
        """The name the server serves the model as."""
        return self.model_name or self.name

    @model_validator(mode="after")
    def _checks(self) -> InferenceServiceSpec:
        problems = []
        if self.min_replicas > self.max_replicas:
            problems.append(Problem("minReplicas", f"greater than maxReplicas {self.max_replicas}", self.min_replicas))
        source = self.model_source
        if "://" in source or source.startswith("/"):
            problems.append(
                Problem(
                    "modelSource",
                    "outside the environment's bucket: give the model's key prefix in it (e.g. models/resnet50)",
                    source,
                )
            )
        elif not all(_PATH_SEGMENT.match(part) for part in source.removesuffix("/").split("/")):
            problems.append(Problem("modelSource", "not a key prefix of path segments (a-z, 0-9, . _ -)", source))
        if self.model_name is not None and not _PATH_SEGMENT.match(self.model_name):
            problems.append(
                Problem("modelName", "not a path segment (1-128 of A-Z a-z 0-9 . _ -; not . or ..)", self.model_name)
            )
        if self.server is ModelServer.CUSTOM and self.probe_path is None:
            problems.append(Problem("probePath", "a custom server must name its readiness path", None))
        if self.server is ModelServer.CUSTOM and self.image is None:
            problems.append(Problem("image", "a custom server needs its image", None))
        if self.server is ModelServer.TENSORFLOW_SERVING and self.probe_path is not None:
            problems.append(
                Problem("probePath", "TensorFlow Serving is probed on its model status endpoint", self.probe_path)
            )
        if self.internal_load_balancer and not self.tls_certificate:
            problems.append(Problem("tlsCertificate", "the internal load balancer's TLS 1.3 listener needs one", None))
        if self.aws_ssl_policy is not None and self.aws_ssl_policy not in AWS_TLS13_SSL_POLICIES:
            problems.append(
                Problem(
                    "awsSslPolicy",
                    f"allows TLS below 1.3; use one of {', '.join(AWS_TLS13_SSL_POLICIES)}",
                    self.aws_ssl_policy,
                )
            )
        _raise(problems)
        return self


class QueueSpec(_Spec):
    """A team's queue: a Kueue ClusterQueue with the team's GPU quota per pool, and its LocalQueue (same name) in the
    training namespace."""

    name: K8sName
    """The team, and the name of its ClusterQueue and LocalQueue."""
    gpus: dict[str, Annotated[int, Field(ge=0, le=100000)]] = Field(min_length=1)
    """GPUs the team may use at once per training pool or spot group (a spot group's quota holds for its spot and for
    its on-demand fall-back capacity each); unused quota of one team may be borrowed by another."""


class TrainingJobSpec(_Spec):
    """A multi-node PyTorch job (``torchrun``, one pod per node) submitted to a team's queue."""

    name: K8sName
    """The job's name (its JobSet, ServiceAccount and checkpoint identity)."""
    queue: K8sName
    """The team queue (one of ``training.queues``) it is submitted to."""
    pool: K8sName
    """The training pool or spot group it runs on."""
    nodes: int = Field(ge=1, le=1000)
    """Nodes (pods, torchrun agents) of the job."""
    gpus_per_node: int | None = Field(default=None, ge=1, le=16)
    """GPUs per node; default every GPU of the pool's instance type."""
    efa: bool | None = None
    """Request the pool's EFA interfaces (AWS); default the pool's ``efa``."""
    priority: Literal["gpu-critical", "gpu-standard", "gpu-preemptible"] = "gpu-standard"
    """Its PriorityClass and Kueue WorkloadPriorityClass; only non-critical jobs may run on spot capacity."""
    image: str = Field(min_length=1)
    """The training image (with PyTorch and, on EFA pools, the aws-ofi-nccl plugin)."""
    command: tuple[str, ...] = Field(min_length=1)
    """The training script and its arguments, run by ``torchrun`` on every node."""
    checkpoint_prefix: str = Field(min_length=1)
    """Key prefix in the environment's checkpoint bucket the job may read and write (``jobs/<name>/``)."""
    shm_size_gib: int | None = Field(default=None, ge=1, le=4096)
    """Size of ``/dev/shm`` (memory-backed); default a quarter of the node's memory, at most 64 GiB."""
    termination_grace_seconds: int = Field(default=100, ge=30, le=3600)
    """Time between SIGTERM and SIGKILL: rank 0 writes its checkpoint in it. On spot capacity it must end before the
    instance does (``SPOT_NOTICE_SECONDS``)."""
    max_restarts: int = Field(default=3, ge=0, le=100)
    """Times the whole job is recreated after a pod fails (it then resumes from its latest checkpoint)."""


class TrainingSpec(_Spec):
    """Defaults for training jobs: namespace, NCCL settings, GPU quota."""

    namespace: K8sName = "gpu-training"
    """The training namespace."""
    gpu_quota: int = Field(default=64, ge=1, le=100000)
    """Most ``nvidia.com/gpu`` requested in the namespace."""
    nccl_debug: Literal["VERSION", "WARN", "INFO", "TRACE"] = "INFO"
    """NCCL_DEBUG."""
    queues: tuple[QueueSpec, ...] = ()
    """Team queues (Kueue); none means no Kueue in the environment."""
    jobs: tuple[TrainingJobSpec, ...] = ()
    """Training jobs the environment runs."""
    acceptance_pools: tuple[K8sName, ...] = ()
    """Training pools a GPU pool acceptance job checks (GPU count and model, topology, two-node NCCL all-reduce)."""


class CheckpointBucketSpec(_Spec):
    """A private, versioned, KMS-encrypted bucket for training checkpoints."""

    noncurrent_version_days: int = Field(default=30, ge=1, le=3650)
    """Days before a non-current checkpoint version expires."""


class DeploySpec(_Spec):
    """Where the Kubernetes API is reached from: the deploy runner of the account's bootstrap stack.

    The control plane has a private endpoint only, so ``pulumi up`` runs on the runner (AWS: a CodeBuild project in
    the runner VPC; Alibaba Cloud: an ECS instance without public IP, driven by Cloud Assistant), which reaches
    the API over a VPC peering this stack creates, admitted by an explicit rule (docs/deploy.md)."""

    runner_stack: str = Field(min_length=1)
    """The bootstrap stack that owns the runner (``<org>/gpu-cloud-bootstrap/<stack>``); it exports runnerVpcId and
    runnerRouteTableIds (AWS: a list; Alibaba Cloud: one id)."""
    runner_vpc_cidr: IPv4Network
    """The runner VPC's range: routed to over the peering and admitted on the API port; must not overlap the VPC."""
    runner_route_table_count: int = Field(default=1, ge=1, le=16)
    """AWS: how many ids the runner stack's runnerRouteTableIds lists."""


class StackConfig(_Spec):
    """One environment: the root of a stack's config (``gpu-cloud:*`` keys)."""

    cloud: Cloud
    """aws or alicloud."""
    region: str = Field(min_length=1)
    """The region of the cluster, e.g. ``us-east-1`` or ``cn-hangzhou``."""
    environment: K8sName
    """The environment's name, e.g. dev, staging, prod, prod-cn."""
    protect_stateful: bool = True
    """Protect and retain KMS keys and checkpoint buckets; only dev may turn it off."""
    tags: dict[str, str]
    """Tags on every resource; must include environment, owner and cost-center."""
    network: NetworkSpec
    """The private network."""
    kms: KmsKeySpec = KmsKeySpec()
    """The environment's KMS key."""
    cluster: ClusterSpec = ClusterSpec()
    """The Kubernetes control plane."""
    node_pools: tuple[GpuNodePoolSpec, ...] = ()
    """On-demand GPU pools."""
    spot_groups: tuple[SpotGroupSpec, ...] = ()
    """Spot GPU groups with on-demand fall-back."""
    peering: PeeringSpec | None = None
    """Private peering to a VPC in another region."""
    access: AccessSpec
    """gpu-admin and gpu-user principals."""
    addons: AddonsSpec = AddonsSpec()
    """GPU add-ons."""
    inference: tuple[InferenceServiceSpec, ...] = ()
    """Inference services."""
    training: TrainingSpec | None = None
    """Training defaults (namespace, NCCL, quota)."""
    checkpoint_bucket: CheckpointBucketSpec | None = None
    """A checkpoint bucket."""
    deploy: DeploySpec
    """The deploy runner that reaches the private Kubernetes API (required: without it the API is unreachable)."""
    alerts: AlertsSpec | None = None
    """Where the alerts go; required with ``addons.monitoring`` (an alert must reach someone)."""
    alert_receiver_url: str | None = Field(default=None, min_length=1, repr=False)
    """The webhook or Slack receiver's URL: a Pulumi secret in the stack (:func:`load_stack_config` refuses it in
    plain text)."""

    @model_validator(mode="after")
    def _cross_checks(self) -> StackConfig:
        _raise(cloud_problems(self))
        return self


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config: where, what, and the value found."""

    path: str
    message: str
    value: Any

    def __str__(self) -> str:
        return f"{self.path}: {self.message} (got {_show(self.value)})"


class ConfigError(ValueError):
    """Invalid input (a spec or a component's arguments); ``problems`` lists every problem found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class StackConfigError(ConfigError):
    """An invalid stack config: each problem's path is a full config key (``gpu-cloud:nodePools.0.name``).

    ``gpucloud plan`` reports it as invalid config in the stack's file; any other ConfigError comes from
    arguments given in code, and is reported as a program error at the line of the program that gave them.
    """


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _given(value: Any) -> Any:
    """A field's value as the config gave it (a nested spec as its camelCase mapping)."""
    return value.model_dump(by_alias=True, exclude_defaults=True) if isinstance(value, BaseModel) else value


def _raise(problems: list[Problem]) -> None:
    if problems:
        # Carried through pydantic as one error; parse_stack_config splits it back into problems.
        raise ValueError(_PROBLEMS_MARK + json.dumps([[p.path, p.message, _show(p.value)] for p in problems]))


_PROBLEMS_MARK = "gpucloud-problems:"


def _layout_problems(vpc_field: str, vpc: IPv4Network, subnets: Mapping[str, tuple[SubnetSpec, ...]]) -> list[Problem]:
    """Subnets outside the VPC or overlapping each other; fewer than two zones in the first field's subnets."""
    problems: list[Problem] = []
    listed = [(field, i, s) for field, items in subnets.items() for i, s in enumerate(items)]
    for field, i, subnet in listed:
        if not subnet.cidr.subnet_of(vpc):
            problems.append(Problem(f"{field}.{i}.cidr", f"not inside {vpc_field} {vpc}", str(subnet.cidr)))
    for a, (fa, ia, sa) in enumerate(listed):
        for fb, ib, sb in listed[a + 1 :]:
            if sa.cidr.overlaps(sb.cidr):
                problems.append(Problem(f"{fb}.{ib}.cidr", f"overlaps {fa}.{ia} ({sa.cidr})", str(sb.cidr)))
    first, nodes = next(iter(subnets.items()))
    zones = [s.zone for s in nodes]
    if len(set(zones)) < 2:
        problems.append(Problem(first, "needs subnets in at least two zones", zones))
    return problems


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
                    Problem(f"{prefix}{to_camel(field)}", "is an AWS-only setting", _given(getattr(pool, field)))
                )
    return problems


def spot_problems(cloud: Cloud, group: SpotGroupSpec, path: str = "") -> list[Problem]:
    """What is wrong with ``group`` on ``cloud``: unknown types, types of different GPU classes or capacities, a
    flat price cap on Alibaba Cloud."""
    prefix = f"{path}." if path else ""
    problems = _type_problems(cloud, f"{prefix}instanceTypes", group.instance_types)
    found = [t for name in group.instance_types if (t := lookup(cloud, name)) is not None]
    classes = {t.gpu_class for t in found}
    if len(classes) > 1:
        problems.append(Problem(f"{prefix}instanceTypes", "mixes GPU classes; use one GPU model", sorted(classes)))
    if cloud is Cloud.AWS and len({_capacity(t) for t in found}) > 1:
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


SPOT_NOTICE_SECONDS = 120
"""Warning a spot instance gets before it is reclaimed: "two minutes" on EC2 (EC2 User Guide, "Spot Instance
interruption notices", docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html, read
2026-12-02). A job's termination grace period on spot capacity must fit in it."""

_CHECKPOINT_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*/$")
"""A key prefix inside the bucket: relative segments (no scheme, no leading slash, no ``..``), ending in ``/``."""


def _training_pools(config: StackConfig) -> dict[str, GpuNodePoolSpec | SpotGroupSpec]:
    pools: list[GpuNodePoolSpec | SpotGroupSpec] = [*config.node_pools, *config.spot_groups]
    return {p.name: p for p in pools if p.purpose is PoolPurpose.TRAINING}


def pool_gpus(cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    """GPUs every node of ``pool`` has (the fewest of its catalog types; 0 when none is in the catalog)."""
    counts = [t.gpu_count for name in pool.instance_types if (t := lookup(cloud, name)) is not None]
    return min(counts, default=0)


def pool_memory_gib(cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> float:
    """Memory every node of ``pool`` has, in GiB (the least of its catalog types)."""
    sizes = [t.memory_gib for name in pool.instance_types if (t := lookup(cloud, name)) is not None]
    return min(sizes, default=0.0)


def training_problems(config: StackConfig) -> list[Problem]:
    """What is wrong with the queues, jobs and acceptance pools of ``config.training``."""
    training = config.training
    if training is None:
        return []
    pools = _training_pools(config)
    problems: list[Problem] = []
    queues = [q.name for q in training.queues]
    for i, queue in enumerate(training.queues):
        if queue.name in queues[:i]:
            problems.append(Problem(f"training.queues.{i}.name", "already used by another queue", queue.name))
        problems += [
            Problem(f"training.queues.{i}.gpus.{pool}", "not a training pool or spot group", pool)
            for pool in queue.gpus
            if pool not in pools
        ]
    names = [j.name for j in training.jobs]
    for i, job in enumerate(training.jobs):
        problems += _job_problems(config, job, pools, queues, f"training.jobs.{i}")
        if job.name in names[:i]:
            problems.append(Problem(f"training.jobs.{i}.name", "already used by another job", job.name))
    if training.acceptance_pools and not training.queues:
        problems.append(
            Problem(
                "training.acceptancePools", "needs training.queues (JobSet comes with them)", training.acceptance_pools
            )
        )
    for i, name in enumerate(training.acceptance_pools):
        pool = pools.get(name)
        if pool is None:
            problems.append(Problem(f"training.acceptancePools.{i}", "not a training pool or spot group", name))
        elif max_nodes(pool) < 2:
            problems.append(Problem(f"training.acceptancePools.{i}", "the two-node test needs maxSize >= 2", name))
    return problems


def max_nodes(pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    """Most nodes ``pool`` runs at once: a spot group's spot nodes or its on-demand fall-back, the larger."""
    if isinstance(pool, SpotGroupSpec) and pool.on_demand_fallback:
        return max(pool.max_size, pool.fallback_max_size or pool.max_size)
    return pool.max_size


def _job_problems(
    config: StackConfig,
    job: TrainingJobSpec,
    pools: Mapping[str, GpuNodePoolSpec | SpotGroupSpec],
    queues: list[str],
    path: str,
) -> list[Problem]:
    problems: list[Problem] = []
    if job.queue not in queues:
        problems.append(Problem(f"{path}.queue", f"no queue of that name in training.queues ({queues})", job.queue))
    if config.checkpoint_bucket is None:
        problems.append(Problem(f"{path}.checkpointPrefix", "the environment has no checkpointBucket", job.name))
    elif not _CHECKPOINT_PREFIX.match(job.checkpoint_prefix) or ".." in job.checkpoint_prefix.split("/"):
        problems.append(
            Problem(f"{path}.checkpointPrefix", "not a key prefix inside the checkpoint bucket", job.checkpoint_prefix)
        )
    pool = pools.get(job.pool)
    if pool is None:
        problems.append(Problem(f"{path}.pool", "not a training pool or spot group", job.pool))
        return problems
    gpus = pool_gpus(config.cloud, pool)
    if job.gpus_per_node is not None and job.gpus_per_node > gpus:
        problems.append(
            Problem(
                f"{path}.gpusPerNode", f"more than the {gpus} GPUs of {job.pool}'s instance type", job.gpus_per_node
            )
        )
    pool_efa = isinstance(pool, GpuNodePoolSpec) and pool.efa
    if job.efa and not pool_efa:
        problems.append(Problem(f"{path}.efa", f"pool {job.pool} has no EFA", job.efa))
    if job.nodes > max_nodes(pool):
        problems.append(Problem(f"{path}.nodes", f"more than the {max_nodes(pool)} nodes of {job.pool}", job.nodes))
    spot = isinstance(pool, SpotGroupSpec)
    if isinstance(pool, SpotGroupSpec) and job.priority == "gpu-critical" and not pool.on_demand_fallback:
        problems.append(
            Problem(
                f"{path}.priority",
                f"critical jobs never run on spot and {job.pool} has no on-demand fall-back",
                job.priority,
            )
        )
    if spot and job.termination_grace_seconds > SPOT_NOTICE_SECONDS:
        problems.append(
            Problem(
                f"{path}.terminationGraceSeconds",
                f"longer than the {SPOT_NOTICE_SECONDS} s a spot node gets before it is reclaimed",
                job.termination_grace_seconds,
            )
        )
    memory = pool_memory_gib(config.cloud, pool)
    if job.shm_size_gib is not None and job.shm_size_gib > memory / 2:
        problems.append(
            Problem(f"{path}.shmSizeGib", f"more than half the {memory:g} GiB of {job.pool}'s nodes", job.shm_size_gib)
        )
    return problems


def _deploy_problems(config: StackConfig) -> list[Problem]:
    """The runner VPC must be routable from the environment's VPC (and its peer's, if any) to reach the API."""
    runner = config.deploy.runner_vpc_cidr
    ranges = [("network.vpcCidr", config.network.vpc_cidr)]
    if config.peering is not None:
        ranges.append(("peering.peerVpcCidr", config.peering.peer_vpc_cidr))
    problems = [
        Problem("deploy.runnerVpcCidr", f"overlaps {field} {cidr}: the API would be unreachable", str(runner))
        for field, cidr in ranges
        if runner.overlaps(cidr)
    ]
    if config.cloud is Cloud.ALICLOUD and config.deploy.runner_route_table_count != 1:
        problems.append(
            Problem(
                "deploy.runnerRouteTableCount",
                "Alibaba Cloud runners export one route table",
                config.deploy.runner_route_table_count,
            )
        )
    return problems


# The stack-level checks: each names the StackConfig fields it reads, so that it runs whenever those validated,
# whatever else in the config is wrong. Item checks run on every valid item of a list field.
_Check = Callable[["StackConfig"], list[Problem]]
_ItemCheck = Callable[["StackConfig", str, Any], list[Problem]]
_CHECKS: list[tuple[frozenset[str], _Check]] = []
_ITEM_CHECKS: list[tuple[str, frozenset[str], _ItemCheck]] = []


def _check(*fields: str) -> Callable[[_Check], _Check]:
    def register(check: _Check) -> _Check:
        _CHECKS.append((frozenset(fields), check))
        return check

    return register


def _item_check(list_field: str, *fields: str) -> Callable[[_ItemCheck], _ItemCheck]:
    def register(check: _ItemCheck) -> _ItemCheck:
        _ITEM_CHECKS.append((list_field, frozenset(fields), check))
        return check

    return register


@_check("tags")
def _required_tags(config: StackConfig) -> list[Problem]:
    missing = [t for t in REQUIRED_TAGS if t not in config.tags]
    if missing:
        return [Problem("tags", f"missing required tags {', '.join(missing)}", sorted(config.tags))]
    return []


@_check("cloud", "network")
def _egress(config: StackConfig) -> list[Problem]:
    if config.cloud is Cloud.AWS and config.network.egress is EgressMode.NAT and not config.network.nat_subnets:
        return [Problem("network.natSubnets", "AWS NAT egress needs at least one NAT subnet", [])]
    if config.cloud is Cloud.ALICLOUD and config.network.nat_subnets:
        message = "Alibaba Cloud NAT gateways sit in a vswitch; leave it empty"
        return [Problem("network.natSubnets", message, len(config.network.nat_subnets))]
    return []


@_check("cloud", "network")
def _ack_service_range(config: StackConfig) -> list[Problem]:
    if config.cloud is Cloud.ALICLOUD and config.network.vpc_cidr.overlaps(ACK_SERVICE_CIDR):
        message = f"overlaps the cluster's Service range {ACK_SERVICE_CIDR}"
        return [Problem("network.vpcCidr", message, str(config.network.vpc_cidr))]
    return []


@_check("cloud", "kms")
def _kms(config: StackConfig) -> list[Problem]:
    cloud = config.cloud
    problems = []
    low, high = AWS_ROTATION_DAYS if cloud is Cloud.AWS else ALICLOUD_ROTATION_DAYS
    if not low <= config.kms.rotation_days <= high:
        message = f"{cloud.value} rotates keys every {low}..{high} days"
        problems.append(Problem("kms.rotationDays", message, config.kms.rotation_days))
    if cloud is Cloud.AWS and config.kms.alicloud_kms_instance_id:
        message = "is an Alibaba Cloud-only setting"
        problems.append(Problem("kms.alicloudKmsInstanceId", message, config.kms.alicloud_kms_instance_id))
    stack = config.kms.alicloud_kms_instance_stack
    if config.kms.alicloud_kms_instance_id and stack:
        problems.append(Problem("kms.alicloudKmsInstanceStack", "give it or alicloudKmsInstanceId, not both", stack))
    if cloud is Cloud.AWS and stack:
        problems.append(Problem("kms.alicloudKmsInstanceStack", "is an Alibaba Cloud-only setting", stack))
    if cloud is Cloud.ALICLOUD and not (config.kms.alicloud_kms_instance_id or stack):
        # The key always rotates automatically, and only keys of a software KMS instance rotate on
        # rotationDays; a default key rotates every 365 days (pulumi-alicloud kms.Key rotation_interval).
        problems.append(Problem("kms.alicloudKmsInstanceId", ALICLOUD_KMS_INSTANCE_REQUIRED, None))
    return problems


@_check("cloud", "cluster")
def _cluster(config: StackConfig) -> list[Problem]:
    problems = system_pool_problems(config.cloud, config.cluster, "cluster")
    version = config.cluster.kubernetes_version
    unsupported = version_problem(config.cloud, version, date.today())
    if unsupported is not None:
        problems.append(Problem("cluster.kubernetesVersion", unsupported, version))
    window = config.cluster.alicloud_maintenance_window
    if config.cloud is Cloud.AWS and window is not None:
        problems.append(
            Problem(
                "cluster.alicloudMaintenanceWindow",
                "is an Alibaba Cloud-only setting",
                window.model_dump(by_alias=True),
            )
        )
    return problems


@_check("cloud", "node_pools", "spot_groups")
def _eks_node_groups(config: StackConfig) -> list[Problem]:
    """On AWS, what keeps the node groups' EKS names from being generated or ranked by the autoscaler's priority
    expander (components.aws.expander: a name too long, a name clash, a fall-back not below its spot group)."""
    if config.cloud is not Cloud.AWS:
        return []
    # Imported here: the module belongs to the aws extra (its package imports pulumi_aws) and imports this one.
    from gpu_cloud.components.aws.expander import expander_priorities, expander_problems, node_group_names

    return expander_problems(node_group_names(config), expander_priorities(config.spot_groups))


@_check("node_pools", "spot_groups")
def _unique_pool_names(config: StackConfig) -> list[Problem]:
    problems = []
    names: dict[str, str] = {SYSTEM_POOL_NAME: "the cluster's system pool"}
    for kind, i, name in _pool_names(config):
        if name in names:
            problems.append(Problem(f"{kind}.{i}.name", f"already used by {names[name]}", name))
        names[name] = f"{kind}.{i}"
    return problems


def _pool_names(config: StackConfig) -> list[tuple[str, int, str]]:
    pools = [("nodePools", i, p.name) for i, p in enumerate(config.node_pools)]
    return pools + [("spotGroups", i, g.name) for i, g in enumerate(config.spot_groups)]


@_item_check("node_pools", "cloud")
def _pool(config: StackConfig, path: str, pool: GpuNodePoolSpec) -> list[Problem]:
    return pool_problems(config.cloud, pool, path)


@_item_check("node_pools", "network")
def _pool_zones(config: StackConfig, path: str, pool: GpuNodePoolSpec) -> list[Problem]:
    zones = set(config.network.zones)
    return [Problem(f"{path}.zones", "not a zone of network.privateSubnets", z) for z in pool.zones if z not in zones]


@_item_check("spot_groups", "cloud")
def _spot_group(config: StackConfig, path: str, group: SpotGroupSpec) -> list[Problem]:
    return spot_problems(config.cloud, group, path)


@_check("peering", "network")
def _peer_range(config: StackConfig) -> list[Problem]:
    peering, vpc = config.peering, config.network.vpc_cidr
    if peering is not None and peering.peer_vpc_cidr.overlaps(vpc):
        return [Problem("peering.peerVpcCidr", f"overlaps network.vpcCidr {vpc}", str(peering.peer_vpc_cidr))]
    return []


@_check("cloud", "region", "peering")
def _peer_region(config: StackConfig) -> list[Problem]:
    peering = config.peering
    problems: list[Problem] = []
    if peering is None:
        return problems
    if config.cloud is Cloud.ALICLOUD and peering.peer_route_table_count != 1:
        message = "an Alibaba Cloud VPC has one route table"
        problems.append(Problem("peering.peerRouteTableCount", message, peering.peer_route_table_count))
    if peering.peer_region == config.region:
        message = "must differ from region (cross-region peering)"
        problems.append(Problem("peering.peerRegion", message, peering.peer_region))
    return problems


@_check("cloud", "access")
def _principals(config: StackConfig) -> list[Problem]:
    principal = _AWS_PRINCIPAL if config.cloud is Cloud.AWS else _ALICLOUD_PRINCIPAL
    return [
        Problem(f"access.{to_camel(field)}.{i}", f"not a {config.cloud.value} role or user ARN", arn)
        for field in ("admin_principals", "user_principals")
        for i, arn in enumerate(getattr(config.access, field))
        if not principal.match(arn)
    ]


@_check("addons")
def _addons(config: StackConfig) -> list[Problem]:
    if config.addons.prometheus_adapter and not config.addons.monitoring:
        return [Problem("addons.prometheusAdapter", "needs monitoring (its Prometheus)", True)]
    return []


@_check("training", "access")
def _training_namespace(config: StackConfig) -> list[Problem]:
    training, namespaces = config.training, config.access.gpu_namespaces
    if training is not None and training.namespace not in namespaces:
        message = f"not a GPU namespace of access ({', '.join(namespaces)})"
        return [Problem("training.namespace", message, training.namespace)]
    return []


@_item_check("inference", "node_pools", "spot_groups")
def _service_pool(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    pools: dict[str, GpuNodePoolSpec | SpotGroupSpec] = {p.name: p for p in config.node_pools}
    pools |= {g.name: g for g in config.spot_groups}
    pool = pools.get(service.pool)
    if pool is None:
        return [Problem(f"{path}.pool", "no node pool or spot group of that name", service.pool)]
    if pool.purpose is not PoolPurpose.INFERENCE:
        return [Problem(f"{path}.pool", f"pool {pool.name!r} is not an inference pool", service.pool)]
    return []


@_item_check("inference", "checkpoint_bucket")
def _service_model(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    if config.checkpoint_bucket is None:
        message = "the model lives in the environment's bucket: set checkpointBucket"
        return [Problem(f"{path}.modelSource", message, service.model_source)]
    return []


@_item_check("inference", "cloud", "region")
def _service_tls(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    problems = []
    cloud, certificate = config.cloud, service.tls_certificate
    if (
        cloud is Cloud.AWS
        and certificate
        and not (_ACM_CERTIFICATE.match(certificate) and certificate.split(":")[3] == config.region)
    ):
        problems.append(
            Problem(f"{path}.tlsCertificate", f"not an ACM certificate ARN in {config.region}", certificate)
        )
    if cloud is not Cloud.AWS and service.aws_ssl_policy is not None:
        problems.append(Problem(f"{path}.awsSslPolicy", "is an AWS-only setting", service.aws_ssl_policy))
    return problems


_check("cloud", "training", "node_pools", "spot_groups", "checkpoint_bucket")(training_problems)
_check("cloud", "deploy", "network", "peering")(_deploy_problems)


def cloud_problems(config: StackConfig) -> list[Problem]:
    """Every check of ``config`` that needs its cloud or spans several specs."""
    return _Parts.of(config).problems()


@dataclass(frozen=True)
class _Parts:
    """The parts of a stack config that validated: whole fields, and the valid items of list fields."""

    values: dict[str, Any]
    """Field name -> validated value, for every field that validated whole (defaults included)."""
    items: dict[str, list[tuple[int, Any]]]
    """List field name -> (index, validated item) for each of its items that validated."""

    @classmethod
    def of(cls, config: StackConfig) -> _Parts:
        values = {name: getattr(config, name) for name in type(config).model_fields}
        return cls(values, {name: list(enumerate(values[name])) for name in _LIST_ITEMS})

    def problems(self) -> list[Problem]:
        """Every check whose fields are at hand, in the order the checks are declared."""
        config = StackConfig.model_construct(**self.values)
        found: list[Problem] = []
        for fields, check in _CHECKS:
            if fields <= self.values.keys():
                found += check(config)
        for list_field, fields, item_check in _ITEM_CHECKS:
            if fields <= self.values.keys():
                alias = _alias(list_field)
                for i, item in self.items.get(list_field, []):
                    found += item_check(config, f"{alias}.{i}", item)
        return found


@_check("alerts", "alert_receiver_url", "addons", "cloud", "region")
def alert_problems(config: StackConfig) -> list[Problem]:
    """What keeps the alerts of ``config`` from reaching their receiver: none configured while monitoring is on, a
    URL receiver without its URL secret, an SNS topic outside AWS or the environment's region."""
    alerts = config.alerts
    if alerts is None:
        if config.addons.monitoring:
            return [Problem("alerts", "required with addons.monitoring: alerts must reach a receiver", None)]
        if config.alert_receiver_url is not None:
            return [Problem("alertReceiverUrl", "set without alerts", SECRET_SHOWN)]
        return []
    problems = []
    if not config.addons.monitoring:
        problems.append(Problem("alerts", "needs addons.monitoring (its Alertmanager)", alerts.receiver.value))
    if alerts.needs_url and config.alert_receiver_url is None:
        problems.append(
            Problem(
                "alertReceiverUrl",
                f"required for alerts.receiver {alerts.receiver.value}: pulumi config set --secret alertReceiverUrl",
                None,
            )
        )
    if not alerts.needs_url and config.alert_receiver_url is not None:
        problems.append(Problem("alertReceiverUrl", f"receiver {alerts.receiver.value} uses no URL", SECRET_SHOWN))
    if alerts.sns_topic_arn is not None:
        if config.cloud is not Cloud.AWS:
            problems.append(Problem("alerts.receiver", "sns is AWS only", alerts.receiver.value))
        elif alerts.sns_topic_arn.split(":")[3] != config.region:
            problems.append(
                Problem("alerts.snsTopicArn", f"not a topic of region {config.region}", alerts.sns_topic_arn)
            )
    return problems


SECRET_SHOWN = "[secret]"
"""How a problem shows a secret value: never the value itself."""


def _alias(name: str) -> str:
    return StackConfig.model_fields[name].alias or name


def _adapter(name: str) -> TypeAdapter[Any]:
    field = StackConfig.model_fields[name]
    annotation: Any = field.annotation
    return TypeAdapter(Annotated[(annotation, *field.metadata)] if field.metadata else annotation)


_ADAPTERS = {name: _adapter(name) for name in StackConfig.model_fields}
# List fields of specs are validated item by item, so one bad item does not hide the checks of the others.
_LIST_ITEMS = {
    name: TypeAdapter(item)
    for name, field in StackConfig.model_fields.items()
    if get_origin(field.annotation) is tuple
    and isinstance(item := get_args(field.annotation)[0], type)
    and issubclass(item, _Spec)
}
_TEXT_FIELDS = frozenset(
    _alias(name) for name, adapter in _ADAPTERS.items() if adapter.json_schema().get("type") == "string"
)
"""Fields whose config value is text as written (``region: "123"`` is the text 123, not a number)."""


def parse_stack_config(raw: Mapping[str, Any]) -> StackConfig:
    """Validate ``raw`` (the ``gpu-cloud:*`` config keys without the namespace) as a StackConfig.

    Validation is strict, as for JSON: no value is coerced from another type (``true`` is not 1, an integer is
    not a CIDR). Every problem is reported at once: each field on its own, then every stack-level check whose
    fields are valid, whatever else is wrong.

    Raises:
        ConfigError: listing every problem as ``path.to.field: what is wrong (got VALUE)``.
    """
    problems: list[Problem] = []
    values: dict[str, Any] = {}
    items: dict[str, list[tuple[int, Any]]] = {}
    for name, field in StackConfig.model_fields.items():
        alias = _alias(name)
        if alias not in raw:
            if field.is_required():
                problems.append(Problem(alias, "field required", None))
            else:
                values[name] = field.get_default(call_default_factory=True)
            continue
        value = raw[alias]
        if name in _LIST_ITEMS and isinstance(value, list):
            found = [(i, _validate(_LIST_ITEMS[name], item, f"{alias}.{i}", problems)) for i, item in enumerate(value)]
            items[name] = [(i, item) for i, item in found if item is not _INVALID]
            if len(items[name]) == len(value):
                values[name] = _validate(_ADAPTERS[name], value, alias, problems)
        else:
            values[name] = _validate(_ADAPTERS[name], value, alias, problems)
        if values.get(name) is _INVALID:
            del values[name]
    known = {_alias(name) for name in StackConfig.model_fields}
    problems += [Problem(key, "extra inputs are not permitted", v) for key, v in raw.items() if key not in known]
    problems += _Parts(values, items).problems()
    if problems:
        raise ConfigError(problems)
    return StackConfig.model_construct(**values)


_INVALID = object()


def _validate(adapter: TypeAdapter[Any], value: Any, path: str, problems: list[Problem]) -> Any:
    """``value`` validated strictly (as JSON), or _INVALID with its problems added to ``problems``."""
    try:
        return adapter.validate_json(json.dumps(value), strict=True)
    except ValidationError as err:
        problems += _problems(err, path)
        return _INVALID


def _problems(err: ValidationError, root: str) -> list[Problem]:
    problems: list[Problem] = []
    for error in err.errors(include_url=False):
        path = ".".join([root, *(str(part) for part in error["loc"])])
        message = str(error["msg"]).removeprefix("Value error, ")
        if _PROBLEMS_MARK in message:
            for sub_path, sub_message, value in json.loads(message.split(_PROBLEMS_MARK, 1)[1]):
                problems.append(Problem(".".join(p for p in (path, sub_path) if p), sub_message, value))
        else:
            problems.append(Problem(path, message[0].lower() + message[1:], _jsonable(error.get("input"))))
    return problems


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


CONFIG_NAMESPACE = "gpu-cloud"
"""The config namespace gpu-cloud reads (``gpu-cloud:region``), whatever the project's name: like a provider's
(``aws:region``), so that a project that uses the components keeps its own namespace for its own keys."""


def config_error(problems: Iterable[Problem]) -> StackConfigError:
    """A StackConfigError for ``problems`` found in the stack config: their paths as full config keys
    (``gpu-cloud:path.to.field``)."""
    return StackConfigError(Problem(f"{CONFIG_NAMESPACE}:{p.path}", p.message, p.value) for p in problems)


def load_stack_config() -> StackConfig:
    """Read and validate the current stack's config: every key in gpu-cloud's namespace (``gpu-cloud:*``).

    Keys are the StackConfig fields in camelCase (``gpu-cloud:nodePools``); structured values are
    objects in the stack's YAML file. Unknown keys in that namespace are problems too; keys of any other
    namespace (the project's own, a provider's) are left to their readers.

    Raises:
        StackConfigError: listing every problem, each path a full config key (``gpu-cloud:nodePools.0.name``).
    """
    prefix = f"{CONFIG_NAMESPACE}:"
    keys = {k for k in {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()} if k.startswith(prefix)}
    config = pulumi.Config(CONFIG_NAMESPACE)
    raw: dict[str, Any] = {}
    for key in sorted(keys):
        name = key[len(prefix) :]
        text = config.require(name)
        raw[name] = text if name in _TEXT_FIELDS else _decode(text)
    secret_key = f"{prefix}{StackConfig.model_fields['alert_receiver_url'].alias}"
    if secret_key in keys and not runtime_config.is_config_secret(secret_key):
        raise StackConfigError(
            [Problem(secret_key, "must be a Pulumi secret (pulumi config set --secret)", "plain text")]
        )
    try:
        return parse_stack_config(raw)
    except ConfigError as err:
        raise config_error(err.problems) from None


def _decode(text: str) -> Any:
    """Config values arrive as strings; objects, lists, numbers and booleans as their JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


# Values the clouds would refuse or that make no sense (components.refusals, on the facts of components.cloud_limits).
from gpu_cloud.components import refusals as _refusals  # noqa: E402

_check("cloud", "region", "peering")(_refusals.region_problems)
_check("cloud", "region", "network", "peering")(_refusals.zone_problems)
_check("cloud", "network", "cluster", "node_pools", "spot_groups")(_refusals.subnet_capacity_problems)
_check("cloud", "network", "deploy", "peering")(_refusals.cidr_problems)
_check("cloud", "tags")(_refusals.tag_problems)
_check("cloud", "cluster", "network")(_refusals.log_retention_problems)
_check("deploy", "peering", "kms")(_refusals.stack_reference_problems)
_check("node_pools", "spot_groups", "access", "inference")(_refusals.duplicate_problems)
_check("access")(_refusals.namespace_problems)
_item_check("inference", "cloud", "node_pools", "spot_groups")(_refusals.inference_capacity_problems)
