"""``gpucloud plan`` runs a program with the interpreter of the virtualenv its Pulumi.yaml declares, as the CLI."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path

import pytest

from gpu_cloud.planner.cli import main
from gpu_cloud.planner.project import load_project
from tests.gpucloud.conftest import MakeProject

PULUMI_YAML = "name: tiny\nruntime:\n  name: python\n  options:\n    toolchain: pip\n    virtualenv: venv\n"


def _virtualenv(root: Path, *, with_gpu_cloud: bool, name: str = "venv") -> Path:
    """A virtualenv at ``root/name``; with gpu-cloud, it sees this one's packages (through a .pth file)."""
    venv = root / name
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
    assert f"the program's virtualenv {root / 'venv'} (declared by `virtualenv`, or the uv toolchain's" in err


def test_a_declared_virtualenv_without_gpu_cloud_says_to_install_it(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project("import pulumi\n", pulumi_yaml=PULUMI_YAML)
    _virtualenv(root, with_gpu_cloud=False)
    assert main(["plan", "--dir", str(root)]) == 2
    assert "has no gpu-cloud installed" in capsys.readouterr().err


PROGRAM = """
    import sys
    import pulumi
    import only_in_project_venv
    pulumi.export("prefix", sys.prefix)
"""


def test_under_the_uv_toolchain_without_a_virtualenv_the_program_runs_in_the_implied_venv(
    make_project: MakeProject, capfd: pytest.CaptureFixture[str]
) -> None:
    # uv.go newUv: no virtualenv option, so <folder of the nearest uv.lock>/.venv, as `pulumi install` makes it.
    pulumi_yaml = "name: tiny\nruntime:\n  name: python\n  options:\n    toolchain: uv\n"
    root = make_project(PROGRAM, pulumi_yaml=pulumi_yaml)
    (root / "uv.lock").write_text("version = 1\n")
    venv = _virtualenv(root, with_gpu_cloud=True, name=".venv")
    assert main(["plan", "--dir", str(root), "--no-policy", "--json"]) == 0
    assert f'"prefix": "{venv}"' in capfd.readouterr().out


@pytest.mark.parametrize(
    ("toolchain", "files", "expected"),
    [
        # uv without a virtualenv: beside the nearest uv.lock above the program, else pyproject.toml, else the program.
        ("uv", ("outer/uv.lock", "outer/project/pyproject.toml"), "outer/.venv"),
        ("uv", ("outer/project/pyproject.toml",), "outer/project/.venv"),
        ("uv", (), "outer/project/src/.venv"),
        # No toolchain: uv when a uv.lock is above the program (toolchain.go ResolveToolchain, Auto), else pip.
        (None, ("outer/uv.lock",), "outer/.venv"),
        (None, ("outer/project/pyproject.toml",), None),
        ("pip", ("outer/uv.lock",), None),
        ("poetry", ("outer/uv.lock",), None),
    ],
)
def test_the_virtualenv_the_cli_implies(
    tmp_path: Path, toolchain: str | None, files: tuple[str, ...], expected: str | None
) -> None:
    root = tmp_path / "outer" / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "__main__.py").write_text("")
    options = f"  options:\n    toolchain: {toolchain}\n" if toolchain else ""
    (root / "Pulumi.yaml").write_text(f"name: tiny\nmain: src\nruntime:\n  name: python\n{options}")
    for name in files:
        (tmp_path / name).write_text("")
    assert load_project(root).virtualenv == (None if expected is None else tmp_path / expected)


def test_uv_project_environment_names_the_implied_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "__main__.py").write_text("")
    (tmp_path / "uv.lock").write_text("")
    (tmp_path / "Pulumi.yaml").write_text("name: tiny\nruntime:\n  name: python\n  options:\n    toolchain: uv\n")
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", "envs/plan")
    assert load_project(tmp_path).virtualenv == tmp_path / "envs" / "plan"
    # A declared virtualenv wins, relative to the project root.
    (tmp_path / "Pulumi.yaml").write_text(
        "name: tiny\nruntime:\n  name: python\n  options:\n    toolchain: uv\n    virtualenv: v\n"
    )
    assert load_project(tmp_path).virtualenv == tmp_path / "v"


def test_an_unknown_toolchain_is_invalid_input(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project("", pulumi_yaml="name: tiny\nruntime:\n  name: python\n  options:\n    toolchain: npm\n")
    assert main(["plan", "--dir", str(root)]) == 2
    assert "runtime.options.toolchain: must be one of pip, poetry, uv (got 'npm')" in capsys.readouterr().err
