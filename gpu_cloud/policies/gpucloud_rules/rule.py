"""What a policy is, independent of the SDK: a name, a level, the types it checks and a pure check.

A resource rule is a function of (resource type, props, config, provider props) returning violation
messages. A stack
rule is a function of (the stack's resources, config, stack name) returning findings. Config always
arrives with the schema defaults applied (`effective_config`), because the Pulumi CLI fills defaults
in but the SDK does not when the pack runs anywhere else. `sdk.py` wraps rules for pulumi-policy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "EXEMPTIONS_SCHEMA",
    "Finding",
    "Level",
    "ResourceRule",
    "StackResource",
    "StackRule",
    "config_schema",
    "effective_config",
    "exemption_reasons",
]

Level = Literal["mandatory", "advisory"]
Props = Mapping[str, Any]
Config = Mapping[str, Any]

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


@dataclass(frozen=True)
class StackRule:
    """A policy evaluated once over all resources of the stack.

    Attributes:
        name: The policy name.
        description: One sentence saying what the policy requires.
        level: The default enforcement level.
        resource_types: The type tokens the policy looks at.
        check: ``(resources, config, stack name) -> findings``.
        config: JSON-schema properties of the policy's config, each with a ``default``.
    """

    name: str
    description: str
    level: Level
    resource_types: frozenset[str]
    check: Callable[[Sequence[StackResource], Config, str], list[Finding]]
    config: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


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
