"""The Kubernetes support calendar of both clouds, and which minor versions a spec may name on a date.

The calendar is catalog data: ``kubernetes_support.json`` beside this module (EKS: the Amazon EKS Kubernetes release
calendar; ACK: the ACK version support table; each with its source URL and the date it was read). A spec may name a
minor version that is in standard support on its cloud today and has every pin of ``components.versions``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache
from importlib import resources
from typing import Final

from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.versions import (
    ACK_KUBERNETES_RELEASES,
    CLUSTER_AUTOSCALER_IMAGE_TAGS,
    EKS_ADDON_VERSIONS,
    EKS_AL2023_RELEASE_VERSIONS,
)

SUPPORT_CALENDAR_FILE: Final = "kubernetes_support.json"


@dataclass(frozen=True)
class SupportWindow:
    """A Kubernetes minor version's support on one cloud."""

    end_of_standard_support: date
    end_of_extended_support: date
    """The same as the end of standard support where the cloud offers no extended support (ACK)."""


@cache
def support_calendar() -> Mapping[Cloud, Mapping[str, SupportWindow]]:
    """Cloud -> Kubernetes minor version -> support window, from ``kubernetes_support.json``."""
    raw = json.loads(resources.files(__package__).joinpath(SUPPORT_CALENDAR_FILE).read_text(encoding="utf-8"))
    return {
        Cloud(cloud): {
            version: SupportWindow(
                date.fromisoformat(window["endOfStandardSupport"]),
                date.fromisoformat(window["endOfExtendedSupport"]),
            )
            for version, window in entry["versions"].items()
        }
        for cloud, entry in raw["clouds"].items()
    }


def pinned_versions(cloud: Cloud) -> tuple[str, ...]:
    """The Kubernetes minor versions with every pin on ``cloud``."""
    if cloud is Cloud.AWS:
        return tuple(
            sorted(set(EKS_ADDON_VERSIONS) & set(EKS_AL2023_RELEASE_VERSIONS) & set(CLUSTER_AUTOSCALER_IMAGE_TAGS))
        )
    return tuple(sorted(ACK_KUBERNETES_RELEASES))


def supported_versions(cloud: Cloud, today: date) -> tuple[str, ...]:
    """The versions a spec may name on ``cloud``: pinned, and in standard support on ``today``."""
    calendar = support_calendar()[cloud]
    return tuple(v for v in pinned_versions(cloud) if v in calendar and today <= calendar[v].end_of_standard_support)


def version_problem(cloud: Cloud, version: str, today: date) -> str | None:
    """Why ``version`` cannot be deployed on ``cloud`` on ``today`` (``None`` if it can)."""
    choices = ", ".join(supported_versions(cloud, today)) or "none"
    window = support_calendar()[cloud].get(version)
    if version not in pinned_versions(cloud):
        return f"no pins for this Kubernetes version on {cloud.value} (supported: {choices})"
    if window is None or today > window.end_of_standard_support:
        ended = "not in the support calendar" if window is None else f"ended {window.end_of_standard_support}"
        return f"not in standard support on {cloud.value}: {ended} (supported: {choices})"
    return None
