"""KarpenterGpuPool: a GPU pool or spot group as an EC2NodeClass and Karpenter NodePools.

The API is Karpenter's at the pinned version (components.versions KARPENTER_CHART; CRDs vendored in tests/crds):
karpenter.sh/v1 NodePool and karpenter.k8s.aws/v1 EC2NodeClass (aws/karpenter-provider-aws v1.14.1,
website/content/en/docs/concepts/nodepools.md, nodeclasses.md, disruption.md; read 2026-12-03).

One EC2NodeClass per pool (its launch shape: AMI, subnets, security group, volumes, interfaces, reservations,
placement) and one NodePool per capacity the pool draws on:

- a GPU pool (GpuNodePoolSpec) is one NodePool ``<name>``: on-demand, or ``reserved`` then on-demand when it names
  an On-Demand Capacity Reservation, or ``reserved`` alone on a Capacity Block (a block is prepaid capacity of one
  type in one zone; on-demand beyond it would be a second bill). Its GPU models are the pool's own.
- a spot group (SpotGroupSpec) is NodePool ``<name>-spot`` (weight :data:`SPOT_WEIGHT`, tainted like the node group
  path's spot nodes) and, with a fall-back, ``<name>-ondemand`` (weight :data:`FALLBACK_WEIGHT`). Karpenter tries
  NodePools by weight; when EC2 has no spot capacity for every offering of the spot NodePool, it caches that for
  three minutes and falls to the next NodePool (nodepools.md "Capacity Type"; scheduling.md "Weighted NodePools").
  Its NodePools draw on every catalog GPU with the group's GPU count and between once and twice the group's GPU
  memory (:data:`SPOT_MEMORY_SPAN`), in sizes up to twice the group's vCPUs (:data:`SIZE_SPAN`): for a g5.xlarge
  group (24 GB A10G, 4 vCPUs) that is the xlarge and 2xlarge of A10G (g5), L4 (g6) and L40S (g6e), six instance
  types where the node group path has one (aws.md A10).

The labels and taints are the node group path's (components.labels), so the Kubernetes layer's selectors,
tolerations and Kueue ResourceFlavors (pool and capacity labels, the spot taint) select these NodePools unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.aws._node_group import (
    AUTOSCALER_GPU_LABEL,
    GPU_TAINT_VALUE,
    ROOT_DEVICE,
    catalog_types,
    efa_layout,
    node_labels,
)
from gpu_cloud.components.aws.karpenter import CLUSTER_SECURITY_GROUP_TAG, DISCOVERY_TAG
from gpu_cloud.components.aws.node_pool import extra_labels
from gpu_cloud.components.aws.spot import SPOT_TAINT_VALUE
from gpu_cloud.components.catalog import Cloud, InstanceType, instance_types
from gpu_cloud.components.spec import (
    ConfigError,
    GpuNodePoolSpec,
    NodeProvisioner,
    PoolPurpose,
    Problem,
    SpotGroupSpec,
    StackConfig,
    item_check,
    pool_problems,
    spot_problems,
    stack_check,
)
from gpu_cloud.components.versions import EKS_AL2023_RELEASE_VERSIONS

__all__ = [
    "EC2_NODE_CLASS_API",
    "FALLBACK_WEIGHT",
    "INSTANCE_GPUS_ANNOTATION",
    "INSTANCE_LABELS",
    "NODE_POOL_API",
    "REGION_ANNOTATION",
    "SPOT_MEMORY_SPAN",
    "SPOT_WEIGHT",
    "KarpenterGpuPool",
    "KarpenterGpuPoolArgs",
    "KarpenterTarget",
    "NodePoolPlan",
    "ami_alias",
    "catalog_labels",
    "instance_requirements",
    "karpenter_config_problems",
    "karpenter_pool_problems",
    "karpenter_tag_problems",
    "matches",
    "node_pool_plans",
    "selected_types",
]

NODE_POOL_API = "karpenter.sh/v1"
EC2_NODE_CLASS_API = "karpenter.k8s.aws/v1"

INSTANCE_FAMILY = "karpenter.k8s.aws/instance-family"
INSTANCE_CPU = "karpenter.k8s.aws/instance-cpu"
GPU_NAME = "karpenter.k8s.aws/instance-gpu-name"
GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count"
GPU_MEMORY = "karpenter.k8s.aws/instance-gpu-memory"
ARCH = "kubernetes.io/arch"
OS = "kubernetes.io/os"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
CAPACITY_TYPE = "karpenter.sh/capacity-type"
ZONE = "topology.kubernetes.io/zone"

INSTANCE_LABELS: Final = (INSTANCE_FAMILY, INSTANCE_CPU, GPU_NAME, GPU_COUNT, GPU_MEMORY, ARCH, OS, INSTANCE_TYPE)
"""Labels Karpenter derives from the instance type (pkg/providers/instancetype/types.go ``computeRequirements`` at
v1.14.1: family and size split from the name, vCPUs from ``VCpuInfo.DefaultVCpus``, GPU name/count/memory from
DescribeInstanceTypes ``GpuInfo.Gpus[0]``,
the name lower-case kebab, memory in MiB); the requirements here name only these and the offering's capacity type
and zone."""

KUBERNETES_ARCH: Final[Mapping[str, str]] = {"x86_64": "amd64", "arm64": "arm64"}
"""EC2 architecture -> ``kubernetes.io/arch`` (pkg/apis/v1/labels.go ``AWSToKubeArchitectures``)."""

SPOT_MEMORY_SPAN = 2.0
"""A spot group takes GPUs with at least its own GPU memory (its models must fit) and at most this many times it:
more GPU memory per GPU is a dearer GPU (an L40S costs about 1.9 times an A10G on demand in prices.json), and the
NodePool's GPU limit caps GPUs, not dollars."""

SIZE_SPAN = 2
"""A pool takes instance sizes of its GPUs up to this many times the vCPUs of its largest listed type: larger sizes
of the same GPU only add host CPU and memory its pods were not sized for, and the NodePool's GPU limit would let
them multiply the pool's cost at the same GPU count (a g5.16xlarge costs four times a g5.xlarge in prices.json).
Karpenter picks the cheapest type that fits the pending pods among those selected (on-demand: lowest price; spot:
price-capacity-optimized; nodepools.md "Capacity Type", disruption.md "Spot consolidation")."""

SPOT_WEIGHT = 50
"""Weight of a spot group's spot NodePool: Karpenter tries higher weights first (nodepools.md ``spec.weight``)."""
FALLBACK_WEIGHT = 20
"""Weight of its on-demand fall-back: below the spot NodePool."""

IDLE_AFTER = "10m"
"""``consolidateAfter``: how long a node stays empty (or underutilized, for inference) before Karpenter removes it;
the node group path's cluster autoscaler waits as long (components.k8s.addons AUTOSCALER_ARGS
``scale-down-unneeded-time``)."""

TRAINING_DISRUPTION: Final[Mapping[str, Any]] = {
    "consolidationPolicy": "WhenEmpty",
    "consolidateAfter": IDLE_AFTER,
    "budgets": [{"nodes": "0", "reasons": ["Drifted", "Underutilized"]}, {"nodes": "100%", "reasons": ["Empty"]}],
}
"""Training NodePools never disrupt a node with pods on it: only empty nodes are consolidated (``WhenEmpty``), and
drift (an AMI bump) may replace none until it is empty (budget ``0`` for Drifted; disruption.md "NodePool Disruption
Budgets", "Reasons"). Training pods also carry ``karpenter.sh/do-not-disrupt`` (components.k8s.training_job), which
keeps Karpenter from draining them for any voluntary reason. Budgets do not stop forceful disruption: expiry is off
(``expireAfter: Never``), spot reclaims and scheduled maintenance still happen, and the job restarts from its
checkpoint."""

INFERENCE_DISRUPTION: Final[Mapping[str, Any]] = {
    "consolidationPolicy": "WhenEmptyOrUnderutilized",
    "consolidateAfter": IDLE_AFTER,
    "budgets": [{"nodes": "10%"}],
}
"""Inference NodePools give idle capacity back: empty or underutilized nodes are removed or replaced by cheaper ones,
10 % of the pool's nodes at a time (Karpenter's default budget, stated), respecting the services' PodDisruptionBudgets
(the Termination Controller evicts through the Eviction API)."""

NODE_LIFETIME: Final[Mapping[PoolPurpose, Mapping[str, str]]] = {
    PoolPurpose.TRAINING: {"expireAfter": "Never"},
    PoolPurpose.INFERENCE: {"expireAfter": "720h", "terminationGracePeriod": "1h"},
}
"""``spec.template.spec`` lifetime fields: training nodes never expire (expiry is forceful and ignores budgets,
disruption.md "Expiration"); inference nodes are replaced after Karpenter's default 30 days, and a drain that
PodDisruptionBudgets hold up ends after an hour (the docs advise ``terminationGracePeriod`` with ``expireAfter``)."""

INSTANCE_GPUS_ANNOTATION = "gpucloud.io/instance-gpus"
"""NodePool annotation: the catalog instance types its requirements select and the GPUs of each, as a JSON object
(``{"g5.xlarge": 1, ...}``). What the cost estimate (``gpucloud plan``) and the policy pack's gpu-cost-guard price the
NodePool by, with its GPU limit: neither can evaluate requirements without the catalog's facts (the pack stands on
its own copy of the prices only)."""

REGION_ANNOTATION = "gpucloud.io/region"
"""NodePool annotation: the region its nodes launch in (the region of the component's AWS provider, where the
controller runs), which a Kubernetes object does not otherwise state; the cost estimate prices the NodePool there."""

GPU_RESOURCE = labels.GPU_TAINT_KEY
"""The NVIDIA device plugin's extended resource, the NodePool limit's key (nodepools.md ``spec.limits``)."""

RESTRICTED_TAG_PREFIXES: Final = ("kubernetes.io/cluster/", "karpenter.sh/", "karpenter.k8s.aws/", "eks:")
"""Tag keys an EC2NodeClass may not set (pkg/apis/v1/labels.go ``RestrictedTagPatterns`` at v1.14.1: the cluster
tag, karpenter.sh/nodepool, karpenter.sh/nodeclaim, karpenter.k8s.aws/ec2nodeclass, eks:eks-cluster-name)."""


@dataclass(frozen=True)
class KarpenterTarget:
    """Where Karpenter pools launch: the cluster, the controller's instance profile, the key, the zones."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster's name: the value of the subnet and security group tags the EC2NodeClass selects by."""
    kubernetes_version: str
    """The cluster's Kubernetes minor version (the AMI release pinned for it)."""
    instance_profile: str
    """The nodes' instance profile (Karpenter.instance_profile)."""
    kms_key_arn: pulumi.Input[str]
    """The key that encrypts node volumes."""
    zones: tuple[str, ...]
    """The zones of the private subnets that carry the discovery tag."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags of every instance, volume and interface (EC2NodeClass ``spec.tags``)."""
    ready: Sequence[pulumi.Resource] = ()
    """What objects of Karpenter's kinds wait for: its CRD and controller releases (Karpenter.releases)."""


@dataclass(frozen=True)
class KarpenterGpuPoolArgs:
    """Arguments of a KarpenterGpuPool."""

    spec: GpuNodePoolSpec | SpotGroupSpec
    """The pool or spot group."""
    target: KarpenterTarget
    """Where it launches."""


@dataclass(frozen=True)
class NodePoolPlan:
    """One NodePool, in plain data."""

    name: str
    capacity_types: tuple[str, ...]
    """Values of ``karpenter.sh/capacity-type``, in Karpenter's own order of preference: reserved, spot, on-demand."""
    capacity_label: str
    """The ``gpucloud.io/capacity`` label of its nodes (``spot`` or ``on-demand``)."""
    max_nodes: int
    weight: int | None = None
    spot_taint: bool = False


def gpu_name(instance_type: InstanceType) -> str:
    """Karpenter's ``instance-gpu-name`` of a catalog type: the GPU's name without the maker, lower-case kebab
    (``lowerKabobCase`` of DescribeInstanceTypes ``GpuInfo.Gpus[0].Name``, e.g. ``A10G`` -> ``a10g``)."""
    return instance_type.gpu_model.removeprefix("NVIDIA ").lower().replace(" ", "-")


def gpu_memory_mib(instance_type: InstanceType) -> int:
    """Karpenter's ``instance-gpu-memory`` of a catalog type: memory per GPU in MiB."""
    return round(instance_type.gpu_memory_gib * 1024)


def catalog_labels(instance_type: InstanceType) -> dict[str, str]:
    """The :data:`INSTANCE_LABELS` Karpenter gives ``instance_type``, from the catalog's facts."""
    family, _ = instance_type.name.split(".", 1)
    return {
        INSTANCE_FAMILY: family,
        INSTANCE_CPU: str(instance_type.vcpu),
        GPU_NAME: gpu_name(instance_type),
        GPU_COUNT: str(instance_type.gpu_count),
        GPU_MEMORY: str(gpu_memory_mib(instance_type)),
        ARCH: KUBERNETES_ARCH[instance_type.arch.value],
        OS: "linux",
        INSTANCE_TYPE: instance_type.name,
    }


def matches(requirements: Sequence[Mapping[str, Any]], node_labels: Mapping[str, str]) -> bool:
    """Whether a node with ``node_labels`` satisfies every requirement (Kubernetes node selector semantics: In and
    NotIn on the label's value, Exists and DoesNotExist on its presence; In on an absent label fails)."""
    for requirement in requirements:
        key, operator = requirement["key"], requirement["operator"]
        value = node_labels.get(key)
        values = requirement.get("values", [])
        ok = {
            "In": value is not None and value in values,
            "NotIn": value is None or value not in values,
            "Exists": value is not None,
            "DoesNotExist": value is None,
        }.get(operator)
        if ok is None:
            raise ValueError(f"operator {operator} is not modelled")
        if not ok:
            return False
    return True


def _shape_types(spec: GpuNodePoolSpec | SpotGroupSpec) -> list[InstanceType]:
    """The catalog types whose GPUs the pool's NodePools may launch, before they are turned into requirements."""
    listed = catalog_types(spec.instance_types)
    if isinstance(spec, GpuNodePoolSpec) and spec.efa:
        return list(listed)
    most_vcpus = max(t.vcpu for t in listed) * SIZE_SPAN
    if isinstance(spec, GpuNodePoolSpec):
        shapes = {(t.gpu_model, t.gpu_count, t.gpu_memory_gib, t.arch) for t in listed}
        return [
            t
            for t in instance_types(Cloud.AWS)
            if (t.gpu_model, t.gpu_count, t.gpu_memory_gib, t.arch) in shapes and t.vcpu <= most_vcpus
        ]
    floor = min(t.gpu_memory_gib for t in listed)
    counts = {t.gpu_count for t in listed}
    arches = {t.arch for t in listed}
    return [
        t
        for t in instance_types(Cloud.AWS)
        if t.gpu_count in counts
        and t.arch in arches
        and floor <= t.gpu_memory_gib <= floor * SPOT_MEMORY_SPAN
        and t.vcpu <= most_vcpus
    ]


def instance_requirements(spec: GpuNodePoolSpec | SpotGroupSpec) -> list[dict[str, Any]]:
    """The requirements on the instance type: families, vCPUs (:data:`SIZE_SPAN`), GPU name, count and memory of the
    pool's GPUs (not single instance types, so that one NodePool spans the sizes and families of those GPUs),
    architecture and OS. An EFA
    pool also names its instance types: its EC2NodeClass lays out the interfaces of their one EFA device count."""
    shapes = _shape_types(spec)
    found: list[dict[str, Any]] = [
        {"key": key, "operator": "In", "values": sorted({catalog_labels(t)[key] for t in shapes}, key=_natural)}
        for key in (INSTANCE_FAMILY, INSTANCE_CPU, GPU_NAME, GPU_COUNT, GPU_MEMORY, ARCH, OS)
    ]
    if isinstance(spec, GpuNodePoolSpec) and spec.efa:
        found.append({"key": INSTANCE_TYPE, "operator": "In", "values": sorted(spec.instance_types)})
    return found


def _natural(value: str) -> tuple[int, str]:
    return (int(value), "") if value.isdigit() else (0, value)


def selected_types(spec: GpuNodePoolSpec | SpotGroupSpec) -> tuple[InstanceType, ...]:
    """The catalog types the pool's requirements select (what its cost estimate and checks are about)."""
    requirements = instance_requirements(spec)
    return tuple(t for t in instance_types(Cloud.AWS) if matches(requirements, catalog_labels(t)))


def node_pool_plans(spec: GpuNodePoolSpec | SpotGroupSpec) -> list[NodePoolPlan]:
    """The NodePools of ``spec`` (see the module docstring)."""
    if isinstance(spec, GpuNodePoolSpec):
        reservation = spec.aws_capacity_reservation
        capacity: tuple[str, ...] = ("on-demand",)
        if reservation is not None:
            capacity = ("reserved",) if reservation.capacity_block else ("reserved", "on-demand")
        return [NodePoolPlan(spec.name, capacity, "on-demand", spec.max_size)]
    spot = NodePoolPlan(
        f"{spec.name}{labels.SPOT_SUFFIX}", ("spot",), SPOT_TAINT_VALUE, spec.max_size, SPOT_WEIGHT, spot_taint=True
    )
    if not spec.on_demand_fallback:
        return [spot]
    fallback_max = spec.fallback_max_size or spec.max_size
    fallback = NodePoolPlan(
        f"{spec.name}{labels.FALLBACK_SUFFIX}", ("on-demand",), "on-demand", fallback_max, FALLBACK_WEIGHT
    )
    return [spot, fallback]


def ami_alias(kubernetes_version: str, release_version: str | None = None) -> str:
    """The EC2NodeClass AMI alias of the pinned AL2023 release, e.g. ``al2023@v20260714`` for release
    ``1.35.6-20260714``: Karpenter resolves ``al2023@<version>`` through the SSM parameters of that release, the
    NVIDIA variant for GPU instance types (pkg/providers/amifamily/al2023.go ``resolvePath``, types.go
    ``VariantNvidia`` at v1.14.1: ``/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/<arch>/nvidia/
    amazon-eks-node-al2023-<arch>-nvidia-<k8s>-<version>/image_id``), the release the node group path pins."""
    release = release_version or EKS_AL2023_RELEASE_VERSIONS[kubernetes_version]
    return f"al2023@v{release.rsplit('-', 1)[1]}"


def karpenter_pool_problems(
    spec: GpuNodePoolSpec | SpotGroupSpec, kubernetes_version: str, path: str = ""
) -> list[Problem]:
    """What keeps ``spec`` (at config key ``path``) from being a Karpenter pool, beyond the spec's own checks."""
    prefix = f"{path}." if path else ""
    problems: list[Problem] = []
    release = None
    if isinstance(spec, SpotGroupSpec) and spec.max_price_per_hour is not None:
        # Karpenter pays the spot price (never above on demand) and takes no cap (EC2NodeClass has no such field).
        message = "Karpenter cannot cap the spot price"
        problems.append(Problem(f"{prefix}maxPricePerHour", message, spec.max_price_per_hour))
    if isinstance(spec, GpuNodePoolSpec):
        release = spec.aws_ami_release_version
        if (spec.aws_ami_type or "").startswith("BOTTLEROCKET"):
            message = "Karpenter pools run the AL2023 NVIDIA AMI"
            problems.append(Problem(f"{prefix}awsAmiType", message, spec.aws_ami_type))
        reservation = spec.aws_capacity_reservation
        if reservation is not None and reservation.resource_group_arn is not None:
            message = "Karpenter selects reservations by id or tags, not by resource group"
            field = f"{prefix}awsCapacityReservation.resourceGroupArn"
            problems.append(Problem(field, message, reservation.resource_group_arn))
        if spec.placement_group and len(spec.zones) != 1:
            message = "a cluster placement group lives in exactly one zone"
            problems.append(Problem(f"{prefix}zones", message, list(spec.zones)))
        if spec.efa and len({t.efa_interfaces for t in catalog_types(spec.instance_types)}) > 1:
            message = "EFA pools need types with the same EFA interface count"
            problems.append(Problem(f"{prefix}instanceTypes", message, list(spec.instance_types)))
    if release is None and kubernetes_version not in EKS_AL2023_RELEASE_VERSIONS:
        message = "no AL2023 release pinned for the Kubernetes version"
        problems.append(Problem(f"{prefix}awsAmiReleaseVersion", message, kubernetes_version))
    return problems


def karpenter_tag_problems(tags: Mapping[str, str], path: str = "tags") -> list[Problem]:
    """Tags an EC2NodeClass may not carry (:data:`RESTRICTED_TAG_PREFIXES`, and ``Name``, which Karpenter sets)."""
    restricted = sorted(k for k in tags if k.startswith(RESTRICTED_TAG_PREFIXES) or k == "Name")
    return [Problem(path, "Karpenter sets these tags itself", restricted)] if restricted else []


def _karpenter(config: StackConfig) -> bool:
    return config.node_provisioner is NodeProvisioner.KARPENTER


@item_check("node_pools", "node_provisioner", "cluster", cloud=Cloud.AWS)
def _node_pool_on_karpenter(config: StackConfig, path: str, pool: GpuNodePoolSpec) -> list[Problem]:
    return karpenter_pool_problems(pool, config.cluster.kubernetes_version, path) if _karpenter(config) else []


@item_check("spot_groups", "node_provisioner", "cluster", cloud=Cloud.AWS)
def _spot_group_on_karpenter(config: StackConfig, path: str, group: SpotGroupSpec) -> list[Problem]:
    return karpenter_pool_problems(group, config.cluster.kubernetes_version, path) if _karpenter(config) else []


@stack_check("node_provisioner", "tags", cloud=Cloud.AWS)
def _tags_on_karpenter(config: StackConfig) -> list[Problem]:
    return karpenter_tag_problems(config.tags) if _karpenter(config) else []


def karpenter_config_problems(config: StackConfig) -> list[Problem]:
    """The Karpenter checks of ``config``, as the config validation runs them (for configs validated before this
    module was imported)."""
    if not _karpenter(config):
        return []
    version = config.cluster.kubernetes_version
    pools: list[tuple[str, GpuNodePoolSpec | SpotGroupSpec]] = [
        *((f"nodePools.{i}", p) for i, p in enumerate(config.node_pools)),
        *((f"spotGroups.{i}", g) for i, g in enumerate(config.spot_groups)),
    ]
    found = [karpenter_pool_problems(pool, version, path) for path, pool in pools]
    return [p for problems in found for p in problems] + karpenter_tag_problems(config.tags)


class KarpenterGpuPool(pulumi.ComponentResource):
    """A GPU pool or spot group on Karpenter: tainted ``nvidia.com/gpu``, IMDSv2 only, no public IP, volumes
    encrypted with the environment's key, NVMe instance store as RAID0, EFA and a cluster placement group for EFA
    training pools, a GPU limit as the cost cap.

    Children: ``<name>-pg`` (placement group, if any), ``<name>-nodeclass`` (EC2NodeClass ``<spec.name>``) and per
    NodePool ``<name>-<nodepool>`` (NodePool ``<spec.name>``, or ``<spec.name>-spot`` and ``<spec.name>-ondemand``).
    Kubernetes children use the ``kubernetes`` provider of ``opts.providers`` (or ``opts.provider``).
    """

    node_pool_names: list[str]
    """The NodePools' names."""
    instance_types: tuple[str, ...]
    """The catalog instance types the NodePools select."""

    def __init__(self, name: str, args: KarpenterGpuPoolArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec, target = args.spec, args.target
        spec_problems = (
            pool_problems(Cloud.AWS, spec)
            if isinstance(spec, GpuNodePoolSpec)
            else spot_problems(Cloud.AWS, spec, autoscaler_sizing=False)
        )
        if spec_problems:
            raise ConfigError(spec_problems)
        problems = karpenter_pool_problems(spec, target.kubernetes_version) + karpenter_tag_problems(target.tags)
        if isinstance(spec, GpuNodePoolSpec):
            problems += [
                Problem("zones", "no private subnet in that zone", z) for z in spec.zones if z not in target.zones
            ]
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:aws:KarpenterGpuPool", name, None, opts)
        selected = selected_types(spec)
        placement: pulumi.Input[str] | None = None
        if isinstance(spec, GpuNodePoolSpec) and spec.placement_group:
            placement = aws.ec2.PlacementGroup(
                f"{name}-pg", strategy="cluster", opts=pulumi.ResourceOptions(parent=self)
            ).name
        wait = pulumi.ResourceOptions(parent=self, depends_on=list(target.ready))
        node_class = k8s.apiextensions.CustomResource(
            f"{name}-nodeclass",
            api_version=EC2_NODE_CLASS_API,
            kind="EC2NodeClass",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=spec.name),
            spec=node_class_spec(spec, target, selected, placement),
            opts=wait,
        )
        plans = node_pool_plans(spec)
        region = aws.get_region_output(opts=pulumi.InvokeOutputOptions(parent=self)).region
        after_class = pulumi.ResourceOptions(parent=self, depends_on=[*target.ready, node_class])
        for plan in plans:
            k8s.apiextensions.CustomResource(
                f"{name}-{plan.name}",
                api_version=NODE_POOL_API,
                kind="NodePool",
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=plan.name,
                    annotations={
                        INSTANCE_GPUS_ANNOTATION: json.dumps({t.name: t.gpu_count for t in selected}),
                        REGION_ANNOTATION: region,
                    },
                ),
                spec=node_pool_spec(spec, plan, selected),
                opts=after_class,
            )
        self.node_pool_names = [plan.name for plan in plans]
        self.instance_types = tuple(t.name for t in selected)
        self.register_outputs({"nodePoolNames": self.node_pool_names})


def node_class_spec(
    spec: GpuNodePoolSpec | SpotGroupSpec,
    target: KarpenterTarget,
    selected: Sequence[InstanceType],
    placement_group: pulumi.Input[str] | None = None,
) -> dict[str, Any]:
    """The EC2NodeClass ``spec`` of the pool (nodeclasses.md at v1.14.1)."""
    release = spec.aws_ami_release_version if isinstance(spec, GpuNodePoolSpec) else None
    found: dict[str, Any] = {
        "amiSelectorTerms": [{"alias": ami_alias(target.kubernetes_version, release)}],
        "instanceProfile": target.instance_profile,
        "subnetSelectorTerms": [{"tags": {DISCOVERY_TAG: target.cluster_name}}],
        "securityGroupSelectorTerms": [{"tags": {CLUSTER_SECURITY_GROUP_TAG: target.cluster_name}}],
        "associatePublicIPAddress": False,
        # IMDSv2 only and one hop: pods get credentials from Pod Identity, not the node's role (as the node groups).
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": 1,
            "httpTokens": "required",
        },
        "blockDeviceMappings": [
            {
                "deviceName": ROOT_DEVICE,
                "ebs": {
                    "volumeSize": f"{spec.disk_size_gib}Gi",
                    "volumeType": "gp3",
                    "encrypted": True,
                    "kmsKeyID": target.kms_key_arn,
                    "deleteOnTermination": True,
                },
            }
        ],
        "tags": dict(target.tags),
    }
    if selected and all(t.has_local_nvme for t in selected):
        # The NVMe instance store as one RAID0 array under kubelet and containerd (nodeclasses.md
        # "instanceStorePolicy": on AL2023 Karpenter sets it up through its generated NodeConfig).
        found["instanceStorePolicy"] = "RAID0"
    if isinstance(spec, GpuNodePoolSpec) and spec.efa:
        found["networkInterfaces"] = efa_interfaces(selected[0])
    if placement_group is not None:
        found["placementGroupSelector"] = {"name": placement_group}
    reservation = spec.aws_capacity_reservation if isinstance(spec, GpuNodePoolSpec) else None
    if reservation is not None and reservation.reservation_id is not None:
        found["capacityReservationSelectorTerms"] = [{"id": reservation.reservation_id}]
    return found


def efa_interfaces(instance_type: InstanceType) -> list[dict[str, Any]]:
    """EC2NodeClass ``networkInterfaces`` for every EFA device of ``instance_type``: the ENA primary interface on
    card 0, an ``efa-only`` interface at device 1 of card 0 and at device 0 of every other card (the layout the EC2
    User Guide's efa-acc-inst-types page recommends, aws.md A12(c); EC2NodeClass accepts ``interface`` and
    ``efa-only`` and at most one EFA per card, CRD x-kubernetes-validations at v1.14.1). EFA-only interfaces take no
    IP address; the VPC CNI pinned here supports them (components.aws._node_group EFA_ONLY_MIN_VPC_CNI)."""
    layout: list[dict[str, Any]] = [{"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"}]
    for card, _device, _kind in efa_layout(instance_type):
        device = 1 if card == 0 else 0
        layout.append({"networkCardIndex": card, "deviceIndex": device, "interfaceType": "efa-only"})
    return layout


def node_pool_spec(
    spec: GpuNodePoolSpec | SpotGroupSpec, plan: NodePoolPlan, selected: Sequence[InstanceType]
) -> dict[str, Any]:
    """The NodePool ``spec`` of one of the pool's NodePools (nodepools.md at v1.14.1)."""
    models = {t.gpu_model for t in selected}
    gpu_class = next(iter(models)) if len(models) == 1 else ""
    extra = extra_labels(spec) if isinstance(spec, GpuNodePoolSpec) else {}
    node_labels_ = node_labels(spec.name, spec.purpose.value, gpu_class, plan.capacity_label, extra)
    if len(models) > 1:
        # One NodePool spans several GPU models: a static GPU label would be wrong on some of its nodes. Karpenter
        # labels every node with its own karpenter.k8s.aws/instance-gpu-name.
        del node_labels_[labels.GPU_CLASS_LABEL], node_labels_[AUTOSCALER_GPU_LABEL]
    taints = [{"key": labels.GPU_TAINT_KEY, "value": GPU_TAINT_VALUE, "effect": "NoSchedule"}]
    if plan.spot_taint:
        taints.append({"key": labels.SPOT_TAINT_KEY, "value": SPOT_TAINT_VALUE, "effect": "NoSchedule"})
    requirements = [
        *instance_requirements(spec),
        {"key": CAPACITY_TYPE, "operator": "In", "values": list(plan.capacity_types)},
    ]
    zones = spec.zones if isinstance(spec, GpuNodePoolSpec) else ()
    if zones:
        requirements.append({"key": ZONE, "operator": "In", "values": list(zones)})
    gpus_per_node = max(t.gpu_count for t in catalog_types(spec.instance_types))
    found: dict[str, Any] = {
        "template": {
            "metadata": {"labels": node_labels_},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": spec.name},
                "taints": taints,
                "requirements": requirements,
                **NODE_LIFETIME[spec.purpose],
            },
        },
        "disruption": dict(TRAINING_DISRUPTION if spec.purpose is PoolPurpose.TRAINING else INFERENCE_DISRUPTION),
        # The pool's cost cap: its maximum nodes of its GPU count (nodepools.md "spec.limits").
        "limits": {GPU_RESOURCE: str(plan.max_nodes * gpus_per_node)},
    }
    if plan.weight is not None:
        found["weight"] = plan.weight
    return found
