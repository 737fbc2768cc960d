"""KmsKey: a rotating symmetric key with an explicit policy and an alias, protected unless turned off."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import pytest

from gpu_cloud.components.aws.kms import KmsKey, KmsKeyArgs
from gpu_cloud.components.spec import ConfigError, KmsKeySpec
from tests.aws.helpers import assert_policies_lint_clean, named, run, statements, type_counts

ADMIN = "arn:aws:iam::123456789012:role/ml-platform-admin"


def _key(**kwargs: object) -> None:
    args = {"spec": KmsKeySpec(), "alias": "gpucloud", **kwargs}
    KmsKey("key", KmsKeyArgs(**args))  # type: ignore[arg-type]


def test_children_are_one_key_and_one_alias() -> None:
    plan = run(_key)
    assert type_counts(plan) == {"aws:kms/key:Key": 1, "aws:kms/alias:Alias": 1}
    assert named(plan, "key").type == "gpucloud:aws:KmsKey"
    assert named(plan, "key-key").parent == named(plan, "key").urn
    assert named(plan, "key-alias").inputs["name"] == "alias/gpucloud-test"


def test_key_is_symmetric_and_rotates_every_90_days() -> None:
    inputs = named(run(_key), "key-key").inputs
    assert inputs["customerMasterKeySpec"] == "SYMMETRIC_DEFAULT"
    assert inputs["keyUsage"] == "ENCRYPT_DECRYPT"
    assert inputs["enableKeyRotation"] is True
    assert inputs["rotationPeriodInDays"] == 90
    assert inputs["deletionWindowInDays"] == 30


def test_key_is_protected_and_retained_by_default() -> None:
    key = named(run(_key), "key-key")
    assert key.protect is True
    assert key.retain_on_delete is True


def test_protect_false_turns_protection_and_retention_off() -> None:
    key = named(run(lambda: _key(protect=False)), "key-key")
    assert key.protect is False
    assert key.retain_on_delete is False


def test_key_policy_lets_the_account_administer_and_named_roles_use() -> None:
    policy = statements(named(run(lambda: _key(user_role_arns=[ADMIN])), "key-key").inputs["policy"])
    by_sid = {s["Sid"]: s for s in policy}
    assert by_sid["AccountAdministers"]["Principal"] == {"AWS": "arn:aws:iam::123456789012:root"}
    autoscaling = (
        "arn:aws:iam::123456789012:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
    )
    assert by_sid["NamedRolesUse"]["Principal"] == {"AWS": [ADMIN, autoscaling]}
    assert "kms:ScheduleKeyDeletion" not in by_sid["NamedRolesUse"]["Action"]
    assert by_sid["NamedRolesGrantToAwsResources"]["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}


def test_key_policy_admits_cloudwatch_logs_only_for_this_accounts_log_groups() -> None:
    policy = statements(named(run(_key), "key-key").inputs["policy"])
    logs = next(s for s in policy if s["Sid"] == "CloudWatchLogsOfThisAccount")
    assert logs["Principal"] == {"Service": "logs.us-east-1.amazonaws.com"}
    assert logs["Condition"] == {
        "StringLike": {"kms:EncryptionContext:aws:logs:arn": "arn:aws:logs:us-east-1:123456789012:log-group:*"}
    }


def test_key_policy_without_users_or_services_only_has_the_account() -> None:
    plan = run(lambda: _key(autoscaling_volumes=False, cloudwatch_logs=False))
    assert [s["Sid"] for s in statements(named(plan, "key-key").inputs["policy"])] == ["AccountAdministers"]


def test_key_policy_lints_clean() -> None:
    assert assert_policies_lint_clean(run(lambda: _key(user_role_arns=[ADMIN]))) == 1


def test_rotation_beyond_aws_bounds_is_rejected_before_anything_registers() -> None:
    registered: list[str] = []

    def program() -> None:
        try:
            _key(spec=KmsKeySpec(rotation_days=30))
        except ConfigError as err:
            registered.append(str(err))

    plan = run(program)
    assert registered == ["rotationDays: aws rotates keys every 90..2560 days (got 30)"]
    assert [r.type for r in plan.resources] == ["pulumi:pulumi:Stack"]


def test_bad_alias_and_role_arn_are_all_reported() -> None:
    with pytest.raises(ConfigError) as err:
        KmsKey("key", KmsKeyArgs(spec=KmsKeySpec(), alias="aws/ebs", user_role_arns=["ml-admin"]))
    assert str(err.value) == (
        "alias: not a KMS alias name (letters, digits, /_-; not aws/) (got aws/ebs)\n"
        "userRoleArns.0: not an IAM role ARN (got ml-admin)"
    )


def test_user_roles_may_be_another_resources_outputs() -> None:
    def program() -> None:
        role = aws.iam.Role("reader", name="reader", assume_role_policy="{}")
        _key(user_role_arns=[role.name.apply(lambda name: f"arn:aws:iam::123456789012:role/{name}"), ADMIN])

    policy = statements(named(run(program), "key-key").inputs["policy"])
    users = next(s for s in policy if s["Sid"] == "NamedRolesUse")["Principal"]["AWS"]
    assert users[:2] == ["arn:aws:iam::123456789012:role/reader", ADMIN]


def test_a_user_role_output_that_is_no_role_arn_fails_when_it_resolves_naming_the_field() -> None:
    with pytest.raises(
        Exception, match=r"userRoleArns\.0: not an IAM role ARN \(got arn:aws:iam::123456789012:user/x\)"
    ):
        run(lambda: _key(user_role_arns=[pulumi.Output.from_input("arn:aws:iam::123456789012:user/x")]))


def test_an_alias_from_another_resource_is_refused_naming_why() -> None:
    with pytest.raises(ConfigError, match=r"^alias: a name is plain text known when the program runs"):
        run(lambda: _key(alias=pulumi.Output.from_input("gpucloud")))
