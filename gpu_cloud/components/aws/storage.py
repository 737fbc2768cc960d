"""CheckpointBucket: a private, versioned, KMS-encrypted S3 bucket for training checkpoints, TLS 1.3 only."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account, account_of, document
from gpu_cloud.components.naming import S3_BUCKET, physical_name
from gpu_cloud.components.protection import protection
from gpu_cloud.components.spec import CheckpointBucketSpec, ConfigError, Problem

__all__ = ["CheckpointBucket", "CheckpointBucketArgs", "checkpoint_bucket_name"]

MIN_TLS_VERSION = "1.3"
"""Requests over older TLS are denied (S3 User Guide, bucket policy condition key s3:TlsVersion)."""

_NAME_PREFIX = re.compile(r"^[a-z0-9][a-z0-9-]*$")
"""The start of a bucket name (components.naming.S3_BUCKET); a whole name too long for S3 is fitted."""


@dataclass(frozen=True)
class CheckpointBucketArgs:
    """Arguments of a CheckpointBucket."""

    spec: CheckpointBucketSpec
    """Lifecycle of non-current checkpoint versions."""
    kms_key_arn: pulumi.Input[str]
    """The KMS key for SSE-KMS."""
    name_prefix: str | None = None
    """Start of the bucket name ``<namePrefix>-<stack>-<account id>-<region>`` (components.naming), globally unique
    and known before deployment (the bucket policy and the workload identities name it); defaults to the component's
    name."""
    protect: bool = True
    """Protect the bucket and retain it when removed from the program; the caller's ``protect``/``retain_on_delete``
    options win (components.protection)."""


class CheckpointBucket(pulumi.ComponentResource):
    """Children: ``<name>-bucket``, ``<name>-versioning``, ``<name>-encryption``, ``<name>-public-access-block``,
    ``<name>-ownership``, ``<name>-policy``, ``<name>-lifecycle``."""

    bucket_name: pulumi.Output[str]
    """The bucket's name."""
    bucket_arn: pulumi.Output[str]
    """The bucket's ARN."""

    def __init__(self, name: str, args: CheckpointBucketArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        if args.name_prefix is not None and not _NAME_PREFIX.match(args.name_prefix):
            raise ConfigError([Problem("namePrefix", "not a bucket name start (a-z, 0-9, -)", args.name_prefix)])
        prefix = args.name_prefix or name
        super().__init__("gpucloud:aws:CheckpointBucket", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        account = account_of(self)
        guard = protection(self, opts, args.protect)
        bucket_name = account.apply(lambda a: checkpoint_bucket_name(a, prefix))
        bucket = aws.s3.Bucket(
            f"{name}-bucket",
            bucket=bucket_name,
            opts=pulumi.ResourceOptions(parent=self, protect=guard.protect, retain_on_delete=guard.retain_stateful),
        )
        versioning = aws.s3.BucketVersioning(
            f"{name}-versioning",
            bucket=bucket.id,
            versioning_configuration=aws.s3.BucketVersioningVersioningConfigurationArgs(status="Enabled"),
            opts=child,
        )
        aws.s3.BucketServerSideEncryptionConfiguration(
            f"{name}-encryption",
            bucket=bucket.id,
            rules=[
                aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
                    apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                        sse_algorithm="aws:kms", kms_master_key_id=args.kms_key_arn
                    ),
                    # S3 Bucket Keys cut KMS requests (and cost) for checkpoint-sized write bursts.
                    bucket_key_enabled=True,
                )
            ],
            opts=child,
        )
        block = aws.s3.BucketPublicAccessBlock(
            f"{name}-public-access-block",
            bucket=bucket.id,
            block_public_acls=True,
            block_public_policy=True,
            ignore_public_acls=True,
            restrict_public_buckets=True,
            opts=child,
        )
        aws.s3.BucketOwnershipControls(
            f"{name}-ownership",
            bucket=bucket.id,
            rule=aws.s3.BucketOwnershipControlsRuleArgs(object_ownership="BucketOwnerEnforced"),
            opts=child,
        )
        aws.s3.BucketPolicy(
            f"{name}-policy",
            bucket=bucket.id,
            policy=pulumi.Output.all(account, bucket_name).apply(lambda v: bucket_policy(v[0], v[1])),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[block]),
        )
        aws.s3.BucketLifecycleConfiguration(
            f"{name}-lifecycle",
            bucket=bucket.id,
            rules=[
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="expire-noncurrent-checkpoints",
                    status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                    noncurrent_version_expiration=aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                        noncurrent_days=args.spec.noncurrent_version_days
                    ),
                    abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                        days_after_initiation=7
                    ),
                )
            ],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[versioning]),
        )
        self.bucket_name = bucket.bucket
        self.bucket_arn = bucket.arn
        self.register_outputs({"bucketName": self.bucket_name, "bucketArn": self.bucket_arn})


def checkpoint_bucket_name(account: Account, name_prefix: str) -> str:
    """The bucket's name: the prefix, the stack, the account and the region (known before deployment, globally
    unique; components.naming)."""
    return physical_name(S3_BUCKET, name_prefix, account.account_id, account.region)


def bucket_policy(account: Account, bucket_name: str) -> str:
    """Deny every request without TLS or over TLS older than 1.3 (S3 User Guide, "Enforcing encryption in
    transit": aws:SecureTransport and s3:TlsVersion)."""
    bucket = account.arn("s3", bucket_name, region=False, account=False)
    resources = [bucket, f"{bucket}/*"]
    return document(
        {
            "Sid": "DenyWithoutTls",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "s3:*",
            "Resource": resources,
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        },
        {
            "Sid": "DenyTlsOlderThan13",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "s3:*",
            "Resource": resources,
            "Condition": {"NumericLessThan": {"s3:TlsVersion": MIN_TLS_VERSION}},
        },
    )
