"""The same pool and spot specs drive both clouds: only cloud, region, zones and instance types differ."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest

from gpu_cloud.components.spec import StackConfig, parse_stack_config
from tests.alicloud.support import plan_of

POOLS = [
    {"name": "inference", "purpose": "inference", "minSize": 1, "desiredSize": 1, "maxSize": 4},
]
SPOT = [{"name": "batch", "purpose": "training", "maxSize": 8}]
CLOUDS: dict[str, dict[str, Any]] = {
    "aws": {
        "region": "us-east-1",
        "zones": ("us-east-1a", "us-east-1b"),
        "pool_types": ["g5.xlarge", "g5.2xlarge"],
        "spot_types": ["g5.xlarge", "g5.2xlarge"],
        "principal": "arn:aws:iam::123456789012:role/admin",
        "nat": [{"zone": "us-east-1a", "cidr": "10.50.255.0/28"}],
        "kms": {},
    },
    "alicloud": {
        "region": "cn-hangzhou",
        "zones": ("cn-hangzhou-h", "cn-hangzhou-i"),
        "pool_types": ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"],
        "spot_types": ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"],
        "principal": "acs:ram::1234567890123456:role/admin",
        "nat": [],
        "kms": {"alicloudKmsInstanceId": "kst-hzz0123456789"},  # required on Alibaba Cloud
    },
}


def config(cloud: str) -> StackConfig:
    """One environment on ``cloud`` from the shared pool and spot definitions."""
    c = CLOUDS[cloud]
    return parse_stack_config(
        {
            "cloud": cloud,
            "region": c["region"],
            "environment": "same",
            "tags": {"environment": "same", "owner": "ml", "cost-center": "ml"},
            "network": {
                "vpcCidr": "10.50.0.0/16",
                "privateSubnets": [
                    {"zone": c["zones"][0], "cidr": "10.50.0.0/18"},
                    {"zone": c["zones"][1], "cidr": "10.50.64.0/18"},
                ],
                "natSubnets": c["nat"],
            },
            "nodePools": [{**p, "instanceTypes": c["pool_types"]} for p in POOLS],
            "spotGroups": [{**g, "instanceTypes": c["spot_types"]} for g in SPOT],
            "access": {"adminPrincipals": [c["principal"]]},
            "kms": c["kms"],
            "deploy": {"runnerStack": "organization/gpu-cloud-bootstrap/shared", "runnerVpcCidr": "10.250.0.0/22"},
            "alerts": {"receiver": "webhook"},
            "alertReceiverUrl": "https://alerts.example/hook",
        }
    )


def _without_types(spec: Any) -> dict[str, Any]:
    return spec.model_dump(exclude={"instance_types"})  # type: ignore[no-any-return]


def test_both_configs_hold_the_same_pools_and_groups_but_for_their_instance_types() -> None:
    aws, ali = config("aws"), config("alicloud")
    assert [_without_types(p) for p in aws.node_pools] == [_without_types(p) for p in ali.node_pools]
    assert [_without_types(g) for g in aws.spot_groups] == [_without_types(g) for g in ali.spot_groups]


def test_alibaba_components_take_the_config_specs_unchanged() -> None:
    from gpu_cloud.components.alicloud import GpuNodePool, GpuNodePoolArgs, SpotGpuGroup, SpotGpuGroupArgs

    ali = config("alicloud")
    where = {
        "cluster_id": "c",
        "vswitch_ids_by_zone": {"cn-hangzhou-h": ["a"], "cn-hangzhou-i": ["b"]},
        "kms_key_id": "k",
    }

    def program() -> None:
        GpuNodePool("pool", GpuNodePoolArgs(spec=ali.node_pools[0], **where))
        SpotGpuGroup("spot", SpotGpuGroupArgs(spec=ali.spot_groups[0], **where))

    types = [r.type for r in plan_of(program).resources if r.custom]
    assert types == ["alicloud:cs/nodePool:NodePool"] * 3


def _fill(args_class: type, spec: Any) -> Any:
    """Args of an AWS component: the spec, and a placeholder for every other required reference."""
    values: dict[str, Any] = {}
    for f in dataclasses.fields(args_class):
        if f.name == "spec":
            values[f.name] = spec
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            values[f.name] = "placeholder"
    return args_class(**values)


@pytest.mark.parametrize(("component", "field"), [("GpuNodePool", "node_pools"), ("SpotGpuGroup", "spot_groups")])
def test_aws_components_take_the_same_spec_objects(component: str, field: str) -> None:
    aws_module = importlib.import_module("gpu_cloud.components.aws")
    if not hasattr(aws_module, component):
        pytest.skip(f"gpu_cloud.components.aws.{component} is not there yet")
    spec = getattr(config("aws"), field)[0]
    args_class = getattr(aws_module, f"{component}Args")
    assert dataclasses.is_dataclass(args_class)
    assert _fill(args_class, spec).spec is spec
