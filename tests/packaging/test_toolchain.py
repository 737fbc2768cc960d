"""One toolchain: the Pulumi projects, the Makefile and the policy pack agree on how environments are made.

Pulumi's uv toolchain runs ``uv sync`` with ``UV_PROJECT_ENVIRONMENT=<virtualenv>`` for ``pulumi install`` and
before ``pulumi up`` (sdk/python/toolchain/uv.go, https://github.com/pulumi/pulumi, read 2026-12-02); its pip
toolchain, which a Python policy pack uses here, runs ``python -m venv <virtualenv>`` and
``pip install -r requirements.txt`` in the pack's folder (pip.go, same date).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import record
from gpu_cloud.planner.policy import PolicyPack
from tests.packaging import aws_key_program
from tests.packaging.conftest import ROOT, UV, tracked_copy, uv


def _runtime_options(path: Path) -> dict[str, str]:
    options = yaml.safe_load(path.read_text(encoding="utf-8"))["runtime"]["options"]
    assert isinstance(options, dict)
    return options


def _uv(*args: str, cwd: Path, environment: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "UV_PROJECT_ENVIRONMENT": str(environment), "UV_PYTHON_DOWNLOADS": "never"}
    return subprocess.run([str(UV), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_both_projects_declare_uv_on_the_venv_make_created() -> None:
    root, bootstrap = _runtime_options(ROOT / "Pulumi.yaml"), _runtime_options(ROOT / "bootstrap" / "Pulumi.yaml")
    assert (root["toolchain"], bootstrap["toolchain"]) == ("uv", "uv")
    venv = (ROOT / root["virtualenv"]).resolve()
    assert (ROOT / "bootstrap" / bootstrap["virtualenv"]).resolve() == venv
    assert Path(sys.prefix).resolve() == venv  # the tests run in the environment `make` made


def test_the_lock_file_is_up_to_date_with_pyproject() -> None:
    result = _uv("lock", "--check", "--offline", cwd=ROOT, environment=Path(sys.prefix))
    assert result.returncode == 0, result.stderr


def test_pulumi_install_changes_nothing_in_the_venv_make_check_uses() -> None:
    # What `pulumi install` runs for each project, from its own folder, on its declared virtualenv.
    for project in (ROOT, ROOT / "bootstrap"):
        result = _uv("sync", "--dry-run", "--offline", cwd=project, environment=Path(sys.prefix))
        assert result.returncode == 0, result.stderr
        assert "Would make no changes" in result.stderr, result.stderr
    for tool in ("ruff", "mypy", "pytest", "gpucloud", "uv"):
        assert (Path(sys.prefix) / "bin" / tool).is_file()


def _requirement_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("#")]


def test_the_pack_requirements_pin_the_versions_of_the_lock() -> None:
    result = _uv(
        "export", "--frozen", "--only-group", "policy-pack", "--no-emit-project", "--no-hashes",
        cwd=ROOT, environment=Path(sys.prefix),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    committed = (POLICY_PACK / "requirements.txt").read_text(encoding="utf-8")
    assert _requirement_lines(committed) == _requirement_lines(result.stdout)
    assert {"pulumi", "pulumi-policy"} <= {
        line.split("==")[0] for line in _requirement_lines(committed) if "==" in line
    }


def make_pack_virtualenv(pack: Path) -> Path:
    """The pack's virtualenv as the CLI's pip toolchain makes it: ``python -m venv``, then requirements.txt.

    uv installs the requirements (from its cache when it can) where the CLI would run pip: the same pinned file.
    """
    options = _runtime_options(pack / "PulumiPolicy.yaml")
    assert options["toolchain"] == "pip"
    venv = pack / options["virtualenv"]
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run(
        [str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
         "-r", str(pack / "requirements.txt")],
        check=True, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
    )  # fmt: skip
    return venv


def test_the_pack_runs_from_a_checkout_in_the_virtualenv_the_cli_makes(tmp_path: Path) -> None:
    pack = tmp_path / "policies"
    shutil.copytree(POLICY_PACK, pack, ignore=shutil.ignore_patterns("venv", "__pycache__", "scripts"))
    venv = make_pack_virtualenv(pack)
    probe = subprocess.run([str(venv / "bin" / "python"), "-c", "import gpu_cloud"], cwd=pack, capture_output=True)
    assert probe.returncode == 1  # the pack stands on its requirements alone
    plan = record(aws_key_program.program)
    with PolicyPack.start(pack, project="test", stack="test") as running:
        report = running.analyze(plan.resources)
    assert {(v.policy, v.name) for v in report.violations if v.level == "mandatory"} == {("kms-key-rotation", "key")}


def test_pulumi_install_on_a_fresh_checkout_leaves_make_check_its_tools(tmp_path: Path) -> None:
    # A clone where `make` has made .venv (uv sync; the stamp make checks), then, for each project, what
    # `pulumi install` runs (uv sync) and what `pulumi up` runs before the program (uv sync --inexact), from the
    # project's folder on the virtualenv its Pulumi.yaml declares (uv.go InstallDependencies and Command).
    clone = tracked_copy(tmp_path / "clone")
    venv = clone / ".venv"
    uv("sync", "--quiet", "--python", sys.executable, cwd=clone, environment=venv)
    (venv / ".installed").touch()
    lock = (clone / "uv.lock").read_bytes()
    for project in (clone, clone / "bootstrap"):
        declared = (project / _runtime_options(project / "Pulumi.yaml")["virtualenv"]).resolve()
        assert declared == venv.resolve()
        for sync in (["sync"], ["sync", "--inexact"]):
            uv(*sync, "--quiet", cwd=project, environment=declared)
    assert (clone / "uv.lock").read_bytes() == lock
    stale = subprocess.run(["make", "-q", ".venv/.installed"], cwd=clone, capture_output=True, check=False)
    assert stale.returncode == 0  # make does not rebuild the environment
    for tool in ("ruff", "mypy", "pytest", "gpucloud", "uv"):
        result = subprocess.run([str(venv / "bin" / tool), "--version"], capture_output=True, check=False)
        assert result.returncode == 0, (tool, result.stderr)
    imports = "import hypothesis, kubernetes_validate, moto, parliament, pulumi_alicloud, pulumi_aws, yaml"
    assert subprocess.run([str(venv / "bin" / "python"), "-c", imports], check=False).returncode == 0
