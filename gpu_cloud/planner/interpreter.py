"""Run a project's plan with the interpreter of the virtual environment the Pulumi CLI would run its program in.

The Pulumi CLI runs a Python program with the ``python`` of the project's virtualenv: the one
``runtime.options.virtualenv`` declares, or the ``.venv`` the uv toolchain implies (`gpucloud.project.
implied_virtualenv`; sdk/python/toolchain: pip.go ``Command`` runs ``<virtualenv>/bin/python``, uv.go ``Command``
runs ``<virtualenv>/bin/python`` with the virtualenv activated; https://github.com/pulumi/pulumi, read
2026-12-03), so the program sees the packages installed there, at their versions. ``gpucloud plan`` does the
same: run from another environment, it runs itself again with that interpreter, which therefore needs
gpu-cloud installed (it usually has: the program imports the components from it).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.project import Project

__all__ = ["in_project_interpreter"]


def in_project_interpreter(project: Project, argv: Sequence[str]) -> int | None:
    """Run ``gpucloud <argv>`` with the project's interpreter; None when this process already is it.

    Returns:
        The exit status of that run (its output is passed through), or None: the project has no virtualenv
        (the ambient interpreter runs it), or this process runs in it.

    Raises:
        PlanError: the virtualenv does not exist, or has no gpu-cloud installed.
    """
    if project.virtualenv is None or _same(project.virtualenv, Path(sys.prefix)):
        return None
    python = project.virtualenv / "bin" / "python"
    if not python.is_file():
        raise PlanError(
            f"{project.root / 'Pulumi.yaml'}: runtime.options: the program's virtualenv {project.virtualenv} (declared"
            " by `virtualenv`, or the uv toolchain's .venv) is not a virtual environment (no bin/python); create it"
            " first, as `pulumi install` does"
        )
    # -P: the current folder is not put on sys.path, so only the virtualenv's gpu-cloud counts.
    result = subprocess.run(
        [str(python), "-P", "-m", "gpu_cloud.planner", *argv], capture_output=True, text=True, check=False
    )
    if result.returncode == 1 and "No module named 'gpu_cloud'" in result.stderr:
        raise PlanError(
            f"the project's virtualenv {project.virtualenv} (runtime.options) has no gpu-cloud installed; the program"
            " runs there, as under the Pulumi CLI: install gpu-cloud in it"
        )
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    return result.returncode


def _same(virtualenv: Path, prefix: Path) -> bool:
    return virtualenv.resolve() == prefix.resolve()
