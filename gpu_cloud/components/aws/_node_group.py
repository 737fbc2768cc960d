"""Building blocks shared by GpuNodePool, SpotGpuGroup and the cluster's system pool: node role, launch template
and node group.

A node group here is always an EKS managed node group on a launch template that requires IMDSv2, gives no
interface a public address and encrypts the root volume with the environment's key; on AL2023 types with NVMe
instance store its user data has nodeadm put the store to use. The taints, labels and cluster-autoscaler tags come
from a :class:`NodeGroupPlan`. GPU groups carry the GPU taint; the system group
(CPU types, standard AMI) carries none, so that cluster add-ons have somewhere to run.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart

import pulumi
import pulumi_aws as aws

from gpu_cloud.components import labels
from gpu_cloud.components.aws._iam import account_of, managed_policy_arn, service_trust
from gpu_cloud.components.aws.expander import node_group_name_prefix, node_group_name_problem
from gpu_cloud.components.catalog import Cloud, InstanceType, lookup
from gpu_cloud.components.spec import AwsCapacityReservationSpec, Problem
from gpu_cloud.components.versions import EKS_AL2023_RELEASE_VERSIONS, EKS_GPU_AMI_TYPES

__all__ = [
    "NODE_POLICIES",
    "SYSTEM_AMI_TYPES",
    "NodeGroupPlan",
    "NodeGroupTarget",
    "catalog_types",
    "declare_node_group",
    "declare_node_role",
    "efa_layout",
    "node_labels",
    "node_role",
    "node_user_data",
    "plan_problems",
]

NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryPullOnly", "AmazonEKS_CNI_Policy")
"""Managed policies of the node role (EKS User Guide, "Amazon EKS node IAM role": the worker node policy, ECR
pull-only, and the VPC CNI policy while the vpc-cni add-on has no service-account role of its own)."""

IMDS_HOP_LIMIT = 1
"""IMDSv2 response hop limit: 1 keeps node credentials away from pods, which get theirs from IRSA or Pod
Identity (EKS Best Practices Guide, Security, "Restrict access to the instance profile assigned to the worker
node"). Host-network daemons (VPC CNI, Pod Identity agent) still reach IMDS."""

ROOT_DEVICE = "/dev/xvda"
"""Root device of the EKS AL2023 AMIs; on Bottlerocket it holds the OS only."""
BOTTLEROCKET_DATA_DEVICE = "/dev/xvdb"
"""Bottlerocket's data volume, where container images live (Bottlerocket README, "Storage")."""

AUTOSCALER_TAG = "k8s.io/cluster-autoscaler"
"""Prefix of the cluster autoscaler's discovery and node-template tags (cluster-autoscaler AWS provider README:
auto-discovery, "Scaling a node group to 0")."""


@dataclass(frozen=True)
class NodeGroupTarget:
    """Where node groups join: the cluster, its network and its key. Built from a GpuCluster and PrivateNetwork."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster's name (an output of the cluster, so node groups wait for it)."""
    kubernetes_version: str
    """The cluster's Kubernetes minor version; nodes run the same."""
    cluster_security_group_id: pulumi.Input[str]
    """The cluster security group, put on every node interface (it allows all traffic between its members, which
    EFA needs too)."""
    kms_key_arn: pulumi.Input[str]
    """The key that encrypts node volumes."""
    subnets: Mapping[str, Sequence[pulumi.Input[str]]]
    """Private subnet ids per zone."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags of everything a node's launch template launches (LAUNCHED_RESOURCE_TYPES): the provider's default tags
    reach the launch template resource itself, not the instances, volumes and interfaces EC2 creates from it."""


LAUNCHED_RESOURCE_TYPES = ("instance", "volume", "network-interface")
"""What the launch template tags at launch (EC2 CreateLaunchTemplate ``TagSpecifications``; the set
terraform-aws-modules/eks gives its node groups' launch templates by default, ``tag_specifications``)."""


@dataclass(frozen=True)
class NodeGroupPlan:
    """One managed node group, in plain data."""

    suffix: str
    """Child-name suffix after the component's name ("" for none)."""
    node_group_name: str
    """The pool's name: EKS names the node group ``<node_group_name>-<generated>`` (components.aws.expander
    node_group_name_prefix), which the autoscaler's priority expander matches."""
    instance_types: tuple[InstanceType, ...]
    """Catalog entries of the GPU instance types (empty for the system group)."""
    capacity_type: str
    """``ON_DEMAND``, ``SPOT`` or ``CAPACITY_BLOCK`` (EKS CreateNodegroup capacityType, botocore eks model
    CapacityTypes)."""
    min_size: int
    desired_size: int
    max_size: int
    disk_size_gib: int
    zones: tuple[str, ...]
    """Zones whose private subnets the group uses."""
    labels: Mapping[str, str]
    """Kubernetes node labels."""
    taints: tuple[tuple[str, str], ...] = ()
    """Extra NoSchedule taints (key, value) besides the GPU taint."""
    ami_type: str | None = None
    """The EKS AMI type; default AL2023 NVIDIA for the architecture."""
    release_version: str | None = None
    """The AMI release; default the AL2023 release pinned for the Kubernetes version."""
    efa: bool = False
    """Attach every EFA interface the instance type has."""
    placement_group: bool = False
    """Launch into a cluster placement group."""
    tags: Mapping[str, str] = field(default_factory=dict)
    cpu_instance_types: tuple[str, ...] = ()
    """Non-GPU instance types of the system group, instead of ``instance_types``: no GPU taint, standard AMI."""
    capacity_reservation: AwsCapacityReservationSpec | None = None
    """Reserved capacity the nodes launch into (a Capacity Block with capacity type ``CAPACITY_BLOCK``)."""

    @property
    def type_names(self) -> list[str]:
        """The instance type names, GPU or not."""
        return [t.name for t in self.instance_types] or list(self.cpu_instance_types)

    @property
    def arches(self) -> list[str]:
        """The CPU architectures of the instance types, sorted, without repeats."""
        return sorted({t.arch for t in self.instance_types} | {cpu_arch(n) for n in self.cpu_instance_types})

    @property
    def gpus(self) -> int:
        """GPUs per node (the smallest type's count; 0 for the system group)."""
        return min((t.gpu_count for t in self.instance_types), default=0)


SYSTEM_AMI_TYPES = {"x86_64": "AL2023_x86_64_STANDARD", "arm64": "AL2023_ARM_64_STANDARD"}
"""EKS AMI type of the (non-GPU) system node group by architecture (EKS API reference, Nodegroup amiType)."""

_GRAVITON = re.compile(r"^[a-z]+\d+g[a-z]*\.")
"""Graviton (arm64) instance families carry a ``g`` after the generation, e.g. m7g, c6gn, r8gd (EC2 User Guide,
"Amazon EC2 instance type naming conventions": g = AWS Graviton processors). GPU families are in the catalog."""


def cpu_arch(instance_type: str) -> str:
    """The architecture of a non-GPU EC2 instance type."""
    return "arm64" if _GRAVITON.match(instance_type) else "x86_64"


GPU_TAINT_VALUE = "true"
"""Value of the nvidia.com/gpu taint (EKS User Guide, "Use GPU AMIs": taint key nvidia.com/gpu, effect NoSchedule)."""


def plan_problems(plan: NodeGroupPlan, target: NodeGroupTarget, path: str = "") -> list[Problem]:
    """What keeps ``plan`` from being declared on ``target``: unknown zones, a name too long for EKS, mixed
    architectures, AMI pins."""
    prefix = f"{path}." if path else ""
    problems = [
        Problem(f"{prefix}zones", "no private subnet in that zone", zone)
        for zone in plan.zones
        if zone not in target.subnets
    ]
    if (too_long := node_group_name_problem(plan.node_group_name)) is not None:
        problems.append(Problem(f"{prefix}name", too_long, plan.node_group_name))
    arches = plan.arches
    if len(arches) > 1:
        problems.append(Problem(f"{prefix}instanceTypes", "mixes CPU architectures", arches))
    ami_type = _ami_type(plan)
    if ami_type.startswith("BOTTLEROCKET") and plan.release_version is None:
        problems.append(Problem(f"{prefix}awsAmiReleaseVersion", "Bottlerocket pools must pin their AMI release", None))
    elif plan.release_version is None and target.kubernetes_version not in EKS_AL2023_RELEASE_VERSIONS:
        problems.append(
            Problem(
                f"{prefix}awsAmiReleaseVersion",
                "no AL2023 release pinned for the Kubernetes version",
                target.kubernetes_version,
            )
        )
    if plan.efa and len({t.efa_interfaces for t in plan.instance_types}) > 1:
        problems.append(
            Problem(
                f"{prefix}instanceTypes",
                "EFA pools need types with the same EFA interface count",
                [t.name for t in plan.instance_types],
            )
        )
    if plan.placement_group and len(plan.zones) != 1:
        problems.append(
            Problem(f"{prefix}zones", "a cluster placement group lives in exactly one zone", list(plan.zones))
        )
    return problems


def catalog_types(names: Sequence[str]) -> tuple[InstanceType, ...]:
    """Catalog entries of ``names`` (already checked to exist)."""
    found = tuple(t for name in names if (t := lookup(Cloud.AWS, name)) is not None)
    assert len(found) == len(names)
    return found


def declare_node_role(
    name: str, parent: pulumi.Resource, role_name: str | None = None
) -> tuple[aws.iam.Role, list[aws.iam.RolePolicyAttachment]]:
    """The node role ``<name>-node-role`` (physical name ``role_name``, else generated) and its managed policy
    attachments ``<name>-node-<policy>``."""
    child = pulumi.ResourceOptions(parent=parent)
    role = aws.iam.Role(
        f"{name}-node-role",
        name=role_name,
        description="EKS GPU nodes",
        assume_role_policy=service_trust("ec2.amazonaws.com"),
        opts=child,
    )
    account = account_of(parent)
    attachments = [
        aws.iam.RolePolicyAttachment(
            f"{name}-node-{policy}",
            role=role.name,
            policy_arn=managed_policy_arn(account, policy),
            opts=child,
        )
        for policy in NODE_POLICIES
    ]
    return role, attachments


def node_role(
    name: str, parent: pulumi.Resource, given: pulumi.Input[str] | None
) -> tuple[pulumi.Output[str], list[pulumi.Resource]]:
    """The given node role, or a new one (:func:`declare_node_role`) and the attachments node groups wait for."""
    if given is not None:
        return pulumi.Output.from_input(given), []
    role, attachments = declare_node_role(name, parent)
    return role.arn, list(attachments)


def declare_node_group(
    name: str,
    parent: pulumi.Resource,
    plan: NodeGroupPlan,
    target: NodeGroupTarget,
    node_role_arn: pulumi.Input[str],
    depends_on: Sequence[pulumi.Resource] = (),
) -> aws.eks.NodeGroup:
    """Declare ``plan``: ``<base>-pg`` (placement group, if any), ``<base>-lt`` and ``<base>`` (the node group),
    where base is ``name`` plus the plan's suffix."""
    base = f"{name}-{plan.suffix}" if plan.suffix else name
    child = pulumi.ResourceOptions(parent=parent)
    placement = None
    if plan.placement_group:
        group = aws.ec2.PlacementGroup(f"{base}-pg", strategy="cluster", opts=child)
        placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=group.name)
    reservation, market = _reservation(plan)
    template = aws.ec2.LaunchTemplate(
        f"{base}-lt",
        description=f"Nodes of {plan.node_group_name}",
        update_default_version=True,
        metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
            http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=IMDS_HOP_LIMIT
        ),
        block_device_mappings=_volumes(plan, target),
        network_interfaces=_interfaces(plan, target),
        placement=placement,
        user_data=node_user_data(plan),
        capacity_reservation_specification=reservation,
        instance_market_options=market,
        instance_type=plan.type_names[0] if market is not None else None,
        tag_specifications=[
            aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=dict(target.tags))
            for kind in LAUNCHED_RESOURCE_TYPES
        ]
        if target.tags
        else None,
        opts=child,
    )
    gpus = plan.gpus
    taints = [*([(labels.GPU_TAINT_KEY, GPU_TAINT_VALUE)] if gpus else []), *plan.taints]
    tags = pulumi.Output.from_input(target.cluster_name).apply(
        lambda cluster: _autoscaler_tags(cluster, plan, gpus, taints)
    )
    return aws.eks.NodeGroup(
        base,
        cluster_name=target.cluster_name,
        node_group_name_prefix=node_group_name_prefix(plan.node_group_name),
        node_role_arn=node_role_arn,
        subnet_ids=[subnet for zone in plan.zones for subnet in target.subnets.get(zone, [])],
        ami_type=_ami_type(plan),
        release_version=plan.release_version or EKS_AL2023_RELEASE_VERSIONS[target.kubernetes_version],
        version=target.kubernetes_version,
        capacity_type=plan.capacity_type,
        # A Capacity Block's launch template names the instance type; EKS takes it from one place only.
        instance_types=None if plan.capacity_type == CAPACITY_BLOCK else plan.type_names,
        scaling_config=aws.eks.NodeGroupScalingConfigArgs(
            min_size=plan.min_size, desired_size=plan.desired_size, max_size=plan.max_size
        ),
        labels=dict(plan.labels),
        taints=[aws.eks.NodeGroupTaintArgs(key=k, value=v, effect="NO_SCHEDULE") for k, v in taints],
        launch_template=aws.eks.NodeGroupLaunchTemplateArgs(id=template.id, version=template.latest_version.apply(str)),
        # One node at a time: GPU capacity is scarce and training jobs checkpoint between disruptions.
        update_config=aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
        node_repair_config=aws.eks.NodeGroupNodeRepairConfigArgs(enabled=True),
        tags=tags,
        opts=pulumi.ResourceOptions(
            parent=parent,
            depends_on=list(depends_on),
            # The cluster autoscaler owns the desired size once the group exists.
            ignore_changes=["scalingConfig.desiredSize"],
        ),
    )


CAPACITY_BLOCK = "CAPACITY_BLOCK"
"""EKS capacity type of a node group on a Capacity Block for ML (botocore eks model, CapacityTypes)."""


def _reservation(
    plan: NodeGroupPlan,
) -> tuple[
    aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs | None,
    aws.ec2.LaunchTemplateInstanceMarketOptionsArgs | None,
]:
    """The launch template's capacity reservation target and market options for ``plan``'s reserved capacity.

    The target is the reservation id or its resource group (botocore ec2 model, CapacityReservationTarget). A
    Capacity Block also needs the market type ``capacity-block`` (ec2 MarketType) and the instance type in the
    launch template (EKS User Guide, "Create a managed node group with Capacity Blocks for ML", read 2026-12-03).
    """
    reservation = plan.capacity_reservation
    if reservation is None:
        return None, None
    target = aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
        capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
            capacity_reservation_id=reservation.reservation_id,
            capacity_reservation_resource_group_arn=reservation.resource_group_arn,
        )
    )
    if plan.capacity_type != CAPACITY_BLOCK:
        return target, None
    return target, aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type="capacity-block")


def _ami_type(plan: NodeGroupPlan) -> str:
    return plan.ami_type or (EKS_GPU_AMI_TYPES if plan.gpus else SYSTEM_AMI_TYPES)[plan.arches[0]]


def _volumes(plan: NodeGroupPlan, target: NodeGroupTarget) -> list[aws.ec2.LaunchTemplateBlockDeviceMappingArgs]:
    def volume(device: str, size: int | None) -> aws.ec2.LaunchTemplateBlockDeviceMappingArgs:
        return aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
            device_name=device,
            ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                volume_type="gp3",
                volume_size=size,
                encrypted="true",
                kms_key_id=target.kms_key_arn,
                delete_on_termination="true",
            ),
        )

    if _ami_type(plan).startswith("BOTTLEROCKET"):
        # The OS volume keeps the AMI's size; images and pods go to the data volume.
        return [volume(ROOT_DEVICE, None), volume(BOTTLEROCKET_DATA_DEVICE, plan.disk_size_gib)]
    return [volume(ROOT_DEVICE, plan.disk_size_gib)]


NODEADM_API_VERSION = "node.eks.aws/v1alpha1"
"""The nodeadm NodeConfig API of the pinned AL2023 AMI release (awslabs/amazon-eks-ami tag v20260714, commit
b4fffb70f5c1e025d3956cd50b961f0168ea0194, nodeadm/doc/api.md; read 2026-12-03)."""

NODEADM_MEDIA_TYPE = "application/node.eks.aws"
"""Media type of a NodeConfig part of MIME multi-part user data: nodeadm merges every part of this type
(nodeadm/internal/configprovider/userdata.go ``nodeConfigMediaType``, mime.go ``ParseMultipart``; doc/examples.md
"Merging multiple configuration objects"; same tag). EKS appends its own NodeConfig (cluster details) to the user
data of a managed node group on an EKS AMI (eksctl docs, "Node bootstrapping", AmazonLinux2023), so ours holds only
what it adds."""

LOCAL_STORAGE_STRATEGY = "RAID0"
"""nodeadm ``spec.instance.localStorage.strategy`` (enum RAID0, RAID10, Mount; api.md LocalStorageOptions): RAID0
joins every NVMe instance store disk into one array at /mnt/k8s-disks/0 and bind-mounts /var/lib/kubelet,
/var/lib/containerd and /var/log/pods onto it (templates/al2023/runtime/bin/setup-local-disks, same tag), so images,
emptyDir volumes and logs use the local NVMe instead of the EBS root."""

_USER_DATA_BOUNDARY = "GPUCLOUD-NODECONFIG"
"""A fixed MIME boundary: a random one would change the launch template, and roll the nodes, on every update."""


def node_user_data(plan: NodeGroupPlan) -> str | None:
    """Base64 MIME multi-part user data with a nodeadm NodeConfig that puts the node's NVMe instance store to use
    (:data:`LOCAL_STORAGE_STRATEGY`), or None.

    Only on AL2023 (nodeadm) groups whose every type has NVMe instance store in the catalog. Bottlerocket groups get
    none: they do not run nodeadm, and the Bottlerocket setting for instance store was not verified for this
    project, so their images stay on the data volume (:data:`BOTTLEROCKET_DATA_DEVICE`).
    """
    if _ami_type(plan).startswith("BOTTLEROCKET") or not plan.instance_types:
        return None
    if not all(t.has_local_nvme for t in plan.instance_types):
        return None
    config = {
        "apiVersion": NODEADM_API_VERSION,
        "kind": "NodeConfig",
        "spec": {"instance": {"localStorage": {"strategy": LOCAL_STORAGE_STRATEGY}}},
    }
    part = MIMEBase(*NODEADM_MEDIA_TYPE.split("/"))
    del part["MIME-Version"]
    # nodeadm decodes a part as "JSON or YAML" (internal/api/bridge/decode.go DecodeNodeConfig, same tag).
    part.set_payload(json.dumps(config, indent=2) + "\n")
    message = MIMEMultipart("mixed", boundary=_USER_DATA_BOUNDARY)
    message.attach(part)
    return base64.b64encode(message.as_bytes()).decode("ascii")


EFA_ONLY_MIN_VPC_CNI = (1, 18, 4)
"""EFA-only interfaces need VPC CNI v1.18.4 or later on the nodes (terraform-aws-eks ``enable_efa_only``, read
2026-12-02); the pinned vpc-cni add-on (components.versions) is tested against it."""


def efa_layout(instance_type: InstanceType) -> list[tuple[int, int, str]]:
    """(network card index, device index, interface type) of each EFA interface of ``instance_type``.

    One EFA device per network card, as many as the catalog's ``efa_interfaces``: the primary interface is an
    EFA with ENA (``efa``) on network card 0 at device index 0; every other card gets an ``efa-only`` interface at
    device index 1, which takes no IP address (EC2 User Guide, "Maximize network bandwidth on Amazon EC2
    instances with multiple network cards": primary interface "EFA (EFA with ENA)" on card 0 / device 0, each
    additional one on "the next unused network card index, device index 1, and either an EFA (EFA with ENA) or
    EFA-only network interface"; the P5 configuration and terraform-aws-eks ``efa_indices=[0]`` use EFA-only on
    the secondary cards; read 2026-12-02). EFA-only is available on every EFA type (EC2 announcement of
    2024-10-28, "EFA-only is available on all EFA supported instances").
    """
    return [(0, 0, "efa") if card == 0 else (card, 1, "efa-only") for card in range(instance_type.efa_interfaces)]


def _interfaces(plan: NodeGroupPlan, target: NodeGroupTarget) -> list[aws.ec2.LaunchTemplateNetworkInterfaceArgs]:
    """Network interfaces: one ENA interface, or the EFA layout of the type (:func:`efa_layout`).

    pulumi-aws types associate_public_ip_address as a string.
    """
    layout: list[tuple[int | None, int, str | None]] = [(None, 0, None)]
    if plan.efa:
        layout = list(efa_layout(plan.instance_types[0]))
    return [
        aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            device_index=device,
            network_card_index=card,
            interface_type=kind,
            associate_public_ip_address="false",
            delete_on_termination="true",
            security_groups=[target.cluster_security_group_id],
        )
        for card, device, kind in layout
    ]


def _autoscaler_tags(cluster: str, plan: NodeGroupPlan, gpus: int, taints: Sequence[tuple[str, str]]) -> dict[str, str]:
    template = f"{AUTOSCALER_TAG}/node-template"
    tags = {
        **plan.tags,
        f"{AUTOSCALER_TAG}/enabled": "true",
        f"{AUTOSCALER_TAG}/{cluster}": "owned",
    }
    if gpus:
        tags[f"{template}/resources/{labels.GPU_TAINT_KEY}"] = str(gpus)
    if plan.efa:
        tags[f"{template}/resources/vpc.amazonaws.com/efa"] = str(plan.instance_types[0].efa_interfaces)
    tags.update({f"{template}/label/{k}": v for k, v in plan.labels.items()})
    tags.update({f"{template}/taint/{k}": f"{v}:NoSchedule" for k, v in taints})
    return tags


AUTOSCALER_GPU_LABEL = "k8s.amazonaws.com/accelerator"
"""The cluster autoscaler's GPU label on AWS (cluster-autoscaler-1.35.0, the pinned chart's appVersion, and
1.31.0: cloudprovider/aws/aws_cloud_provider.go ``GPULabel``; utils/gpu NodeHasGpu counts a node with it as a GPU
node before the device plugin advertises ``nvidia.com/gpu``, so the autoscaler waits instead of scaling out again:
cloudprovider/aws/README.md, "Special note on GPU instances"; read 2026-12-02). Set through the node group labels."""


def node_labels(name: str, purpose: str, gpu_class: str, capacity: str, extra: Mapping[str, str]) -> dict[str, str]:
    """The shared node labels (components.labels), the autoscaler's GPU label, plus ``extra``."""
    return {
        labels.PURPOSE_LABEL: purpose,
        labels.GPU_CLASS_LABEL: labels.label_value(gpu_class),
        AUTOSCALER_GPU_LABEL: labels.label_value(gpu_class),
        labels.POOL_LABEL: name,
        labels.CAPACITY_LABEL: capacity,
        **extra,
    }
