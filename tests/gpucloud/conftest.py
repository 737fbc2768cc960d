"""Fixtures: tiny Pulumi projects written to a temporary folder."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

MakeProject = Callable[..., Path]


@pytest.fixture
def make_project(tmp_path: Path) -> MakeProject:
    """Write a Pulumi project: ``program`` as __main__.py, ``stacks`` as name -> Pulumi.<name>.yaml text."""

    def make(program: str, stacks: dict[str, str] | None = None, pulumi_yaml: str | None = None) -> Path:
        root = tmp_path / "project"
        root.mkdir(exist_ok=True)
        (root / "Pulumi.yaml").write_text(pulumi_yaml or "name: tiny\nruntime: python\n")
        (root / "__main__.py").write_text(textwrap.dedent(program))
        for name, text in (stacks or {}).items():
            (root / f"Pulumi.{name}.yaml").write_text(textwrap.dedent(text))
        return root

    return make
