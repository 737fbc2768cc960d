"""Specs built in code: an invalid one is the documented ConfigError naming each field and value, never pydantic's
ValidationError or the validators' internal encoding of problems; the stack config keeps its strict validation."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Any

import pulumi
import pytest
from pydantic import ValidationError

from gpu_cloud.components import spec
from gpu_cloud.components.spec import ConfigError, GpuNodePoolSpec, PeeringSpec, PoolPurpose, parse_stack_config
from gpu_cloud.components.spec._base import Spec
from gpu_cloud.components.spec.problems import PROBLEMS_MARK
from gpu_cloud.planner.engine import record
from tests.components.test_spec import _with

POOL: dict[str, Any] = {
    "name": "x",
    "purpose": PoolPurpose.INFERENCE,
    "instance_types": ("g5.xlarge",),
    "min_size": 0,
    "desired_size": 1,
    "max_size": 3,
}


def _problems(build: Any) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        build()
    assert not isinstance(caught.value, ValidationError)
    assert PROBLEMS_MARK not in str(caught.value)
    return [str(p) for p in caught.value.problems]


def test_a_validators_problems_name_their_fields_and_values() -> None:
    assert _problems(lambda: GpuNodePoolSpec(**(POOL | {"min_size": 3, "desired_size": 0}))) == [
        "minSize: greater than desiredSize 0 (got 3)"
    ]
    peering = {"peer_region": "us-west-2", "peer_vpc_cidr": IPv4Network("10.40.0.0/16")}
    assert _problems(lambda: PeeringSpec(**peering)) == [
        "peerStack: give either peerPrivateSubnets or peerStack, not both or neither (got null)"
    ]


def test_a_field_of_the_wrong_type_names_the_field_and_the_value() -> None:
    assert _problems(lambda: GpuNodePoolSpec(**(POOL | {"max_size": "many"}))) == [
        "max_size: input should be a valid integer, unable to parse string as an integer (got many)"
    ]


def test_an_unknown_field_names_the_field_it_is_closest_to() -> None:
    # In code the Python name is the likelier meaning; in a config (test_spec) the camelCase key.
    assert _problems(lambda: GpuNodePoolSpec(**(POOL | {"maxsize": 3}))) == [
        "maxsize: extra inputs are not permitted; did you mean max_size? (got 3)"
    ]
    assert _problems(lambda: GpuNodePoolSpec(**(POOL | {"colour": "red"}))) == [
        "colour: extra inputs are not permitted (got red)"
    ]


def test_an_output_in_a_spec_says_where_values_from_other_resources_go() -> None:
    def program() -> None:
        GpuNodePoolSpec(**(POOL | {"instance_types": (pulumi.Output.from_input("g5.xlarge"),)}))

    problem = _problems(lambda: record(program))[0]
    assert problem.startswith("instance_types.0: a pulumi Output: spec fields are plain values")
    assert problem.endswith("goes in the component's Args) (got Output)")


def test_nested_specs_validate_as_pydantic_validates_them_not_through_the_spec_constructor() -> None:
    # The constructor is the base's to pydantic: nested specs of the stack config keep its strict JSON validation
    # and its field paths (a custom __init__ would be called with the raw values, in lax mode).
    models = [m for m in vars(spec).values() if isinstance(m, type) and issubclass(m, Spec)]
    assert len(models) > 15
    assert not [m for m in models if m.__pydantic_custom_init__]
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(_with("nodePools.0.minSize", "0"))
    assert [str(p) for p in caught.value.problems] == ["nodePools.0.minSize: input should be a valid integer (got 0)"]
