"""mypy follows the subpackages of the provider SDKs the project uses and skips the others (pyproject.toml
[tool.mypy]): exactly those.

pulumi_aws and pulumi_alicloud import every subpackage in their ``__init__`` under ``TYPE_CHECKING``, so mypy would
analyse all of them: 240 and 151 subpackages, three quarters of a cold mypy run (bench/README.md). A skipped
subpackage is typed ``Any`` wherever it is used, so this test fails as soon as the code uses one of them (remove it
from the list) or an SDK upgrade brings one that is not listed (add it); the message gives the list to paste.
"""

from __future__ import annotations

import ast
import importlib.util
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SDKS = ("pulumi_aws", "pulumi_alicloud")
CHECKED = ("gpu_cloud", "stacks", "bootstrap")
"""What make lint type-checks ([tool.mypy] files, and ``mypy bootstrap``)."""


def used_subpackages(sources: Iterable[str] | None = None) -> dict[str, set[str]]:
    """SDK package -> the names the checked code (or ``sources``) takes from it: ``aws.ec2``, ``from pulumi_aws
    import ec2``, ``import pulumi_aws.ec2``, ``from pulumi_aws.ec2 import Vpc``."""
    if sources is None:
        sources = (p.read_text(encoding="utf-8") for folder in CHECKED for p in (ROOT / folder).rglob("*.py"))
    used: dict[str, set[str]] = defaultdict(set)
    for source in sources:
        tree = ast.parse(source)
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for name in node.names:
                    package, _, sub = name.name.partition(".")
                    if package in SDKS:
                        aliases[name.asname or package] = package
                        if sub:
                            used[package].add(sub.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in SDKS:
                package, _, sub = node.module.partition(".")
                used[package] |= {sub.split(".")[0]} if sub else {name.name for name in node.names}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                used[aliases[node.value.id]].add(node.attr)
    return used


def skipped_subpackages() -> list[str]:
    """The SDK subpackages [tool.mypy] of pyproject.toml skips (``pulumi_aws.acm.*``, ...)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [skip] = [o for o in config["tool"]["mypy"]["overrides"] if o.get("follow_imports") == "skip"]
    return list(skip["module"])


def subpackages(package: str) -> set[str]:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations
    (folder,) = (Path(location) for location in spec.submodule_search_locations)
    return {p.name for p in folder.iterdir() if (p / "__init__.py").is_file()}


def test_mypy_skips_exactly_the_sdk_subpackages_the_code_does_not_use() -> None:
    skip = skipped_subpackages()
    used = used_subpackages()
    expected = sorted(f"{p}.{s}.*" for p in SDKS for s in subpackages(p) - used[p])
    assert {p: sorted(used[p] & subpackages(p)) for p in SDKS}  # the code does use some of each
    listed, wanted = set(skip), set(expected)
    assert not listed - wanted, f"used by the code now, or gone: remove from [tool.mypy] {listed - wanted}"
    assert not wanted - listed, f"not used by the code: add to [tool.mypy] {wanted - listed}"
    assert skip == expected, "keep the list sorted"
