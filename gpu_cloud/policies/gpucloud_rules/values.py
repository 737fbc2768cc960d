"""Reading property values as the engine sends them, with three-valued logic for unknowns.

Inputs reach a policy in wire form: camelCase keys, some booleans as the strings "true"/"false",
numbers as floats, a single object where a list is allowed, and -- during preview -- the engine's
unknown sentinels where a value is computed later. The readers here turn those into plain Python
values and raise `Undecided` when the value a rule needs is unknown, so that no rule passes silently
on a value it could not see.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Any

__all__ = [
    "Findings",
    "Undecided",
    "all_entries",
    "all_true",
    "any_entry",
    "any_true",
    "as_bool",
    "as_number",
    "as_object",
    "as_text",
    "duration_days",
    "entries",
    "equals",
    "has_reference",
    "is_set",
    "is_unknown",
]

# The sentinels the engine and the SDKs use for values unknown during preview
# (pulumi/sdk/go/common/resource/plugin/rpc.go, pulumi_policy/proxy.py).
UNKNOWN_SENTINELS = frozenset(
    {
        "04da6b54-80e4-46f7-96ec-b56ff0331ba9",  # string (also the generic unknown)
        "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7",  # boolean
        "3eeb2bf0-c639-47a8-9e75-3b44932eb421",  # number
        "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2",  # array
        "030794c1-ac77-496b-92df-f27374a8bd58",  # asset
        "e48ece36-62e2-4504-bad9-02848725956a",  # archive
        "dd056dcd-154b-4c76-9bd3-c8f88648b5ff",  # object
    }
)


UNKNOWN_REASON = "is unknown during preview"


class Undecided(Exception):
    """A value a rule needs is unknown during preview, or known but malformed, so the rule cannot decide.

    Attributes:
        path: The property path of the value, e.g. ``vpcConfig.endpointPublicAccess``.
        reason: Why it cannot be read, as the rest of a sentence about the path: "is unknown during
            preview" (the default) or, for a known but malformed value, e.g. "is not valid JSON".
    """

    def __init__(self, path: str, reason: str = UNKNOWN_REASON) -> None:
        super().__init__(path)
        self.path = path
        self.reason = reason

    @property
    def message(self) -> str:
        """The violation message: the policy could not decide, and why."""
        return f"could not decide: {self.path} {self.reason}"


def is_unknown(value: Any) -> bool:
    """True if ``value`` is one of the engine's unknown sentinels."""
    return isinstance(value, str) and value in UNKNOWN_SENTINELS


def is_set(value: Any) -> bool:
    """True if the value is present; an unknown value counts as present (it will have a value)."""
    return value is not None and value != "" and value != [] and value != {}


def has_reference(value: Any, path: str) -> bool:
    """Whether a reference (an id, an ARN) is set: a non-empty string, or unknown (it will have a value).

    Raises `Undecided` for a value that is neither unset nor a string: it cannot name anything.
    """
    if value is None or value == "" or is_unknown(value):
        return value is not None and value != ""
    if isinstance(value, str):
        return True
    raise Undecided(path, f"is not a string (got {value!r})")


def _known(value: Any, path: str) -> Any:
    if is_unknown(value):
        raise Undecided(path)
    return value


def as_bool(value: Any, path: str) -> bool | None:
    """A boolean from ``true``/``false`` or the strings "true"/"false" (any case); None if unset."""
    value = _known(value, path)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise Undecided(path, f"is not a boolean (got {value!r})")


def as_number(value: Any, path: str) -> float | None:
    """A number from an int, a float or a numeric string; None if unset."""
    value = _known(value, path)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise Undecided(path, f"is not a number (got {value!r})")
    if isinstance(value, int | float):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        raise Undecided(path, f"is not a number (got {value!r})") from None


def as_text(value: Any, path: str) -> str | None:
    """A string; None if unset (absent or ""). Numbers and booleans are rendered as the engine would;
    an object or a list is not a string (`Undecided`)."""
    value = _known(value, path)
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping | list | tuple):
        raise Undecided(path, f"is not a string (got {value!r})")
    return str(value)


def as_object(value: Any, path: str) -> Mapping[str, Any]:
    """An object; an unset value is the empty object, a one-element list is its element."""
    value = _known(value, path)
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 1:
        # One level only: a list of one list of an object is not an object.
        element = _known(value[0], f"{path}[0]")
        if isinstance(element, Mapping):
            return element
    raise Undecided(path, f"is not an object (got {value!r})")


def entries(value: Any, path: str) -> list[tuple[str, Any]]:
    """Every element of a list with its path; a single value counts as a one-element list.

    No property a rule reads is a list of lists: an element that is a list raises `Undecided`.
    """
    value = _known(value, path)
    if value is None:
        return []
    if not isinstance(value, Sequence) or isinstance(value, str):
        return [(f"{path}[0]", value)]
    found = [(f"{path}[{i}]", item) for i, item in enumerate(value)]
    for item_path, item in found:
        if isinstance(item, list | tuple):
            raise Undecided(item_path, f"is a list inside a list (got {item!r})")
    return found


def equals(value: Any, expected: str, path: str) -> bool:
    """Case-insensitive comparison of an enumerated value; False if unset."""
    text = as_text(value, path)
    return text is not None and text.strip().lower() == expected.lower()


def any_true(predicates: Iterable[Callable[[], bool]]) -> bool:
    """Three-valued OR: True if any predicate holds, else Undecided if any could not decide."""
    undecided: Undecided | None = None
    for predicate in predicates:
        try:
            if predicate():
                return True
        except Undecided as exc:
            undecided = undecided or exc
    if undecided is not None:
        raise undecided
    return False


def any_entry(value: Any, path: str, predicate: Callable[[str, Any], bool]) -> bool:
    """Three-valued: does ``predicate(path, entry)`` hold for any entry of a list (or single value)?"""
    return any_true(partial(predicate, p, e) for p, e in entries(value, path))


def all_true(predicates: Iterable[Callable[[], bool]]) -> bool:
    """Three-valued AND: False if any predicate fails, else Undecided if any could not decide."""
    return not any_true(partial(_negate, p) for p in predicates)


def _negate(predicate: Callable[[], bool]) -> bool:
    return not predicate()


def all_entries(value: Any, path: str, predicate: Callable[[str, Any], bool]) -> bool:
    """Three-valued: does ``predicate(path, entry)`` hold for every entry of a list (or single value)?"""
    return all_true(partial(predicate, p, e) for p, e in entries(value, path))


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$", re.IGNORECASE)
_SECONDS_PER_UNIT = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def duration_days(value: Any, path: str) -> float | None:
    """Days in a duration such as "7776000s" or "90d" (units s, m, h, d); None if unset or invalid."""
    text = as_text(value, path)
    if text is None:
        return None
    match = _DURATION.match(text)
    if match is None:
        return None
    return float(match.group(1)) * _SECONDS_PER_UNIT[match.group(2).lower()] / 86400.0


class Findings:
    """Collects a rule's violation messages; a check that cannot decide adds a could-not-decide message."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def check(self, violated: Callable[[], bool], message: str) -> None:
        """Record ``message`` if ``violated()`` holds, or why it could not be decided."""
        self.explain(lambda: message if violated() else None)

    def explain(self, problem: Callable[[], str | None]) -> None:
        """Record the message ``problem()`` returns (None: no problem), or why it could not be decided."""
        try:
            message = problem()
        except Undecided as exc:
            message = exc.message
        if message is not None:
            self.messages.append(message)
