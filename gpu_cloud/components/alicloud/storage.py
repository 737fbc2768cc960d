"""CheckpointBucket: a private, versioned, KMS-encrypted OSS bucket for training checkpoints."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import stateful_options
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

REDUNDANCY = "ZRS"
"""oss.Bucket ``redundancy_type`` (LRS or ZRS, "Defaults to LRS"; set at creation): zone-redundant storage keeps the
data in three zones of the region, so one zone's outage loses no checkpoint or state (OSS, "Zone-redundant storage",
https://www.alibabacloud.com/help/doc-detail/90589.htm, the page the docstring links; read 2026-12-03)."""

ABORT_MULTIPART_DAYS = 7
"""Parts of multipart uploads never completed (a job killed mid-checkpoint) are deleted after this many days
(oss.Bucket lifecycle rule ``abort_multipart_uploads.days``); they are billed like objects until then."""

IGNORED_BUCKET_FIELDS = ("serverSideEncryptionRule", "versioning")
"""The oss.Bucket fields the separate BucketServerSideEncryption and BucketVersioning own. The provider's Read copies
the bucket's encryption rule and versioning into the bucket's state, and its Update calls DeleteBucketEncryption
when the (unset) rule differs, so a refresh followed by an ``up`` would strip SSE-KMS
(aliyun/terraform-provider-alicloud@81c43b67 alicloud/resource_alicloud_oss_bucket.go, Read :631 and :641, Update
:1069-1074 and :1572-1584; the provider's docs: "you must add ignore_changes"; review alicloud.md F6)."""

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
    """An OSS bucket: private ACL, public access blocked, versioning, SSE-KMS, TLS 1.3 only, zone-redundant,
    non-current versions expire, abandoned multipart uploads are cleaned up.

    ACL, versioning, encryption, the public access block and the HTTPS settings are the provider's separate resources
    (the bucket's own ``acl`` and ``policy`` arguments are deprecated, oss.Bucket docstring); they are protected and
    retained like the bucket, so a retained bucket keeps its encryption, TLS and access settings.
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
                    abort_multipart_uploads=[
                        alicloud.oss.BucketLifecycleRuleAbortMultipartUploadArgs(days=ABORT_MULTIPART_DAYS)
                    ],
                )
            ],
            redundancy_type=REDUNDANCY,
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions.merge(
                stateful_options(self, guard), pulumi.ResourceOptions(ignore_changes=list(IGNORED_BUCKET_FIELDS))
            ),
        )
        kept = stateful_options(self, guard)
        alicloud.oss.BucketAcl(f"{name}-acl", bucket=bucket.bucket, acl=PRIVATE, opts=kept)
        alicloud.oss.BucketPublicAccessBlock(
            f"{name}-public-access-block", bucket=bucket.bucket, block_public_access=True, opts=kept
        )
        alicloud.oss.BucketVersioning(f"{name}-versioning", bucket=bucket.bucket, status=VERSIONING_ENABLED, opts=kept)
        alicloud.oss.BucketServerSideEncryption(
            f"{name}-encryption",
            bucket=bucket.bucket,
            sse_algorithm=SSE_KMS,
            kms_master_key_id=args.kms_key_id,
            opts=kept,
        )
        alicloud.oss.BucketHttpsConfig(
            f"{name}-https", bucket=bucket.bucket, enable=True, tls_versions=list(TLS_VERSIONS), opts=kept
        )
        self.bucket_name = bucket.bucket
        self.register_outputs({"bucketName": self.bucket_name})


def checkpoint_bucket_name(name_prefix: str, account_id: str) -> str:
    """The bucket's name: the prefix, the stack and the account id (known before deployment, globally unique;
    components.naming)."""
    return physical_name(OSS_BUCKET, name_prefix, account_id)
