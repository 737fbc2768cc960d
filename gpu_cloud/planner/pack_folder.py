"""The folder ``gpucloud policy-path`` gives the Pulumi CLI: a copy of the installed policy pack, outside the install.

The Pulumi CLI runs a Python pack in a virtualenv it creates in the pack's own folder on first use (the pack's
PulumiPolicy.yaml: ``toolchain: pip``, ``virtualenv: venv``; pulumi/pulumi ``sdk/python/toolchain/pip.go``
``InstallDependencies``: ``python -m venv``, then ``pip install -r requirements.txt``; read 2026-12-03). Pointed at
the installed package, that writes some 85 MB into site-packages, which uninstalling gpu-cloud leaves behind and an
upgrade would reuse with the old pins (ecosystem review F13). So the CLI gets a copy instead, in the user's cache
(``$XDG_CACHE_HOME``, else ``~/.cache``; XDG Base Directory Specification 0.8,
https://specifications.freedesktop.org/basedir-spec/latest/, read 2026-12-03), in a folder named after gpu-cloud's
version and a digest of the pack's files: an upgrade, or any change of the pack, gets a new folder and so a fresh
virtualenv with its own pins, and the same pack keeps the virtualenv it already has.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from gpu_cloud.planner.model import PlanError

__all__ = ["cache_root", "writable_copy"]

_LEFT_OUT = frozenset({"venv", "__pycache__", "scripts"})
"""What is not part of the pack the CLI runs: the CLI's own virtualenv (in a checkout), bytecode, and the
development scripts the wheel does not ship either (pyproject.toml ``exclude``)."""


def cache_root() -> Path:
    """Where the copies live: ``$XDG_CACHE_HOME/gpu-cloud/policy-packs`` (``~/.cache`` when that is unset or not
    absolute, as the XDG specification says)."""
    configured = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(configured) if os.path.isabs(configured) else Path.home() / ".cache"
    return base / "gpu-cloud" / "policy-packs"


def writable_copy(pack: Path, version: str) -> Path:
    """The copy of ``pack`` for gpu-cloud ``version``, made now unless it exists already.

    Raises:
        PlanError: the cache folder cannot be written (the message names it and says how to choose another).
    """
    files = sorted(_pack_files(pack))
    digest = hashlib.sha256()
    for relative in files:
        digest.update(relative.as_posix().encode() + b"\0" + (pack / relative).read_bytes() + b"\0")
    target = cache_root() / f"{version}-{digest.hexdigest()[:16]}"
    if target.is_dir():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".partial-", dir=target.parent))
        for relative in files:
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(pack / relative, staging / relative)
        try:
            staging.rename(target)  # whole or not at all: another run may have made the same copy meanwhile
        except OSError:
            shutil.rmtree(staging)
            if not target.is_dir():
                raise
    except OSError as err:
        raise PlanError(
            f"cannot copy the policy pack to {target.parent}: {err.strerror or err}; set XDG_CACHE_HOME to a "
            "writable folder"
        ) from None
    return target


def _pack_files(pack: Path) -> list[Path]:
    """The pack's files, relative to it."""
    found = []
    for folder, subfolders, names in os.walk(pack):
        subfolders[:] = [name for name in subfolders if name not in _LEFT_OUT]
        found += [(Path(folder) / name).relative_to(pack) for name in names if not name.endswith(".pyc")]
    return found
