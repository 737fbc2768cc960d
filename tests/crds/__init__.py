"""CRD schemas of the pinned charts, vendored (``vendor.py``), and strict validation of custom objects against them.

As ``kubernetes-validate --strict`` does for built-in kinds, a field the schema does not declare is an error (the API
server would prune it silently), unless the schema preserves unknown fields there. The schemas' CEL rules
(``x-kubernetes-validations``) are evaluated too, with cel-python, as the API server evaluates them on create: each
rule with ``self`` bound to the value at its place in the object, where that value is present; transition rules (those
that read ``oldSelf``) apply to updates only and are skipped (kubernetes.io/docs/tasks/extend-kubernetes/
custom-resources/custom-resource-definitions, "Validation rules" and "Transition rules"). The rules of the vendored
CRDs use, beyond standard CEL, only ``find`` (Kubernetes' regex library) and ``split`` (CEL's strings extension, which
Kubernetes enables), given here in :data:`_CEL_FUNCTIONS`.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import celpy
import jsonschema
from celpy import celtypes
from celpy.adapter import json_to_cel

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
    schema_errors = [f"{'.'.join(str(p) for p in e.absolute_path)}: {e.message}" for e in found]
    return sorted([*schema_errors, *_rule_errors(crd["versions"][version], obj, ())])


def _find(value: celtypes.StringType, pattern: celtypes.StringType) -> celtypes.StringType:
    """Kubernetes' ``<string>.find(<regex>)``: the first match, or "" when none (k8s.io/apiserver/pkg/cel/library
    regex.go)."""
    match = re.search(pattern, value)
    return celtypes.StringType(match.group(0) if match else "")


def _split(value: celtypes.StringType, separator: celtypes.StringType) -> celtypes.ListType:
    """CEL strings extension ``<string>.split(<string>)`` (cel-go ext/strings.go)."""
    return celtypes.ListType([celtypes.StringType(part) for part in value.split(separator)])


_CEL_FUNCTIONS: dict[str, Any] = {"find": _find, "split": _split}
_CEL = celpy.Environment()


@cache
def _program(rule: str) -> celpy.Runner:
    return _CEL.program(_CEL.compile(rule), functions=_CEL_FUNCTIONS)


def _holds(rule: str, value: Any) -> bool:
    """Whether the CEL ``rule`` is true of ``value``; an evaluation error (e.g. a function the rules use that is not
    in :data:`_CEL_FUNCTIONS`) counts as broken, so it shows."""
    result = _program(rule).evaluate({"self": json_to_cel(value)})
    return isinstance(result, celtypes.BoolType) and bool(result)


def _rule_errors(schema: dict[str, Any], value: Any, path: tuple[str, ...]) -> list[str]:
    """The CEL rules of ``schema`` and of its properties, items and map values that ``value`` breaks."""
    found = [
        f"{'.'.join(path)}: {rule.get('message', rule['rule'])}"
        for rule in schema.get("x-kubernetes-validations", [])
        if "oldSelf" not in rule["rule"] and not _holds(rule["rule"], value)
    ]
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        values = schema.get("additionalProperties")
        for key, item in value.items():
            inner = properties.get(key, values if isinstance(values, dict) else None)
            if inner is not None:
                found += _rule_errors(inner, item, (*path, key))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            found += _rule_errors(schema["items"], item, (*path, str(index)))
    return found
