"""KmsKey: automatic rotation every rotation_days (in seconds), deletion protection, protected and retained."""

from __future__ import annotations

from gpu_cloud.components.alicloud import KmsKey, KmsKeyArgs
from gpu_cloud.components.alicloud.kms import key_use_statement, rotation_interval
from gpu_cloud.components.spec import KmsKeySpec
from tests.alicloud.support import component, custom, one, plan_of, registered, rejected

KEY = "alicloud:kms/key:Key"


def test_rotation_interval_is_written_in_seconds() -> None:
    assert rotation_interval(90) == "7776000s"
    assert rotation_interval(7) == "604800s"


def test_key_rotates_every_90_days_with_a_30_day_window_and_deletion_protection() -> None:
    plan = plan_of(lambda: KmsKey("env", KmsKeyArgs(spec=KmsKeySpec(), tags={"owner": "ml"})))
    component(plan, "gpucloud:alicloud:KmsKey")
    assert sorted((r.type, r.name) for r in custom(plan)) == [
        ("alicloud:kms/alias:Alias", "env-alias"),
        (KEY, "env-key"),
    ]
    key = one(plan, KEY).inputs
    assert {
        k: key[k] for k in ("automaticRotation", "rotationInterval", "pendingWindowInDays", "deletionProtection")
    } == {
        "automaticRotation": "Enabled",
        "rotationInterval": "7776000s",
        "pendingWindowInDays": 30,
        "deletionProtection": "Enabled",
    }
    assert (key["keySpec"], key["keyUsage"]) == ("Aliyun_AES_256", "ENCRYPT/DECRYPT")
    # The tag RAM policies name the key by (kms:tag condition), before its id exists.
    assert key["tags"] == {"owner": "ml", "gpucloud-key": "alias/env-test"}
    assert "dkmsInstanceId" not in key


def test_a_use_statement_names_only_the_key_tagged_with_its_alias() -> None:
    assert key_use_statement(["kms:Decrypt"], "cn-hangzhou", "123", "alias/env-test") == {
        "Action": ["kms:Decrypt"],
        "Effect": "Allow",
        "Resource": ["acs:kms:cn-hangzhou:123:key/*"],
        "Condition": {"StringEquals": {"kms:tag/gpucloud-key": "alias/env-test"}},
    }


def test_the_alias_names_the_key() -> None:
    plan = plan_of(lambda: KmsKey("env", KmsKeyArgs(spec=KmsKeySpec())))
    alias = one(plan, "alicloud:kms/alias:Alias")
    assert alias.inputs["aliasName"] == "alias/env-test"
    assert alias.property_dependencies["keyId"] == (one(plan, KEY).urn,)


def test_a_dedicated_kms_instance_holds_the_key_when_the_spec_names_one() -> None:
    spec = KmsKeySpec(alicloud_kms_instance_id="kst-hzz0123456789")
    plan = plan_of(lambda: KmsKey("env", KmsKeyArgs(spec=spec)))
    assert one(plan, KEY).inputs["dkmsInstanceId"] == "kst-hzz0123456789"


def test_the_key_is_protected_and_retained_by_default() -> None:
    key = one(plan_of(lambda: KmsKey("env", KmsKeyArgs(spec=KmsKeySpec()))), KEY)
    assert (key.protect, key.retain_on_delete) == (True, True)


def test_protect_off_leaves_the_key_deletable() -> None:
    key = one(plan_of(lambda: KmsKey("env", KmsKeyArgs(spec=KmsKeySpec(), protect=False))), KEY)
    assert (key.protect, key.retain_on_delete, key.inputs["deletionProtection"]) == (False, False, "Disabled")


def test_a_rotation_beyond_90_days_is_rejected_before_anything_is_registered() -> None:
    error, plan = rejected(lambda: KmsKey("env", KmsKeyArgs(spec=KmsKeySpec(rotation_days=180))))
    assert str(error) == "rotationDays: Alibaba Cloud keys rotate every 7..90 days (got 180)"
    assert registered(plan) == []
