"""The README is a quick start under 250 lines whose table of pages lists every page of docs/, and the programs it
shows plan: the whole environment from the dev stack's config, and the Kubernetes components on a cluster the
program already has."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from gpu_cloud.planner.engine import record
from tests.packaging.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
PROGRAMS = re.findall(r'```python\n("""__main__\.py of another project.*?)```', README, re.DOTALL)


def test_the_readme_is_under_250_lines() -> None:
    assert len(README.splitlines()) < 250


def test_the_readmes_table_of_pages_lists_every_page_of_docs() -> None:
    # The table is the index of docs/: pages added by later merges (inference.md, provisioners.md) were missing.
    table = README.split("| page | what it covers |", 1)[1].split("\n\n", 1)[0]
    pages = {f"docs/{page.name}" for page in (ROOT / "docs").glob("*.md")}
    assert set(re.findall(r"^\| \[docs/[\w.-]+\.md\]\((docs/[\w.-]+\.md)\)", table, re.M)) == pages


def _config() -> dict[str, str]:
    dev = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))["config"]
    config = {key: value if isinstance(value, str) else json.dumps(value) for key, value in dev.items()}
    runner = {"runnerVpcId": "vpc-0runner", "runnerRouteTableIds": '["rtb-0a", "rtb-0b"]', "kubeconfig": "{}"}
    return config | {f"test:{key}": value for key, value in runner.items()}


@pytest.mark.parametrize(("program", "expected"), [(0, "gpucloud:aws:GpuEnvironment"), (1, "gpucloud:k8s:GpuRbac")])
def test_the_readme_programs_plan(program: int, expected: str) -> None:
    assert len(PROGRAMS) == 2
    namespace: dict[str, Any] = {"__name__": "__main__"}
    plan = record(lambda: exec(PROGRAMS[program], namespace), stack="dev", config=_config())
    assert expected in {r.type for r in plan.resources}
    if program == 0:
        cluster = next(r for r in plan.resources if r.type == "aws:eks/cluster:Cluster")
        assert cluster.inputs["name"] == "ml-gpu-dev"  # as the README says
