"""Shared specs and plan helpers of the Alibaba Cloud component tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_cloud.components.spec import ConfigError, GpuNodePoolSpec, NetworkSpec, SpotGroupSpec, parse_stack_config
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.planner.model import RecordedResource

NETWORK = NetworkSpec.model_validate(
    {
        "vpcCidr": "10.30.0.0/16",
        "privateSubnets": [
            {"zone": "cn-hangzhou-h", "cidr": "10.30.0.0/18"},
            {"zone": "cn-hangzhou-i", "cidr": "10.30.64.0/18"},
        ],
    }
)

INFERENCE_POOL = GpuNodePoolSpec.model_validate(
    {
        "name": "inference",
        "purpose": "inference",
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"],
        "minSize": 1,
        "desiredSize": 2,
        "maxSize": 6,
        "diskSizeGib": 300,
    }
)

SPOT_GROUP = SpotGroupSpec.model_validate(
    {
        "name": "batch",
        "purpose": "inference",
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"],
        "maxSize": 8,
    }
)

VSWITCHES = {"cn-hangzhou-h": ["vsw-h"], "cn-hangzhou-i": ["vsw-i"]}
"""Vswitch ids per zone, as PrivateNetwork.vswitch_ids_by_zone gives them."""


def plan_of(program: Callable[[], Any]) -> Plan:
    """Record ``program`` under the preview mocks, with a provider of region cn-hangzhou as the default."""
    return record(program, config={"alicloud:region": "cn-hangzhou"})


def custom(plan: Plan) -> list[RecordedResource]:
    """The provider resources of ``plan`` (no components, stack or providers)."""
    return [r for r in plan.resources if r.custom and not r.type.startswith("pulumi:")]


def of_type(plan: Plan, type_: str) -> list[RecordedResource]:
    """The resources of ``type_`` in registration order."""
    return [r for r in plan.resources if r.type == type_]


def one(plan: Plan, type_: str) -> RecordedResource:
    """The only resource of ``type_``."""
    found = of_type(plan, type_)
    assert len(found) == 1, [r.name for r in found]
    return found[0]


def component(plan: Plan, type_: str) -> RecordedResource:
    """The component of ``type_``, checking that every custom resource is its child."""
    comp = one(plan, type_)
    assert all(r.parent == comp.urn for r in custom(plan)), [(r.name, r.parent) for r in custom(plan)]
    return comp


def label_map(inputs: dict[str, Any]) -> dict[str, str]:
    """A cs.NodePool's labels as a dict."""
    return {item["key"]: item["value"] for item in inputs["labels"]}


def rejected(build: Callable[[], Any]) -> tuple[ConfigError, Plan]:
    """Run ``build`` expecting a ConfigError; return it and the plan (to check that nothing was registered)."""
    errors: list[ConfigError] = []

    def program() -> None:
        try:
            build()
        except ConfigError as err:
            errors.append(err)

    plan = plan_of(program)
    assert len(errors) == 1
    return errors[0], plan


def registered(plan: Plan) -> list[str]:
    """Types registered besides the stack."""
    return [r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack"]


# A valid Alibaba Cloud stack config (parse_stack_config input) to add one field to.
RAW: dict[str, Any] = {
    "cloud": "alicloud",
    "region": "cn-hangzhou",
    "environment": "test",
    "tags": {"environment": "test", "owner": "ml", "cost-center": "ml"},
    "network": {
        "vpcCidr": "10.50.0.0/16",
        "privateSubnets": [
            {"zone": "cn-hangzhou-h", "cidr": "10.50.0.0/18"},
            {"zone": "cn-hangzhou-i", "cidr": "10.50.64.0/18"},
        ],
    },
    "access": {"adminPrincipals": ["acs:ram::1234567890123456:role/admin"]},
    "kms": {"alicloudKmsInstanceId": "kst-hzz0123456789"},
    "deploy": {"runnerStack": "organization/gpu-cloud-bootstrap/shared-cn", "runnerVpcCidr": "10.251.0.0/24"},
    "addons": {"monitoring": False, "prometheusAdapter": False},
}


def refused_lines(raw: dict[str, Any]) -> list[str]:
    """The lines of the ConfigError that parse_stack_config raises for ``raw``."""
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    return str(caught.value).splitlines()
