"""kubernetes-version-support: clusters run a Kubernetes minor version their cloud still supports.

The support calendar is ``kubernetes_support.json`` beside this module, a copy of the catalog's
(``gpu_cloud/components/kubernetes_support.json``, written by ``scripts/generate_kubernetes_support.py``; the pack
cannot import ``gpu_cloud.components``). The policy is registered mandatory and marks a finding advisory while the
version is still supported: within ``ADVISORY_DAYS`` days of its end of standard support, or in extended support.
Past the end of extended support (on ACK, which has no extended support: past its end of life) it is mandatory.
The date judged against is ``asOf`` (ISO date; empty: today).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from typing import Any, Final

from .rule import Advisory, Config, Stack, StackResource, StackRule
from .values import as_text

__all__ = ["ADVISORY_DAYS", "CLUSTER_TYPES", "RULE", "as_of_date", "calendar", "check"]

CLUSTER_TYPES: Final[Mapping[str, str]] = {
    "aws:eks/cluster:Cluster": "aws",
    "alicloud:cs/managedKubernetes:ManagedKubernetes": "alicloud",
}
"""Cluster type -> its cloud's key in the calendar. Both take the version in ``version`` (EKS ``1.35``, ACK
``1.35.7-aliyun.1``); unset, the cloud picks its current default and there is nothing to judge."""

ADVISORY_DAYS: Final = 60
"""How many days before the end of standard support the policy starts to warn."""

_CALENDAR_FILE: Final = Path(__file__).with_name("kubernetes_support.json")
_MINOR = re.compile(r"^(\d+\.\d+)(?:\.|$)")


@cache
def calendar() -> Mapping[str, Mapping[str, tuple[date, date]]]:
    """Cloud -> minor version -> (end of standard support, end of extended support)."""
    raw: Mapping[str, Any] = json.loads(_CALENDAR_FILE.read_text(encoding="utf-8"))
    return {
        cloud: {
            version: (date.fromisoformat(w["endOfStandardSupport"]), date.fromisoformat(w["endOfExtendedSupport"]))
            for version, w in entry["versions"].items()
        }
        for cloud, entry in raw["clouds"].items()
    }


def _problem(version: str, cloud: str, as_of: date) -> str | None:
    match = _MINOR.match(version)
    window = calendar()[cloud].get(match.group(1)) if match else None
    if window is None:
        known = ", ".join(sorted(calendar()[cloud]))
        return Advisory(f"Kubernetes {version} is not in the {cloud} support calendar ({known})")
    standard, extended = window
    if as_of > extended:
        what = "end of extended support" if extended > standard else "end of support"
        return f"Kubernetes {version} is past its {what} on {cloud} ({extended}): upgrade"
    if as_of > standard:
        return Advisory(f"Kubernetes {version} is in extended support on {cloud} until {extended}: upgrade")
    if as_of >= standard - timedelta(days=ADVISORY_DAYS):
        return Advisory(f"Kubernetes {version} leaves standard support on {cloud} on {standard}: plan the upgrade")
    return None


def as_of_date(config: Config) -> date:
    """The date the policy judges against: ``asOf``, or today when it is empty."""
    given = str(config["asOf"] or "")
    return date.fromisoformat(given) if given else date.today()


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``kubernetes-version-support`` for one cluster (``Advisory`` ones while supported)."""
    del stack
    version = as_text(resource.props.get("version"), "version")
    problem = None if version is None else _problem(version, CLUSTER_TYPES[resource.type], as_of_date(config))
    return [] if problem is None else [problem]


RULE = StackRule(
    name="kubernetes-version-support",
    description="Clusters must run a Kubernetes version their cloud supports; warns 60 days before the end of "
    "standard support and during extended support.",
    level="mandatory",
    resource_types=frozenset(CLUSTER_TYPES),
    check=check,
    config={
        "asOf": {
            "type": "string",
            "pattern": r"^(\d{4}-\d{2}-\d{2})?$",
            "default": "",
            "description": "The date (YYYY-MM-DD) the calendar is read at; empty means today.",
        }
    },
)
