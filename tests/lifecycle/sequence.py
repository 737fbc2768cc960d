"""Run docs/deploy.md's command sequence: its fenced ``sh`` blocks, read from the page itself, with bash.

The commands are the page's own, run in order in one shell per cloud (so that a variable set by one block is there in
the next, as for a person following the page), in a copy of the repository, with ``pulumi``, ``aws``, ``aliyun``,
``git``, ``make``, ``curl`` and ``sleep`` on the PATH as models (tests/lifecycle/stub.py). A command the models do not
know fails the rehearsal, so the page cannot say what the rehearsal does not run.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from tests.lifecycle.world import World, deployed_files

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "deploy.md"
COMMANDS = ("pulumi", "aws", "aliyun", "ossutil", "git", "make", "curl", "sleep")
"""The commands the models stand for; everything else is the machine's own (bash, its builtins, coreutils)."""
SECTIONS = {"aws": "## AWS: the command sequence", "alicloud": "## Alibaba Cloud: the command sequence"}
COPIED = ("Pulumi.yaml", "stacks", "bootstrap", "docs")
"""What a checkout holds that the sequence reads or changes (the library itself is the installed package)."""

_FENCE = re.compile(r"^```sh\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def blocks(cloud: str) -> list[str]:
    """The ``sh`` blocks of ``cloud``'s section of docs/deploy.md, in order."""
    text = DOC.read_text()
    heading = SECTIONS[cloud]
    start = text.index(heading)
    following = text.find("\n## ", start + len(heading))
    section = text[start : None if following < 0 else following]
    return [m.group(1) for m in _FENCE.finditer(section)]


@dataclass
class Rehearsal:
    """One run of a cloud's sequence: the shell's result and the world it left."""

    returncode: int
    stdout: str
    stderr: str
    world: World
    checkout: Path

    def explain(self) -> str:
        failed = [
            f"{run_id} ({run['project']}): {run.get('reason', '')}"
            for run_id, run in self.world.builds.items()
            if run["status"] in ("FAILED", "Failed")
        ]
        return (
            f"exit {self.returncode}\n{self.stderr[-6000:]}\nwhat happened:\n  "
            + "\n  ".join(self.world.log)
            + ("\nfailed builds and runner invocations:\n  " + "\n  ".join(failed) if failed else "")
        )


def rehearse(
    cloud: str, workdir: Path, *, script: str | None = None, checkout: Path | None = None, world: World | None = None
) -> Rehearsal:
    """Run ``cloud``'s sequence (or ``script``) in a fresh copy of the repository under ``workdir`` (or in
    ``checkout``), from a new world (or ``world``)."""
    fresh = checkout is None
    if checkout is None:
        checkout = workdir / "checkout"
        for name in COPIED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                checkout.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, checkout / name)
    stubs = workdir / "bin"
    stubs.mkdir(exist_ok=True)
    for command in COMMANDS:
        shim = stubs / command
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tests.lifecycle.stub {command} "$@"\n')
        shim.chmod(0o755)
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    world_file = workdir / "world.json"
    world = world if world is not None else World()
    if fresh or not world.committed:  # a fresh copy of the repository holds what is committed
        world = replace(world, committed=deployed_files(checkout))
    world.save(world_file)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "REHEARSAL_WORLD": str(world_file),
        "REHEARSAL_ROOT": str(checkout),
        "LANG": "C.UTF-8",
    }
    script = "set -euo pipefail\n" + (script if script is not None else "\n".join(blocks(cloud)))
    done = subprocess.run(
        ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, check=False, timeout=1800
    )
    return Rehearsal(done.returncode, done.stdout, done.stderr, World.load(world_file), checkout)


__all__ = ["DOC", "ROOT", "Rehearsal", "blocks", "rehearse"]
