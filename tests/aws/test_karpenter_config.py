"""``gpu-cloud:nodeProvisioner``: a bad value or a config Karpenter cannot serve exits 2 naming the field and the value,
before anything is declared; on Karpenter the checks only the cluster autoscaler needs stay out of the way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpu_cloud.components.spec import ConfigError, parse_stack_config
from gpu_cloud.planner.cli import main
from tests.aws.test_expander import CONFIG, PROGRAM
from tests.components.test_spec import BASE


def _plan(tmp_path: Path, config: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-cloud\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    (tmp_path / "Pulumi.dev.yaml").write_text(config)
    status = main(["plan", "dev", "--dir", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    return status, out, err


def _with(*top_level: str, spot_group: str | None = None) -> str:
    """The valid config (whose last key is a spot group list) with another spot group and more top-level keys."""
    group = f"    {spot_group}\n" if spot_group is not None else ""
    return CONFIG + group + "".join(f"  {line}\n" for line in top_level)


@pytest.mark.parametrize(
    ("top_level", "spot_group", "error"),
    [
        (
            ("gpu-cloud:nodeProvisioner: autoscaler",),
            None,
            "  gpu-cloud:nodeProvisioner: input should be 'nodegroups' or 'karpenter' (got autoscaler)\n",
        ),
        (
            (
                "gpu-cloud:nodeProvisioner: karpenter",
                "gpu-cloud:nodePools:",
                "  - {name: train, purpose: training, instanceTypes: [p5.48xlarge], minSize: 0, desiredSize: 0,"
                " maxSize: 2, awsCapacityReservation: {resourceGroupArn:"
                " 'arn:aws:resource-groups:us-east-1:123456789012:group/gpu'}}",
            ),
            None,
            "  gpu-cloud:nodePools.0.awsCapacityReservation.resourceGroupArn: Karpenter selects reservations by id or"
            " tags, not by resource group (got arn:aws:resource-groups:us-east-1:123456789012:group/gpu)\n",
        ),
        (
            ("gpu-cloud:nodeProvisioner: karpenter",),
            "- {name: capped, purpose: training, instanceTypes: [g5.xlarge], maxSize: 4, maxPricePerHour: 0.5}",
            "  gpu-cloud:spotGroups.1.maxPricePerHour: Karpenter cannot cap the spot price (got 0.5)\n",
        ),
    ],
    ids=["unknown value", "reservation group", "spot price cap"],
)
def test_a_config_karpenter_cannot_serve_exits_2_naming_the_field_and_value(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    top_level: tuple[str, ...],
    spot_group: str | None,
    error: str,
) -> None:
    status, out, err = _plan(tmp_path, _with(*top_level, spot_group=spot_group), capsys)
    assert (status, out) == (2, "")
    assert "Traceback" not in err
    assert err.startswith("error: invalid config in Pulumi.dev.yaml:\n")
    assert error in err


def _refused(changes: dict[str, Any]) -> set[tuple[str, Any]]:
    with pytest.raises(ConfigError) as refused:
        parse_stack_config({**BASE, **changes})
    return {(p.path, p.value) for p in refused.value.problems}


def test_karpenter_is_refused_on_alibaba_cloud() -> None:
    assert ("nodeProvisioner", "karpenter") in _refused({"cloud": "alicloud", "nodeProvisioner": "karpenter"})


def test_karpenter_is_refused_without_nat_egress() -> None:
    network = {**BASE["network"], "egress": "endpoints-only", "natSubnets": []}
    assert _refused({"network": network, "nodeProvisioner": "karpenter"}) == {("nodeProvisioner", "karpenter")}
    parse_stack_config({**BASE, "network": network})


def test_on_karpenter_a_spot_group_may_mix_sizes_the_autoscaler_could_not_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = "- {name: mixed, purpose: training, instanceTypes: [g5.xlarge, g5.2xlarge], maxSize: 4}"
    status, _, err = _plan(tmp_path, _with(spot_group=mixed), capsys)
    assert status == 2 and "differ in capacity" in err
    _, _, err = _plan(tmp_path, _with("gpu-cloud:nodeProvisioner: karpenter", spot_group=mixed), capsys)
    assert "differ in capacity" not in err


def test_in_prod_the_autoscaler_and_karpenter_never_manage_the_same_capacity() -> None:
    """The autoscaler discovers Auto Scaling groups by its tags (cluster-autoscaler AWS README, auto-discovery): only
    the system node group is one. Karpenter launches no Auto Scaling group, and may terminate only instances tagged with
    a NodePool (its reference policy's AllowScopedDeletion), which no node group launch template tags."""
    from tests.stacks.test_environments import named, of_type

    groups = of_type("prod", "aws:eks/nodeGroup:NodeGroup")
    assert [g.name for g in groups] == ["prod-gpu-system"]
    assert "k8s.io/cluster-autoscaler/enabled" in groups[0].inputs["tags"]
    values = named("prod", "prod-gpu-addons-cluster-autoscaler").inputs["values"]
    assert values["expanderPriorities"] == {"10": [".*"]}
    policy = json.loads(named("prod", "prod-karpenter-controller-policy").inputs["policy"])
    [deletion] = [s for s in policy["Statement"] if s["Sid"] == "AllowScopedDeletion"]
    assert deletion["Condition"]["StringLike"] == {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    for template in of_type("prod", "aws:ec2/launchTemplate:LaunchTemplate"):
        for spec in template.inputs.get("tagSpecifications", []):
            assert "karpenter.sh/nodepool" not in spec["tags"], template.name
    assert {p.inputs["metadata"]["name"] for p in of_type("prod", "kubernetes:karpenter.sh/v1:NodePool")} == {
        "training-h100",
        "inference-a10g",
        "training-spot-spot",
        "training-spot-ondemand",
    }


def test_prod_training_pods_are_never_voluntarily_disrupted_by_karpenter() -> None:
    from tests.stacks.test_environments import of_type

    jobsets = of_type("prod", "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet")
    [jobset] = [j for j in jobsets if j.inputs["metadata"]["name"] == "llm-pretrain"]
    pod = jobset.inputs["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert pod["metadata"]["annotations"] == {"karpenter.sh/do-not-disrupt": "true"}
    [h100] = [p for p in of_type("prod", "kubernetes:karpenter.sh/v1:NodePool") if p.name.endswith("training-h100")]
    assert h100.inputs["spec"]["disruption"]["consolidationPolicy"] == "WhenEmpty"
