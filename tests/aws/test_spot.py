"""SpotGpuGroup: a SPOT node group over diversified types plus its on-demand fall-back, built like GpuNodePool."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_cloud.components.aws.spot import SpotGpuGroup, SpotGpuGroupArgs
from gpu_cloud.components.spec import ConfigError, SpotGroupSpec
from tests.aws.helpers import named, of_type, run, type_counts
from tests.aws.nodes import TARGET

GROUP = {"name": "infer", "purpose": "inference", "instanceTypes": ["g5.xlarge"], "maxSize": 6}


def _group(**overrides: Any) -> None:
    SpotGpuGroup("grp", SpotGpuGroupArgs(spec=SpotGroupSpec.model_validate({**GROUP, **overrides}), target=TARGET))


def test_children_are_one_role_and_two_node_groups_on_their_own_launch_templates() -> None:
    plan = run(_group)
    assert type_counts(plan) == {
        "aws:iam/role:Role": 1,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 3,
        "aws:ec2/launchTemplate:LaunchTemplate": 2,
        "aws:eks/nodeGroup:NodeGroup": 2,
    }
    assert sorted(r.name for r in of_type(plan, "aws:eks/nodeGroup:NodeGroup")) == ["grp-ondemand", "grp-spot"]
    assert named(plan, "grp").type == "gpucloud:aws:SpotGpuGroup"


def test_spot_group_is_spot_over_every_type_with_the_spot_label_and_taint() -> None:
    inputs = named(run(_group), "grp-spot").inputs
    assert inputs["nodeGroupNamePrefix"] == "infer-spot-"
    assert "nodeGroupName" not in inputs
    assert inputs["capacityType"] == "SPOT"
    assert inputs["instanceTypes"] == ["g5.xlarge"]
    assert inputs["labels"]["gpucloud.io/capacity"] == "spot"
    assert inputs["taints"] == [
        {"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "true"},
        {"effect": "NO_SCHEDULE", "key": "gpucloud.io/capacity", "value": "spot"},
    ]
    assert inputs["scalingConfig"] == {"desiredSize": 0, "maxSize": 6, "minSize": 0}


def test_fallback_is_on_demand_of_the_same_class_from_zero() -> None:
    inputs = named(run(lambda: _group(fallbackMaxSize=2)), "grp-ondemand").inputs
    assert inputs["nodeGroupNamePrefix"] == "infer-ondemand-"
    assert "nodeGroupName" not in inputs
    assert inputs["capacityType"] == "ON_DEMAND"
    assert inputs["instanceTypes"] == ["g5.xlarge"]
    assert inputs["labels"]["gpucloud.io/capacity"] == "on-demand"
    assert inputs["labels"]["gpucloud.io/gpu-class"] == "nvidia-a10g"
    assert inputs["taints"] == [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "true"}]
    assert inputs["scalingConfig"] == {"desiredSize": 0, "maxSize": 2, "minSize": 0}


def test_both_groups_share_the_hardened_launch_template_and_autoscaler_ownership() -> None:
    plan = run(_group)
    for base in ("grp-spot", "grp-ondemand"):
        template = named(plan, f"{base}-lt").inputs
        assert template["metadataOptions"]["httpTokens"] == "required"
        assert template["networkInterfaces"][0]["associatePublicIpAddress"] == "false"
        assert template["blockDeviceMappings"][0]["ebs"]["encrypted"] == "true"
        assert named(plan, base).ignore_changes == ("scalingConfig.desiredSize",)
    spot_tags = named(plan, "grp-spot").inputs["tags"]
    assert spot_tags["k8s.io/cluster-autoscaler/node-template/taint/gpucloud.io/capacity"] == "spot:NoSchedule"


def test_without_fallback_only_the_spot_group_exists() -> None:
    plan = run(lambda: _group(onDemandFallback=False))
    assert [r.name for r in of_type(plan, "aws:eks/nodeGroup:NodeGroup")] == ["grp-spot"]


@pytest.mark.parametrize(
    ("types", "error"),
    [
        (
            ["g5.xlarge", "g6.xlarge"],
            'instanceTypes: mixes GPU classes; use one GPU model (got ["NVIDIA A10G", "NVIDIA L4"])',
        ),
        (
            ["g6.xlarge", "g6.2xlarge"],
            "instanceTypes: differ in capacity (g6.xlarge: 4 vCPU 16 GiB 1x22.4 GiB GPU, g6.2xlarge: 8 vCPU 32 GiB "
            '1x22.4 GiB GPU); the cluster autoscaler sizes the group from its first type only (got ["g6.xlarge", '
            '"g6.2xlarge"])',
        ),
    ],
    ids=["mixed-gpu-classes", "different-capacity"],
)
def test_types_of_mixed_gpu_classes_or_capacities_are_rejected_before_registering(types: list[str], error: str) -> None:
    errors: list[str] = []

    def program() -> None:
        with pytest.raises(ConfigError) as err:
            _group(instanceTypes=types)
        errors.append(str(err.value))

    plan = run(program)
    assert errors == [error]
    assert len(plan.resources) == 1


def test_a_spot_price_cap_is_rejected_on_eks() -> None:
    with pytest.raises(
        ConfigError, match=r"^maxPricePerHour: EKS managed node groups cannot cap the spot price \(got 1\.5\)$"
    ):
        _group(maxPricePerHour=1.5)
