"""An environment on AWS: the AWS components composed from the stack's config."""

import pulumi
import pulumi_aws as aws

from components.aws import KmsKey, KmsKeyArgs, PrivateNetwork, PrivateNetworkArgs
from components.spec import StackConfig


def build(config: StackConfig) -> None:
    """Declare the environment's AWS resources and export its outputs."""
    provider = aws.Provider("aws", region=config.region, default_tags=aws.ProviderDefaultTagsArgs(tags=config.tags))
    opts = pulumi.ResourceOptions(provider=provider)
    env = config.environment
    key = KmsKey(
        f"{env}-kms",
        KmsKeyArgs(spec=config.kms, alias=f"gpucloud-{env}", protect=config.protect_stateful),
        opts=opts,
    )
    network = PrivateNetwork(
        f"{env}-network", PrivateNetworkArgs(spec=config.network, kms_key_arn=key.key_arn), opts=opts
    )

    pulumi.export("environment", env)
    pulumi.export("region", config.region)
    pulumi.export("kmsKeyArn", key.key_arn)
    pulumi.export("vpcId", network.vpc_id)
    pulumi.export("privateSubnetIds", network.private_subnet_ids)
    pulumi.export("privateRouteTableIds", network.private_route_table_ids)
