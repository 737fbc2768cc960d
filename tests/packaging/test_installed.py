"""gpu-cloud as a user installs it: the built wheel in a fresh virtual environment, used by a project of the user's
own that has its own ``components/`` and ``policies/`` folders and its own config namespace (user_project/)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.packaging.conftest import ROOT, Installed, uv
from tests.packaging.test_toolchain import make_pack_virtualenv
from tests.test_type_checking_scope import skipped_subpackages, used_subpackages

RUNNER = Path(__file__).resolve().parent / "pulumi_runner.py"

# What the user's program declares, among the 29 resources of its plan: its own key and provider, and the
# gpu-cloud components with children named after them.
USER_RESOURCES = {
    ("pulumi:pulumi:Stack", "team-platform-dev"),
    ("pulumi:providers:aws", "aws"),
    ("aws:kms/key:Key", "team-legacy"),
    ("gpucloud:aws:KmsKey", "team-kms"),
    ("aws:kms/key:Key", "team-kms-key"),
    ("aws:kms/alias:Alias", "team-kms-alias"),
    ("gpucloud:aws:PrivateNetwork", "team-net"),
    ("aws:ec2/vpc:Vpc", "team-net-vpc"),
    ("aws:ec2/subnet:Subnet", "team-net-private-0"),
    ("aws:ec2/subnet:Subnet", "team-net-private-1"),
}
# The team's unrotated key fails the mandatory rotation policy (two findings) and, unprotected, is advised on.
VERDICTS = {
    ("kms-key-rotation", "mandatory", "team-legacy"),
    ("protect-stateful", "advisory", "team-legacy"),
}


def test_the_wheel_installs_one_top_level_package(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        assert {name.split("/")[0] for name in names} == {"gpu_cloud", dist_info}
        assert wheel.read(f"{dist_info}/top_level.txt").decode().split() == ["gpu_cloud"]
    assert {"gpu_cloud/py.typed", f"{dist_info}/licenses/LICENSE"} <= set(names)
    assert not [n for n in names if n.startswith("gpu_cloud/policies/scripts/")]


def _plan_document(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    document = json.loads(result.stdout)
    assert isinstance(document, dict)
    return document


def _summary(document: dict[str, Any]) -> tuple[list[tuple[str, str]], set[tuple[str, str, str]]]:
    resources = [(r["type"], r["name"]) for r in document["resources"]]
    verdicts = {(v["policy"], v["level"], v["name"]) for v in document["violations"]}
    return resources, verdicts


@pytest.fixture(scope="module")
def gpucloud_plan(installed: Installed, user_project: Path) -> dict[str, Any]:
    result = installed.run("gpucloud", "plan", "dev", "--json", cwd=user_project)
    assert result.returncode == 1, result.stderr  # a mandatory violation
    return _plan_document(result)


def test_the_installed_gpucloud_plans_the_user_project_with_the_pack(gpucloud_plan: dict[str, Any]) -> None:
    resources, verdicts = _summary(gpucloud_plan)
    assert set(resources) >= USER_RESOURCES
    assert len(resources) == 29  # an endpoints-only network: 9 endpoints (eks, eks-auth, autoscaling: aws.md W3)
    assert verdicts == VERDICTS
    assert gpucloud_plan["outputs"] == {"slackChannel": "#gpu-oncall"}  # the project's own config key
    key = next(r for r in gpucloud_plan["resources"] if r["name"] == "team-kms-key")
    assert key["inputs"]["enableKeyRotation"] is True


def test_the_user_project_plans_under_a_pulumi_runner_emulation_with_the_installed_pack(
    installed: Installed, user_project: Path, gpucloud_plan: dict[str, Any]
) -> None:
    pack = Path(installed.run("gpucloud", "policy-path", cwd=user_project).stdout.strip())
    if not (pack / "venv").is_dir():
        make_pack_virtualenv(pack)  # what the CLI does on the pack's first use
    result = installed.run("python", str(RUNNER), "dev", cwd=user_project)
    assert result.returncode == 0, result.stderr
    document = _plan_document(result)
    # The program's own folders win for its own imports; gpu-cloud comes from the environment.
    site = installed.venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    assert document["modules"] == {
        "components": str(user_project / "components" / "__init__.py"),
        "policies": str(user_project / "policies" / "__init__.py"),
        "gpu_cloud": str(site / "gpu_cloud" / "__init__.py"),
    }
    assert _summary(document) == _summary(gpucloud_plan)
    assert document["outputs"] == gpucloud_plan["outputs"]


def _pins(text: str) -> set[str]:
    return {line for line in text.splitlines() if re.match(r"^[A-Za-z0-9_.-]+==", line)}


def test_policy_path_of_the_installed_package_is_a_pack_pinned_to_the_lock(
    installed: Installed, tmp_path: Path
) -> None:
    result = installed.run("gpucloud", "policy-path", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    pack = Path(result.stdout.strip())
    # A copy outside the installation, where the CLI may create the pack's virtualenv (ecosystem review F13).
    assert pack.is_relative_to(installed.venv.parent / "cache" / "gpu-cloud" / "policy-packs")
    assert {"PulumiPolicy.yaml", "__main__.py", "requirements.txt"} <= {p.name for p in pack.iterdir()}
    locked = uv("export", "--frozen", "--only-group", "policy-pack", "--no-emit-project", "--no-hashes").stdout
    pins = _pins((pack / "requirements.txt").read_text(encoding="utf-8"))
    assert pins == _pins(locked)
    assert {"pulumi-policy", "pulumi"} <= {pin.split("==")[0] for pin in pins}


def _programs() -> dict[str, str]:
    """The programs of another project the README and docs/components.md show, by file name."""
    found = {}
    for page in ("README.md", "docs/components.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        for program in re.findall(r'```python\n("""__main__\.py of another project.*?)```', text, re.DOTALL):
            found[f"program_{len(found)}.py"] = program
    return found


def test_the_documented_programs_pass_a_downstream_mypy_strict(installed: Installed, tmp_path: Path) -> None:
    programs = _programs()
    assert len(programs) == 3
    for name, program in programs.items():
        (tmp_path / name).write_text(program, encoding="utf-8")
    # The SDK subpackages neither gpu_cloud nor the programs use are skipped, as the project's own mypy skips them
    # (pyproject.toml; tests/test_type_checking_scope.py keeps the list exact for gpu_cloud): they are reached only
    # through pulumi_aws's and pulumi_alicloud's __init__, and analysing them was two thirds of this run.
    skipped = skipped_subpackages()
    used = used_subpackages(programs.values())
    assert not {f"{package}.{sub}.*" for package, subs in used.items() for sub in subs} & set(skipped)
    (tmp_path / "mypy.ini").write_text(f"[mypy]\n\n[mypy-{','.join(skipped)}]\nfollow_imports = skip\n")
    # A cache of its own (mypy revalidates entries by content hash).
    cache = ROOT / ".mypy_cache" / "downstream"
    result = subprocess.run(
        [str(Path(sys.prefix) / "bin" / "mypy"), "--strict", "--config-file", "mypy.ini",
         "--python-executable", str(installed.python), "--cache-dir", str(cache), *sorted(programs)],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith(f"Success: no issues found in {len(programs)} source files")
