"""The policy pack on Karpenter's objects, run as `gpucloud plan` runs it: no public IP and encryption on EC2NodeClass,
the GPU taint on GPU NodePools, a GPU limit for the cost guard; the objects KarpenterGpuPool builds pass, the same
objects with the setting taken away do not."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from google.protobuf import struct_pb2

from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import Plan
from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.policy import run_policy_pack
from tests.aws.test_karpenter_pool import PROD, _record


@pytest.fixture(scope="module")
def plan() -> Plan:
    return _record(*PROD)


def _violations(resources: tuple[RecordedResource, ...], stack: str = "prod") -> set[tuple[str, str, str]]:
    report = run_policy_pack(POLICY_PACK, resources, project="gpu-cloud", stack=stack)
    # A violation's message is the policy's description, then the finding.
    return {(v.policy, v.name, v.message.rsplit("\n", 1)[-1]) for v in report.violations}


def _without(plan: Plan, name: str, change: Any) -> tuple[RecordedResource, ...]:
    """The plan's resources with ``change`` made to the inputs of ``name`` (wire form too: these objects hold no
    secret or unknown value)."""

    def changed(r: RecordedResource) -> RecordedResource:
        inputs = change(r.inputs)
        wire = struct_pb2.Struct()
        wire.update(inputs)
        return replace(r, inputs=inputs, properties=wire)

    return tuple(changed(r) if r.name == name else r for r in plan.resources)


def test_the_objects_karpenter_gpu_pool_builds_pass_the_pack(plan: Plan) -> None:
    assert _violations(plan.resources) == set()


def test_an_ec2nodeclass_that_may_give_a_public_ip_is_refused(plan: Plan) -> None:
    def public(inputs: dict[str, Any]) -> dict[str, Any]:
        spec = {k: v for k, v in inputs["spec"].items() if k != "associatePublicIPAddress"}
        return {**inputs, "spec": spec}

    assert _violations(_without(plan, "inference-a10g-nodeclass", public)) == {
        (
            "no-public-ip",
            "inference-a10g-nodeclass",
            "Karpenter nodes may get a public IP: spec.associatePublicIPAddress must be false (unset follows the "
            "subnet)",
        )
    }


def test_an_unencrypted_node_volume_is_refused(plan: Plan) -> None:
    def plain(inputs: dict[str, Any]) -> dict[str, Any]:
        volume = {"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi", "volumeType": "gp3"}}
        return {**inputs, "spec": {**inputs["spec"], "blockDeviceMappings": [volume]}}

    assert _violations(_without(plan, "inference-a10g-nodeclass", plain)) == {
        (
            "encryption-at-rest",
            "inference-a10g-nodeclass",
            "an EBS block device mapping of the EC2NodeClass is not encrypted: set ebs.encrypted true",
        )
    }


def test_a_gpu_nodepool_without_the_gpu_taint_is_refused(plan: Plan) -> None:
    def untainted(inputs: dict[str, Any]) -> dict[str, Any]:
        template = inputs["spec"]["template"]
        spec = {**template["spec"], "taints": []}
        return {**inputs, "spec": {**inputs["spec"], "template": {**template, "spec": spec}}}

    assert _violations(_without(plan, "training-h100-training-h100", untainted)) == {
        (
            "gpu-node-isolation",
            "training-h100-training-h100",
            "GPU NodePool without the nvidia.com/gpu taint: add spec.template.spec.taints with key nvidia.com/gpu "
            "and effect NoSchedule or NoExecute",
        )
    }


def test_in_a_non_prod_stack_the_cost_guard_counts_each_nodepool_at_its_gpu_limit_and_needs_one(plan: Plan) -> None:
    found = _violations(plan.resources, stack="staging")
    [budget] = [m for policy, _, m in found if policy == "gpu-cost-guard" and "budget" in m]
    assert "monthly GPU cost at max size is USD 351,924.42" in budget
    assert "training-h100-training-h100 8 x p5.48xlarge on demand USD 321,433.60" in budget

    def unbounded(inputs: dict[str, Any]) -> dict[str, Any]:
        return {**inputs, "spec": {**inputs["spec"], "limits": {}}}

    found = _violations(_without(plan, "inference-a10g-inference-a10g", unbounded), stack="staging")
    assert (
        "gpu-cost-guard",
        "inference-a10g-inference-a10g",
        "could not decide: spec.limits.nvidia.com/gpu is not set: its GPUs are unbounded; this GPU pool is left out "
        "of the monthly GPU budget, not counted as zero",
    ) in found
