"""CheckpointBucket: a private, versioned, KMS-encrypted OSS bucket for training checkpoints."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import child_options, stateful_options
from gpu_cloud.components.naming import OSS_BUCKET, physical_name
from gpu_cloud.components.protection import protection
from gpu_cloud.components.spec import CheckpointBucketSpec, ConfigError, Problem

__all__ = ["CheckpointBucket", "CheckpointBucketArgs", "checkpoint_bucket_name"]

PRIVATE = "private"
"""oss.BucketAcl ``acl``: no anonymous access."""

VERSIONING_ENABLED = "Enabled"
"""oss.BucketVersioning ``status``."""

SSE_KMS = "KMS"
"""oss.BucketServerSideEncryption ``sse_algorithm``: SSE-KMS with the environment's key."""

TLS_VERSIONS = ("TLSv1.3",)
"""oss.BucketHttpsConfig ``tls_versions``: requests over older TLS are refused (OSS PutBucketHttpsConfig, TLS
version management of a bucket)."""


# The start of an OSS bucket name (components.naming.OSS_BUCKET): lower-case letters, digits and hyphens, starting with
# a letter or digit; a whole name too long for OSS is fitted (components.naming.fit).
_NAME_PREFIX = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_ACCOUNT_ID = re.compile(r"^[0-9]+$")


@dataclass
class CheckpointBucketArgs:
    """Inputs of a CheckpointBucket."""

    spec: CheckpointBucketSpec
    """Retention of non-current checkpoint versions."""
    name_prefix: str
    """Start of the bucket name ``<namePrefix>-<stack>-<account id>`` (components.naming), globally unique and known
    before deployment (the RAM policies name it: :func:`checkpoint_bucket_name`)."""
    account_id: str
    """The Alibaba Cloud account id (``alicloud.get_caller_identity``)."""
    kms_key_id: pulumi.Input[str]
    """The KMS key (in the bucket's region) that encrypts objects."""
    protect: bool = True
    """Protect and retain the bucket (StackConfig.protect_stateful); only dev turns it off. The caller's
    ``protect``/``retain_on_delete`` options win (components.protection)."""
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
        problems = []
        if not _NAME_PREFIX.match(args.name_prefix):
            rule = "not an OSS bucket name start (a-z, 0-9, -)"
            problems.append(Problem("namePrefix", rule, args.name_prefix))
        if not _ACCOUNT_ID.match(args.account_id):
            problems.append(Problem("accountId", "not an Alibaba Cloud account id (digits)", args.account_id))
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:alicloud:CheckpointBucket", name, None, opts)
        guard = protection(self, opts, args.protect)
        bucket = alicloud.oss.Bucket(
            f"{name}-bucket",
            bucket=checkpoint_bucket_name(args.name_prefix, args.account_id),
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
            opts=stateful_options(self, guard),
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


def checkpoint_bucket_name(name_prefix: str, account_id: str) -> str:
    """The bucket's name: the prefix, the stack and the account id (known before deployment, globally unique;
    components.naming)."""
    return physical_name(OSS_BUCKET, name_prefix, account_id)
