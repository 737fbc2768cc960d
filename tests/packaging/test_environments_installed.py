"""Whole environments from the installed wheel, in a program of a user's own outside the repository
(environments_project/): a full AWS environment and a full Alibaba Cloud environment (the configs of the shipped
prod and prod-cn stacks), each built twice in one program, with no account-unique name given twice."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from tests.packaging.conftest import ROOT, Installed
from tests.physical import clashes

PROJECT = Path(__file__).resolve().parent / "environments_project"
TEAM_CONFIG = {
    "team-gpu:runnerVpcId": "vpc-0runner",
    "team-gpu:runnerRouteTableIds": ["rtb-0runnera", "rtb-0runnerb"],
    "team-gpu:kmsInstanceId": "kst-hzz0123456789",
}
"""What the team's program reads from its own namespace: the deploy runner's network, the account's KMS instance
(Alibaba Cloud)."""
CLUSTERS = {
    "aws": ("aws:eks/cluster:Cluster", "name", {"train-gpu-aws", "serve-gpu-aws"}),
    "ali": ("alicloud:cs/managedKubernetes:ManagedKubernetes", "name", {"train-gpu-ali", "serve-gpu-ali"}),
}


def _stack_file(shipped: str, project: Path, stack: str) -> None:
    """The shipped stack's gpu-cloud config plus the team's own keys, as ``stack`` of ``project``."""
    config = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{shipped}.yaml").read_text(encoding="utf-8"))["config"]
    document = {"config": {**config, **TEAM_CONFIG}}
    (project / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = Path(shutil.copytree(PROJECT, tmp_path_factory.mktemp("team") / "team-gpu"))
    _stack_file("prod", project, "aws")
    _stack_file("prod-cn", project, "ali")
    return project


@pytest.mark.parametrize("stack", ["aws", "ali"])
def test_two_whole_environments_plan_from_the_installed_wheel_without_a_name_clash(
    installed: Installed, project: Path, stack: str
) -> None:
    result = installed.run("gpucloud", "plan", stack, "--json", cwd=project)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    document: dict[str, Any] = json.loads(result.stdout)
    resources = [SimpleNamespace(**r) for r in document["resources"]]
    cluster_type, name_input, names = CLUSTERS[stack]
    assert {r.inputs[name_input] for r in resources if r.type == cluster_type} == names
    assert set(document["outputs"].values()) == names
    # Each environment is whole: the two hold the same resources, under names of their own.
    per_environment = Counter(r.name.split("-", 1)[0] for r in resources if r.name.startswith(("train-", "serve-")))
    assert per_environment["train"] == per_environment["serve"] > 100
    assert clashes(resources) == {}  # type: ignore[arg-type]
