"""Recording helpers of the Kubernetes layer's tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import kubernetes_validate
import pulumi
import pulumi_kubernetes as k8s
import pytest

from gpu_cloud.components.spec import (
    AccessSpec,
    ConfigError,
    GpuNodePoolSpec,
    InferenceServiceSpec,
    ModelServer,
    PoolPurpose,
    SpotGroupSpec,
)
from gpu_cloud.components.versions import DEFAULT_KUBERNETES_VERSION
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.planner.model import RecordedResource

KUBERNETES_VERSION = f"{DEFAULT_KUBERNETES_VERSION}.0"
"""The schemas built-in kinds are validated against: the clusters' default Kubernetes version (kubernetes-validate)."""


def run(build: Callable[[pulumi.ResourceOptions], Any]) -> Plan:
    """Record ``build(opts)`` where opts carries a Kubernetes provider, as the stacks will pass it."""

    def program() -> None:
        provider = k8s.Provider("cluster", kubeconfig="{}")
        build(pulumi.ResourceOptions(provider=provider))

    return record(program)


def refused(build: Callable[[pulumi.ResourceOptions], Any]) -> tuple[str, Plan]:
    """The ConfigError message of ``build(opts)`` and the plan, which must hold nothing of it."""
    errors: list[str] = []

    def attempt(opts: pulumi.ResourceOptions) -> None:
        try:
            build(opts)
        except ConfigError as err:
            errors.append(str(err))

    plan = run(attempt)
    assert len(errors) == 1, "no ConfigError raised"
    return errors[0], plan


def children(plan: Plan) -> list[RecordedResource]:
    """Every resource except the stack and the provider."""
    return [r for r in plan.resources if r.type not in ("pulumi:pulumi:Stack", "pulumi:providers:kubernetes")]


def kinds(plan: Plan) -> list[tuple[str, str]]:
    """(type, name) of every child resource, in registration order."""
    return [(r.type, r.name) for r in children(plan)]


def one(plan: Plan, name: str) -> RecordedResource:
    """The resource called ``name``."""
    [found] = [r for r in plan.resources if r.name == name]
    return found


def assert_valid(resource: RecordedResource) -> None:
    """The resource's inputs are a valid Kubernetes object of the default version (strict: no unknown fields)."""
    kubernetes_validate.validate(resource.inputs, KUBERNETES_VERSION, strict=True)


def inference_pool(**changes: Any) -> GpuNodePoolSpec:
    fields: dict[str, Any] = {
        "name": "inference-a10g",
        "purpose": PoolPurpose.INFERENCE,
        "instance_types": ("g5.xlarge",),
        "min_size": 0,
        "desired_size": 1,
        "max_size": 4,
    }
    return GpuNodePoolSpec(**(fields | changes))


def efa_training_pool(**changes: Any) -> GpuNodePoolSpec:
    fields: dict[str, Any] = {
        "name": "train-p5",
        "purpose": PoolPurpose.TRAINING,
        "instance_types": ("p5.48xlarge",),
        "min_size": 0,
        "desired_size": 0,
        "max_size": 4,
        "efa": True,
        "zones": ("us-east-1a",),
    }
    return GpuNodePoolSpec(**(fields | changes))


def ack_training_pool(**changes: Any) -> GpuNodePoolSpec:
    """An 8x A10 training pool on Alibaba Cloud (no EFA)."""
    return efa_training_pool(
        **({"name": "training", "instance_types": ("ecs.gn7i-8x.32xlarge",), "efa": False} | changes)
    )


def spot_group(**changes: Any) -> SpotGroupSpec:
    fields: dict[str, Any] = {
        "name": "inference-spot-a10g",
        "purpose": PoolPurpose.INFERENCE,
        "instance_types": ("g5.xlarge", "g5.2xlarge"),
        "max_size": 8,
    }
    return SpotGroupSpec(**(fields | changes))


def service(**changes: Any) -> InferenceServiceSpec:
    fields: dict[str, Any] = {
        "name": "resnet",
        "pool": "inference-a10g",
        "model_source": "models/resnet",
        "server": ModelServer.TENSORFLOW_SERVING,
    }
    return InferenceServiceSpec(**(fields | changes))


@pytest.fixture
def access() -> AccessSpec:
    return AccessSpec(admin_principals=("arn:aws:iam::123456789012:role/gpu-admin",))
