"""The bootstrap of an AWS account (run once, first): a state bucket and the secrets provider's KMS key for a
self-managed Pulumi backend, the Auto Scaling service-linked role the environments' key policies name, the deploy
runner (CodeBuild projects in a private VPC) that runs ``pulumi preview|up`` for the environments, and the facts the
environments read, published as Systems Manager parameters (gpu_cloud.components.bootstrap_facts): the bootstrap's
own state stays in a local backend, where no environment's StackReference could reach it (pulumi/pulumi#3395)."""

import pulumi
import pulumi_aws as aws
from settings import BootstrapConfig

from gpu_cloud.components import bootstrap_facts
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
"""The key's alias: the secrets provider is ``awskms://alias/gpucloud-pulumi-state-<stack>?region=<region>``."""


def build(config: BootstrapConfig) -> None:
    """Declare the AWS account's bootstrap resources, publish what the environments read, export the rest."""
    pulumi.export("region", config.region)
    provider = aws.Provider("aws", region=config.region, default_tags=aws.ProviderDefaultTagsArgs(tags=config.tags))
    opts = pulumi.ResourceOptions(provider=provider)
    # The deployer roles and the preview role reach the key through IAM (its AccountAdministers statement makes IAM
    # policies effective): they are created in this program, after the key.
    key = KmsKey("state-key", KmsKeyArgs(spec=KmsKeySpec(), alias=ALIAS, autoscaling_volumes=False), opts=opts)
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
        "runner-network",
        PrivateNetworkArgs(spec=config.runner_network, kms_key_arn=key.key_arn, interface_endpoints=False),
        opts=opts,
    )
    runner = DeployRunner(
        "runner",
        DeployRunnerArgs(
            vpc_id=runner_network.vpc_id,
            subnet_ids=runner_network.private_subnet_ids,
            state_bucket=bucket.bucket_name,
            state_key_alias=key.alias_name,
            state_key_arn=key.key_arn,
            environments=config.environments,
            deployer_policy_arns=config.deployer_policy_arns,
            # The deployer roles, the only cluster administrators the pack's rbac-least-privilege accepts.
            policy_config="stacks/policy-config.json",
        ),
        opts=opts,
    )
    facts: dict[str, pulumi.Input[str]] = {
        bootstrap_facts.RUNNER_VPC_ID: runner_network.vpc_id,
        bootstrap_facts.RUNNER_VPC_CIDR: str(config.runner_network.vpc_cidr),
        bootstrap_facts.RUNNER_ROUTE_TABLE_IDS: pulumi.Output.all(*runner_network.private_route_table_ids).apply(
            ",".join
        ),
        **{bootstrap_facts.deployer_role_arn(env): arn for env, arn in runner.deployer_role_arns.items()},
    }
    for name, value in facts.items():
        aws.ssm.Parameter(
            f"fact-{name.removeprefix(bootstrap_facts.PREFIX).replace('/', '-')}",
            name=name,
            type="StringList" if name == bootstrap_facts.RUNNER_ROUTE_TABLE_IDS else "String",
            # Not secret: insecure_value keeps it readable in previews (the provider marks `value` secret).
            insecure_value=value,
            description="gpu-cloud bootstrap fact (gpu_cloud.components.bootstrap_facts)",
            # Published once the environments' prerequisites exist: their key policies name the Auto Scaling role.
            opts=pulumi.ResourceOptions(provider=provider, depends_on=[autoscaling_role]),
        )
    pulumi.export("runnerVpcId", runner_network.vpc_id)
    pulumi.export("deployerRoleArns", runner.deployer_role_arns)
    pulumi.export("previewRoleArn", runner.preview_role_arn)
    pulumi.export("deployProjects", runner.deploy_projects)
    pulumi.export("previewProjects", runner.preview_projects)
