"""CRD schemas of the pinned charts, vendored (``vendor.py``), and strict validation of custom objects against them.

As ``kubernetes-validate --strict`` does for built-in kinds, a field the schema does not declare is an error (the API
server would prune it silently), unless the schema preserves unknown fields there.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

HERE = Path(__file__).resolve().parent


@cache
def vendored() -> dict[tuple[str, str], dict[str, Any]]:
    """Every vendored CRD by (group, kind)."""
    crds = [json.loads(p.read_text()) for p in sorted(HERE.glob("*.json"))]
    return {(c["group"], c["kind"]): c for c in crds}


def crd_for(api_version: str, kind: str) -> dict[str, Any] | None:
    """The vendored CRD of ``kind`` in ``api_version``'s group, or None."""
    group = api_version.rpartition("/")[0]
    return vendored().get((group, kind))


def _strict(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_strict(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _strict(v) for k, v in schema.items()}
    if schema.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    closed = "properties" in schema and "additionalProperties" not in schema
    if closed and not schema.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if schema.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


@cache
def _validator(group: str, kind: str, version: str) -> jsonschema.protocols.Validator:
    schema = vendored()[(group, kind)]["versions"][version]
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    return cls(_strict(schema))


def errors(obj: dict[str, Any]) -> list[str]:
    """Why ``obj`` (apiVersion, kind, metadata, ...) is not valid for its vendored CRD; [] when it is.

    Raises:
        KeyError: no CRD of that kind is vendored, or it does not serve that version.
    """
    group, _, version = obj["apiVersion"].rpartition("/")
    crd = vendored()[(group, obj["kind"])]
    if version not in crd["versions"]:
        raise KeyError(f"{obj['kind']} {crd['chart']} {crd['version']} does not serve {version}")
    found = _validator(group, obj["kind"], version).iter_errors(obj)
    return sorted(f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in found)
