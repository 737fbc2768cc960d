"""The modules of ``gpu_cloud.components`` import each other without a circle, none is over 600 lines (issue 28:
a house that is easy to change), and the cloud-neutral spec never imports a cloud's module: not in its source, and
not at run time while it validates an AWS config."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

import gpu_cloud.components
from tests.components.test_spec import BASE

PACKAGE = "gpu_cloud.components"
ROOT = Path(gpu_cloud.components.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = [PACKAGE, *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(module: str, path: Path) -> set[str]:
    """The modules of the package ``module`` imports anywhere in its source (at module level, in functions, under
    TYPE_CHECKING): ``from a import b`` imports the module a.b when there is one, else a. The package imports by
    absolute name only (a relative import fails this reading)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}:{node.lineno}: a relative import"
            base = node.module or ""
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in MODULES and name != module}
    return found


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def test_the_graph_sees_the_imports_it_must() -> None:
    # The checks above stand on this reading: a function-level import and a "from package import module" count.
    assert "gpu_cloud.components.aws.expander" in GRAPH["gpu_cloud.components.aws.checks"]
    assert "gpu_cloud.components.spec.refusals" in GRAPH["gpu_cloud.components.spec"]
    assert "gpu_cloud.components.spec.stack" in GRAPH["gpu_cloud.components.spec.refusals"]


def test_no_module_of_the_package_imports_in_a_circle() -> None:
    try:
        order = list(TopologicalSorter(GRAPH).static_order())
    except CycleError as err:
        pytest.fail(f"import circle: {' -> '.join(err.args[1])}")
    assert set(order) == set(MODULES)


MAX_LINES = 600
"""The most lines one module of the package may have (issue 28's bound)."""


def test_no_module_of_the_package_is_over_600_lines() -> None:
    lines = {module: len(path.read_text().splitlines()) for module, path in MODULES.items()}
    assert {module: n for module, n in lines.items() if n > MAX_LINES} == {}


def _reached(start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += GRAPH[module]
    return seen


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith(f"{PACKAGE}.spec")))
def test_the_neutral_spec_reaches_no_cloud_module(module: str) -> None:
    clouds = {m for m in _reached(module) if m.split(".")[2] in {"aws", "alicloud", "k8s"}}
    assert clouds == set()


def test_validating_an_aws_config_imports_no_aws_module() -> None:
    program = (
        "import json, sys\n"
        "from gpu_cloud.components.spec import parse_stack_config\n"
        "parse_stack_config(json.loads(sys.argv[1]))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('gpu_cloud.components.aws', 'pulumi_aws'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, json.dumps(BASE)], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout == "[]\n"
