"""Shared fixtures of the policy tests: where the pack is."""

from __future__ import annotations

from pathlib import Path

import pytest

PACK_DIR = Path(__file__).resolve().parents[2] / "gpu_cloud" / "policies"


@pytest.fixture(scope="session")
def pack_dir() -> Path:
    """The policy pack folder."""
    return PACK_DIR
