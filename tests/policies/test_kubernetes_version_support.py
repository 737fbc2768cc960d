"""kubernetes-version-support: advisory near and after end of standard support, mandatory past extended support."""

from __future__ import annotations

import pytest

from gpu_cloud.policies.gpucloud_rules import kubernetes_version_support as policy
from gpu_cloud.policies.gpucloud_rules.rule import Finding, StackResource, effective_config, run_stack_rule
from tests.policies.conftest import pack_script

EKS = "aws:eks/cluster:Cluster"
ACK = "alicloud:cs/managedKubernetes:ManagedKubernetes"


def _cluster(type_: str, version: object) -> StackResource:
    props = {} if version is None else {"version": version}
    return StackResource(f"urn:pulumi:dev::gpu-cloud::{type_}::gpu", type_, props, False, {})


def _check(resource: StackResource, as_of: str) -> list[Finding]:
    return run_stack_rule(policy.RULE, [resource], effective_config(policy.RULE, {"asOf": as_of}), "dev")


ACK_135 = "Kubernetes 1.35.7-aliyun.1"
EKS_NEAR = ("Kubernetes 1.35 leaves standard support on aws on 2027-03-27: plan the upgrade", True)
EKS_EXTENDED = ("Kubernetes 1.35 is in extended support on aws until 2028-03-27: upgrade", True)
EKS_PAST = ("Kubernetes 1.35 is past its end of extended support on aws (2028-03-27): upgrade", False)
EKS_131_PAST = ("Kubernetes 1.31 is past its end of extended support on aws (2026-11-26): upgrade", False)
ACK_NEAR = (f"{ACK_135} leaves standard support on alicloud on 2027-02-28: plan the upgrade", True)
ACK_PAST = (f"{ACK_135} is past its end of support on alicloud (2027-02-28): upgrade", False)
ACK_133_PAST = ("Kubernetes 1.33.3-aliyun.1 is past its end of support on alicloud (2026-05-31): upgrade", False)
EKS_129_PAST = ("Kubernetes 1.29 is past its end of extended support on aws (2026-03-23): upgrade", False)
EKS_121_PAST = ("Kubernetes 1.21 is past its end of support on aws (2023-02-16): upgrade", False)
EKS_OLDER = (
    "Kubernetes 1.9 is older than every version in the aws support calendar (oldest: 1.18, unsupported since "
    "2022-08-15): upgrade",
    False,
)
ACK_NEVER = (
    "Kubernetes 1.29.1-aliyun.1 was never a version of alicloud (its support calendar goes from 1.28 to 1.30): upgrade",
    False,
)
EKS_NEWER = (
    "Kubernetes 1.37 is newer than every version in the aws support calendar (newest: 1.36): update the calendar",
    True,
)
UNKNOWN = ("could not decide: version is unknown during preview", False)
NUMBER = (
    "could not decide: version is a number (1.3), not a string: a number loses its trailing zeros (1.30 arrives as "
    '1.3), so the version meant cannot be read; quote it ("1.30")',
    False,
)
V_PREFIX = (
    "could not decide: version is not a Kubernetes version as EKS and ACK read it ('v1.35'): give <major>.<minor> "
    "(EKS, e.g. 1.35) or an ACK release (e.g. 1.35.7-aliyun.1), without a v prefix",
    False,
)


@pytest.mark.parametrize(
    ("type_", "version", "as_of", "expected"),
    [
        # EKS 1.35: standard support until 2027-03-27, extended until 2028-03-27.
        (EKS, "1.35", "2027-01-25", []),
        (EKS, "1.35", "2027-01-26", [EKS_NEAR]),
        (EKS, "1.35", "2027-03-27", [EKS_NEAR]),
        (EKS, "1.35", "2027-03-28", [EKS_EXTENDED]),
        (EKS, "1.35", "2028-03-27", [EKS_EXTENDED]),
        (EKS, "1.35", "2028-03-28", [EKS_PAST]),
        # EKS 1.31 left extended support on 2026-11-26.
        (EKS, "1.31", "2026-12-02", [EKS_131_PAST]),
        # ACK has no extended support: past end of life is mandatory at once; the patch release names the minor.
        (ACK, "1.35.7-aliyun.1", "2026-12-02", []),
        (ACK, "1.35.7-aliyun.1", "2027-02-28", [ACK_NEAR]),
        (ACK, "1.35.7-aliyun.1", "2027-03-01", [ACK_PAST]),
        (ACK, "1.33.3-aliyun.1", "2026-12-02", [ACK_133_PAST]),
        # Unset: the cloud picks its current default.
        (EKS, None, "2026-12-02", []),
        (EKS, "", "2026-12-02", []),
        # Past extended support, and older than the calendar: mandatory, never "not in the calendar".
        (EKS, "1.29", "2026-12-03", [EKS_129_PAST]),
        (EKS, "1.21", "2026-12-03", [EKS_121_PAST]),
        (EKS, "1.9", "2026-12-03", [EKS_OLDER]),
        (ACK, "1.29.1-aliyun.1", "2026-12-03", [ACK_NEVER]),
        (EKS, "1.37", "2026-12-03", [EKS_NEWER]),
        # As the cloud reads it, or could not decide: a number lost its trailing zero; a v prefix is no version.
        (EKS, 1.3, "2026-12-03", [NUMBER]),
        (ACK, "v1.35", "2026-12-03", [V_PREFIX]),
        (EKS, "04da6b54-80e4-46f7-96ec-b56ff0331ba9", "2026-12-02", [UNKNOWN]),
    ],
)
def test_findings(type_: str, version: object, as_of: str, expected: list[tuple[str, bool]]) -> None:
    findings = _check(_cluster(type_, version), as_of)
    assert [(f.message, f.advisory) for f in findings] == expected
    assert {f.urn for f in findings} <= {_cluster(type_, version).urn}


def test_as_of_defaults_to_today() -> None:
    assert effective_config(policy.RULE, None) == {"asOf": "", "exemptions": []}
    from datetime import date

    assert policy.as_of_date({"asOf": ""}) == date.today()
    assert policy.as_of_date({"asOf": "2027-01-01"}) == date(2027, 1, 1)


def test_the_packs_calendar_is_the_catalogs() -> None:
    generator = pack_script("generate_kubernetes_support")
    committed = generator.OUTPUT.read_text(encoding="utf-8")
    assert committed == generator.render(), "run: python gpu_cloud/policies/scripts/generate_kubernetes_support.py"
