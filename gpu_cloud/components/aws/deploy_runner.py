"""DeployRunner: the CodeBuild projects, inside a private VPC, that run ``pulumi preview|up`` for the environments.

The EKS API endpoints are private, so the environments' Kubernetes layer is applied from inside a VPC that reaches
them: this runner's VPC, which every environment peers with and admits on 443 (``components.aws.environment``,
``docs/deploy.md``). CI outside the VPC only uploads the source and starts a build, then waits for its end.

Per environment there are two projects, each run by its own service role, so that no build assumes another role:

- ``gpucloud-deploy-<env>`` runs as the environment's **deployer role**, which this component creates: CodeBuild
  itself assumes it for the whole build ("CodeBuild uses the service role for all operations that are performed on
  your behalf", CodeBuild User Guide, setting-up-service-role) and the build reads its credentials from the container
  credentials endpoint, which the SDKs refresh (botocore ``credentials.ContainerProvider`` returns
  RefreshableCredentials; read in botocore 1.44.8). No ``sts assume-role`` from the build's own session, so no
  role-chaining cap ("Role chaining limits your ... role session to a maximum of one hour", botocore 1.44.8 sts
  AssumeRole DurationSeconds); the build's timeout is :data:`BUILD_TIMEOUT_MINUTES` (CodeBuild allows 5 to 2160,
  default 60: botocore 1.44.8 codebuild CreateProject timeoutInMinutes).
- ``gpucloud-preview-<env>`` runs as the account's read-only **preview role** (pull requests): it reads the state,
  the stack's secrets and the data sources a preview calls, and can change nothing. It has no EKS access entry, so
  the Kubernetes provider finds the API unauthorized, treats the cluster as unreachable and previews the
  Kubernetes objects without a server-side dry run (pulumi/pulumi-kubernetes ``provider/pkg/provider/provider.go``
  at 94977969: ``Configure`` sets ``clusterUnreachable`` when the API's schema cannot be read; ``Create`` and
  ``Update`` bail out only when not a preview), which a role that may not write could not do (a dry run is
  authorized like the write itself: kubernetes.io "API concepts: dry-run authorization").

Both trust ``codebuild.amazonaws.com`` only for their own projects in this account (``aws:SourceAccount``,
``aws:SourceArn``: the confused-deputy guard of the CodeBuild User Guide, "Cross-service confused deputy
prevention").
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account, account_of, document, service_trust
from gpu_cloud.components.aws.kms import key_use_statement
from gpu_cloud.components.bootstrap_facts import PREFIX
from gpu_cloud.components.naming import CODEBUILD_PROJECT, IAM_ROLE, physical_name

__all__ = [
    "BUILDSPEC",
    "BUILD_TIMEOUT_MINUTES",
    "PULUMI_CLI_VERSION",
    "PYTHON_RUNTIME",
    "DeployRunner",
    "DeployRunnerArgs",
    "project_name",
]

DEPLOY = "deploy"
"""The kind of the projects that run ``pulumi up`` (``gpucloud-deploy-<env>``) as the environment's deployer."""
PREVIEW = "preview"
"""The kind of the projects that run ``pulumi preview`` (``gpucloud-preview-<env>``) as the read-only preview role."""

SOURCE_PREFIX = "deploy/"
"""Where CI uploads the repository archives in the state bucket: one object per commit, ``deploy/<commit>.zip``."""
STATE_PREFIX = ".pulumi/"
"""Where a self-managed backend keeps its state in the bucket (pulumi/pulumi ``pkg/backend/diy``: BookkeepingDir)."""

BUILD_TIMEOUT_MINUTES = 240
"""A build's timeout: a first ``up`` creates the EKS cluster (about 10 to 15 minutes), its node groups and add-ons,
8 Helm releases and the workloads (each Deployment awaited up to 10 minutes), after the CLI and the virtualenv are
installed; four hours leave room for the slowest of them. A build killed mid-``up`` leaves the backend's lock."""

PULUMI_CLI_VERSION = "3.272.0"
"""The Pulumi CLI the builds install: the release of the Python SDK pinned in uv.lock (pulumi 3.272.0 on PyPI, the
newest on 2026-12-03; CLI and SDKs are released together from pulumi/pulumi tags). tests/test_bootstrap.py checks it
against uv.lock. Installed with ``get.pulumi.com``'s ``--version`` (Pulumi docs, "Download & install Pulumi")."""

PYTHON_RUNTIME = "3.11"
"""The build's Python, pinned in ``runtime-versions`` (the image's default changes when a version reaches end of
life: CodeBuild User Guide, "Available runtimes"); aws/aws-codebuild-docker-images
``al/x86_64/standard/5.0/runtimes.yml`` at 0c5eb16c offers python 3.9 to 3.14. gpu-cloud needs 3.11 or newer."""

IMAGE = "aws/codebuild/amazonlinux-x86_64-standard:5.0"
"""The CodeBuild image (Amazon Linux 2023 x86_64 standard 5.0)."""

BUILDSPEC = f"""\
version: 0.2
env:
  shell: bash
phases:
  install:
    runtime-versions:
      python: "{PYTHON_RUNTIME}"
    commands:
      - curl -fsSL https://get.pulumi.com | sh -s -- --version {PULUMI_CLI_VERSION}
      - make .venv/.installed
  build:
    commands:
      - |
        export PATH="$HOME/.pulumi/bin:$CODEBUILD_SRC_DIR/.venv/bin:$PATH"
        pulumi login "$PULUMI_BACKEND_URL"
        pulumi $PULUMI_COMMAND --stack "$STACK" --policy-pack gpu_cloud/policies \\
          ${{POLICY_CONFIG:+--policy-pack-config "$POLICY_CONFIG"}}
"""
"""What a build runs, with the credentials of the project's service role: the pinned Pulumi CLI, the repository's
virtualenv (``make`` installs uv at the pyproject pin into ``.venv/bin``, where Pulumi.yaml's toolchain finds it),
then ``pulumi $PULUMI_COMMAND`` of ``$STACK`` with the policy pack and its config (``POLICY_CONFIG``, a file of the
source, when set). ``STACK``, ``PULUMI_COMMAND``, ``PULUMI_BACKEND_URL`` and ``POLICY_CONFIG`` are the project's
environment variables; the source is the archive of one commit, pinned by
its S3 object version at ``start-build`` (docs/deploy.md)."""

# The permissions a CodeBuild project in a VPC needs for its network interfaces (CodeBuild User Guide, "Use
# CodeBuild with Amazon Virtual Private Cloud": the service role policy for VPC access).
_VPC_ACTIONS = (
    "ec2:CreateNetworkInterface",
    "ec2:DeleteNetworkInterface",
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeVpcs",
)
# The data sources a preview of an environment calls (their Terraform data sources' API calls): availability zones,
# AMI look-ups, regions, and parameters (the bootstrap's, and AWS's public EKS AMI parameters).
_PREVIEW_READS = ("ec2:DescribeAvailabilityZones", "ec2:DescribeImages", "ec2:DescribeRegions")


def project_name(kind: str, environment: str) -> str:
    """The CodeBuild project of ``kind`` (deploy or preview) for ``environment``, e.g. ``gpucloud-deploy-prod-shared``
    (components.naming: the bootstrap stack's name follows)."""
    return physical_name(CODEBUILD_PROJECT, f"gpucloud-{kind}-{environment}")


@dataclass(frozen=True)
class DeployRunnerArgs:
    """Arguments of a DeployRunner."""

    vpc_id: pulumi.Input[str]
    """The runner VPC (egress through NAT: the build installs the Pulumi CLI and packages)."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """Its private subnets."""
    state_bucket: pulumi.Input[str]
    """The state bucket: Pulumi's backend (``.pulumi/``) and the source archives CI uploads (``deploy/``)."""
    state_key_alias: str
    """The alias of the state key (``alias/...``): SSE-KMS of the bucket, the ``awskms://`` secrets provider, the
    build logs. IAM policies select the key by it (components.aws.kms.key_use_statement)."""
    state_key_arn: pulumi.Input[str]
    """The state key's ARN (the projects' encryption key, the log groups' key)."""
    environments: Sequence[str]
    """The environment stacks the runner deploys: a deploy and a preview project each."""
    deployer_policy_arns: Sequence[str]
    """The managed policies that give each deployer role what ``pulumi up`` of an environment does (the
    organization's deploy policy)."""
    policy_config: str = ""
    """The policy pack's config in the source (``pulumi --policy-pack-config``), e.g. naming the deployer roles the
    pack's rbac-least-privilege accepts as cluster administrators; none when empty."""
    log_retention_days: int = 90
    """Days CloudWatch Logs keeps the build logs."""


class DeployRunner(pulumi.ComponentResource):
    """Per environment a deploy project run by the environment's deployer role and a preview project run by the
    read-only preview role, in private subnets with no public IP and a security group with egress on 443 only.

    Children: ``<name>-sg``; ``<name>-preview-role`` and ``<name>-preview-policy``; per environment ``<env>``:
    ``<name>-<env>-deployer`` (role), ``<name>-<env>-deployer-policy``, ``<name>-<env>-deployer-<i>`` (one
    attachment per deployer policy), and per kind (deploy, preview) ``<name>-<env>-<kind>-logs`` and
    ``<name>-<env>-<kind>``.
    """

    security_group_id: pulumi.Output[str]
    """The runner's security group."""
    deployer_role_arns: dict[str, pulumi.Output[str]]
    """Each environment's deployer role (the environment makes it cluster admin)."""
    preview_role_arn: pulumi.Output[str]
    """The read-only preview role."""
    deploy_projects: dict[str, pulumi.Output[str]]
    """Each environment's deploy project."""
    preview_projects: dict[str, pulumi.Output[str]]
    """Each environment's preview project."""

    def __init__(self, name: str, args: DeployRunnerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:aws:DeployRunner", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        group = aws.ec2.SecurityGroup(
            f"{name}-sg",
            description="gpu-cloud deploy runner: HTTPS out only",
            vpc_id=args.vpc_id,
            egress=[
                aws.ec2.SecurityGroupEgressArgs(
                    protocol="tcp", from_port=443, to_port=443, cidr_blocks=["0.0.0.0/0"], description="HTTPS"
                )
            ],
            opts=child,
        )
        account = account_of(self)
        scope = pulumi.Output.all(account, args.state_bucket)
        previews = [project_name(PREVIEW, env) for env in args.environments]
        preview_role = aws.iam.Role(
            f"{name}-preview-role",
            name=physical_name(IAM_ROLE, "gpucloud-preview"),
            description="gpu-cloud deploy runner: read-only previews (pull requests)",
            assume_role_policy=account.apply(functools.partial(_trust, projects=tuple(previews))),
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-preview-policy",
            role=preview_role.id,
            policy=scope.apply(lambda v: preview_policy(v[0], str(v[1]), args.state_key_alias, previews)),
            opts=child,
        )
        self.deployer_role_arns, self.deploy_projects, self.preview_projects = {}, {}, {}
        for env in args.environments:
            deploy = project_name(DEPLOY, env)
            deployer = aws.iam.Role(
                f"{name}-{env}-deployer",
                name=physical_name(IAM_ROLE, f"gpucloud-deployer-{env}"),
                description=f"gpu-cloud: runs pulumi up of {env} (CodeBuild {deploy})",
                assume_role_policy=account.apply(functools.partial(_trust, projects=(deploy,))),
                opts=child,
            )
            aws.iam.RolePolicy(
                f"{name}-{env}-deployer-policy",
                role=deployer.id,
                policy=scope.apply(functools.partial(_deployer, key_alias=args.state_key_alias, project=deploy)),
                opts=child,
            )
            for i, policy_arn in enumerate(args.deployer_policy_arns):
                aws.iam.RolePolicyAttachment(
                    f"{name}-{env}-deployer-{i}", role=deployer.name, policy_arn=policy_arn, opts=child
                )
            self.deployer_role_arns[env] = deployer.arn
            self.deploy_projects[env] = self._project(name, env, DEPLOY, deployer, group, args).name
            self.preview_projects[env] = self._project(name, env, PREVIEW, preview_role, group, args).name
        self.security_group_id = group.id
        self.preview_role_arn = preview_role.arn
        self.register_outputs(
            {
                "securityGroupId": self.security_group_id,
                "deployerRoleArns": self.deployer_role_arns,
                "previewRoleArn": self.preview_role_arn,
                "deployProjects": self.deploy_projects,
                "previewProjects": self.preview_projects,
            }
        )

    def _project(
        self,
        name: str,
        env: str,
        kind: str,
        role: aws.iam.Role,
        group: aws.ec2.SecurityGroup,
        args: DeployRunnerArgs,
    ) -> aws.codebuild.Project:
        """Project ``gpucloud-<kind>-<env>`` run by ``role``, and its log group. Its command is ``preview`` unless a
        build overrides ``PULUMI_COMMAND`` (``up --yes`` on a deploy project)."""
        child = pulumi.ResourceOptions(parent=self)
        physical = project_name(kind, env)
        logs = aws.cloudwatch.LogGroup(
            f"{name}-{env}-{kind}-logs",
            name=f"/aws/codebuild/{physical}",
            retention_in_days=args.log_retention_days,
            kms_key_id=args.state_key_arn,
            opts=child,
        )
        variables: dict[str, pulumi.Input[str]] = {
            "STACK": env,
            "PULUMI_COMMAND": "preview",
            "PULUMI_BACKEND_URL": pulumi.Output.concat("s3://", args.state_bucket),
            "POLICY_CONFIG": args.policy_config,
        }
        return aws.codebuild.Project(
            f"{name}-{env}-{kind}",
            name=physical,
            description=f"gpu-cloud: pulumi {kind} of {env} from inside the runner VPC",
            service_role=role.arn,
            build_timeout=BUILD_TIMEOUT_MINUTES,
            artifacts=aws.codebuild.ProjectArtifactsArgs(type="NO_ARTIFACTS"),
            # The location CI overrides with one commit's archive (start-build --source-location-override) and
            # pins by object version (--source-version): concurrent builds never share an object.
            source=aws.codebuild.ProjectSourceArgs(
                type="S3",
                location=pulumi.Output.concat(args.state_bucket, f"/{SOURCE_PREFIX}"),
                buildspec=BUILDSPEC,
            ),
            environment=aws.codebuild.ProjectEnvironmentArgs(
                compute_type="BUILD_GENERAL1_SMALL",
                image=IMAGE,
                type="LINUX_CONTAINER",
                environment_variables=[
                    aws.codebuild.ProjectEnvironmentEnvironmentVariableArgs(name=key, value=value)
                    for key, value in variables.items()
                ],
            ),
            vpc_config=aws.codebuild.ProjectVpcConfigArgs(
                vpc_id=args.vpc_id, subnets=list(args.subnet_ids), security_group_ids=[group.id]
            ),
            logs_config=aws.codebuild.ProjectLogsConfigArgs(
                cloudwatch_logs=aws.codebuild.ProjectLogsConfigCloudwatchLogsArgs(group_name=logs.name)
            ),
            encryption_key=args.state_key_arn,
            opts=child,
        )


def _trust(account: Account, projects: tuple[str, ...]) -> str:
    return codebuild_trust(account, projects)


def _deployer(values: list[Any], key_alias: str, project: str) -> str:
    return deployer_policy(values[0], str(values[1]), key_alias, project)


def codebuild_trust(account: Account, projects: Sequence[str]) -> str:
    """CodeBuild may assume the role only for ``projects`` of this account (confused-deputy guard)."""
    return service_trust(
        "codebuild.amazonaws.com",
        {
            "StringEquals": {"aws:SourceAccount": account.account_id},
            "ArnLike": {"aws:SourceArn": [account.arn("codebuild", f"project/{p}") for p in projects]},
        },
    )


def _build_statements(account: Account, bucket: str, projects: Sequence[str]) -> list[dict[str, Any]]:
    """What every build needs: its network interfaces, its logs, the source archives and the parameters the
    account's bootstrap publishes (bootstrap_facts). The archives are SSE-KMS objects: each role's own key statement
    (``kms:Decrypt``, no ``kms:ViaService`` condition) is what S3 decrypts them with, as the roles' secrets need."""
    s3 = f"arn:{account.partition}:s3:::{bucket}"
    return [
        {"Effect": "Allow", "Action": list(_VPC_ACTIONS), "Resource": "*"},
        {
            "Effect": "Allow",
            "Action": "ec2:CreateNetworkInterfacePermission",
            "Resource": account.arn("ec2", "network-interface/*"),
            "Condition": {"StringEquals": {"ec2:AuthorizedService": "codebuild.amazonaws.com"}},
        },
        {
            "Effect": "Allow",
            "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
            "Resource": [account.arn("logs", f"log-group:/aws/codebuild/{p}:*") for p in projects],
        },
        {"Effect": "Allow", "Action": ["s3:GetObject", "s3:GetObjectVersion"], "Resource": f"{s3}/{SOURCE_PREFIX}*"},
        {
            "Effect": "Allow",
            "Action": ["ssm:GetParameter", "ssm:GetParameters"],
            "Resource": account.arn("ssm", f"parameter{PREFIX}*"),
        },
    ]


def deployer_policy(account: Account, bucket: str, key_alias: str, project: str) -> str:
    """A deployer role's own permissions: a build of its project, and the stacks' state (read, write, lock) and
    secrets; what ``pulumi up`` creates comes from the deployer policies."""
    s3 = f"arn:{account.partition}:s3:::{bucket}"
    return document(
        *_build_statements(account, bucket, [project]),
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": s3},
        {
            "Effect": "Allow",
            "Action": ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"],
            "Resource": f"{s3}/{STATE_PREFIX}*",
        },
        # The awskms:// secrets provider calls KMS itself; S3 calls it with these rights for the SSE-KMS source
        # archives (Decrypt) and the state objects (GenerateDataKey to write, Decrypt to read).
        key_use_statement(account, key_alias, ("kms:Decrypt", "kms:Encrypt", "kms:GenerateDataKey")),
    )


def preview_policy(account: Account, bucket: str, key_alias: str, projects: Sequence[str]) -> str:
    """The preview role's permissions: builds of the preview projects, the state read (a self-managed backend's
    preview takes no lock and writes nothing: pulumi/pulumi ``pkg/backend/diy/backend.go`` ``Preview``), the
    stack's secrets decrypted, and the data sources a preview calls. Nothing that changes anything."""
    s3 = f"arn:{account.partition}:s3:::{bucket}"
    return document(
        *_build_statements(account, bucket, projects),
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": s3},
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"{s3}/{STATE_PREFIX}*"},
        # Decrypt only: the stack's secrets, and through S3 the source and the state it reads; no data key to write.
        key_use_statement(account, key_alias, ("kms:Decrypt",)),
        {"Effect": "Allow", "Action": list(_PREVIEW_READS), "Resource": "*"},
        {
            "Effect": "Allow",
            "Action": "ssm:GetParameter",
            "Resource": f"arn:{account.partition}:ssm:{account.region}::parameter/aws/service/*",
        },
    )
