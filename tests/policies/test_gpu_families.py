"""GPU node detection is data: every GPU instance type EC2 lists is recognised (gpucloud_rules/gpu_families.json)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import botocore
import pytest

from gpu_cloud.policies.gpucloud_rules.gpu_node_isolation import is_aws_gpu_instance_type
from tests.policies.conftest import pack_script

GENERATOR = pack_script("generate_gpu_families")
EC2_MODEL = Path(botocore.__file__).parent / "data" / "ec2" / "2016-11-15" / "service-2.json.gz"


def _botocore_instance_types() -> list[str]:
    """Every InstanceType of the installed botocore's EC2 model (what EC2's API accepts)."""
    model = json.loads(gzip.decompress(EC2_MODEL.read_bytes()))
    names: list[str] = model["shapes"]["InstanceType"]["enum"]
    return names


INSTANCE_TYPES = _botocore_instance_types()
CLASSIFIED = GENERATOR.classified()


def test_the_committed_families_are_the_generators() -> None:
    committed = GENERATOR.OUTPUT.read_text(encoding="utf-8")
    assert committed == GENERATOR.render(), "run: python gpu_cloud/policies/scripts/generate_gpu_families.py"


def test_every_nvidia_gpu_type_ec2_lists_is_recognised() -> None:
    gpu_types = [t for t in INSTANCE_TYPES if GENERATOR.GPU_SERIES.match(t.split(".", 1)[0])]
    nvidia = [t for t in gpu_types if CLASSIFIED[t.split(".", 1)[0]][0].startswith("NVIDIA")]
    assert {"g7e.2xlarge", "p5.48xlarge", "p6e-gb200.36xlarge", "g5.xlarge"} <= set(nvidia)
    assert [t for t in nvidia if not is_aws_gpu_instance_type(t)] == []
    assert [t for t in gpu_types if t not in nvidia and is_aws_gpu_instance_type(t)] == []  # g4ad: AMD


def test_no_other_type_ec2_lists_is_a_gpu_type() -> None:
    others = [t for t in INSTANCE_TYPES if not GENERATOR.GPU_SERIES.match(t.split(".", 1)[0])]
    assert "inf2.xlarge" in others and "trn2.48xlarge" in others and "dl1.24xlarge" in others
    assert [t for t in others if is_aws_gpu_instance_type(t)] == []


@pytest.mark.parametrize(
    "instance_type", ["g7e.2xlarge", "g7e.48xlarge", "p6e-gb200.36xlarge", "p6-b300.48xlarge", "g6f.large", "p2.xlarge"]
)
def test_the_families_the_hand_list_missed_are_recognised(instance_type: str) -> None:
    assert instance_type in INSTANCE_TYPES
    assert is_aws_gpu_instance_type(instance_type)


def test_a_new_gpu_family_fails_the_generator_until_classified(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GENERATOR, "_ec2_families", lambda: ["g5", "g8", "m9g"])
    with pytest.raises(SystemExit, match=r"classify the GPU of these EC2 families in ACCELERATORS: g8$"):
        GENERATOR.classified()
