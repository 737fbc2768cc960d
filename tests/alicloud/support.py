"""Shared specs and plan helpers of the Alibaba Cloud component tests."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest
from pulumi.runtime import mocks, settings
from pulumi.runtime.stack import run_pulumi_func

from gpu_cloud.components.spec import ConfigError, GpuNodePoolSpec, NetworkSpec, SpotGroupSpec, parse_stack_config
from gpu_cloud.planner.engine import Plan, close_loop, record
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


POOLS = [
    {"name": "inference", "purpose": "inference", "minSize": 1, "desiredSize": 1, "maxSize": 4},
]
SPOT = [{"name": "batch", "purpose": "training", "maxSize": 8}]
CLOUDS: dict[str, dict[str, Any]] = {
    "aws": {
        "region": "us-east-1",
        "zones": ("us-east-1a", "us-east-1b"),
        "pool_types": ["g5.xlarge", "g5.2xlarge"],
        "spot_types": ["g5.xlarge"],
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


def raw_config(cloud: str) -> dict[str, Any]:
    """The stack config (parse_stack_config input) of one environment on ``cloud`` from the shared pool and spot
    definitions."""
    c = CLOUDS[cloud]
    return {
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
        "deploy": {"runnerVpcCidr": "10.250.0.0/22"},
        "alerts": {"receiver": "webhook"},
        "alertReceiverUrl": "https://alerts.example/hook",
    }


def refused_lines(raw: dict[str, Any]) -> list[str]:
    """The lines of the ConfigError that parse_stack_config raises for ``raw``."""
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    return str(caught.value).splitlines()


@dataclass
class Applied:
    """What an ``up`` of a program did under :func:`applied` mocks."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Every data-source call: (token, arguments)."""
    error: BaseException | None = None
    """The exception the program's outputs raised, if any."""


class _UpMocks(mocks.Mocks):
    """An ``up``, not a preview: every resource gets an id and its outputs are its inputs plus ``outputs[type]``."""

    def __init__(self, outputs: Mapping[str, Mapping[str, Any]], answers: Mapping[str, Mapping[str, Any]]) -> None:
        self._outputs = outputs
        self._answers = answers
        self.applied = Applied()

    def new_resource(self, args: mocks.MockResourceArgs) -> tuple[str | None, dict[str, Any]]:
        return f"{args.name}-id", {**args.inputs, **self._outputs.get(args.typ, {})}

    def call(self, args: mocks.MockCallArgs) -> tuple[dict[str, Any], list[tuple[str, str]] | None]:
        self.applied.calls.append((args.token, dict(args.args)))
        return dict(self._answers.get(args.token, {})), []


def applied(
    program: Callable[[], pulumi.Output[Any]],
    outputs: Mapping[str, Mapping[str, Any]] | None = None,
    answers: Mapping[str, Mapping[str, Any]] | None = None,
) -> Applied:
    """Run ``program`` as an ``up`` (known ids and outputs, data sources called), awaiting every registration it
    starts and the Output it returns, as the engine does; ``outputs`` adds computed outputs per resource type,
    ``answers`` answers data sources per token."""
    fake = _UpMocks(outputs or {}, answers or {})

    async def whole_run() -> None:
        result: list[pulumi.Output[Any]] = []
        # As the engine's entry point does: every registration the program starts is awaited (set_mocks has made
        # the root stack resource already).
        await run_pulumi_func(lambda: result.append(program()))
        await result[0].future()

    def run() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        pulumi.runtime.set_mocks(fake, project="test", stack="test", preview=False)
        # As gpu_cloud.planner.engine runs a program: the SDK's pending outputs are one set for every run, and what a
        # failed run leaves there would fail the next run ("Event loop is closed"); so each run has a set of its own
        # and its loop is closed with what is still pending on it cancelled.
        settings.SETTINGS.outputs = set()
        try:
            loop.run_until_complete(whole_run())
        except Exception as err:  # the program's own failure is what the caller checks
            fake.applied.error = err
        finally:
            close_loop(loop)

    contextvars.Context().run(run)
    return fake.applied
