"""The pack's copy of the catalog prices (gpucloud_rules/gpu_prices.json) matches the catalog."""

from __future__ import annotations

from tests.policies.conftest import pack_script


def test_committed_prices_match_the_catalog() -> None:
    generator = pack_script("generate_gpu_prices")
    committed = generator.OUTPUT.read_text(encoding="utf-8")
    assert committed == generator.render(), "run: python gpu_cloud/policies/scripts/generate_gpu_prices.py"
