"""A team's own Pulumi program: its own components/ and policies/ folders, its own config namespace, and the
gpu-cloud components installed from the wheel."""

import pulumi
import pulumi_aws as aws
from components.naming import team_name
from policies import TEAM_TAGS

from gpu_cloud.components.aws import KmsKey, KmsKeyArgs, PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.spec import KmsKeySpec, load_stack_config

config = load_stack_config()
own = pulumi.Config()
tags = aws.ProviderDefaultTagsArgs(tags={**config.tags, **TEAM_TAGS})
opts = pulumi.ResourceOptions(provider=aws.Provider("aws", region=config.region, default_tags=tags))
key = KmsKey(team_name("kms"), KmsKeyArgs(spec=KmsKeySpec(), alias=team_name("gpu")), opts=opts)
PrivateNetwork(team_name("net"), PrivateNetworkArgs(spec=config.network, kms_key_arn=key.key_arn), opts=opts)
# A key of the team's own, without rotation: the policy pack must reject it.
aws.kms.Key(team_name("legacy"), enable_key_rotation=False, description=own.require("legacyKeyNote"), opts=opts)
pulumi.export("slackChannel", own.require("slackChannel"))
