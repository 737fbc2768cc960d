"""CheckpointBucket: versioned, SSE-KMS with a bucket key, private, owner-enforced, TLS 1.3 only, lifecycle."""

from __future__ import annotations

import pytest

from gpu_cloud.components.aws.storage import CheckpointBucket, CheckpointBucketArgs
from gpu_cloud.components.spec import CheckpointBucketSpec, ConfigError
from tests.aws.helpers import assert_policies_lint_clean, named, run, statements, type_counts

KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
NAME = "gpucloud-ckpt-test-123456789012-us-east-1"


def _bucket(protect: bool = True) -> None:
    args = CheckpointBucketArgs(
        spec=CheckpointBucketSpec(noncurrent_version_days=14),
        kms_key_arn=KEY_ARN,
        name_prefix="gpucloud-ckpt",
        protect=protect,
    )
    CheckpointBucket("ckpt", args)


def test_children() -> None:
    assert type_counts(run(_bucket)) == {
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
    }


def test_bucket_name_is_known_and_the_bucket_protected() -> None:
    bucket = named(run(_bucket), "ckpt-bucket")
    assert bucket.inputs["bucket"] == NAME
    assert (bucket.protect, bucket.retain_on_delete) == (True, True)


def test_protection_can_be_turned_off() -> None:
    bucket = named(run(lambda: _bucket(protect=False)), "ckpt-bucket")
    assert (bucket.protect, bucket.retain_on_delete) == (False, False)


def test_versioning_is_enabled() -> None:
    assert named(run(_bucket), "ckpt-versioning").inputs["versioningConfiguration"] == {"status": "Enabled"}


def test_sse_kms_with_bucket_key_depends_on_the_bucket() -> None:
    plan = run(_bucket)
    encryption = named(plan, "ckpt-encryption")
    assert encryption.inputs["rules"] == [
        {
            "applyServerSideEncryptionByDefault": {"kmsMasterKeyId": KEY_ARN, "sseAlgorithm": "aws:kms"},
            "bucketKeyEnabled": True,
        }
    ]
    assert encryption.property_dependencies["bucket"] == (named(plan, "ckpt-bucket").urn,)


def test_public_access_is_blocked_four_ways_and_acls_are_off() -> None:
    plan = run(_bucket)
    block = named(plan, "ckpt-public-access-block").inputs
    assert [
        block[k] for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    ] == [True] * 4
    assert named(plan, "ckpt-ownership").inputs["rule"] == {"objectOwnership": "BucketOwnerEnforced"}


def test_policy_denies_plain_http_and_tls_below_1_3() -> None:
    policy = statements(named(run(_bucket), "ckpt-policy").inputs["policy"])
    resources = [f"arn:aws:s3:::{NAME}", f"arn:aws:s3:::{NAME}/*"]
    assert [(s["Effect"], s["Resource"], s["Condition"]) for s in policy] == [
        ("Deny", resources, {"Bool": {"aws:SecureTransport": "false"}}),
        ("Deny", resources, {"NumericLessThan": {"s3:TlsVersion": "1.3"}}),
    ]


def test_noncurrent_versions_expire_after_the_spec_days() -> None:
    (rule,) = named(run(_bucket), "ckpt-lifecycle").inputs["rules"]
    assert rule["status"] == "Enabled"
    assert rule["noncurrentVersionExpiration"] == {"noncurrentDays": 14}
    assert rule["filter"] == {"prefix": ""}


def test_bucket_policy_lints_clean() -> None:
    assert assert_policies_lint_clean(run(_bucket)) == 1


def test_bad_name_prefix_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^namePrefix: not a bucket name start"):
        CheckpointBucket(
            "ckpt", CheckpointBucketArgs(spec=CheckpointBucketSpec(), kms_key_arn=KEY_ARN, name_prefix="Bad_Name")
        )
