"""Helm releases as the GPU-aware rules read them: which chart, with which values.

pulumi-kubernetes ``helm.v3.Release`` (``kubernetes:helm.sh/v3:Release``) and ``helm.v4.Chart``
(``kubernetes:helm.sh/v4:Chart``) both take ``chart`` (a name, ``<repo>/<name>``, or an ``oci://`` reference ending in
the name) and ``values``.
"""

from __future__ import annotations

from typing import Final

from .rule import Props
from .values import as_text

__all__ = ["RELEASE_TYPES", "chart_name"]

RELEASE_TYPES: Final = ("kubernetes:helm.sh/v3:Release", "kubernetes:helm.sh/v4:Chart")


def chart_name(props: Props) -> str:
    """The chart's name: the last path segment of ``chart`` (``oci://registry.k8s.io/x/charts/y`` -> ``y``)."""
    chart = as_text(props.get("chart"), "chart") or ""
    return chart.rstrip("/").rsplit("/", 1)[-1]
