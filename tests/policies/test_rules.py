"""The pure rule functions, and which policies the running pack serves."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import gpu_cloud.planner.policy
from gpu_cloud.planner.policy import run_policy_pack
from gpu_cloud.policies.gpucloud_rules import (
    gpu_node_isolation,
    kms_key_rotation,
    no_public_ip,
    protect_stateful,
    rbac_least_privilege,
    required_tags,
    tls_1_3,
)
from gpu_cloud.policies.gpucloud_rules.rule import Finding, StackResource, effective_config, run_stack_rule
from tests.policies.wire import stack_resource

# The policies of POLICY_RULES.md (names fixed: CI configs and exemptions refer to them) and the pack's own
# gpu-cost-guard, kubernetes-version-support and GPU-aware rules, with their default levels (policies/README.md).
CONTRACT_POLICIES = {
    "no-public-ip": "mandatory",
    "kms-key-rotation": "mandatory",
    "encryption-at-rest": "mandatory",
    "tls-1-3": "mandatory",
    "rbac-least-privilege": "mandatory",
    "gpu-node-isolation": "mandatory",
    "protect-stateful": "mandatory",
    "required-tags": "advisory",
    "gpu-cost-guard": "advisory",
    "kubernetes-version-support": "mandatory",
    "gpu-allocator-exclusive": "mandatory",
    "gpu-sharing-isolation": "advisory",
    "gpu-inference-fallback": "mandatory",
    "gpu-reservation-drain": "mandatory",
}


def test_running_pack_serves_exactly_the_contract_policies(pack_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ask the started pack (GetAnalyzerInfo, as the CLI does) which policies it has, at which levels."""
    served: dict[str, str] = {}
    reconcile = gpu_cloud.planner.policy._reconcile_config

    def recording(info: Any, given: Mapping[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
        reconciled = reconcile(info, given)
        served.update({policy.name: reconciled[policy.name][0] for policy in info.policies})
        return reconciled

    monkeypatch.setattr(gpu_cloud.planner.policy, "_reconcile_config", recording)
    run_policy_pack(pack_dir, [stack_resource("dev")], project="gpu-cloud", stack="dev")
    assert served == CONTRACT_POLICIES


@pytest.mark.parametrize(
    ("rule", "defaults"),
    [
        (kms_key_rotation.RULE, {"maxRotationDays": 90, "exemptions": []}),
        (protect_stateful.RULE, {"protectedStacks": ["prod", "prod-cn"], "exemptions": []}),
        (required_tags.RULE, {"requiredTags": ["environment", "owner", "cost-center"], "exemptions": []}),
        (
            tls_1_3.RULE,
            {
                "allowedSslPolicies": [
                    "ELBSecurityPolicy-TLS13-1-3-2021-06",
                    "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04",
                ],
                "exemptions": [],
            },
        ),
        (no_public_ip.RULE, {"exemptions": []}),
    ],
)
def test_config_defaults(rule: object, defaults: dict[str, object]) -> None:
    assert effective_config(rule, None) == defaults  # type: ignore[arg-type]


def test_given_config_overrides_defaults() -> None:
    assert effective_config(kms_key_rotation.RULE, {"maxRotationDays": 30})["maxRotationDays"] == 30


@pytest.mark.parametrize(
    ("instance_type", "gpu"),
    [
        ("p4d.24xlarge", True),
        ("p4de.24xlarge", True),
        ("p5en.48xlarge", True),
        ("p6-b200.48xlarge", True),
        ("g4dn.xlarge", True),
        ("g5g.2xlarge", True),
        ("gr6.4xlarge", True),
        ("g7e.12xlarge", True),
        ("p6e-gb200.36xlarge", True),
        ("p2.xlarge", True),  # previous generation, NVIDIA K80
        ("P5.48XLARGE", True),
        ("g4ad.xlarge", False),  # AMD GPU
        ("m5.large", False),
        ("inf2.xlarge", False),  # AWS Inferentia, no GPU
    ],
)
def test_aws_gpu_families(instance_type: str, gpu: bool) -> None:
    assert gpu_node_isolation.is_aws_gpu_instance_type(instance_type) is gpu


def test_kms_rotation_threshold_comes_from_config() -> None:
    props = {"enableKeyRotation": True, "rotationPeriodInDays": 180.0}
    assert kms_key_rotation.check("aws:kms/key:Key", props, {"maxRotationDays": 365}, {}) == []
    assert kms_key_rotation.check("aws:kms/key:Key", props, {"maxRotationDays": 90}, {}) == [
        "rotationPeriodInDays is 180 days, more than 90"
    ]


def test_iam_statement_with_not_action_is_not_a_wildcard_grant() -> None:
    document = {"Statement": [{"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}]}
    assert rbac_least_privilege.grants_admin(document, "policy") == []


def key(name: str, protect: bool) -> StackResource:
    return StackResource(urn=name, type="aws:kms/key:Key", props={}, protect=protect, property_dependencies={})


def test_protect_stateful_is_advisory_outside_protected_stacks() -> None:
    config = {"protectedStacks": ["prod"]}
    assert run_stack_rule(protect_stateful.RULE, [key("k", False)], config, "dev") == [
        Finding("k", "stateful resource is not protected: set protect", advisory=True)
    ]
    assert run_stack_rule(protect_stateful.RULE, [key("k", False)], config, "prod")[0].advisory is False


def test_protect_stateful_treats_an_unnamed_stack_as_protected() -> None:
    assert run_stack_rule(protect_stateful.RULE, [key("k", False)], {"protectedStacks": []}, "")[0].advisory is False


def test_required_tags_counts_provider_default_tags() -> None:
    config = {"requiredTags": ["owner", "environment"]}
    provider = {"defaultTags": {"tags": {"environment": "dev"}}}
    assert required_tags.check("aws:ebs/volume:Volume", {"tags": {"owner": "o"}}, config, provider) == []
    assert required_tags.check("aws:ebs/volume:Volume", {}, config, provider) == ["missing required tags: owner"]
