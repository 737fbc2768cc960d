"""The naming rule: ``<base>-<stack>``, or what ``pulumi:autonaming`` asks for, or a deterministic fitted name the
cloud accepts."""

from __future__ import annotations

import re

import pytest

from gpu_cloud.components import naming
from gpu_cloud.components.naming import EKS_CLUSTER, IAM_ROLE, S3_BUCKET, fit
from gpu_cloud.components.spec import ConfigError
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


def _autonamed(setting: str, rule: naming.NameRule, base: str, *after: str, project: str = "gpu-cloud") -> str:
    """The name ``physical_name`` gives in stack dev of ``project`` whose ``pulumi:autonaming`` is ``setting`` (the
    JSON the engine passes for the YAML mapping)."""
    found: list[str] = []
    config = {naming.AUTONAMING_KEY: setting, f"{project}:team": "ml"}
    record(lambda: found.append(naming.physical_name(rule, base, *after)), project=project, stack="dev", config=config)
    return found[0]


def test_without_autonaming_or_with_its_default_or_disabled_mode_the_name_is_base_and_stack() -> None:
    assert _name_in("dev", EKS_CLUSTER, "gpu") == "gpu-dev"
    for mode in ("default", "disabled"):
        assert _autonamed(f'{{"mode": "{mode}"}}', EKS_CLUSTER, "gpu") == "gpu-dev"


def test_verbatim_autonaming_keeps_the_base() -> None:
    assert _autonamed('{"mode": "verbatim"}', EKS_CLUSTER, "gpu") == "gpu"
    assert _autonamed('{"mode": "verbatim"}', S3_BUCKET, "ckpt", "123456789012", "us-east-1") == (
        "ckpt-123456789012-us-east-1"
    )


def test_a_pattern_expands_the_engines_expressions_with_the_base_as_the_name() -> None:
    pattern = '{"pattern": "${organization}-${project}-${stack}-${config.team}-${name}"}'
    assert _autonamed(pattern, EKS_CLUSTER, "gpu") == "organization-gpu-cloud-dev-ml-gpu"
    assert _autonamed('{"pattern": "${project}-${name}"}', S3_BUCKET, "ckpt", "123456789012", "us-east-1") == (
        "gpu-cloud-ckpt-123456789012-us-east-1"
    )


def test_random_parts_of_a_pattern_are_the_same_at_every_run_and_differ_between_projects() -> None:
    pattern = '{"pattern": "${name}-${hex(6)}-${num(3)}-${uuid}"}'
    name = _autonamed(pattern, IAM_ROLE, "gpu-admin")
    assert re.fullmatch(r"gpu-admin-[0-9a-f]{6}-[0-9]{3}-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", name)
    assert name == _autonamed(pattern, IAM_ROLE, "gpu-admin")
    assert name != _autonamed(pattern, IAM_ROLE, "gpu-admin", project="other")


def test_the_most_specific_setting_applies_resource_type_then_provider_then_root() -> None:
    setting = """{"mode": "verbatim", "providers": {"aws": {"pattern": "aws-${name}",
        "resources": {"aws:iam/role:Role": {"pattern": "role-${name}-${stack}"}}}}}"""
    assert _autonamed(setting, IAM_ROLE, "gpu-admin") == "role-gpu-admin-dev"
    assert _autonamed(setting, EKS_CLUSTER, "gpu") == "aws-gpu"
    assert _autonamed(setting, naming.ACK_CLUSTER, "gpu") == "gpu"


def test_an_enforced_pattern_the_cloud_refuses_is_an_error_not_a_fitted_name() -> None:
    setting = '{"pattern": "${name}.${stack}", "enforce": true}'
    with pytest.raises(
        ConfigError, match=r"^pulumi:autonaming: enforces '\$\{name\}\.\$\{stack\}'.* \(got gpu\.dev\)$"
    ):
        _autonamed(setting, EKS_CLUSTER, "gpu")
    assert _autonamed('{"pattern": "${name}.${stack}"}', EKS_CLUSTER, "gpu") == fit(EKS_CLUSTER, "gpu.dev")


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ('{"mode": "random"}', "pulumi:autonaming.mode: one of default, verbatim, disabled (got random)"),
        ('{"mode": "verbatim", "pattern": "${name}"}', "pulumi:autonaming.mode: cannot be given with pattern"),
        ('{"providers": {"aws": {"patern": "x"}}}', "pulumi:autonaming.providers.aws.patern: not an autonaming"),
        ('{"pattern": "${config.missing}"}', "pulumi:autonaming: names the config key gpu-cloud:missing"),
    ],
)
def test_a_malformed_setting_is_a_config_error_naming_the_key(setting: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        _autonamed(setting, EKS_CLUSTER, "gpu")
    assert str(raised.value).startswith(problem)
