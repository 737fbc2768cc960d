"""Turn the SDK's wire form of property values into plain, deterministic JSON.

The Pulumi SDK sends resource inputs as a ``google.protobuf.Struct`` in which secrets, unknowns,
resource references, assets and archives are encoded with signature keys. The report shows them as:

- an unknown value (known only after deployment): ``"[unknown]"``;
- a secret: ``"[secret]"`` (its value is never printed);
- a resource reference: its URN;
- an asset or archive: ``{"asset": <path|uri|"text">}`` / ``{"archive": ...}``.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2
from pulumi.runtime import rpc

__all__ = ["SECRET", "UNKNOWN", "struct_to_json", "to_json"]

UNKNOWN = "[unknown]"
SECRET = "[secret]"

_SIG = rpc._special_sig_key
_SECRET_SIG = rpc._special_secret_sig
_RESOURCE_SIG = rpc._special_resource_sig
_ASSET_SIG = rpc._special_asset_sig
_ARCHIVE_SIG = rpc._special_archive_sig
_OUTPUT_SIG = rpc._special_output_value_sig


def struct_to_json(struct: struct_pb2.Struct) -> dict[str, Any]:
    """Convert a wire-form Struct to plain JSON with sorted keys."""
    value = to_json(json_format.MessageToDict(struct))
    assert isinstance(value, dict)
    return value


def to_json(value: Any) -> Any:
    """Convert one wire-form value (as decoded from a Struct) to plain JSON."""
    if isinstance(value, str):
        return UNKNOWN if value == rpc.UNKNOWN else value
    if isinstance(value, float) and value.is_integer():
        # Struct stores every number as a double; print integral ones as integers.
        return int(value)
    if isinstance(value, list):
        return [to_json(item) for item in value]
    if isinstance(value, dict):
        sig = value.get(_SIG)
        if sig == _SECRET_SIG:
            return SECRET
        if sig == _RESOURCE_SIG:
            return value.get("urn", UNKNOWN)
        if sig == _ASSET_SIG:
            return {"asset": value.get("path") or value.get("uri") or "text"}
        if sig == _ARCHIVE_SIG:
            return {"archive": value.get("path") or value.get("uri") or "assets"}
        if sig == _OUTPUT_SIG:
            if value.get("secret"):
                return SECRET
            return to_json(value["value"]) if "value" in value else UNKNOWN
        return {key: to_json(value[key]) for key in sorted(value)}
    return value
