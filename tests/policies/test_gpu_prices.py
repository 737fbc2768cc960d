"""The pack's copy of the catalog prices (gpucloud_rules/gpu_prices.json) matches the catalog."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from tests.policies.conftest import PACK_DIR


def _generator() -> ModuleType:
    path = PACK_DIR / "scripts" / "generate_gpu_prices.py"
    spec = importlib.util.spec_from_file_location("generate_gpu_prices", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_prices_match_the_catalog() -> None:
    generator = _generator()
    committed = generator.OUTPUT.read_text(encoding="utf-8")
    assert committed == generator.render(), "run: python gpu_cloud/policies/scripts/generate_gpu_prices.py"
