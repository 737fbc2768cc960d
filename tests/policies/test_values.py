"""Reading wire values: strings as booleans, floats, single objects as lists, unknowns as undecided."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_cloud.policies.gpucloud_rules.values import (
    Findings,
    Undecided,
    all_true,
    any_true,
    as_bool,
    as_number,
    as_object,
    as_text,
    duration_days,
    entries,
    equals,
    is_set,
)
from tests.policies.wire import UNKNOWN

BOOLEAN_UNKNOWN = "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), ("true", True), ("TRUE", True), ("false", False), (False, False), (None, None)],
)
def test_as_bool(value: Any, expected: bool | None) -> None:
    assert as_bool(value, "p") is expected


@pytest.mark.parametrize(("value", "expected"), [(90.0, 90.0), (90, 90.0), ("90", 90.0), (None, None)])
def test_as_number(value: Any, expected: float | None) -> None:
    assert as_number(value, "p") == expected


@pytest.mark.parametrize("read", [as_bool, as_number, as_object, entries])
@pytest.mark.parametrize("unknown", [UNKNOWN, BOOLEAN_UNKNOWN])
def test_unknown_values_are_undecided(read: Any, unknown: str) -> None:
    with pytest.raises(Undecided, match=r"^a\.b$"):
        read(unknown, "a.b")


def test_unknown_counts_as_set() -> None:
    assert is_set(UNKNOWN) and not is_set(None) and not is_set("")


def test_single_object_is_a_one_element_list() -> None:
    assert entries({"k": 1}, "xs") == [("xs[0]", {"k": 1})]


def test_one_element_list_is_an_object() -> None:
    assert as_object([{"k": 1}], "x") == {"k": 1}


def test_enums_compare_case_insensitively() -> None:
    assert equals("internet", "Internet", "p") and not equals(None, "Internet", "p")


@pytest.mark.parametrize(
    ("text", "days"), [("7776000s", 90.0), ("90d", 90.0), ("2160h", 90.0), ("129600m", 90.0), ("90", None)]
)
def test_duration_days(text: str, days: float | None) -> None:
    assert duration_days(text, "p") == days


def undecided() -> bool:
    raise Undecided("x")


def test_any_true_is_true_if_any_holds_despite_unknowns() -> None:
    assert any_true([undecided, lambda: True])


def test_any_true_is_undecided_if_nothing_holds_and_something_is_unknown() -> None:
    with pytest.raises(Undecided):
        any_true([lambda: False, undecided])


def test_all_true_is_false_if_any_fails_despite_unknowns() -> None:
    assert not all_true([undecided, lambda: False])


def test_findings_say_could_not_decide() -> None:
    findings = Findings()
    findings.check(undecided, "never")
    assert findings.messages == ["could not decide: x is unknown during preview"]


@pytest.mark.parametrize(
    ("read", "value", "message"),
    [
        (as_bool, "maybe", "could not decide: a.b is not a boolean (got 'maybe')"),
        (as_number, "ninety", "could not decide: a.b is not a number (got 'ninety')"),
        (as_object, "text", "could not decide: a.b is not an object (got 'text')"),
    ],
)
def test_malformed_values_are_undecided_with_their_reason(read: Any, value: Any, message: str) -> None:
    with pytest.raises(Undecided) as raised:
        read(value, "a.b")
    assert raised.value.message == message


def test_empty_text_is_unset() -> None:
    assert as_text("", "p") is None and as_bool("", "p") is None and as_number("", "p") is None
