"""Every pin names where it was verified and when; the default Kubernetes version is in standard support."""

from __future__ import annotations

import json
import re
from datetime import date
from importlib import resources

import pytest

from gpu_cloud.components import kubernetes_support, versions
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.kubernetes_support import support_calendar, version_problem
from gpu_cloud.components.versions import DEFAULT_KUBERNETES_VERSION


def _calendar_sources() -> dict[str, dict[str, str]]:
    raw = json.loads(
        resources.files(kubernetes_support.__package__).joinpath(kubernetes_support.SUPPORT_CALENDAR_FILE).read_text()
    )
    return {cloud: entry["source"] for cloud, entry in raw["clouds"].items()}


def test_every_pin_has_a_source_url_and_a_date() -> None:
    pins = dict(versions.pins())
    assert sorted(pins) == sorted(versions.PIN_SOURCES), "a pin without a PIN_SOURCES entry, or a stale entry"
    for pin, source in versions.PIN_SOURCES.items():
        assert source.url.startswith("https://"), pin
        assert date.fromisoformat(source.read_on) <= date(2026, 12, 4), pin


def test_every_eks_addon_is_pinned_to_an_exact_build() -> None:
    for version, addons in versions.EKS_ADDON_VERSIONS.items():
        for addon, build in addons.items():
            assert re.fullmatch(r"v\d+\.\d+\.\d+-eksbuild\.\d+", build), (version, addon, build)


def test_every_pinned_al2023_release_records_its_nvidia_driver_and_only_those_do() -> None:
    assert sorted(versions.EKS_AL2023_NVIDIA_DRIVERS) == sorted(versions.EKS_AL2023_RELEASE_VERSIONS.values())


def test_a_pin_added_without_a_source_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(versions.EKS_AL2023_RELEASE_VERSIONS, "1.37", "1.37.0-20261201")
    assert set(dict(versions.pins())) - set(versions.PIN_SOURCES) == {"eks-ami/1.37"}


def test_the_calendar_cites_its_source_and_date() -> None:
    for cloud, source in _calendar_sources().items():
        assert source["url"].startswith("https://"), cloud
        date.fromisoformat(source["read_on"])


@pytest.mark.parametrize("cloud", list(Cloud))
def test_default_version_is_in_standard_support_on_the_calendars_date(cloud: Cloud) -> None:
    as_of = date.fromisoformat(_calendar_sources()[cloud.value]["read_on"])
    assert version_problem(cloud, DEFAULT_KUBERNETES_VERSION, as_of) is None
    assert as_of <= support_calendar()[cloud][DEFAULT_KUBERNETES_VERSION].end_of_standard_support


def test_a_pinned_version_past_end_of_standard_support_is_refused_with_the_choices() -> None:
    assert version_problem(Cloud.AWS, "1.35", date(2027, 3, 28)) == (
        "not in standard support on aws: ended 2027-03-27 (supported: 1.36)"
    )
    assert version_problem(Cloud.ALICLOUD, "1.35", date(2027, 2, 28)) is None


def test_an_unpinned_version_is_refused_with_the_choices() -> None:
    assert version_problem(Cloud.AWS, "1.34", date(2026, 12, 2)) == (
        "no pins for this Kubernetes version on aws (supported: 1.35, 1.36)"
    )


@pytest.mark.parametrize("cloud", list(Cloud))
def test_every_version_in_standard_support_on_the_calendars_date_has_pins(cloud: Cloud) -> None:
    as_of = date.fromisoformat(_calendar_sources()[cloud.value]["read_on"])
    in_support = [v for v, w in support_calendar()[cloud].items() if w.end_of_standard_support >= as_of]
    assert in_support == ["1.35", "1.36"]
    assert kubernetes_support.supported_versions(cloud, as_of) == tuple(in_support)


def test_every_pinned_version_is_in_the_calendar() -> None:
    for cloud in Cloud:
        assert set(kubernetes_support.pinned_versions(cloud)) <= set(support_calendar()[cloud])


def test_extended_support_never_ends_before_standard_support() -> None:
    for cloud in Cloud:
        for version, window in support_calendar()[cloud].items():
            assert window.end_of_standard_support <= window.end_of_extended_support, (cloud, version)
