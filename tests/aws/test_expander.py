"""The priority expander's config on EKS: exact, anchored patterns per node group; each spot group strictly above
its own fall-back; bad names refused with the field and the value."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
import yaml

from gpu_cloud.components.aws.expander import (
    asg_pattern,
    expander_priorities,
    expander_problems,
    node_group_name_prefix,
    node_group_name_problem,
    node_group_names,
    priority_of,
    sample_asg_name,
)
from gpu_cloud.components.spec import SpotGroupSpec, parse_stack_config
from gpu_cloud.planner.cli import main
from tests.components.test_spec import BASE
from tests.gpucloud.test_cli import VALID_CONFIG
from tests.stacks.test_environments import LEGACY_PRIORITIES

UUID = "cec6c5bb-1a2b-4c3d-8e9f-0a1b2c3d4e5f"
GENERATED = "202612031545123456" + "0000000a"
"""What Terraform appends to a node group's name prefix: 18 timestamp digits, an 8-digit hex counter."""


def asg(node_group_prefix: str) -> str:
    """The name of the ASG EKS creates for the node group Terraform creates from ``node_group_prefix``."""
    return f"eks-{node_group_prefix}{GENERATED}-{UUID}"


def _group(name: str, fallback: bool = True) -> SpotGroupSpec:
    return SpotGroupSpec(
        name=name,
        purpose="training",
        instance_types=("g5.xlarge", "g5.2xlarge"),
        max_size=4,
        on_demand_fallback=fallback,
    )


def test_patterns_are_anchored_on_the_whole_eks_asg_name_with_the_generated_part() -> None:
    pattern = asg_pattern("training-spot-spot")
    assert pattern == (
        "^eks-training-spot-spot-[0-9]{18}[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    )
    assert re.search(pattern, asg("training-spot-spot-"))
    assert re.search(pattern, f"eks-training-spot-spot-{'1' * 18}ffffffff-{UUID}")  # a replacement's new name
    assert not re.search(pattern, asg("training-spot-spot-ondemand-"))
    assert not re.search(pattern, asg("x-training-spot-spot-"))
    assert not re.search(pattern, f"eks-training-spot-spot-{UUID}")  # the name without its generated part
    assert not re.search(pattern, f"eks-training-spot-spot-{'1' * 17}-ffffffff-{UUID}")


def test_a_node_groups_prefix_and_its_asg_pattern_agree() -> None:
    assert node_group_name_prefix("batch-spot") == "batch-spot-"
    assert re.search(asg_pattern("batch-spot"), asg(node_group_name_prefix("batch-spot")))
    assert re.search(asg_pattern("batch-spot"), sample_asg_name("batch-spot"))


def test_names_up_to_36_characters_leave_room_for_the_generated_part() -> None:
    # terraform-provider-aws node_group.go: node_group_name_prefix at most 63 - 26 characters.
    assert node_group_name_problem("a" * 36) is None
    assert len(node_group_name_prefix("a" * 36) + GENERATED) == 63
    assert node_group_name_problem("a" * 37) == (
        f"node group name {'a' * 37!r} has 37 characters; EKS allows 63 and the part generated for replacements "
        "takes 27: at most 36"
    )


def test_a_spot_group_whose_fall_back_name_is_too_long_exits_2_naming_the_field_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = "a" * 28  # a valid pool name (at most 40), but a-...-ondemand has 37 characters
    # Mixed sizes are a problem of their own: both are reported at once.
    group = f"    - {{name: {name}, purpose: training, instanceTypes: [g5.xlarge, g5.2xlarge], maxSize: 4}}\n"
    (tmp_path / "Pulumi.yaml").write_text("name: gpu-cloud\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(PROGRAM)
    (tmp_path / "Pulumi.dev.yaml").write_text(
        CONFIG.replace("  gpu-cloud:spotGroups:\n", "  gpu-cloud:spotGroups:\n" + group)
    )
    status = main(["plan", "dev", "--dir", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    assert (status, json.loads(out)["error"]) == (2, {"exitStatus": 2, "message": err.removeprefix("error: ").rstrip()})
    assert err == (
        "error: invalid config in Pulumi.dev.yaml:\n"
        f"  gpu-cloud:spotGroups.0.name: node group name '{name}-ondemand' has 37 characters; EKS allows 63 and the "
        f"part generated for replacements takes 27: at most 36 (got {name})\n"
        "  gpu-cloud:spotGroups.0.instanceTypes: differ in capacity (g5.xlarge: 4 vCPU 16 GiB 1x22.4 GiB GPU, "
        "g5.2xlarge: 8 vCPU 32 GiB 1x22.4 GiB GPU); the cluster autoscaler sizes the group from its first type only "
        '(got ["g5.xlarge", "g5.2xlarge"])\n'
    )


def test_the_rendered_priorities_survive_the_charts_yaml_as_the_same_patterns() -> None:
    # The chart writes each list with toYaml into the ConfigMap; the expander unmarshals it as map[int][]string.
    priorities = expander_priorities([_group("a")])
    text = "\n".join(f"{int(k)}:\n" + yaml.safe_dump(v, default_flow_style=False) for k, v in priorities.items())
    assert {str(k): v for k, v in yaml.safe_load(text).items()} == priorities


def test_each_spot_group_at_50_its_fall_back_at_20_everything_else_at_10() -> None:
    priorities = expander_priorities([_group("a"), _group("b-spot", fallback=False)])
    assert priorities == {
        "50": [asg_pattern("a-spot"), asg_pattern("b-spot-spot")],
        "20": [asg_pattern("a-ondemand")],
        "10": [".*"],
    }
    ranks = {name: priority_of(asg(f"{name}-"), priorities) for name in ("a-spot", "a-ondemand", "system")}
    assert ranks == {"a-spot": 50, "a-ondemand": 20, "system": 10}


def test_a_spot_group_named_like_a_spot_suffix_no_longer_ties_with_its_fall_back() -> None:
    group_id = asg("training-spot-ondemand-")
    assert priority_of(group_id, LEGACY_PRIORITIES) == 50
    assert priority_of(group_id, expander_priorities([_group("training-spot")])) == 20


STACKS = Path(__file__).resolve().parents[2] / "stacks"
PROGRAM = f"""
import runpy, sys
sys.path.insert(0, {str(STACKS)!r})
runpy.run_path({str(STACKS / "__main__.py")!r}, run_name="__main__")
"""

CONFIG = (
    textwrap.dedent(VALID_CONFIG)
    + """\
  gpu-cloud:spotGroups:
    - {name: batch, purpose: training, instanceTypes: [g5.xlarge], maxSize: 4}
"""
)


def test_a_pool_named_like_a_fall_back_exits_2_naming_the_field_and_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pool = "  gpu-cloud:nodePools:\n    - {name: batch-ondemand, purpose: inference, instanceTypes: [g5.xlarge], "
    pool += "minSize: 0, desiredSize: 0, maxSize: 2}\n"
    root = tmp_path
    (root / "Pulumi.yaml").write_text("name: gpu-cloud\nruntime: python\n")
    (root / "__main__.py").write_text(PROGRAM)
    (root / "Pulumi.dev.yaml").write_text(CONFIG + pool)
    status = main(["plan", "dev", "--dir", str(root), "--json"])
    out, err = capsys.readouterr()
    assert (status, json.loads(out)["error"]) == (2, {"exitStatus": 2, "message": err.removeprefix("error: ").rstrip()})
    assert "Traceback" not in err
    assert err == (
        "error: invalid config in Pulumi.dev.yaml:\n"
        "  gpu-cloud:spotGroups.0.name: node group name 'batch-ondemand' is also the node group of nodePools.0.name "
        "(got batch-ondemand)\n"
    )


def test_a_fall_back_that_cannot_rank_below_its_spot_group_is_reported() -> None:
    group = {"name": "batch-spot", "purpose": "training", "instanceTypes": ["g5.xlarge"], "maxSize": 4}
    config = parse_stack_config(BASE | {"nodePools": [], "inference": [], "spotGroups": [group]})
    names = node_group_names(config)
    assert expander_problems(names, expander_priorities(config.spot_groups)) == []
    assert [str(p) for p in expander_problems(names, LEGACY_PRIORITIES)] == [
        "spotGroups.0.name: the autoscaler's priority expander would not rank fall-back batch-spot-ondemand (50) "
        "below spot batch-spot-spot (50) (got batch-spot)"
    ]
