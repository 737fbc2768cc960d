"""Vendor a Helm chart's ``Chart.yaml`` and ``values.yaml`` at its release tag, byte for byte, with their source.

Usage (a git directory of the chart's repository at hand; nothing else is read):
    python tests/charts/vendor.py GIT_DIR TAG CHART_DIR URL_BASE
e.g.
    python tests/charts/vendor.py /work/.mirror/kubernetes-sigs+kueue/repo v0.19.2 charts/kueue \
        https://github.com/kubernetes-sigs/kueue/blob/v0.19.2

Writes ``tests/charts/<name>-<version>/`` (name and version from the Chart.yaml at the tag): ``Chart.yaml``,
``values.yaml`` and ``SOURCE.json`` (the URL of each file at the tag, the tag's commit and the date it was read).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
FILES = ("Chart.yaml", "values.yaml")


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True).stdout


def vendor(git_dir: str, tag: str, chart_dir: str, url_base: str) -> Path:
    """Write the vendored directory of the chart at ``chart_dir`` in ``git_dir`` at ``tag``; return its path."""
    texts = {f: _git(git_dir, "show", f"{tag}:{chart_dir}/{f}") for f in FILES}
    chart = yaml.safe_load(texts["Chart.yaml"])
    target = HERE / f"{chart['name']}-{chart['version']}"
    target.mkdir(exist_ok=True)
    for name, text in texts.items():
        (target / name).write_text(text)
    source = {
        "chart": chart["name"],
        "version": str(chart["version"]),
        "tag": tag,
        "commit": _git(git_dir, "rev-list", "-n", "1", tag).strip(),
        "urls": {f: f"{url_base}/{chart_dir}/{f}" for f in FILES},
        "read": datetime.date.today().isoformat(),
    }
    (target / "SOURCE.json").write_text(json.dumps(source, indent=1, sort_keys=True) + "\n")
    return target


if __name__ == "__main__":
    print(vendor(*sys.argv[1:5]))
