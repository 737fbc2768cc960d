"""Policy config: the CLI's file format, thresholds, enforcement overrides and exemptions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.policy import PolicyReport, load_policy_config, run_policy_pack
from tests.policies.fixtures import compliant
from tests.policies.wire import resource, stack_resource

STACK = "staging"


def resources() -> list[Any]:
    key = compliant("aws:kms/key:Key")
    return [
        stack_resource(STACK),
        resource(STACK, "aws:kms/key:Key", "key-60", {**key, "rotationPeriodInDays": 60}, protect=True),
        resource(STACK, "aws:kms/key:Key", "key-90", key, protect=True),
        resource(
            STACK,
            "aws:ec2/subnet:Subnet",
            "public-a",
            compliant("aws:ec2/subnet:Subnet", mapPublicIpOnLaunch=True),
        ),
        resource(
            STACK,
            "aws:ec2/subnet:Subnet",
            "public-b",
            compliant("aws:ec2/subnet:Subnet", mapPublicIpOnLaunch=True),
        ),
        resource(STACK, "aws:ebs/volume:Volume", "untagged", {"encrypted": True}),
        resource(STACK, "aws:ec2/eipAssociation:EipAssociation", "assoc", {"allocationId": "a"}),
    ]


def run(pack_dir: Path, config: dict[str, Any]) -> PolicyReport:
    return run_policy_pack(pack_dir, resources(), project="gpu-cloud", stack=STACK, config=config)


def found(report: PolicyReport) -> set[tuple[str, str, str]]:
    return {(v.policy, v.name, v.level) for v in report.violations}


@pytest.fixture(scope="module")
def configured(pack_dir: Path) -> PolicyReport:
    config_file = Path(__file__).with_name("policy-config.example.json")
    return run(pack_dir, load_policy_config(config_file))


def test_defaults_without_config(pack_dir: Path) -> None:
    assert found(run(pack_dir, {})) == {
        ("no-public-ip", "public-a", "mandatory"),
        ("no-public-ip", "public-b", "mandatory"),
        ("no-public-ip", "assoc", "mandatory"),
        ("required-tags", "untagged", "advisory"),
    }


def test_configured_run(configured: PolicyReport) -> None:
    assert found(configured) == {
        ("kms-key-rotation", "key-90", "mandatory"),  # maxRotationDays 60
        ("no-public-ip", "public-a", "advisory"),  # exempted
        ("no-public-ip", "public-b", "mandatory"),
        ("no-public-ip", "assoc", "advisory"),  # exempted
        ("required-tags", "untagged", "mandatory"),  # enforcement override
    }


def test_exemption_note_carries_the_reason(configured: PolicyReport) -> None:
    [note] = [v for v in configured.violations if v.name == "public-a"]
    assert "exempted (bastion subnet, ticket OPS-1): subnet has mapPublicIpOnLaunch true" in note.message


def test_disabled_policy_reports_nothing(pack_dir: Path) -> None:
    report = run(pack_dir, {"no-public-ip": {"enforcementLevel": "disabled"}, "required-tags": "disabled"})
    assert found(report) == set()


def test_all_sets_every_level(pack_dir: Path) -> None:
    assert {level for _, _, level in found(run(pack_dir, {"all": {"enforcementLevel": "advisory"}}))} == {"advisory"}


def test_config_is_validated_against_the_policy_schema(pack_dir: Path) -> None:
    config = {
        "kms-key-rotation": {"maxRotationDays": "ninety"},
        "required-tags": {"exemptions": [{"urn": "x"}]},
    }
    with pytest.raises(PlanError) as error:
        run(pack_dir, config)
    assert "kms-key-rotation: maxRotationDays: 'ninety' is not of type 'number'" in str(error.value)
    assert "required-tags: exemptions[0]: 'reason' is a required property" in str(error.value)


# load_policy_config: the file format of `pulumi preview --policy-pack-config`.


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy-config.json"
    path.write_text(text, encoding="utf-8")
    return path


def test_level_strings_become_objects(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps({"required-tags": "mandatory", "tls-1-3": {"allowedSslPolicies": ["p"]}}))
    assert load_policy_config(path) == {
        "required-tags": {"enforcementLevel": "mandatory"},
        "tls-1-3": {"allowedSslPolicies": ["p"]},
    }


def test_empty_file_is_no_config(tmp_path: Path) -> None:
    assert load_policy_config(write(tmp_path, "  \n")) == {}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", ":1:2: not valid JSON: Expecting property name"),
        ("[]", "must be a JSON object of policy names (got a list)"),
        (
            '{"no-public-ip": 3}',
            "no-public-ip: must be an enforcement level or an object of config (got a int)",
        ),
        (
            '{"no-public-ip": "strict"}',
            'no-public-ip.enforcementLevel: must be one of advisory, mandatory, remediate, disabled (got "strict")',
        ),
        ('{"no-public-ip": {"enforcementLevel": 1}}', "no-public-ip.enforcementLevel: must be one of"),
    ],
)
def test_bad_config_names_file_and_problem(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(PlanError) as error:
        load_policy_config(path)
    assert str(path) in str(error.value) and problem in str(error.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match=r"absent\.json: cannot read: No such file"):
        load_policy_config(tmp_path / "absent.json")


def test_remediate_level_reports_as_mandatory(pack_dir: Path) -> None:
    report = run(pack_dir, {"required-tags": "remediate"})
    assert ("required-tags", "untagged", "mandatory") in found(report)
