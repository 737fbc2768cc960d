"""The distribution as a user gets it: the wheel built from the tracked files, installed with both cloud extras into a
fresh virtual environment in a temporary folder (one per test session).

uv builds and installs from its cache (``--offline``); only when the cache lacks something (a first run on a new
machine) does it fetch it, once. The install is constrained to the versions of uv.lock.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.prefix) / "bin" / "uv"
USER_PROJECT = Path(__file__).resolve().parent / "user_project"


def uv(*args: str, cwd: Path = ROOT, environment: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run uv from its cache; retried online only if the cache lacks something the command needs."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    if environment is not None:
        env["UV_PROJECT_ENVIRONMENT"] = str(environment)
    command = [str(UV), *args]
    result = subprocess.run([*command, "--offline"], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0 and "network" in result.stderr.lower():
        result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result


def tracked_copy(destination: Path) -> Path:
    """The repository's tracked (and new, unignored) files copied to ``destination``: what a clone has."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


@dataclass(frozen=True)
class Installed:
    """The built wheel and the fresh virtual environment it is installed in."""

    wheel: Path
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run(self, tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        """Run a console script or ``python`` of the environment, as a user's shell with it activated would.

        Without CI's PYTHONDONTWRITEBYTECODE: the environment is a temporary one, installed without bytecode, and
        with it set each process (a plan, its pack) would compile again every SDK module it imports.
        """
        left_out = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in os.environ.items() if k not in left_out}
        env["PATH"] = f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["XDG_CACHE_HOME"] = str(self.venv.parent / "cache")  # where `gpucloud policy-path` copies the pack
        return subprocess.run(
            [str(self.venv / "bin" / tool), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
        )


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    source = tracked_copy(tmp_path_factory.mktemp("source"))
    dist = tmp_path_factory.mktemp("dist")
    uv("build", "--quiet", "--out-dir", str(dist), cwd=source)  # the sdist, then the wheel built from it
    (wheel,) = dist.glob("gpu_cloud-*.whl")
    constraints = dist / "constraints.txt"
    uv("export", "--frozen", "--no-dev", "--all-extras", "--no-emit-project", "--no-hashes", "--quiet",
       "-o", str(constraints))  # fmt: skip
    venv = tmp_path_factory.mktemp("installed") / "venv"
    uv("venv", "--quiet", "--python", sys.executable, str(venv))
    uv("pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), "-c", str(constraints),
       f"gpu-cloud[aws,alicloud] @ {wheel.as_uri()}")  # fmt: skip
    return Installed(wheel, venv)


@pytest.fixture(scope="session")
def user_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The team's project (tests/packaging/user_project) in a folder of its own, outside the repository."""
    return Path(shutil.copytree(USER_PROJECT, tmp_path_factory.mktemp("team") / "team-platform"))
