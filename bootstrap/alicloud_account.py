"""The bootstrap of an Alibaba Cloud account (run once, before prod-cn): what a fresh account lacks (ACK activation,
service roles, Auto Scaling; alicloud_prerequisites.py), the software KMS instance the environments' keys live in, and
the deploy runner (an ECS instance without public IP in its own VPC, NAT egress only, driven by Cloud Assistant) that
runs ``pulumi up`` for the environments (docs/deploy.md)."""

import json
from ipaddress import IPv4Network

import alicloud_prerequisites
import pulumi
import pulumi_alicloud as alicloud
from settings import BootstrapConfig

from gpu_cloud.components.alicloud import PrivateNetwork, PrivateNetworkArgs

KMS_PRODUCT_VERSION = "3"
"""KMS 3.0, a software key management instance (kms.Instance ``product_version``; its examples use "3"):
https://www.alibabacloud.com/help/en/kms/key-management-service/getting-started/purchase-and-enable-a-kms-instance
(read 2026-12-03). Pay-as-you-go: ``spec``, ``key_num`` and ``vpc_num`` apply only to Subscription instances."""

RUNNER_INSTANCE_TYPE = "ecs.g7.large"
"""2 vCPU, 8 GiB: enough for the Pulumi CLI and the program (a general-purpose type, not a GPU type)."""

RUNNER_IMAGE = "^aliyun_3_x64_20G_alibase_"
"""Alibaba Cloud Linux 3, a system image with the Cloud Assistant agent preinstalled."""

ACK_API_PORT = "6443/6443"
"""The ACK API server's intranet port, which each environment admits from the runner VPC (its deploy-api rule)."""

RUNNER_EGRESS: tuple[tuple[str, str, str, str], ...] = (
    # Alibaba Cloud's internal DNS: "The service addresses for Private DNS are assigned by the system and are
    # 100.100.2.136 and 100.100.2.138" (ECS, "Private DNS resolution for ECS instances",
    # https://www.alibabacloud.com/help/en/ecs/user-guide/ecs-private-domain-resolution, read 2026-12-03).
    ("dns-1-udp", "udp", "53/53", "100.100.2.136/32"),
    ("dns-1-tcp", "tcp", "53/53", "100.100.2.136/32"),
    ("dns-2-udp", "udp", "53/53", "100.100.2.138/32"),
    ("dns-2-tcp", "tcp", "53/53", "100.100.2.138/32"),
    # The instance metadata service, where the runner's RAM role credentials come from (http_tokens required):
    # Alibaba Cloud's SDKs read an instance RAM role's STS credentials from
    # http://100.100.100.200/latest/meta-data/ram/security-credentials/<role> (the Java SDK's
    # ECSMetadataServiceCredentialsFetcher and its test, read 2026-12-03).
    ("metadata", "tcp", "80/80", "100.100.100.200/32"),
    # Alibaba Cloud's NTP server: Alibaba Cloud Linux's chrony syncs with ntp.cloud.aliyuncs.com, whose VPC address
    # is 100.100.61.88 (ECS, "Synchronize ECS instance clocks with Alibaba Cloud NTP servers", chronyc tracking
    # "Reference ID : 64643D58 (100.100.61.88)",
    # https://www.alibabacloud.com/help/en/ecs/user-guide/alibaba-cloud-ntp-server, read 2026-12-03): signed API
    # requests need a correct clock.
    ("ntp", "udp", "123/123", "100.100.61.88/32"),
    # HTTPS through the NAT gateway: Alibaba Cloud API endpoints (STS, ACK, VPC, ...), the Cloud Assistant server,
    # the Pulumi CLI and plugins, PyPI and the source; nothing else leaves on another port.
    ("https", "tcp", "443/443", "0.0.0.0/0"),
)
"""The runner's accepted egress besides the Kubernetes API: (name, protocol, ports, destination)."""

EGRESS_ACCEPT_PRIORITY = 1
"""The highest priority (1-100, "A smaller value indicates a higher priority"), the provider's default."""

EGRESS_DENY = ("deny", "all", "-1/-1", "0.0.0.0/0", "drop", 100)
"""Every other packet dropped, at the lowest priority (100), below every accept rule. A basic security group
"allow[s] all outbound traffic by default" and applies its default rules together with the custom ones (ECS,
"Security group rules", https://www.alibabacloud.com/help/en/ecs/user-guide/security-group-rules, read 2026-12-03),
so only an explicit drop rule makes the accept rules the whole egress; "When multiple security group rules have
the same priority, drop rules take precedence" (ECS API AuthorizeSecurityGroupEgress,
https://alibabacloud.com/help/en/ecs/api-authorizesecuritygroupegress, read 2026-12-03)."""


def build(config: BootstrapConfig) -> None:
    """Declare the Alibaba Cloud account's bootstrap resources and export what prod-cn reads."""
    provider = alicloud.Provider("alicloud", region=config.region)
    opts = pulumi.ResourceOptions(provider=provider)
    invoke = pulumi.InvokeOptions(provider=provider)
    tags = dict(config.tags)
    ack_status = alicloud_prerequisites.create(provider, tags)
    spec = config.runner_network
    network = PrivateNetwork("runner-network", PrivateNetworkArgs(spec=spec, tags=tags), opts)

    # The instance spans two zones: the runner's first two vSwitches, paired with their zones by position (the "2:2"
    # combination of kms.Instance zone_ids/vswitch_ids); settings.py checks they are two KMS software-instance zones.
    # Cloud services (ACK, ECS disks, OSS) use its keys through the KMS API; the VPC binding serves applications in
    # the runner VPC.
    instance = alicloud.kms.Instance(
        "kms-instance",
        instance_name="gpucloud-kms",
        product_version=KMS_PRODUCT_VERSION,
        payment_type="PayAsYouGo",
        vpc_id=network.vpc_id,
        vswitch_ids=network.vswitch_ids[:2],
        zone_ids=[s.zone for s in spec.private_subnets[:2]],
        deletion_protection=True,
        tags=tags,
        opts=pulumi.ResourceOptions(provider=provider, protect=True, retain_on_delete=True),
    )

    # The runner: no public IP (internet_max_bandwidth_out 0, no EIP), egress through the NAT gateway; nothing
    # inbound (Cloud Assistant needs no open port), egress only where a deployment goes. Its RAM role may only
    # assume the deployer roles.
    group = alicloud.ecs.SecurityGroup(
        "runner-sg",
        security_group_name="gpucloud-deploy-runner",
        description="gpu-cloud deploy runner: no inbound rule, least-privilege egress",
        vpc_id=network.vpc_id,
        tags=tags,
        opts=opts,
    )
    _egress(group.id, config.environment_vpc_cidrs, opts)
    role = alicloud.ram.Role(
        "runner-role",
        role_name="gpucloud-deploy-runner",
        description="gpu-cloud deploy runner (ECS instance role)",
        assume_role_policy_document=json.dumps(
            {
                "Version": "1",
                "Statement": [
                    {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": {"Service": ["ecs.aliyuncs.com"]}}
                ],
            }
        ),
        tags=tags,
        opts=opts,
    )
    if config.deployer_role_arns:
        policy = alicloud.ram.Policy(
            "runner-policy",
            policy_name="gpucloud-deploy-runner-assume",
            description="The deploy runner may only assume the deployer roles",
            policy_document=json.dumps(
                {
                    "Version": "1",
                    "Statement": [
                        {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": list(config.deployer_role_arns)}
                    ],
                }
            ),
            tags=tags,
            opts=opts,
        )
        alicloud.ram.RolePolicyAttachment(
            "runner-policy-attachment",
            role_name=role.role_name,
            policy_name=policy.policy_name,
            policy_type="Custom",
            opts=opts,
        )
    image = alicloud.ecs.get_images_output(
        owners="system", name_regex=RUNNER_IMAGE, most_recent=True, instance_type=RUNNER_INSTANCE_TYPE, opts=invoke
    )
    runner = alicloud.ecs.Instance(
        "runner",
        instance_name="gpucloud-deploy-runner",
        instance_type=RUNNER_INSTANCE_TYPE,
        image_id=image.images[0].id,
        instance_charge_type="PostPaid",
        vswitch_id=network.vswitch_ids[0],
        security_groups=[group.id],
        internet_max_bandwidth_out=0,
        system_disk_category="cloud_essd",
        system_disk_encrypted=True,
        http_tokens="required",
        tags=tags,
        # A newer system image must not replace the runner.
        opts=pulumi.ResourceOptions(provider=provider, ignore_changes=["imageId"]),
    )
    alicloud.ecs.RamRoleAttachment(
        "runner-role-attachment", instance_id=runner.id, ram_role_name=role.role_name, opts=opts
    )

    pulumi.export("region", config.region)
    pulumi.export("runnerVpcId", network.vpc_id)
    pulumi.export("runnerRouteTableIds", [network.route_table_id])
    pulumi.export("runnerSecurityGroupId", group.id)
    pulumi.export("runnerRoleArn", role.arn)
    pulumi.export("runnerInstanceId", runner.id)
    pulumi.export("kmsInstanceId", instance.id)
    pulumi.export("ackServiceStatus", ack_status)


def _egress(group_id: pulumi.Input[str], environments: list[IPv4Network], opts: pulumi.ResourceOptions) -> None:
    """The runner's egress: the environments' Kubernetes API, DNS, NTP, metadata and HTTPS; every other packet
    dropped."""
    api = [(f"api-{i}", "tcp", ACK_API_PORT, str(cidr)) for i, cidr in enumerate(environments)]
    accepted = [(*rule, "accept", EGRESS_ACCEPT_PRIORITY) for rule in [*api, *RUNNER_EGRESS]]
    for name, protocol, ports, cidr, policy, priority in [*accepted, EGRESS_DENY]:
        alicloud.ecs.SecurityGroupRule(
            f"runner-egress-{name}",
            security_group_id=group_id,
            type="egress",
            nic_type="intranet",
            ip_protocol=protocol,
            port_range=ports,
            cidr_ip=cidr,
            policy=policy,
            priority=priority,
            opts=opts,
        )
