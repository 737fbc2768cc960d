"""The records the offline engine produces and the policy step consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from google.protobuf import struct_pb2

__all__ = ["JSON_SCHEMA_VERSION", "PlanError", "PolicyPackError", "RecordedResource", "Violation"]

JSON_SCHEMA_VERSION = 2
"""Version of the ``--json`` documents; raised when a key changes meaning or goes away (1 had no version key)."""


class PlanError(Exception):
    """Bad input to a plan (config, program, directory): reported without a traceback, exit status 2."""


class PolicyPackError(RuntimeError):
    """The policy pack failed while running (it crashed, or a policy raised); the message says why.

    The message is the error, never the pack's traceback: ``gpucloud plan`` prints it and exits 2.
    """


@dataclass(frozen=True)
class RecordedResource:
    """One resource exactly as the engine received it in a RegisterResource request.

    Attributes:
        urn: The resource's URN.
        type: The type token, e.g. ``aws:ec2/vpc:Vpc``.
        name: The logical name.
        custom: True for provider-managed (custom) resources, False for components.
        parent: URN of the parent ("" for none; the stack resource counts as a parent).
        provider: Provider reference (``<urn>::<id>``) or "" for the default provider.
        dependencies: URNs the resource depends on.
        property_dependencies: Per input property (camelCase), the URNs it depends on.
        inputs: Inputs as the engine's camelCase JSON (see ``gpucloud.wire`` for secrets and unknowns).
        properties: The inputs in wire form, exactly as received (forwarded to the policy pack).
        protect: The protect option.
        ignore_changes: The ignoreChanges option.
        retain_on_delete: The retainOnDelete option.
        delete_before_replace: The deleteBeforeReplace option.
        aliases: The URNs the resource's aliases name (alias specs collapsed as the engine does).
    """

    urn: str
    type: str
    name: str
    custom: bool
    parent: str
    provider: str
    dependencies: tuple[str, ...]
    property_dependencies: dict[str, tuple[str, ...]]
    inputs: dict[str, Any]
    properties: struct_pb2.Struct = field(repr=False, compare=False)
    protect: bool = False
    ignore_changes: tuple[str, ...] = ()
    retain_on_delete: bool = False
    delete_before_replace: bool = False
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Violation:
    """A policy violation as reported by the pack.

    Attributes:
        policy: Policy name, e.g. ``no-public-ip``.
        level: ``mandatory`` or ``advisory``.
        urn: URN of the offending resource ("" for a stack-level violation without one).
        name: The resource's logical name ("" when there is no URN).
        type: The resource's type token ("" when there is no URN).
        message: The violation message.
    """

    policy: str
    level: Literal["mandatory", "advisory"]
    urn: str
    name: str
    type: str
    message: str
