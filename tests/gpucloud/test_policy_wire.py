"""What the analyzer is sent: the engine's marshalling of properties for analyzers."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2

from gpu_cloud.planner.policy import _public


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(value)
    return struct


def test_properties_without_internal_keys_are_sent_as_they_are() -> None:
    properties = _struct({"tags": {"team": "a__b"}, "name": "__not-a-key"})
    assert _public(properties) is properties


def test_internal_keys_are_skipped_at_every_level() -> None:
    properties = _struct(
        {"__defaults": ["name"], "tags": {"__x": "1", "team": "ml"}, "rules": [{"__meta": "m", "port": 443}]}
    )
    assert json_format.MessageToDict(_public(properties)) == {"tags": {"team": "ml"}, "rules": [{"port": 443}]}
