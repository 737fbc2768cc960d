"""CheckpointBucket: a private, versioned, KMS-encrypted OSS bucket for training checkpoints."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import child_options, stateful_options
from gpu_cloud.components.spec import CheckpointBucketSpec, ConfigError, Problem

__all__ = ["CheckpointBucket", "CheckpointBucketArgs"]

PRIVATE = "private"
"""oss.BucketAcl ``acl``: no anonymous access."""

VERSIONING_ENABLED = "Enabled"
"""oss.BucketVersioning ``status``."""

SSE_KMS = "KMS"
"""oss.BucketServerSideEncryption ``sse_algorithm``: SSE-KMS with the environment's key."""

TLS_VERSIONS = ("TLSv1.3",)
"""oss.BucketHttpsConfig ``tls_versions``: requests over older TLS are refused (OSS PutBucketHttpsConfig, TLS
version management of a bucket)."""


# OSS bucket naming: 3 to 63 characters, lowercase letters, digits and hyphens, starting and ending with a letter or a
# digit (Alibaba Cloud OSS documentation, "Bucket naming conventions").
_BUCKET_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$")


@dataclass
class CheckpointBucketArgs:
    """Inputs of a CheckpointBucket."""

    spec: CheckpointBucketSpec
    """Retention of non-current checkpoint versions."""
    bucket_name: str
    """The bucket's globally unique name (3-63 lower-case letters, digits and hyphens)."""
    kms_key_id: pulumi.Input[str]
    """The KMS key (in the bucket's region) that encrypts objects."""
    protect: bool = True
    """Protect and retain the bucket (StackConfig.protect_stateful); only dev turns it off."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the bucket."""


class CheckpointBucket(pulumi.ComponentResource):
    """An OSS bucket: private ACL, public access blocked, versioning, SSE-KMS, TLS 1.3 only, non-current versions
    expire.

    ACL, versioning, encryption and the public access block are the provider's separate resources; the
    bucket's own ``acl``/``versioning`` arguments are deprecated since provider 1.220.0 (oss.Bucket).
    """

    bucket_name: pulumi.Output[str]
    """The bucket's name."""

    def __init__(self, name: str, args: CheckpointBucketArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        if not _BUCKET_NAME.match(args.bucket_name):
            rule = "not an OSS bucket name (3-63 of a-z, 0-9, -; no - at either end)"
            raise ConfigError([Problem("bucketName", rule, args.bucket_name)])
        super().__init__("gpucloud:alicloud:CheckpointBucket", name, None, opts)
        bucket = alicloud.oss.Bucket(
            f"{name}-bucket",
            bucket=args.bucket_name,
            lifecycle_rules=[
                alicloud.oss.BucketLifecycleRuleArgs(
                    id="expire-noncurrent-checkpoints",
                    enabled=True,
                    prefix="",
                    noncurrent_version_expirations=[
                        alicloud.oss.BucketLifecycleRuleNoncurrentVersionExpirationArgs(
                            days=args.spec.noncurrent_version_days
                        )
                    ],
                )
            ],
            tags=dict(args.tags),
            opts=stateful_options(self, args.protect),
        )
        alicloud.oss.BucketAcl(f"{name}-acl", bucket=bucket.bucket, acl=PRIVATE, opts=child_options(self))
        alicloud.oss.BucketPublicAccessBlock(
            f"{name}-public-access-block", bucket=bucket.bucket, block_public_access=True, opts=child_options(self)
        )
        alicloud.oss.BucketVersioning(
            f"{name}-versioning", bucket=bucket.bucket, status=VERSIONING_ENABLED, opts=child_options(self)
        )
        alicloud.oss.BucketServerSideEncryption(
            f"{name}-encryption",
            bucket=bucket.bucket,
            sse_algorithm=SSE_KMS,
            kms_master_key_id=args.kms_key_id,
            opts=child_options(self),
        )
        alicloud.oss.BucketHttpsConfig(
            f"{name}-https",
            bucket=bucket.bucket,
            enable=True,
            tls_versions=list(TLS_VERSIONS),
            opts=child_options(self),
        )
        self.bucket_name = bucket.bucket
        self.register_outputs({"bucketName": self.bucket_name})
