"""Regenerate ``gpucloud_rules/kubernetes_support.json`` (the calendar kubernetes-version-support reads).

The pack cannot import ``gpu_cloud.components``, so the catalog's support calendar
(``gpu_cloud/components/kubernetes_support.json``) is copied here and checked in.
``tests/policies/test_kubernetes_version_support.py`` fails when the two drift apart.

Usage: python gpu_cloud/policies/scripts/generate_kubernetes_support.py
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from gpu_cloud.components import kubernetes_support

OUTPUT = Path(__file__).resolve().parent.parent / "gpucloud_rules" / "kubernetes_support.json"


def render() -> str:
    """The file's text: the catalog's calendar, byte for byte."""
    return (
        resources.files(kubernetes_support.__package__)
        .joinpath(kubernetes_support.SUPPORT_CALENDAR_FILE)
        .read_text(encoding="utf-8")
    )


def main() -> None:
    """Write the file."""
    OUTPUT.write_text(render(), encoding="utf-8")
    print(f"{OUTPUT}: written")


if __name__ == "__main__":
    main()
