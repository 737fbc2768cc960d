"""Regenerate ``gpucloud_rules/taggable_types.json`` from the installed pulumi-aws and pulumi-alicloud.

A resource type is taggable when its resource class takes a ``tags`` map input. The pack cannot read
provider schemas at run time (it stands on pulumi-policy and the standard library alone), so the list
is generated here, with the provider versions it came from, and checked in.

Usage: python gpu_cloud/policies/scripts/generate_taggable_types.py
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import re
from pathlib import Path

PACKAGES = {"pulumi_aws": "pulumi-aws", "pulumi_alicloud": "pulumi-alicloud"}
OUTPUT = Path(__file__).resolve().parent.parent / "gpucloud_rules" / "taggable_types.json"
_TYPE_TOKEN = re.compile(r"super\(\w+, __self__\)\.__init__\(\s*'([a-z0-9]+:[^']+)'")
_TAGS_MAP_INPUT = re.compile(r"^\s+tags: pulumi\.Input\[Optional\[Mapping\[str,", re.MULTILINE)


def taggable_types(package: str) -> list[str]:
    """Type tokens of the package's resources that take a ``tags`` map input."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{package} is not installed")
    found = set()
    for source in Path(spec.origin).parent.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        token = _TYPE_TOKEN.search(text)
        if token and _TAGS_MAP_INPUT.search(text) and not token.group(1).startswith("pulumi:"):
            found.add(token.group(1))
    return sorted(found)


def main() -> None:
    """Write the taggable types of every package with the versions they came from."""
    document = {
        "generatedBy": "gpu_cloud/policies/scripts/generate_taggable_types.py",
        "sources": {dist: importlib.metadata.version(dist) for dist in PACKAGES.values()},
        "types": sorted(t for package in PACKAGES for t in taggable_types(package)),
    }
    OUTPUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"{OUTPUT}: {len(document['types'])} types")


if __name__ == "__main__":
    main()
