"""Shared helpers of the AWS component tests: record a program, select resources, lint policy documents."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from parliament import analyze_policy_string

from gpu_cloud.planner.canned import ACCOUNT_ID
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.planner.model import RecordedResource

REGION = "us-east-1"
CONFIG = {"aws:region": REGION}


def run(program: Callable[[], None]) -> Plan:
    """Record ``program`` as a preview in us-east-1."""
    return record(program, config=CONFIG)


def custom(plan: Plan) -> list[RecordedResource]:
    """The provider resources of ``plan`` (no stack, no components)."""
    return [r for r in plan.resources if r.custom]


def of_type(plan: Plan, type_: str) -> list[RecordedResource]:
    """Every resource of ``type_``, in registration order."""
    return [r for r in plan.resources if r.type == type_]


def named(plan: Plan, name: str) -> RecordedResource:
    """The one resource called ``name``."""
    found = [r for r in plan.resources if r.name == name]
    assert len(found) == 1, f"{len(found)} resources named {name}"
    return found[0]


def type_counts(plan: Plan) -> dict[str, int]:
    """How many custom resources of each type ``plan`` holds."""
    counts: dict[str, int] = {}
    for r in custom(plan):
        counts[r.type] = counts.get(r.type, 0) + 1
    return counts


# Parliament lints identity policies. A trust policy's resource is the role and a resource policy's "*" is
# the resource it is attached to (IAM User Guide, "Policies and permissions": resource-based policies), so
# those are linted with that resource made explicit instead of "*".
_IMPLICIT_RESOURCE: dict[str, str | list[str]] = {
    "trust": f"arn:aws:iam::{ACCOUNT_ID}:role/example",
    "kms": [
        f"arn:aws:kms:{REGION}:{ACCOUNT_ID}:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        # Alias operations need the alias too; the key policy grants the key half of them.
        f"arn:aws:kms:{REGION}:{ACCOUNT_ID}:alias/*",
    ],
}


def lint(policy: str, kind: str = "identity") -> list[tuple[str, Any]]:
    """Parliament's findings on ``policy`` (JSON); ``kind`` is identity, trust, kms or bucket."""
    document = json.loads(policy)
    statements = document["Statement"]
    if kind != "identity":
        for statement in statements:
            assert "Principal" in statement, "a trust or resource policy statement names its principal"
            del statement["Principal"]
            if kind in _IMPLICIT_RESOURCE:
                assert statement.get("Resource", "*") == "*"
                statement["Resource"] = _IMPLICIT_RESOURCE[kind]
    findings = analyze_policy_string(json.dumps(document)).findings
    return [(f.issue, f.detail) for f in findings if not _parliament_limitation(f.issue, str(f.detail))]


def _parliament_limitation(issue: str, detail: str) -> bool:
    """Findings that come from gaps in parliament, not from the document; each is excused narrowly.

    - kms:ResourceAliases: parliament checks condition keys per action only; the Service Authorization
      Reference lists this key on the KMS ``key`` resource type (KMS Developer Guide, "kms:ResourceAliases").
    - s3:TlsVersion: parliament's Numeric pattern is ``^\\d+$``, but TLS versions are decimals ("1.3", as in the
      S3 User Guide's s3:TlsVersion examples); and under ``s3:*`` in a Deny, the actions without the key
      (InitiateReplication, PutAccessPointPublicAccessBlock) are simply not covered by that statement, while
      the aws:SecureTransport statement still covers them.
    """
    if issue == "UNKNOWN_CONDITION_FOR_ACTION":
        return detail.startswith(("Unknown condition kms:ResourceAliases ", "Unknown condition s3:TlsVersion "))
    return (
        issue == "MISMATCHED_TYPE"
        and detail == "Type mismatch: s3:TlsVersion requires a value of type Numeric but given ['1.3']"
    )


def assert_policies_lint_clean(plan: Plan) -> int:
    """Lint every IAM policy, trust policy, key policy and bucket policy in ``plan``; returns how many."""
    checked = 0
    for r in plan.resources:
        for key, kind in (("assumeRolePolicy", "trust"), ("policy", _policy_kind(r.type))):
            text = r.inputs.get(key)
            if kind is None or text is None:
                continue
            assert isinstance(text, str) and text.startswith("{"), f"{r.name}.{key} is not a readable document: {text}"
            assert lint(text, kind) == [], f"{r.name}.{key}"
            checked += 1
    return checked


def _policy_kind(type_: str) -> str | None:
    return {
        "aws:iam/rolePolicy:RolePolicy": "identity",
        "aws:iam/policy:Policy": "identity",
        "aws:kms/key:Key": "kms",
        "aws:s3/bucketPolicy:BucketPolicy": "bucket",
    }.get(type_)


def statements(policy: str) -> list[dict[str, Any]]:
    """The statements of a policy document."""
    result: list[dict[str, Any]] = json.loads(policy)["Statement"]
    return result
