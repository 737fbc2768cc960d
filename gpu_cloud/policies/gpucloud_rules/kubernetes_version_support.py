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
from .values import Undecided, as_text

__all__ = ["ADVISORY_DAYS", "CLUSTER_TYPES", "RULE", "as_of_date", "calendar", "check", "read_version"]

CLUSTER_TYPES: Final[Mapping[str, str]] = {
    "aws:eks/cluster:Cluster": "aws",
    "alicloud:cs/managedKubernetes:ManagedKubernetes": "alicloud",
}
"""Cluster type -> its cloud's key in the calendar. Both take the version in ``version`` (EKS ``1.35``, ACK
``1.35.7-aliyun.1``); unset, the cloud picks its current default and there is nothing to judge."""

ADVISORY_DAYS: Final = 60
"""How many days before the end of standard support the policy starts to warn."""

_CALENDAR_FILE: Final = Path(__file__).with_name("kubernetes_support.json")
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.\S*)?$")
"""A Kubernetes version as the clouds name them: ``<major>.<minor>`` (EKS: the minor version, ``1.35``), optionally with
a patch release after it (ACK: ``1.35.7-aliyun.1``). Both providers take ``version`` as a string ("Desired Kubernetes
master version", pulumi-aws ``eks.Cluster``; "Desired Kubernetes version", pulumi-alicloud ``cs.ManagedKubernetes``)
and pass it to the cloud's API (EKS CreateCluster ``version``, a string: botocore eks model)."""


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


@cache
def calendar() -> Mapping[str, Mapping[str, tuple[date, date]]]:
    """Cloud -> minor version -> (end of standard support, end of extended support), oldest version first."""
    raw: Mapping[str, Any] = json.loads(_CALENDAR_FILE.read_text(encoding="utf-8"))
    return {
        cloud: {
            version: (date.fromisoformat(w["endOfStandardSupport"]), date.fromisoformat(w["endOfExtendedSupport"]))
            for version, w in sorted(entry["versions"].items(), key=lambda item: _minor(item[0]))
        }
        for cloud, entry in raw["clouds"].items()
    }


def read_version(value: object) -> tuple[str, str] | None:
    """``(version as given, its minor version)``; None if unset ("" included).

    Raises:
        Undecided: a number (a YAML or JSON ``1.30`` arrives as ``1.3``: which version was meant cannot be read), or a
            string that is not ``<major>.<minor>[.<patch...>]`` (``v1.35``, ``1.35-eks``), which neither cloud reads.
    """
    if isinstance(value, bool | int | float):
        raise Undecided(
            "version",
            f"is a number ({value!r}), not a string: a number loses its trailing zeros (1.30 arrives as 1.3), so "
            'the version meant cannot be read; quote it ("1.30")',
        )
    version = as_text(value, "version")
    if version is None:
        return None
    match = _VERSION.match(version)
    if match is None:
        raise Undecided(
            "version",
            f"is not a Kubernetes version as EKS and ACK read it ({version!r}): give <major>.<minor> (EKS, e.g. 1.35) "
            "or an ACK release (e.g. 1.35.7-aliyun.1), without a v prefix",
        )
    return version, f"{int(match.group(1))}.{int(match.group(2))}"


def _unlisted(version: str, minor: str, cloud: str) -> str:
    """The finding for a minor version the calendar does not list."""
    known = list(calendar()[cloud])
    oldest, newest = known[0], known[-1]
    if _minor(minor) > _minor(newest):
        return Advisory(
            f"Kubernetes {version} is newer than every version in the {cloud} support calendar (newest: {newest}): "
            "update the calendar"
        )
    if _minor(minor) < _minor(oldest):
        ended = calendar()[cloud][oldest][1]
        return (
            f"Kubernetes {version} is older than every version in the {cloud} support calendar (oldest: {oldest}, "
            f"unsupported since {ended}): upgrade"
        )
    before = max(v for v in known if _minor(v) < _minor(minor))
    after = min(v for v in known if _minor(v) > _minor(minor))
    return (
        f"Kubernetes {version} was never a version of {cloud} (its support calendar goes from {before} to {after}): "
        "upgrade"
    )


def _problem(version: str, minor: str, cloud: str, as_of: date) -> str | None:
    window = calendar()[cloud].get(minor)
    if window is None:
        return _unlisted(version, minor, cloud)
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
    given = read_version(resource.props.get("version"))
    if given is None:
        return []
    problem = _problem(*given, CLUSTER_TYPES[resource.type], as_of_date(config))
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
