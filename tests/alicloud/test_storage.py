"""CheckpointBucket: private, public access blocked, versioned, SSE-KMS with the key, protected."""

from __future__ import annotations

from gpu_cloud.components.alicloud import CheckpointBucket, CheckpointBucketArgs
from gpu_cloud.components.spec import CheckpointBucketSpec
from tests.alicloud.support import component, custom, one, plan_of, registered, rejected

BUCKET = "alicloud:oss/bucket:Bucket"


def _plan(protect: bool = True):  # type: ignore[no-untyped-def]
    args = CheckpointBucketArgs(
        spec=CheckpointBucketSpec(noncurrent_version_days=14),
        name_prefix="gpucloud-ckpt",
        account_id="1234567890",
        kms_key_id="key-123",
        protect=protect,
    )
    return plan_of(lambda: CheckpointBucket("ckpt", args))


def test_children_are_the_bucket_and_its_acl_access_block_versioning_encryption_and_tls() -> None:
    plan = _plan()
    component(plan, "gpucloud:alicloud:CheckpointBucket")
    assert sorted((r.type, r.name) for r in custom(plan)) == sorted(
        [
            (BUCKET, "ckpt-bucket"),
            ("alicloud:oss/bucketAcl:BucketAcl", "ckpt-acl"),
            ("alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock", "ckpt-public-access-block"),
            ("alicloud:oss/bucketVersioning:BucketVersioning", "ckpt-versioning"),
            ("alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption", "ckpt-encryption"),
            ("alicloud:oss/bucketHttpsConfig:BucketHttpsConfig", "ckpt-https"),
        ]
    )
    bucket = one(plan, BUCKET).urn
    assert all(r.property_dependencies["bucket"] == (bucket,) for r in custom(plan)[1:])


def test_acl_is_private_and_public_access_is_blocked() -> None:
    plan = _plan()
    assert one(plan, "alicloud:oss/bucketAcl:BucketAcl").inputs["acl"] == "private"
    assert one(plan, "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock").inputs["blockPublicAccess"] is True


def test_versioning_is_enabled_and_noncurrent_versions_expire() -> None:
    plan = _plan()
    assert one(plan, "alicloud:oss/bucketVersioning:BucketVersioning").inputs["status"] == "Enabled"
    (rule,) = one(plan, BUCKET).inputs["lifecycleRules"]
    assert rule["enabled"] is True
    assert rule["noncurrentVersionExpirations"] == [{"days": 14}]


def test_the_bucket_accepts_tls_1_3_only() -> None:
    https = one(_plan(), "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig").inputs
    assert (https["enable"], https["tlsVersions"]) == (True, ["TLSv1.3"])


def test_objects_are_encrypted_with_the_kms_key() -> None:
    sse = one(_plan(), "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption").inputs
    assert (sse["sseAlgorithm"], sse["kmsMasterKeyId"]) == ("KMS", "key-123")


def test_the_bucket_and_its_settings_are_protected_and_retained_unless_protect_is_off() -> None:
    # A retained bucket keeps its encryption, TLS, versioning and access settings (review alicloud.md F11).
    assert {(r.name, r.protect, r.retain_on_delete) for r in custom(_plan())} == {
        (r.name, True, True) for r in custom(_plan())
    }
    assert {(r.protect, r.retain_on_delete) for r in custom(_plan(False))} == {(False, False)}


def test_a_refresh_cannot_make_the_bucket_strip_its_encryption_or_versioning() -> None:
    # The provider reads SSE and versioning into the bucket and deletes the encryption when the bucket's own
    # (unset) rule differs; the separate resources own them (review alicloud.md F6).
    assert one(_plan(), BUCKET).ignore_changes == ("serverSideEncryptionRule", "versioning")


def test_the_bucket_is_zone_redundant_and_abandoned_multipart_uploads_are_deleted() -> None:
    inputs = one(_plan(), BUCKET).inputs
    assert inputs["redundancyType"] == "ZRS"
    (rule,) = inputs["lifecycleRules"]
    assert rule["abortMultipartUploads"] == [{"days": 7}]


def test_the_bucket_name_is_the_prefix_the_stack_and_the_account() -> None:
    assert one(_plan(), BUCKET).inputs["bucket"] == "gpucloud-ckpt-test-1234567890"


def test_a_bad_bucket_name_prefix_or_account_is_refused_before_anything_registers() -> None:
    args = CheckpointBucketArgs(spec=CheckpointBucketSpec(), name_prefix="Bad_Name", account_id="12ab", kms_key_id="k")
    error, plan = rejected(lambda: CheckpointBucket("ckpt", args))
    assert str(error).splitlines() == [
        "namePrefix: not an OSS bucket name start (a-z, 0-9, -) (got Bad_Name)",
        "accountId: not an Alibaba Cloud account id (digits) (got 12ab)",
    ]
    assert registered(plan) == []
