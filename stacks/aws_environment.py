"""An environment on AWS: the AWS components composed from the stack's config."""

import pulumi
import pulumi_aws as aws

from components.spec import StackConfig


def build(config: StackConfig) -> None:
    """Declare the environment's AWS resources and export its outputs."""
    provider = aws.Provider("aws", region=config.region, default_tags=aws.ProviderDefaultTagsArgs(tags=config.tags))
    del provider
    pulumi.export("environment", config.environment)
    pulumi.export("region", config.region)
