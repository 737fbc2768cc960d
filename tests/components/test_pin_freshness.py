"""Every pin records the newest release of its line seen upstream; a pin behind it carries the reason it stays."""

from __future__ import annotations

import re
from datetime import date

import pytest

from gpu_cloud.components import versions
from gpu_cloud.components.versions import PinSource

TODAY = date(2026, 12, 4)


def names(value: str, release: str) -> bool:
    """Whether the pinned ``value`` names ``release`` (as a whole token: 3.22.5 is not named by 3.22.50)."""
    return re.search(rf"(?<![\w.]){re.escape(release)}(?![\w.])", value) is not None


def behind(pins: dict[str, str], sources: dict[str, PinSource]) -> list[str]:
    """The pins behind the newest release seen without a recorded reason, and reasons recorded for current pins."""
    problems = []
    for pin, value in pins.items():
        source = sources[pin]
        current = names(value, source.newest)
        if not current and not source.behind_because:
            problems.append(f"{pin}: {value} is behind {source.newest} ({source.newest_date}) without a reason")
        if current and source.behind_because:
            problems.append(f"{pin}: names the newest release {source.newest}, yet records why it is behind")
    return problems


def test_every_pin_records_the_newest_release_seen_and_its_date() -> None:
    for pin, source in versions.PIN_SOURCES.items():
        assert source.newest, pin
        assert date.fromisoformat(source.newest_date) <= TODAY, pin
        assert date.fromisoformat(source.read_on) <= TODAY, pin


def test_no_pin_is_behind_the_newest_release_of_its_line_without_a_reason() -> None:
    assert behind(dict(versions.pins()), dict(versions.PIN_SOURCES)) == []


def test_a_pin_behind_the_newest_release_without_a_reason_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = versions.PIN_SOURCES["chart/kueue"]._replace(newest="0.19.3", newest_date="2026-11-30")
    sources = {**versions.PIN_SOURCES, "chart/kueue": stale}
    assert behind(dict(versions.pins()), sources) == [
        "chart/kueue: oci://registry.k8s.io/kueue/charts 0.19.2 is behind 0.19.3 (2026-11-30) without a reason"
    ]
    assert behind(dict(versions.pins()), {**sources, "chart/kueue": stale._replace(behind_because="waits for X")}) == []


def test_a_release_is_named_as_a_whole_token() -> None:
    assert names("alpine:3.22.5", "3.22.5")
    assert not names("alpine:3.22.50", "3.22.5")
    assert not names("https://nvidia.github.io/k8s-device-plugin 0.20.0", "0.20")
    assert names("tensorflow/serving:2.18.1-gpu", "2.18.1")
    assert names("1.35.6-20260714", "20260714") and not names("1.35.6-20260714", "20260724")


def test_the_behind_pins_are_the_documented_ones() -> None:
    # docs/upgrading.md lists these with their reasons; a new entry here is a new decision to document there.
    assert sorted(p for p, s in versions.PIN_SOURCES.items() if s.behind_because) == [
        "archive/ossutil",
        "eks-addon/1.35/coredns",
        "eks-addon/1.35/kube-proxy",
        "eks-addon/1.35/vpc-cni",
        "eks-addon/1.36/coredns",
        "eks-addon/1.36/kube-proxy",
        "eks-addon/1.36/vpc-cni",
        "eks-ami/1.35",
        "eks-ami/1.36",
    ]
