"""The same pool and spot specs drive both clouds: only cloud, region, zones and instance types differ."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest

from gpu_cloud.components.spec import StackConfig, parse_stack_config
from tests.alicloud.support import plan_of, raw_config


def config(cloud: str) -> StackConfig:
    """One environment on ``cloud`` from the shared pool and spot definitions."""
    return parse_stack_config(raw_config(cloud))


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
