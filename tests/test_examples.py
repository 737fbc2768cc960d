"""The examples compile and follow the checkpoint pattern the docs describe (torch is not installed here)."""

from __future__ import annotations

import ast
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ddp_checkpoint.py"


def _names(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
    return found


def test_the_ddp_example_compiles_and_uses_ddp_torch_amp_rank_0_saves_sigterm_and_resume() -> None:
    tree = ast.parse(EXAMPLE.read_text(), filename=str(EXAMPLE))
    compile(tree, str(EXAMPLE), "exec")
    names = _names(tree)
    assert {"DistributedDataParallel", "autocast", "GradScaler", "save", "load", "SIGTERM", "get_rank"} <= names
    assert "apex" not in EXAMPLE.read_text().split('"""', 2)[2]
