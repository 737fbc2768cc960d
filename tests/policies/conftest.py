"""Shared fixtures of the policy tests: where the pack is."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

PACK_DIR = Path(__file__).resolve().parents[2] / "gpu_cloud" / "policies"


@pytest.fixture(scope="session")
def pack_dir() -> Path:
    """The policy pack folder."""
    return PACK_DIR


def pack_script(name: str) -> ModuleType:
    """The pack's ``scripts/<name>.py``, loaded as a module (the scripts folder is not a package)."""
    spec = importlib.util.spec_from_file_location(name, PACK_DIR / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
