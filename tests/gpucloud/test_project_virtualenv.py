"""``gpucloud plan`` runs a program with the interpreter of the virtualenv its Pulumi.yaml declares, as the CLI."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_cloud.planner.cli import main
from tests.gpucloud.conftest import MakeProject

PULUMI_YAML = "name: tiny\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n"


def _virtualenv(root: Path, *, with_gpu_cloud: bool) -> Path:
    """A virtualenv at ``root/venv``; with gpu-cloud, it sees this one's packages (through a .pth file)."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    (packages,) = (venv / "lib").glob("python3*/site-packages")
    if with_gpu_cloud:
        (packages / "this-environment.pth").write_text(
            "".join(f"import site; site.addsitedir({p!r})\n" for p in site.getsitepackages())
        )
    (packages / "only_in_project_venv.py").write_text("MARKER = 'project venv'\n")
    return venv


def test_the_program_runs_in_the_declared_virtualenv(
    make_project: MakeProject, capfd: pytest.CaptureFixture[str]
) -> None:
    program = """
        import sys
        import pulumi
        import only_in_project_venv
        pulumi.export("prefix", sys.prefix)
        pulumi.export("marker", only_in_project_venv.MARKER)
    """
    root = make_project(program, pulumi_yaml=PULUMI_YAML)
    venv = _virtualenv(root, with_gpu_cloud=True)
    assert main(["plan", "--dir", str(root), "--no-policy", "--json"]) == 0
    out = capfd.readouterr().out
    assert f'"prefix": "{venv}"' in out
    assert '"marker": "project venv"' in out


def test_a_declared_virtualenv_that_does_not_exist_is_invalid_input(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project("import pulumi\n", pulumi_yaml=PULUMI_YAML)
    assert main(["plan", "--dir", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"runtime.options.virtualenv: {root / 'venv'} is not a virtual environment (no bin/python)" in err


def test_a_declared_virtualenv_without_gpu_cloud_says_to_install_it(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project("import pulumi\n", pulumi_yaml=PULUMI_YAML)
    _virtualenv(root, with_gpu_cloud=False)
    assert main(["plan", "--dir", str(root)]) == 2
    assert "has no gpu-cloud installed" in capsys.readouterr().err
