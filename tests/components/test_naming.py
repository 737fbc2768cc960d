"""The naming rule: ``<base>-<stack>``, or a deterministic fitted name the cloud accepts."""

from __future__ import annotations

import re

import pytest

from gpu_cloud.components import naming
from gpu_cloud.components.naming import EKS_CLUSTER, IAM_ROLE, S3_BUCKET, fit
from gpu_cloud.planner.engine import record


def _name_in(stack: str, rule: naming.NameRule, base: str, *after: str) -> str:
    found: list[str] = []
    record(lambda: found.append(naming.physical_name(rule, base, *after)), stack=stack)
    return found[0]


def test_a_name_is_its_base_and_the_stack() -> None:
    assert _name_in("staging", EKS_CLUSTER, "team-gpu") == "team-gpu-staging"
    assert _name_in("dev", S3_BUCKET, "ckpt", "123456789012", "us-east-1") == "ckpt-dev-123456789012-us-east-1"


def test_two_stacks_never_share_a_name() -> None:
    assert _name_in("dev", IAM_ROLE, "gpu-admin") != _name_in("staging", IAM_ROLE, "gpu-admin")


def test_a_name_too_long_is_cut_and_hashed_to_the_limit_deterministically() -> None:
    long_stack = "s" * 80
    name = _name_in(long_stack, IAM_ROLE, "gpu-admin")
    assert len(name) == IAM_ROLE.max_length
    assert re.fullmatch(r"gpu-admin-s+-[0-9a-f]{8}", name)
    assert name == _name_in(long_stack, IAM_ROLE, "gpu-admin")
    assert name != _name_in("s" * 81, IAM_ROLE, "gpu-admin")
    assert IAM_ROLE.accepts(name)


@pytest.mark.parametrize(
    ("rule", "name"),
    [
        (S3_BUCKET, "ckpt-Prod.EU-123456789012-us-east-1"),  # upper case and a dot: not in a bucket name
        (EKS_CLUSTER, "gpu-team.a"),  # EKS takes letters, digits, - and _ only
        (IAM_ROLE, "gpu-admin-" + "x" * 60),
    ],
)
def test_a_name_the_cloud_would_refuse_becomes_one_it_accepts(rule: naming.NameRule, name: str) -> None:
    fitted = fit(rule, name)
    assert not rule.accepts(name)
    assert rule.accepts(fitted)
    assert fitted != fit(rule, name + "x")


def test_a_name_the_cloud_accepts_is_kept() -> None:
    assert fit(S3_BUCKET, "gpucloud-ckpt-prod-123456789012-us-east-1") == "gpucloud-ckpt-prod-123456789012-us-east-1"
