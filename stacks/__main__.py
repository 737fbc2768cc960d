"""The gpu-cloud program: one environment per stack, composed from its validated config. Glue only."""

import pulumi
import pulumi_aws as aws

from components.spec import Cloud, load_stack_config

config = load_stack_config()

if config.cloud is Cloud.AWS:
    provider = aws.Provider(
        "aws",
        region=config.region,
        default_tags=aws.ProviderDefaultTagsArgs(tags=config.tags),
    )

pulumi.export("environment", config.environment)
pulumi.export("region", config.region)
