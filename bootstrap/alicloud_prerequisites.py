"""What a fresh Alibaba Cloud account lacks before prod-cn can be created, created once by the account's bootstrap:
ACK and OSS activated, the service roles ACK, ECS disk encryption and Auto Scaling assume, and (not in the provider)
CDT. Simple Log Service, where ACK's audit and control-plane logs go, needs no step: "Log service is enabled
automatically when a project is created. This data source is retained for compatibility and no longer calls service
APIs" (pulumi_alicloud.log.get_service docstring, pulumi-alicloud 4.0.0).

Each service role is a RAM role trusted by the service with the service's system policy attached, exactly as
Alibaba's Terraform guide "Use Terraform to activate ACK and assign service roles to ACK" does with
``alicloud_ram_role`` + ``alicloud_ram_role_policy_attachment`` (policy type System):
https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/developer-reference/use-terraform-to-assign-default-roles-to-ack-when-you-use-ack-for-the-first-time
(read 2026-12-03; its "Appendix" lists every role's trust policy and system policy). Roles are account-wide and
other clusters may use them, so a ``pulumi destroy`` of the bootstrap leaves them (retain_on_delete). Where a role
already exists (ACK was used before), ``pulumi up`` fails with EntityAlreadyExists.Role: import it first
(docs/deploy.md lists the commands).

Cloud Data Transfer (CDT), which CreateVpcPeerConnection requires, has no resource or data source in
pulumi-alicloud 4.0.0 (no ``cdt`` module; no data source calls OpenCdtService): docs/deploy.md gives the preflight
command that checks it (GetCdtServiceStatus, API version 2021-08-13, endpoint cdt.aliyuncs.com: CDT, "Make API
requests", https://www.alibabacloud.com/help/doc-detail/337839.htm) and the one that activates it
(CreateVpcPeerConnection: "To activate CDT, call the OpenCdtService operation",
https://alibabacloud.com/help/tc/vpc/api-createvpcpeer; both read 2026-12-03).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

__all__ = ["ACK_SERVICE_TYPE", "AUTO_SCALING_SERVICE", "SERVICE_ROLES", "Activations", "ServiceRole", "create"]

ACK_SERVICE_TYPE = "propayasgo"
"""cs.get_ack_service ``type`` for ACK Pro managed clusters (the environments' ``ack.pro.small``). With
``enable="On"`` the data source calls OpenAckService and reads an already opened service as opened
(aliyun/terraform-provider-alicloud, alicloud/data_source_alicloud_ack_service.go: error ORDER.OPEND -> status
"Opened"; read 2026-12-03). It is a data source, so it runs on every preview and up: that is how Alibaba's Terraform
guide activates ACK ("Step 1: Activate ACK"); the service cannot be closed once opened (SDK docstring)."""

AUTO_SCALING_SERVICE = "ess.aliyuncs.com"
"""The service-linked role AliyunServiceRoleForAutoScaling: "Before you use Auto Scaling, you must create the
service-linked role AliyunServiceRoleForAutoScaling" (ram:ServiceName ess.aliyuncs.com), Auto Scaling, "Manage the
service-linked role for Auto Scaling",
https://www.alibabacloud.com/help/en/auto-scaling/latest/manage-the-auto-scaling-service-linked-role (read
2026-12-03). ACK node pools are Auto Scaling groups; this activates Auto Scaling for the account."""


@dataclass(frozen=True)
class ServiceRole:
    """A RAM role a cloud service assumes, with the system policy Alibaba attaches to it.

    Attributes:
        name: The role name the service looks for (fixed by the service).
        service: The trusted service principal.
        policy: The system policy attached to the role.
        purpose: What in the environments needs it.
    """

    name: str
    service: str
    policy: str
    purpose: str


_CS = "cs.aliyuncs.com"

SERVICE_ROLES: tuple[ServiceRole, ...] = (
    # The 12 roles of ACK's "RAM Quick Authorization" on first use (ACK, "ACK roles",
    # https://www.alibabacloud.com/help/en/container-service-for-kubernetes/latest/ack-default-roles, read
    # 2026-12-03); trust policy and system policy from the Terraform guide's appendix.
    ServiceRole("AliyunCSDefaultRole", _CS, "AliyunCSDefaultRolePolicy", "ACK manages clusters (ECS, VPC, SLB, ESS)"),
    ServiceRole(
        "AliyunCSManagedKubernetesRole", _CS, "AliyunCSManagedKubernetesRolePolicy", "the ACK managed cluster itself"
    ),
    ServiceRole(
        "AliyunCSServerlessKubernetesRole", _CS, "AliyunCSServerlessKubernetesRolePolicy", "ACK quick authorization"
    ),
    ServiceRole("AliyunCSManagedNetworkRole", _CS, "AliyunCSManagedNetworkRolePolicy", "Terway (terway-eniip)"),
    ServiceRole("AliyunCSManagedCsiRole", _CS, "AliyunCSManagedCsiRolePolicy", "CSI storage add-ons"),
    ServiceRole("AliyunCSManagedCsiPluginRole", _CS, "AliyunCSManagedCsiPluginRolePolicy", "csi-plugin"),
    ServiceRole("AliyunCSManagedCsiProvisionerRole", _CS, "AliyunCSManagedCsiProvisionerRolePolicy", "csi-provisioner"),
    ServiceRole("AliyunCSKubernetesAuditRole", _CS, "AliyunCSKubernetesAuditRolePolicy", "API server audit to SLS"),
    ServiceRole("AliyunCSManagedLogRole", _CS, "AliyunCSManagedLogRolePolicy", "control-plane logs to SLS"),
    ServiceRole("AliyunCSManagedCmsRole", _CS, "AliyunCSManagedCmsRolePolicy", "ACK quick authorization"),
    ServiceRole("AliyunCSManagedArmsRole", _CS, "AliyunCSManagedArmsRolePolicy", "ACK quick authorization"),
    ServiceRole("AliyunCISDefaultRole", _CS, "AliyunCISDefaultRolePolicy", "ACK quick authorization (diagnostics)"),
    # ACK's optional roles that the environments' features need (same pages).
    ServiceRole(
        "AliyunCSManagedSecurityRole", _CS, "AliyunCSManagedSecurityRolePolicy", "Secret encryption with the KMS key"
    ),
    ServiceRole("AliyunCSManagedNlcRole", _CS, "AliyunCSManagedNlcRolePolicy", "managed node pools, auto repair"),
    ServiceRole("AliyunCSManagedAutoScalerRole", _CS, "AliyunCSManagedAutoScalerRolePolicy", "node pool auto scaling"),
    ServiceRole(
        "AliyunOOSLifecycleHook4CSRole",
        "oos.aliyuncs.com",
        "AliyunOOSLifecycleHook4CSRolePolicy",
        "scaling ACK node pools (OOS lifecycle hooks)",
    ),
    # ECS disks encrypted with a customer key: "the system creates a system RAM role named
    # AliyunECSDiskEncryptDefaultRole ... ECS assumes this role to use the CMK in KMS" (ECS, "Encryption-related
    # permissions", https://help.aliyun.com/en/ecs/user-guide/encryption-related-permissions, read 2026-12-03); its
    # default policy is AliyunECSDiskEncryptRolePolicy (ECS user guide, "访问控制RAM介绍":
    # "AliyunECSDiskEncryptDefaultRole ... 对应的默认权限策略为AliyunECSDiskEncryptRolePolicy").
    ServiceRole(
        "AliyunECSDiskEncryptDefaultRole",
        "ecs.aliyuncs.com",
        "AliyunECSDiskEncryptRolePolicy",
        "node pool system and data disks encrypted with the KMS key",
    ),
)
"""Every service role the bootstrap creates, in the order of the docs."""


def trust_policy(service: str) -> str:
    """The role's trust policy: only ``service`` may assume it (the Terraform guide's ``policy_document``)."""
    statement = {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": [service]}}
    return json.dumps({"Statement": [statement], "Version": "1"})


@dataclass(frozen=True)
class Activations:
    """The services the bootstrap activates, with the status each data source reads ("Opened")."""

    ack: pulumi.Output[str]
    """ACK (Pro managed clusters)."""
    oss: str
    """OSS: the state bucket here, the environments' checkpoint buckets. ``oss.get_service`` with ``enable="On"``
    calls OpenOssService and reads an already opened service as opened (terraform-provider-alicloud@81c43b67
    alicloud/data_source_alicloud_oss_service.go:31-54; "Using this data source can enable OSS service automatically",
    its docstring). Called before anything is declared (a plain invoke, not an Output), so the state bucket is
    created in an account where OSS is open."""


def create(provider: alicloud.Provider, tags: dict[str, str]) -> Activations:
    """Activate ACK and OSS, create every service role and the Auto Scaling service-linked role.

    Returns:
        The activated services' status, exported by the bootstrap.
    """
    kept = pulumi.ResourceOptions(provider=provider, retain_on_delete=True)
    invoke = pulumi.InvokeOptions(provider=provider)
    ack = alicloud.cs.get_ack_service_output(enable="On", type=ACK_SERVICE_TYPE, opts=invoke)
    oss = alicloud.oss.get_service(enable="On", opts=invoke)
    for role in SERVICE_ROLES:
        created = alicloud.ram.Role(
            f"service-role-{role.name}",
            role_name=role.name,
            assume_role_policy_document=trust_policy(role.service),
            description=f"Assumed by {role.service}: {role.purpose} (gpu-cloud account bootstrap)",
            tags=tags,
            opts=kept,
        )
        alicloud.ram.RolePolicyAttachment(
            f"service-role-{role.name}-policy",
            role_name=created.role_name,
            policy_name=role.policy,
            policy_type="System",
            opts=kept,
        )
    alicloud.resourcemanager.ServiceLinkedRole("autoscaling-service-role", service_name=AUTO_SCALING_SERVICE, opts=kept)
    return Activations(ack=ack.status, oss=oss.status)
