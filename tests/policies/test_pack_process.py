"""The pack process: started as the CLI starts it, never outliving the call."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

import gpu_cloud.planner.policy
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.policy import PolicyPack, PolicyPackError, run_policy_pack
from tests.policies.wire import stack_resource


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[str]]:
    """Every pack process `run_policy_pack` starts."""
    processes: list[subprocess.Popen[str]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[str]:
        process = real_popen(*args, **kwargs)
        processes.append(process)
        return process

    monkeypatch.setattr(gpu_cloud.planner.policy.subprocess, "Popen", popen)
    return processes


def test_started_with_the_cli_entry_point_in_the_pack_folder(pack_dir: Path, started: list[Any]) -> None:
    run_policy_pack(pack_dir, [stack_resource("dev")], project="gpu-cloud", stack="dev")
    [process] = started
    assert process.args[1:4] == ["-u", "-m", "pulumi.policy"] and process.args[5] == "."
    assert process.poll() is not None


def test_pack_is_stopped_on_keyboard_interrupt(
    pack_dir: Path, started: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(self: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(gpu_cloud.planner.policy._Session, "analyze", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_policy_pack(pack_dir, [stack_resource("dev")], project="gpu-cloud", stack="dev")
    [process] = started
    assert process.poll() is not None


def test_pack_is_stopped_when_the_config_is_invalid(pack_dir: Path, started: list[Any]) -> None:
    with pytest.raises(PlanError):
        run_policy_pack(
            pack_dir,
            [stack_resource("dev")],
            project="gpu-cloud",
            stack="dev",
            config={"kms-key-rotation": {"maxRotationDays": -1}},
        )
    [process] = started
    assert process.poll() is not None


def test_a_pack_started_for_a_plan_is_stopped_when_the_program_fails(pack_dir: Path, started: list[Any]) -> None:
    with pytest.raises(RuntimeError, match="program failed"), PolicyPack.start(pack_dir, project="p", stack="dev"):
        raise RuntimeError("program failed")
    [process] = started
    assert process.poll() is not None


def test_a_folder_without_pulumipolicy_yaml_is_a_plan_error(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="not a policy pack"):
        run_policy_pack(tmp_path, [], project="p", stack="s")


def test_a_pack_that_fails_to_start_reports_its_stderr(tmp_path: Path) -> None:
    (tmp_path / "PulumiPolicy.yaml").write_text("name: broken\nruntime: python\n", encoding="utf-8")
    (tmp_path / "__main__.py").write_text("raise RuntimeError('pack is broken')\n", encoding="utf-8")
    with pytest.raises(PolicyPackError, match="pack is broken"):
        run_policy_pack(tmp_path, [], project="p", stack="s")
