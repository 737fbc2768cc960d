"""The bootstrap of an AWS account (run once, first): a state bucket and the secrets provider's KMS key for a
self-managed Pulumi backend, the Auto Scaling service-linked role the environments' key policies name, and the deploy
runner (a CodeBuild project in a private VPC) that runs `pulumi up` for the environments."""

import pulumi
import pulumi_aws as aws
from settings import BootstrapConfig

from gpu_cloud.components.aws import (
    CheckpointBucket,
    CheckpointBucketArgs,
    DeployRunner,
    DeployRunnerArgs,
    KmsKey,
    KmsKeyArgs,
    PrivateNetwork,
    PrivateNetworkArgs,
)
from gpu_cloud.components.spec import CheckpointBucketSpec, KmsKeySpec

ALIAS = "gpucloud-pulumi-state"
"""The key's alias: the secrets provider is ``awskms://alias/gpucloud-pulumi-state?region=<region>``."""


def build(config: BootstrapConfig) -> None:
    """Declare the AWS account's bootstrap resources and export what the environments read."""
    pulumi.export("region", config.region)
    provider = aws.Provider("aws", region=config.region, default_tags=aws.ProviderDefaultTagsArgs(tags=config.tags))
    opts = pulumi.ResourceOptions(provider=provider)
    key = KmsKey(
        "state-key",
        KmsKeyArgs(
            spec=KmsKeySpec(),
            alias=ALIAS,
            user_role_arns=config.deployer_role_arns,
            autoscaling_volumes=False,
        ),
        opts=opts,
    )
    # Old state versions stay recoverable for 90 days after they are replaced.
    bucket = CheckpointBucket(
        "state",
        CheckpointBucketArgs(
            spec=CheckpointBucketSpec(noncurrent_version_days=90), kms_key_arn=key.key_arn, name_prefix="gpucloud-state"
        ),
        opts=opts,
    )

    pulumi.export("stateBucket", bucket.bucket_name)
    pulumi.export("backendUrl", pulumi.Output.concat("s3://", bucket.bucket_name))
    pulumi.export("secretsProvider", f"awskms://{key.alias_name}?region={config.region}")
    pulumi.export("kmsKeyArn", key.key_arn)

    # The environments' KMS key policies name the Auto Scaling service-linked role, which AWS creates only with the
    # first Auto Scaling group of an account: KMS rejects a key policy whose principal does not exist (CreateKey
    # MalformedPolicyDocumentException), so the account's bootstrap creates it. Where it already exists, import it once:
    #   pulumi import aws:iam/serviceLinkedRole:ServiceLinkedRole autoscaling-service-role \
    #     arn:aws:iam::<account>:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling
    autoscaling_role = aws.iam.ServiceLinkedRole(
        "autoscaling-service-role",
        aws_service_name="autoscaling.amazonaws.com",
        opts=pulumi.ResourceOptions(provider=provider, retain_on_delete=True),
    )

    # The deploy runner: its own private VPC (NAT egress for the Pulumi CLI and packages), peered with each
    # environment.
    runner_network = PrivateNetwork(
        "runner-network", PrivateNetworkArgs(spec=config.runner_network, kms_key_arn=key.key_arn), opts=opts
    )
    runner = DeployRunner(
        "runner",
        DeployRunnerArgs(
            vpc_id=runner_network.vpc_id,
            subnet_ids=runner_network.private_subnet_ids,
            source_bucket=bucket.bucket_name,
            deployer_role_arns=config.deployer_role_arns,
            backend_url=pulumi.Output.concat("s3://", bucket.bucket_name),
            kms_key_arn=key.key_arn,
        ),
        opts=opts,
    )
    pulumi.export("autoscalingServiceRoleArn", autoscaling_role.arn)
    pulumi.export("runnerVpcId", runner_network.vpc_id)
    pulumi.export("runnerRouteTableIds", runner_network.private_route_table_ids)
    pulumi.export("runnerSecurityGroupId", runner.security_group_id)
    pulumi.export("runnerRoleArn", runner.role_arn)
    pulumi.export("runnerProject", runner.project_name)
