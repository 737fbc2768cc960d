"""The bootstrap of an Alibaba Cloud account (run once, before prod-cn): what a fresh account lacks (ACK activation,
service roles, Auto Scaling; alicloud_prerequisites.py), the software KMS instance the environments' keys live in, the
environments' Pulumi backend (an OSS state bucket and the passphrase of their secrets), the facts the environments read
(OOS parameters, components.bootstrap_facts), and the deploy runner (an ECS instance without public IP in its own VPC,
NAT egress only) with the Cloud Assistant command that runs ``pulumi preview|up`` for the environments
(alicloud_runner.sh; docs/deploy.md)."""

import base64
import json
from collections.abc import Sequence
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

import alicloud_prerequisites
import pulumi
import pulumi_alicloud as alicloud
from settings import NAMESPACE, BootstrapConfig

from gpu_cloud.components import bootstrap_facts as facts
from gpu_cloud.components.alicloud import (
    CheckpointBucket,
    CheckpointBucketArgs,
    KmsKey,
    KmsKeyArgs,
    PrivateNetwork,
    PrivateNetworkArgs,
)
from gpu_cloud.components.alicloud.kms import key_use_statement
from gpu_cloud.components.alicloud.rbac import ram_role_name
from gpu_cloud.components.alicloud.storage import checkpoint_bucket_name
from gpu_cloud.components.naming import RAM_POLICY, NameRule, physical_name
from gpu_cloud.components.spec import CheckpointBucketSpec, ConfigError, KmsKeySpec, Problem

KMS_PRODUCT_VERSION = "3"
"""KMS 3.0, a software key management instance (kms.Instance ``product_version``; its examples use "3"):
https://www.alibabacloud.com/help/en/kms/key-management-service/getting-started/purchase-and-enable-a-kms-instance
(read 2026-12-03). Pay-as-you-go: ``spec``, ``key_num`` and ``vpc_num`` apply only to Subscription instances."""

RUNNER_INSTANCE_TYPE = "ecs.g7.large"
"""2 vCPU, 8 GiB: enough for the Pulumi CLI and the program (a general-purpose type, not a GPU type)."""

RUNNER_ROLE = "gpucloud-deploy-runner"
"""The runner's RAM role (its ECS instance role)."""

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

STATE_BUCKET_PREFIX = "gpucloud-state"
"""The state bucket is ``gpucloud-state-<stack>-<account id>`` (components.naming, as the checkpoint buckets)."""

STATE_KEY_ALIAS = "gpucloud-pulumi-state"
"""The state key's alias, ``alias/gpucloud-pulumi-state-<stack>``: it encrypts the state objects (SSE-KMS) and the
passphrase secret."""

STATE_VERSION_DAYS = 90
"""Old versions of a stack's state stay recoverable for 90 days after they are replaced (as on AWS)."""

STATE_PREFIX = ".pulumi/"
"""Where the Pulumi CLI keeps everything of a self-managed backend in its bucket (stacks, history, backups, locks:
pulumi/pulumi pkg/backend/diy, the ``.pulumi`` directory of the bucket)."""

STATE_OBJECT_ACTIONS = (
    "oss:GetObject",
    "oss:PutObject",
    "oss:DeleteObject",
    "oss:AbortMultipartUpload",
    "oss:ListParts",
)
"""What the Pulumi CLI does with the objects under STATE_PREFIX: read, write, delete (locks, old backups), multipart."""

SOURCE_PREFIX = "deploy/"
"""Where CI uploads the source archive of a deployment (``deploy/<commit>.tar.gz``), which the runner reads."""

PASSPHRASE_CONFIG = "statePassphrase"
"""The bootstrap config key (a secret) holding the passphrase of the environments' secrets provider."""

SECRET_NAME = NameRule("alicloud:kms/secret:Secret", 192, "A-Za-z0-9_/+=.@-")
"""KMS CreateSecret ``SecretName``: "1 to 192 characters ... letters, digits, underscores (_), forward slashes (/),
plus signs (+), equal signs (=), periods (.), hyphens (-), and at signs (@)" (KMS API CreateSecret,
https://www.alibabacloud.com/help/en/kms/key-management-service/developer-reference/api-createsecret, read
2026-12-03); unique in the account and region."""

ALIYUN_CLI_VERSION = "3.4.11"
"""The Alibaba Cloud CLI the runner installs: the newest release in aliyun/aliyun-cli (tag v3.4.11, 2026-07-29, read
at eadd68d9 on 2026-12-03). Its release workflow uploads each archive to aliyuncli.alicdn.com and a SHASUMS256.txt
(``shasum -a 256`` of each archive) to the GitHub release (.github/workflows/release.yml, tools/download_assets.sh),
which the runner checks the archive against."""

RUNNER_COMMAND_TIMEOUT_SECONDS = 4 * 3600
"""Cloud Assistant stops a command after this long (ecs.Command ``timeout``, default 60 s): four hours, the length of
the Kubernetes layer's credential (components.alicloud.cluster.KUBECONFIG_MINUTES), longer than a first ``up``."""

RUNNER_SCRIPT = Path(__file__).with_name("alicloud_runner.sh")
"""The runner's command (bash). Cloud Assistant runs it as root in /root with the invocation's parameters ``stack``,
``pulumiCommand`` (preview, up or init), ``deployerRoleArn`` and ``sourceObject`` put in place of their ``{{...}}``
("custom parameters in the {{}} format ... at most 20", ECS CreateCommand and ROS ALIYUN::ECS::Command
``CommandContent``: "Base64-encoded ... up to 18 KB", https://www.alibabacloud.com/help/en/resource-orchestration-service/
latest/aliyun-ecs-command, read 2026-12-03). Who may invoke it may run anything on the runner anyway
(ecs:InvokeCommand on it), so the parameters are checked for shape, not for trust. Steps:

1. The Alibaba Cloud CLI (ALIYUN_CLI_VERSION), checked against its release's SHASUMS256.txt.
2. ``~/.aliyun/config.json``: profile ``runner`` (EcsRamRole, the instance's role) and profile ``deployer``
   (ChainableRamRoleArn from ``runner``, the invocation's deployer role), in the CLI's own format (aliyun-cli
   config/profile.go). The program's alicloud providers act as the deployer through ``ALICLOUD_PROFILE`` (an explicit
   provider reads it, pulumi_alicloud.Provider); the provider builds the CLI profile chain with credentials-go's
   CLIProfileCredentialsProvider and renews the assumed role as it expires (terraform-provider-alicloud@81c43b67
   alicloud/provider.go:2186-2203; credentials-go providers/cli_profile.go: ChainableRamRoleArn over EcsRamRole).
3. The source: ``oss://<state bucket>/<sourceObject>`` over the bucket's internal endpoint.
4. uv at pyproject.toml's pin and the Pulumi CLI at uv.lock's pulumi version (the CLI and the SDK release
   together), from their release archives over HTTPS, each checked against its published checksums
   (get.pulumi.com/releases/sdk/pulumi-<v>-checksums.txt and pulumi-v<v>-linux-x64.tar.gz, the URLs of
   pulumi/docs data/versions.json; uv's <archive>.sha256 on its GitHub release); then ``uv sync --locked`` with a
   uv-managed CPython 3.11. Nothing comes from the OS package mirrors, which Alibaba Cloud Linux reaches over HTTP
   (``baseurl=http://mirrors.cloud.aliyuncs.com/alinux/$releasever/...``): the runner's egress admits no TCP 80
   beyond the metadata service.
5. The passphrase of the secrets provider from the KMS secret (PULUMI_CONFIG_PASSPHRASE_FILE).
6. ``pulumi login`` to the OSS backend through OSS's S3 API (state_backend_url), whose AWS SDK gets the runner role's
   credentials from alicloud_runner_credentials.py (credential_process).
7. ``init``: ``pulumi stack init --secrets-provider passphrase`` and print the ``encryptionsalt`` line to commit;
   ``preview``/``up``: ``pulumi preview|up --stack <stack> --policy-pack gpu_cloud/policies --policy-pack-config
   stacks/policy-config.json`` (the config names the deployer roles, by ARN and, for ACK grants, by RAM role id: the
   only cluster administrators the pack's rbac-least-privilege accepts).
"""

EGRESS_ACCEPT_PRIORITY = 1
"""The highest priority (1-100, "A smaller value indicates a higher priority"), the provider's default."""

EGRESS_DENY = ("deny", "all", "-1/-1", "0.0.0.0/0", "drop", 100)
"""Every other packet dropped, at the lowest priority (100), below every accept rule. A basic security group
"allow[s] all outbound traffic by default" and applies its default rules together with the custom ones (ECS,
"Security group rules", https://www.alibabacloud.com/help/en/ecs/user-guide/security-group-rules, read 2026-12-03),
so only an explicit drop rule makes the accept rules the whole egress; "When multiple security group rules have
the same priority, drop rules take precedence" (ECS API AuthorizeSecurityGroupEgress,
https://alibabacloud.com/help/en/ecs/api-authorizesecuritygroupegress, read 2026-12-03)."""


def state_backend_url(bucket: str, region: str) -> str:
    """The environments' Pulumi backend: the OSS state bucket through OSS's S3 API.

    The Pulumi CLI opens ``s3://`` backends with gocloud.dev's s3blob on the AWS SDK for Go v2 (pulumi/pulumi@1b59498
    pkg/go.mod: gocloud.dev v0.46.1, aws-sdk-go-v2/service/s3 v1.106.0; pkg/backend/diy/backend.go). Its URL
    parameters (google/go-cloud@b5401c07 aws/aws.go V2ConfigFromURLParams, blob/s3blob/s3blob.go):

    * ``endpoint``: OSS's S3-compatible internal endpoint ``https://s3.oss-{region}-internal.aliyuncs.com`` (OSS,
      "Access OSS using an AWS SDK", https://www.alibabacloud.com/help/en/oss/developer-reference/
      use-amazon-s3-sdks-to-access-oss, updated Mar 20, 2026; the runner is in the region's VPC network). The endpoint
      needs its scheme: the v2 SDK takes it as a URL.
    * ``region``: the signing region, the region id (the same page's SDK 1.x example signs with "cn-hangzhou").
    * no ``use_path_style``: OSS serves virtual-hosted-style requests (the page's examples set path style off).
    * ``request_checksum_calculation=when_required`` and ``response_checksum_validation=when_required``: the v2 SDK
      otherwise sends CRC32 checksums in aws-chunked uploads, which "some third-party stores" reject
      (translateLegacyS3Params in pulumi's backend.go sets the first itself for a URL with an endpoint; the OSS page's
      Java example turns chunked encoding off). Explicit, so the URL means the same to every CLI version.
    """
    endpoint = f"https://s3.oss-{region}-internal.aliyuncs.com"
    return (
        f"s3://{bucket}?endpoint={endpoint}&region={region}"
        "&request_checksum_calculation=when_required&response_checksum_validation=when_required"
    )


def deployer_role_names(arns: Sequence[str]) -> list[str]:
    """The RAM role names of ``arns`` (components.alicloud.rbac.RAM_ROLE_ARN); ConfigError naming each one that is
    not such an ARN, or the field when there is none (the runner deploys only as one of them)."""
    if not arns:
        message = "required on alicloud: the runner deploys only as one of these roles"
        raise ConfigError([Problem(f"{NAMESPACE}:deployerRoleArns", message, [])])
    names = [ram_role_name(arn) for arn in arns]
    problems = [
        Problem(f"{NAMESPACE}:deployerRoleArns.{i}", "not a RAM role ARN (acs:ram::<account>:role/<name>)", arn)
        for i, (arn, name) in enumerate(zip(arns, names, strict=True))
        if name is None
    ]
    if problems:
        raise ConfigError(problems)
    return [name for name in names if name is not None]


def runner_command(region: str, bucket: str, passphrase_secret: str, runner_role: str) -> str:
    """The runner script (RUNNER_SCRIPT) with the bootstrap's values in place of its ``@@...@@`` markers."""
    values = {
        "region": region,
        "stateBucket": bucket,
        "passphraseSecret": passphrase_secret,
        "runnerRole": runner_role,
        "aliyunCliVersion": ALIYUN_CLI_VERSION,
    }
    script = RUNNER_SCRIPT.read_text()
    for name, value in values.items():
        script = script.replace(f"@@{name}@@", value)
    return script


def build(config: BootstrapConfig) -> None:
    """Declare the Alibaba Cloud account's bootstrap resources and publish what the environments read."""
    passphrase = pulumi.Config().get_secret(PASSPHRASE_CONFIG)
    deployer_names = deployer_role_names(config.deployer_role_arns)
    if passphrase is None:
        message = "required on alicloud: the environments' secrets passphrase (pulumi config set --secret)"
        raise ConfigError([Problem(f"{NAMESPACE}:{PASSPHRASE_CONFIG}", message, "")])
    provider = alicloud.Provider("alicloud", region=config.region)
    opts = pulumi.ResourceOptions(provider=provider)
    invoke = pulumi.InvokeOptions(provider=provider)
    tags = dict(config.tags)
    account_id = alicloud.get_caller_identity(opts=invoke).account_id
    activated = alicloud_prerequisites.create(provider, tags)
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

    # The environments' backend: the state bucket (private, versioned, SSE-KMS with the state key, TLS 1.3 only) and
    # the passphrase of their secrets provider, a KMS secret in the instance under the same key.
    state_key = KmsKey(
        "state-key",
        KmsKeyArgs(spec=KmsKeySpec(), instance_id=instance.id, alias=STATE_KEY_ALIAS, tags=tags),
        opts,
    )
    bucket = CheckpointBucket(
        "state",
        CheckpointBucketArgs(
            spec=CheckpointBucketSpec(noncurrent_version_days=STATE_VERSION_DAYS),
            name_prefix=STATE_BUCKET_PREFIX,
            account_id=account_id,
            kms_key_id=state_key.key_id,
            tags=tags,
        ),
        opts,
    )
    bucket_name = checkpoint_bucket_name(STATE_BUCKET_PREFIX, account_id)
    secret_name = physical_name(SECRET_NAME, "gpucloud-pulumi-passphrase")
    alicloud.kms.Secret(
        "state-passphrase",
        secret_name=secret_name,
        secret_data=passphrase,
        version_id="v1",
        description="Passphrase of the secrets provider of the gpu-cloud environments' Pulumi stacks",
        encryption_key_id=state_key.key_id,
        dkms_instance_id=instance.id,
        tags=tags,
        # Losing it loses every secret of every stack: kept when the bootstrap is destroyed.
        opts=pulumi.ResourceOptions(provider=provider, protect=True, retain_on_delete=True),
    )

    # The runner: no public IP (internet_max_bandwidth_out 0, no EIP), egress through the NAT gateway; nothing
    # inbound (Cloud Assistant needs no open port), egress only where a deployment goes.
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
        role_name=RUNNER_ROLE,
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
    policy = alicloud.ram.Policy(
        "runner-policy",
        policy_name="gpucloud-deploy-runner",
        description="The deploy runner: the deployer roles, the source and state objects, the state key and passphrase",
        policy_document=runner_policy(
            config.deployer_role_arns,
            config.region,
            account_id,
            bucket_name,
            key_alias=state_key.alias_name,
            secret_name=secret_name,
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
    command = alicloud.ecs.Command(
        "runner-command",
        name="gpucloud-deploy",
        description="gpu-cloud: pulumi preview|up of an environment (bootstrap/alicloud_runner.sh)",
        type="RunShellScript",
        command_content=base64.b64encode(
            runner_command(config.region, bucket_name, secret_name, RUNNER_ROLE).encode()
        ).decode(),
        enable_parameter=True,
        timeout=RUNNER_COMMAND_TIMEOUT_SECONDS,
        opts=opts,
    )
    _publish_facts(config, network, group.id, instance.id, tags, opts)
    _deployer_reads_facts(config, deployer_names, account_id, tags, opts)

    pulumi.export("region", config.region)
    pulumi.export("runnerVpcId", network.vpc_id)
    pulumi.export("runnerRouteTableIds", [network.route_table_id])
    pulumi.export("runnerSecurityGroupId", group.id)
    pulumi.export("runnerRoleArn", role.arn)
    pulumi.export("runnerInstanceId", runner.id)
    pulumi.export("runnerCommandId", command.id)
    pulumi.export("kmsInstanceId", instance.id)
    pulumi.export("ackServiceStatus", activated.ack)
    pulumi.export("ossServiceStatus", activated.oss)
    pulumi.export("stateBucket", bucket.bucket_name)
    pulumi.export("backendUrl", state_backend_url(bucket_name, config.region))
    pulumi.export("secretsProvider", "passphrase")
    pulumi.export("passphraseSecretName", secret_name)


def runner_policy(
    deployer_role_arns: Sequence[str],
    region: str,
    account_id: str,
    bucket: str,
    *,
    key_alias: str,
    secret_name: str,
) -> str:
    """The runner role's permissions: assume the deployer roles; read the deployments' source objects; read and write
    the Pulumi state objects (the S3 API's ListObjectsV2, Get/Put/Delete/HeadObject and multipart calls are these OSS
    actions, OSS "RAM policy" actions of the object operations); use the state key, named by its tag
    (kms.key_use_statement), for SSE-KMS; read the passphrase secret (KMS GetSecretValue on
    ``acs:kms:<region>:<account>:secret/<name>``, KMS "Use RAM to control access to KMS resources",
    https://www.alibabacloud.com/help/en/kms/support/use-ram-to-control-access-to-kms-resources, read 2026-12-03,
    with kms:Decrypt of its key). Nothing else: the program's cloud calls are the deployer's. Every name is known
    before anything exists, so the document is readable at preview."""
    bucket_arn = f"acs:oss:*:{account_id}:{bucket}"
    statements: list[dict[str, Any]] = [
        {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": list(deployer_role_arns)},
        {
            "Effect": "Allow",
            "Action": ["oss:ListObjects"],
            "Resource": [bucket_arn],
            "Condition": {"StringLike": {"oss:Prefix": [f"{STATE_PREFIX}*"]}},
        },
        {
            "Effect": "Allow",
            "Action": list(STATE_OBJECT_ACTIONS),
            "Resource": [f"{bucket_arn}/{STATE_PREFIX}*"],
        },
        {"Effect": "Allow", "Action": ["oss:GetObject"], "Resource": [f"{bucket_arn}/{SOURCE_PREFIX}*"]},
        {"Effect": "Allow", **key_use_statement(["kms:Decrypt", "kms:GenerateDataKey"], region, account_id, key_alias)},
        {
            "Effect": "Allow",
            "Action": ["kms:GetSecretValue"],
            "Resource": [f"acs:kms:{region}:{account_id}:secret/{secret_name}"],
        },
    ]
    return json.dumps({"Version": "1", "Statement": statements}, sort_keys=True)


def fact_parameter_arns(region: str, account_id: str, names: Sequence[str]) -> list[str]:
    """The OOS ARNs of the parameters ``names`` (``acs:oos:<region>:<account>:parameter/<name>``, OOS API
    GetParameter, RAM authorization). The names start with ``/`` (bootstrap_facts.PREFIX) and the documentation does
    not say whether the ARN keeps it, so both spellings are listed, each naming exactly one parameter."""
    return [
        f"acs:oos:{region}:{account_id}:parameter/{spelling}"
        for name in names
        for spelling in (name, name.removeprefix("/"))
    ]


def facts_read_policy(region: str, account_id: str) -> str:
    """What a deployer role needs to read the bootstrap's facts with the provider's oos.get_parameters data source:
    ListParameters by name, then GetParameter of each (terraform-provider-alicloud@81c43b67
    alicloud/data_source_alicloud_oos_parameters.go: ListParameters, and DescribeOosParameter with enable_details)."""
    statements = [
        {
            "Effect": "Allow",
            "Action": ["oos:ListParameters"],
            "Resource": [f"acs:oos:{region}:{account_id}:parameter/*"],
        },
        {
            "Effect": "Allow",
            "Action": ["oos:GetParameter", "oos:GetParameters"],
            "Resource": fact_parameter_arns(region, account_id, FACTS),
        },
    ]
    return json.dumps({"Version": "1", "Statement": statements}, sort_keys=True)


FACTS = (
    facts.RUNNER_VPC_ID,
    facts.RUNNER_VPC_CIDR,
    facts.RUNNER_ROUTE_TABLE_IDS,
    facts.RUNNER_SECURITY_GROUP_ID,
    facts.KMS_INSTANCE_ID,
    facts.DEPLOYER_ROLE_ARNS,
)
"""The facts an Alibaba Cloud account's bootstrap publishes (components.bootstrap_facts), in the account's region."""


def _publish_facts(
    config: BootstrapConfig,
    network: PrivateNetwork,
    security_group_id: pulumi.Input[str],
    kms_instance_id: pulumi.Input[str],
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> None:
    """One OOS common parameter per fact (oos.Parameter: ``String`` or ``StringList``, "1 to 4096 characters")."""
    values: dict[str, tuple[str, pulumi.Input[str]]] = {
        facts.RUNNER_VPC_ID: ("String", network.vpc_id),
        facts.RUNNER_VPC_CIDR: ("String", str(config.runner_network.vpc_cidr)),
        facts.RUNNER_ROUTE_TABLE_IDS: ("StringList", network.route_table_id),
        facts.RUNNER_SECURITY_GROUP_ID: ("String", security_group_id),
        facts.KMS_INSTANCE_ID: ("String", kms_instance_id),
        facts.DEPLOYER_ROLE_ARNS: ("StringList", ",".join(config.deployer_role_arns)),
    }
    assert tuple(values) == FACTS
    for name, (kind, value) in values.items():
        alicloud.oos.Parameter(
            f"fact-{name.removeprefix(facts.PREFIX)}",
            parameter_name=name,
            type=kind,
            value=value,
            description="gpu-cloud bootstrap fact (components.bootstrap_facts)",
            tags=tags,
            opts=opts,
        )


def _deployer_reads_facts(
    config: BootstrapConfig,
    role_names: Sequence[str],
    account_id: str,
    tags: dict[str, str],
    opts: pulumi.ResourceOptions,
) -> None:
    """Each deployer role may read the facts: the environments' glue reads them through providers that act as the
    deployer. The roles are the account's, made outside the bootstrap; only this policy is attached to them."""
    policy = alicloud.ram.Policy(
        "facts-read-policy",
        policy_name=physical_name(RAM_POLICY, "gpucloud-bootstrap-facts-read"),
        description="Read the gpu-cloud bootstrap facts (OOS parameters)",
        policy_document=facts_read_policy(config.region, account_id),
        tags=tags,
        opts=opts,
    )
    for name in role_names:
        alicloud.ram.RolePolicyAttachment(
            f"facts-read-{name}",
            role_name=name,
            policy_name=policy.policy_name,
            policy_type="Custom",
            opts=opts,
        )


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
