"""Vendor the openAPIV3Schema of the CRDs whose objects the project declares, from a chart's source at its tag.

Usage (a clone of the chart's repository at hand; nothing else is read):
    python tests/crds/vendor.py REPO_DIR TAG CHART VERSION URL_BASE CRD_PATH [CRD_PATH ...]
e.g.
    python tests/crds/vendor.py kueue v0.19.2 kueue 0.19.2 https://github.com/kubernetes-sigs/kueue/blob/v0.19.2 \
        charts/kueue/templates/crd/kueue.x-k8s.io_resourceflavors.yaml

Each CRD becomes ``tests/crds/<group>_<plural>.json``: its source URL and the date it was read, the chart and version
that install it, group, kind, scope, and the schema of every served version. Helm template actions (``{{ ... }}``:
the licence header and metadata of Kueue's chart CRDs) are dropped before the YAML is read.
"""

from __future__ import annotations

import datetime
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent


def vendor(repo: str, tag: str, chart: str, version: str, url_base: str, path: str) -> Path:
    """Write the vendored file of the CRD at ``path`` in ``repo`` at ``tag``; return its path."""
    text = subprocess.run(["git", "-C", repo, "show", f"{tag}:{path}"], check=True, capture_output=True, text=True)
    crd = yaml.safe_load(re.sub(r"\{\{.*?\}\}", "", text.stdout, flags=re.DOTALL))
    spec = crd["spec"]
    out = {
        "source": f"{url_base}/{path}",
        "read": datetime.date.today().isoformat(),
        "chart": chart,
        "version": version,
        "group": spec["group"],
        "kind": spec["names"]["kind"],
        "scope": spec["scope"],
        "versions": {v["name"]: v["schema"]["openAPIV3Schema"] for v in spec["versions"] if v.get("served")},
    }
    target = HERE / f"{spec['group']}_{spec['names']['plural']}.json"
    target.write_text(json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n")
    return target


if __name__ == "__main__":
    repo_dir, git_tag, chart_name, chart_version, base, *paths = sys.argv[1:]
    for crd_path in paths:
        print(vendor(repo_dir, git_tag, chart_name, chart_version, base, crd_path))
