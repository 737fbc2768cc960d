"""Bootstrap of a self-managed Pulumi backend: a state bucket and the secrets provider's KMS key. Glue only."""

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws import CheckpointBucket, CheckpointBucketArgs, KmsKey, KmsKeyArgs
from gpu_cloud.components.spec import REQUIRED_TAGS, CheckpointBucketSpec, ConfigError, KmsKeySpec, Problem

ALIAS = "gpucloud-pulumi-state"
"""The key's alias: the secrets provider is ``awskms://alias/gpucloud-pulumi-state?region=<region>``."""

config = pulumi.Config()
region = config.require("region")
tags: dict[str, str] = config.require_object("tags")
deployers: list[str] = config.get_object("deployerRoleArns") or []
missing = [t for t in REQUIRED_TAGS if t not in tags]
if missing:
    raise ConfigError(
        [Problem("gpu-cloud-bootstrap:tags", f"missing required tags {', '.join(missing)}", sorted(tags))]
    )

provider = aws.Provider("aws", region=region, default_tags=aws.ProviderDefaultTagsArgs(tags=tags))
opts = pulumi.ResourceOptions(provider=provider)
key = KmsKey(
    "state-key",
    KmsKeyArgs(
        spec=KmsKeySpec(),
        alias=ALIAS,
        user_role_arns=deployers,
        autoscaling_volumes=False,
        cloudwatch_logs=False,
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
pulumi.export("secretsProvider", f"awskms://{key.alias_name}?region={region}")
pulumi.export("kmsKeyArn", key.key_arn)
