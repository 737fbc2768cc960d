"""Build recorded resources whose properties are in the engine's wire form, as the SDK sends them.

``wire`` encodes a plain value the way ``pulumi.runtime.rpc.serialize_properties`` does: numbers as
floats (a protobuf Struct has only doubles), secrets as the secret signature object, unknowns as the
unknown sentinel string.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import struct_pb2

from gpu_cloud.planner.model import RecordedResource

PROJECT = "gpu-cloud"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # pulumi.runtime.rpc.UNKNOWN
SIG_KEY = "4dabf18193072939515e22adb298388d"  # pulumi.runtime.rpc._special_sig_key
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"  # pulumi.runtime.rpc._special_secret_sig
REQUIRED_TAGS = {"environment": "test", "owner": "platform", "cost-center": "gpu"}


@dataclass(frozen=True)
class Secret:
    """A value the program marked secret."""

    value: Any


def wire(value: Any) -> Any:
    """The JSON-like wire form of a plain value."""
    if isinstance(value, Secret):
        return {SIG_KEY: SECRET_SIG, "value": wire(value.value)}
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, Mapping):
        return {key: wire(item) for key, item in value.items()}
    if isinstance(value, Sequence):
        return [wire(item) for item in value]
    raise TypeError(f"cannot encode {value!r}")


def stack_urn(stack: str) -> str:
    """The URN of the stack resource."""
    return f"urn:pulumi:{stack}::{PROJECT}::pulumi:pulumi:Stack::{PROJECT}-{stack}"


def urn(stack: str, type_: str, name: str) -> str:
    """The URN of a resource whose parent is the stack."""
    return f"urn:pulumi:{stack}::{PROJECT}::{type_}::{name}"


def stack_resource(stack: str) -> RecordedResource:
    """The ``pulumi:pulumi:Stack`` resource, first of every recording."""
    return RecordedResource(
        urn=stack_urn(stack),
        type="pulumi:pulumi:Stack",
        name=f"{PROJECT}-{stack}",
        custom=False,
        parent="",
        provider="",
        dependencies=(),
        property_dependencies={},
        inputs={},
        properties=struct_pb2.Struct(),
    )


def resource(
    stack: str,
    type_: str,
    name: str,
    props: Mapping[str, Any],
    *,
    custom: bool = True,
    protect: bool = False,
    provider: str = "",
    property_dependencies: Mapping[str, Sequence[str]] | None = None,
) -> RecordedResource:
    """A resource registered under the stack with ``props`` in wire form."""
    inputs = wire(props)
    properties = struct_pb2.Struct()
    properties.update(inputs)
    deps = {key: tuple(urns) for key, urns in (property_dependencies or {}).items()}
    return RecordedResource(
        urn=urn(stack, type_, name),
        type=type_,
        name=name,
        custom=custom,
        parent=stack_urn(stack),
        provider=provider,
        dependencies=tuple(sorted({u for urns in deps.values() for u in urns})),
        property_dependencies=deps,
        inputs=inputs,
        properties=properties,
        protect=protect,
    )
