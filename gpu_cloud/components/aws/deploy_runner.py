"""DeployRunner: the CodeBuild project, inside a private VPC, that runs ``pulumi up`` for the environments.

The EKS API endpoints are private, so the environments' Kubernetes layer is applied from inside a VPC that reaches
them: this runner's VPC, which every environment peers with and admits on 443 (``components.aws.environment``,
``docs/deploy.md``). CI outside the VPC only uploads the source and starts a build.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account, account_of, document, service_trust
from gpu_cloud.components.naming import CODEBUILD_PROJECT, physical_name

__all__ = ["BUILDSPEC", "DeployRunner", "DeployRunnerArgs"]

PROJECT_NAME = "gpucloud-deploy"
"""The base of the CodeBuild project's name, ``gpucloud-deploy-<stack>`` (components.naming), e.g.
``aws codebuild start-build --project-name gpucloud-deploy-shared``."""

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

BUILDSPEC = """\
version: 0.2
env:
  shell: bash
phases:
  install:
    commands:
      - curl -fsSL https://get.pulumi.com | sh
      - python3 -m pip install --user uv
      - make .venv/.installed
  build:
    commands:
      - |
        export PATH="$HOME/.pulumi/bin:$HOME/.local/bin:$PATH"
        read -r AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN < <(aws sts assume-role \\
          --role-arn "$DEPLOYER_ROLE_ARN" --role-session-name gpucloud-deploy \\
          --query 'Credentials.[AccessKeyId,SecretAccessKey,SessionToken]' --output text)
        export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
        pulumi login "$PULUMI_BACKEND_URL"
        pulumi ${PULUMI_COMMAND:-preview} --stack "$STACK" --policy-pack gpu_cloud/policies
"""
"""What a build runs: the Pulumi CLI, uv (Pulumi.yaml's toolchain) and the repository's virtualenv, then
``pulumi $PULUMI_COMMAND`` (default ``preview``; ``up --yes`` to deploy) of ``$STACK`` as ``$DEPLOYER_ROLE_ARN``, with
the policy pack. The source is the repository archive CI uploads (docs/deploy.md)."""


@dataclass(frozen=True)
class DeployRunnerArgs:
    """Arguments of a DeployRunner."""

    vpc_id: pulumi.Input[str]
    """The runner VPC (egress through NAT: the build installs the Pulumi CLI and packages)."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """Its private subnets."""
    source_bucket: pulumi.Input[str]
    """The bucket CI uploads the repository archive to (``deploy/source.zip``)."""
    deployer_role_arns: Sequence[str]
    """The roles a build may assume to run ``pulumi up``."""
    backend_url: pulumi.Input[str]
    """The Pulumi backend (``s3://<state bucket>``)."""
    kms_key_arn: pulumi.Input[str]
    """Encrypts the build logs."""
    log_retention_days: int = 90


class DeployRunner(pulumi.ComponentResource):
    """A CodeBuild project in private subnets with no public IP, a security group with egress on 443 only, its
    service role and its log group.

    Children: ``<name>-sg``, ``<name>-role``, ``<name>-policy``, ``<name>-logs``, ``<name>-project``.
    """

    security_group_id: pulumi.Output[str]
    """The runner's security group."""
    role_arn: pulumi.Output[str]
    """The CodeBuild service role (deployer roles must trust it)."""
    project_name: pulumi.Output[str]
    """The CodeBuild project's name."""

    def __init__(self, name: str, args: DeployRunnerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:aws:DeployRunner", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        project_name = physical_name(CODEBUILD_PROJECT, PROJECT_NAME)
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
        logs = aws.cloudwatch.LogGroup(
            f"{name}-logs",
            name=f"/aws/codebuild/{project_name}",
            retention_in_days=args.log_retention_days,
            kms_key_id=args.kms_key_arn,
            opts=child,
        )
        role = aws.iam.Role(
            f"{name}-role",
            description="gpu-cloud deploy runner (CodeBuild)",
            assume_role_policy=service_trust("codebuild.amazonaws.com"),
            opts=child,
        )
        account = account_of(self)
        aws.iam.RolePolicy(
            f"{name}-policy",
            role=role.id,
            policy=pulumi.Output.all(account, args.source_bucket).apply(
                lambda v: _policy(v[0], project_name, str(v[1]), args.deployer_role_arns)
            ),
            opts=child,
        )
        project = aws.codebuild.Project(
            f"{name}-project",
            name=project_name,
            description="Runs pulumi up for a gpu-cloud environment from inside the runner VPC",
            service_role=role.arn,
            artifacts=aws.codebuild.ProjectArtifactsArgs(type="NO_ARTIFACTS"),
            source=aws.codebuild.ProjectSourceArgs(
                type="S3",
                location=pulumi.Output.concat(args.source_bucket, "/deploy/source.zip"),
                buildspec=BUILDSPEC,
            ),
            environment=aws.codebuild.ProjectEnvironmentArgs(
                compute_type="BUILD_GENERAL1_SMALL",
                image="aws/codebuild/amazonlinux-x86_64-standard:5.0",
                type="LINUX_CONTAINER",
                environment_variables=[
                    aws.codebuild.ProjectEnvironmentEnvironmentVariableArgs(
                        name="PULUMI_BACKEND_URL", value=args.backend_url
                    ),
                ],
            ),
            vpc_config=aws.codebuild.ProjectVpcConfigArgs(
                vpc_id=args.vpc_id, subnets=list(args.subnet_ids), security_group_ids=[group.id]
            ),
            logs_config=aws.codebuild.ProjectLogsConfigArgs(
                cloudwatch_logs=aws.codebuild.ProjectLogsConfigCloudwatchLogsArgs(group_name=logs.name)
            ),
            encryption_key=args.kms_key_arn,
            opts=child,
        )
        self.security_group_id = group.id
        self.role_arn = role.arn
        self.project_name = project.name
        self.register_outputs(
            {"securityGroupId": self.security_group_id, "roleArn": self.role_arn, "projectName": self.project_name}
        )


def _policy(account: Account, project_name: str, bucket: str, deployer_role_arns: Sequence[str]) -> str:
    """The runner role's permissions: its network interfaces, its logs, the source archive, the deployer roles."""
    log_group = account.arn("logs", f"log-group:/aws/codebuild/{project_name}:*")
    statements: list[dict[str, Any]] = [
        {"Effect": "Allow", "Action": list(_VPC_ACTIONS), "Resource": "*"},
        {
            "Effect": "Allow",
            "Action": "ec2:CreateNetworkInterfacePermission",
            "Resource": account.arn("ec2", "network-interface/*"),
            "Condition": {"StringEquals": {"ec2:AuthorizedService": "codebuild.amazonaws.com"}},
        },
        {"Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": log_group},
        {
            "Effect": "Allow",
            "Action": ["s3:GetObject", "s3:GetObjectVersion"],
            "Resource": f"arn:{account.partition}:s3:::{bucket}/deploy/*",
        },
    ]
    if deployer_role_arns:
        statements.append({"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": list(deployer_role_arns)})
    return document(*statements)
