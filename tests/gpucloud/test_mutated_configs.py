"""Property: any mutation of a shipped stack config (a deletion, a type swap, a boundary value, an odd string)
ends as the contract says -- exit 0 or 1 with a plan, or exit 2 with only contract-shaped lines. Never a
traceback, never another exit status.

The mutations run in-process through ``gpucloud plan`` (no policy pack, so each example costs one program
run), derandomized and bounded so that the suite stays fast.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpu_cloud.planner.cli import main

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"
ENVIRONMENTS = sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in STACKS.glob("Pulumi.*.yaml"))

ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**63,
    1e308,
    float("inf"),
    float("nan"),
    "",
    " ",
    "x" * 300,
    "é🙂\u202e",
    "10.0.0.0/8",
    "0.0.0.0/0",
    "10.0.0.0/30",
    "us-east-12a",
    "kube-system",
    "true",
    "1",
    [],
    {},
    ["a", "a"],
    {"secure": 42},
]

# One contract-shaped problem line of an invalid config: the full key, what is wrong, the value found.
PROBLEM = re.compile(r"^  gpu-cloud:[A-Za-z0-9_.\-]+: \S.* \(got .*\)$")


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*prefix, i))
    return found


def _swap(value: Any) -> Any:
    """The same content as another type: a string as a number or list, a number as a string, ..."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return {str(i): v for i, v in enumerate(value)}
    return list(value.values()) if isinstance(value, dict) else value


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    environment = draw(st.sampled_from(ENVIRONMENTS))
    document = yaml.safe_load((STACKS / f"Pulumi.{environment}.yaml").read_text(encoding="utf-8"))
    config = copy.deepcopy(document["config"])
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(config)
        if not paths:
            break
        *parents, last = draw(st.sampled_from(paths))
        node = config
        for part in parents:
            node = node[part]
        operation = draw(st.sampled_from(["delete", "swap", "odd"]))
        if operation == "delete":
            del node[last]
        elif operation == "swap":
            node[last] = _swap(node[last])
        else:
            node[last] = draw(st.sampled_from(ODD_VALUES))
    return environment, config


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project running the shipped program, its stack config files written per example."""
    root = tmp_path_factory.mktemp("mutated")
    (root / "Pulumi.yaml").write_text(f"name: gpu-cloud\nmain: {STACKS}\nruntime: python\n")
    (root / "offline-answers.yaml").write_text((STACKS / "offline-answers.yaml").read_text())
    return root


@settings(max_examples=40, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(mutation=mutations())
def test_a_mutated_config_ends_as_the_contract_says(
    project: Path, capsys: pytest.CaptureFixture[str], mutation: tuple[str, dict[str, Any]]
) -> None:
    environment, config = mutation
    for old in project.glob("Pulumi.*.yaml"):
        old.unlink()
    (project / f"Pulumi.{environment}.yaml").write_text(yaml.safe_dump({"config": config}), encoding="utf-8")
    status = main(["plan", environment, "--dir", str(project), "--no-policy", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert status in (0, 1, 2), err
    if status == 2:
        assert json.loads(out)["error"] == {"exitStatus": 2, "message": err.removeprefix("error: ").rstrip()}
        first, *rest = err.splitlines()
        if first.startswith("error: invalid config in "):
            assert rest and all(PROBLEM.match(line) for line in rest), err
        else:
            # One line naming the file and what is wrong with it (not valid YAML, a secure value, ...).
            assert not rest and first.startswith(f"error: {project}/Pulumi.{environment}.yaml"), err
    else:
        assert json.loads(out)["resources"], out
