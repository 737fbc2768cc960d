"""What every test process shares: the garbage collector's thresholds of a ``gpucloud`` run.

A test process imports the provider SDKs (hundreds of thousands of long-lived objects) and plans many programs;
with the default thresholds the full collections traverse all of it again and again, as in a plan
(`gpucloud.cli.GC_THRESHOLDS`; bench/README.md has the figures).
"""

from __future__ import annotations

import gc

import pytest

from gpu_cloud.planner.cli import GC_THRESHOLDS


def pytest_configure(config: pytest.Config) -> None:
    gc.set_threshold(*GC_THRESHOLDS)
