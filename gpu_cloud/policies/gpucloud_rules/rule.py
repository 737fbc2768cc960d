"""What a policy is, independent of the SDK: a name, a level, the types it checks and a pure check.

A resource rule is a function of (resource type, props, config, provider props) returning violation
messages. A stack rule is a function of (one resource, the stack it is in, config) returning that
resource's violation messages: it may look at every resource of the stack, but it answers for one, so
that a value it cannot read costs only that resource's verdict. Config always arrives with the schema
defaults applied (`effective_config`), because the Pulumi CLI fills defaults in but the SDK does not
when the pack runs anywhere else.

Every rule runs through one guard, `run_resource_rule` / `run_stack_rule` (`sdk.py` wraps rules for
pulumi-policy with them): whatever a check raises -- `Undecided` from the readers in ``values``, or any
other exception from a value of an unexpected shape -- becomes the policy's "could not decide" violation
on the resource being checked, and every other resource is still checked. A rule module gets this by
defining its ``RULE``; it needs no code of its own for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Literal, TypeVar

from .values import Undecided

__all__ = [
    "EXEMPTIONS_SCHEMA",
    "Advisory",
    "Finding",
    "Level",
    "ResourceRule",
    "Stack",
    "StackResource",
    "StackRule",
    "config_schema",
    "could_not_decide",
    "effective_config",
    "exemption_reasons",
    "run_resource_rule",
    "run_stack_rule",
    "string_list",
]

Level = Literal["mandatory", "advisory"]
Props = Mapping[str, Any]
Config = Mapping[str, Any]
_T = TypeVar("_T")

EXEMPTIONS_SCHEMA: Mapping[str, Any] = {
    "type": "array",
    "description": "Resources exempted from this policy: their violations become advisory notes.",
    "items": {
        "type": "object",
        "properties": {"urn": {"type": "string"}, "reason": {"type": "string", "minLength": 1}},
        "required": ["urn", "reason"],
        "additionalProperties": False,
    },
    "default": [],
}
"""The ``exemptions`` config property every policy has: a list of ``{urn, reason}``."""


@dataclass(frozen=True)
class ResourceRule:
    """A policy evaluated on each resource of the listed types.

    Attributes:
        name: The policy name (fixed: CI configs and exemptions refer to it).
        description: One sentence saying what the policy requires.
        level: The default enforcement level.
        resource_types: The type tokens the policy checks; other resources are not applicable.
        check: ``(type, props, config, provider props) -> messages``; props are in wire form (see
            ``values``); provider props are the inputs of the resource's provider (``{}`` if none).
        config: JSON-schema properties of the policy's config, each with a ``default``.
    """

    name: str
    description: str
    level: Level
    resource_types: frozenset[str]
    check: Callable[[str, Props, Config, Props], list[str]]
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class StackResource:
    """A resource as a stack rule sees it.

    Attributes:
        urn: The resource's URN.
        type: The type token.
        props: The properties in wire form.
        protect: The protect option.
        property_dependencies: Per property, the URNs its value depends on.
        provider: The inputs of its provider; for a default provider, its settings from stack config.
    """

    urn: str
    type: str
    props: Props
    protect: bool
    property_dependencies: Mapping[str, tuple[str, ...]]
    provider: Props = field(default_factory=dict)


@dataclass(frozen=True)
class Finding:
    """A stack rule's violation for one resource.

    Attributes:
        urn: The offending resource.
        message: What is wrong.
        advisory: Report as advisory even when the policy is mandatory (e.g. outside protected stacks).
    """

    urn: str
    message: str
    advisory: bool = False


class Stack:
    """The stack as a stack rule sees it: its name and its resources of the rule's types.

    Attributes:
        name: The stack name ("" when the engine gave none).
        resources: The resources of the rule's types, in registration order.
    """

    def __init__(self, name: str, resources: Sequence[StackResource]) -> None:
        self.name = name
        self.resources = resources
        self._shared: dict[str, Any] = {}

    @cached_property
    def _by_type(self) -> Mapping[str, list[StackResource]]:
        by_type: dict[str, list[StackResource]] = {}
        for resource in self.resources:
            by_type.setdefault(resource.type, []).append(resource)
        return by_type

    def of_type(self, *types: str) -> list[StackResource]:
        """The resources of the given types, in registration order within each type."""
        return [r for t in types for r in self._by_type.get(t, ())]

    def shared(self, key: str, build: Callable[[], _T]) -> _T:
        """A value built once per evaluation of the stack (an index over its resources), under ``key``.

        ``build`` reads the stack; if it raises, nothing is kept and the resource being checked gets
        the could-not-decide violation.
        """
        if key not in self._shared:
            self._shared[key] = build()
        value: _T = self._shared[key]
        return value


@dataclass(frozen=True)
class StackRule:
    """A policy evaluated over the whole stack, one resource at a time.

    Attributes:
        name: The policy name.
        description: One sentence saying what the policy requires.
        level: The default enforcement level.
        resource_types: The type tokens the policy looks at: every resource of them is in the `Stack`
            and is checked (``check`` returns nothing for those it only reads, such as launch templates).
        check: ``(resource, stack, config) -> messages`` for one resource of the stack.
        config: JSON-schema properties of the policy's config, each with a ``default``.
        advisory_in: ``(stack name, config) -> bool``: in such stacks every finding of the policy is
            advisory even when the policy is mandatory (e.g. outside protected stacks).
    """

    name: str
    description: str
    level: Level
    resource_types: frozenset[str]
    check: Callable[[StackResource, Stack, Config], list[str]]
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    advisory_in: Callable[[str, Config], bool] | None = None


def string_list(default: list[str], description: str) -> Mapping[str, Any]:
    """The config schema of a list of strings (stack names, tag keys) with its default."""
    return {"type": "array", "items": {"type": "string"}, "default": default, "description": description}


def config_schema(rule: ResourceRule | StackRule) -> dict[str, Mapping[str, Any]]:
    """The JSON-schema properties of a rule's config, ``exemptions`` included."""
    return {**rule.config, "exemptions": EXEMPTIONS_SCHEMA}


def effective_config(rule: ResourceRule | StackRule, given: Config | None) -> dict[str, Any]:
    """The rule's config: the schema defaults, overridden by what was given. The one place defaults apply."""
    result = {key: prop["default"] for key, prop in config_schema(rule).items() if "default" in prop}
    result.update(given or {})
    return result


def exemption_reasons(config: Config) -> dict[str, str]:
    """URN -> reason for every exemption in an effective config."""
    return {
        str(item["urn"]): str(item.get("reason", ""))
        for item in config.get("exemptions") or ()
        if isinstance(item, Mapping) and "urn" in item
    }


class Advisory(str):
    """A stack rule's message that is reported as advisory even when the policy is mandatory (a policy whose
    level depends on the finding, e.g. kubernetes-version-support: advisory before end of support)."""

    __slots__ = ()


def could_not_decide(error: Exception) -> str:
    """The violation message for a check that raised ``error``."""
    if isinstance(error, Undecided):
        return error.message
    return f"could not decide: a value it reads has an unexpected form ({type(error).__name__}: {error})"


def _guarded(check: Callable[[], list[str]]) -> list[str]:
    """The guard every rule runs through: a check that raises says it could not decide, never crashes."""
    try:
        return list(check())
    except Exception as error:  # any failure of one check is that check's verdict
        return [could_not_decide(error)]


def run_resource_rule(
    rule: ResourceRule, resource_type: str, props: Props, config: Config, provider: Props
) -> list[str]:
    """The violation messages of a resource rule for one resource, through the guard."""
    return _guarded(partial(rule.check, resource_type, props, config, provider))


def run_stack_rule(rule: StackRule, resources: Sequence[StackResource], config: Config, stack: str) -> list[Finding]:
    """The findings of a stack rule over ``resources`` (those of its types), each resource through the guard."""
    view = Stack(stack, resources)
    advisory = rule.advisory_in is not None and rule.advisory_in(stack, config)
    return [
        Finding(resource.urn, message, advisory or isinstance(message, Advisory))
        for resource in resources
        for message in _guarded(partial(rule.check, resource, view, config))
    ]
