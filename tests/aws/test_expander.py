"""The priority expander's config on EKS: exact, anchored patterns per node group; each spot group strictly above
its own fall-back; bad names refused with the field and the value."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import yaml

from gpu_cloud.components.aws.expander import (
    asg_pattern,
    expander_priorities,
    expander_problems,
    node_group_names,
    priority_of,
)
from gpu_cloud.components.spec import SpotGroupSpec, parse_stack_config
from gpu_cloud.planner.cli import main
from tests.components.test_spec import BASE
from tests.gpucloud.test_cli import VALID_CONFIG
from tests.stacks.test_environments import LEGACY_PRIORITIES

UUID = "cec6c5bb-1a2b-4c3d-8e9f-0a1b2c3d4e5f"


def _group(name: str, fallback: bool = True) -> SpotGroupSpec:
    return SpotGroupSpec(
        name=name,
        purpose="training",
        instance_types=("g5.xlarge", "g5.2xlarge"),
        max_size=4,
        on_demand_fallback=fallback,
    )


def test_patterns_are_anchored_on_the_whole_eks_asg_name() -> None:
    pattern = asg_pattern("training-spot-spot")
    assert pattern == "^eks-training-spot-spot-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    assert re.search(pattern, f"eks-training-spot-spot-{UUID}")
    assert not re.search(pattern, f"eks-training-spot-spot-ondemand-{UUID}")
    assert not re.search(pattern, f"eks-x-training-spot-spot-{UUID}")


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
    ranks = {name: priority_of(f"eks-{name}-{UUID}", priorities) for name in ("a-spot", "a-ondemand", "system")}
    assert ranks == {"a-spot": 50, "a-ondemand": 20, "system": 10}


def test_a_spot_group_named_like_a_spot_suffix_no_longer_ties_with_its_fall_back() -> None:
    group_id = f"eks-training-spot-ondemand-{UUID}"
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
    assert (status, out) == (2, "")
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
