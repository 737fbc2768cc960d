"""The stack config reference (docs/config.md), generated from the specs' pydantic models: every key, its type, its
default and its description (each field's attribute docstring, ``Spec``'s ``use_attribute_docstrings``).

Regenerate after changing a spec: ``python -m gpu_cloud.components.spec.reference docs/config.md``.
tests/components/test_config_reference.py fails when the page is stale or a field has no description.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gpu_cloud.components.spec.problems import CONFIG_NAMESPACE
from gpu_cloud.components.spec.stack import StackConfig

__all__ = ["missing_descriptions", "render"]

_HEADER = f"""# Stack config reference

<!-- Generated from the pydantic models of gpu_cloud/components/spec by
`python -m gpu_cloud.components.spec.reference docs/config.md`: do not edit by hand. -->

An environment is configured by the `{CONFIG_NAMESPACE}:*` keys of its stack file, `stacks/Pulumi.<stack>.yaml` (or
your project's), under `config:`; objects and lists are written in YAML, and `pulumi config set
{CONFIG_NAMESPACE}:<key> <value>` sets a plain value. Keys are camelCase. A key this page does not list is refused,
every problem of a config is reported at once (`gpucloud plan` exits 2), and the environment components take the
same keys as one mapping (docs/provider.md). How-tos: docs/howto.md.
"""


def render() -> str:
    """The reference page, in Markdown."""
    schema = StackConfig.model_json_schema(by_alias=True)
    definitions: dict[str, Any] = schema.get("$defs", {})
    lines = [_HEADER, f"## Top-level keys (`{CONFIG_NAMESPACE}:<key>`)", ""]
    lines += _table(schema, definitions, prefix=f"{CONFIG_NAMESPACE}:")
    for name in sorted(definitions):
        definition = definitions[name]
        if "properties" not in definition:
            continue  # an enum: its values are listed where it is used
        lines += ["", f"## {name}", "", _text(definition.get("description", "")), ""]
        lines += _table(definition, definitions, prefix="")
    return "\n".join(lines) + "\n"


def missing_descriptions(model: type[BaseModel] = StackConfig) -> list[str]:
    """The fields (``Model.key``) of ``model`` and the models it holds without a description."""
    schema = model.model_json_schema(by_alias=True)
    models = [(model.__name__, schema), *schema.get("$defs", {}).items()]
    return [
        f"{name}.{key}"
        for name, model in models
        for key, field in model.get("properties", {}).items()
        if not field.get("description", "").strip()
    ]


def _table(model: dict[str, Any], definitions: dict[str, Any], prefix: str) -> list[str]:
    required = set(model.get("required", []))
    rows = ["| Key | Type | Default | Description |", "|---|---|---|---|"]
    for key, field in model.get("properties", {}).items():
        default = "required" if key in required else _value(field.get("default"))
        rows.append(
            f"| `{prefix}{key}` | {_type(field, definitions)} | {default} | {_cell(field.get('description', ''))} |"
        )
    return rows


def _type(field: dict[str, Any], definitions: dict[str, Any]) -> str:
    """A field's type in words, with its constraints, linking to the section of a nested spec."""
    if "$ref" in field:
        name = field["$ref"].rsplit("/", 1)[1]
        target = definitions[name]
        if "enum" in target:
            return "one of " + ", ".join(f"`{v}`" for v in target["enum"])
        return f"[{name}](#{name.lower()})"
    if "anyOf" in field:
        kinds = [_type(option, definitions) for option in field["anyOf"] if option.get("type") != "null"]
        nullable = any(option.get("type") == "null" for option in field["anyOf"])
        return " or ".join(kinds) + (" or null" if nullable else "")
    if "enum" in field:
        return "one of " + ", ".join(f"`{v}`" for v in field["enum"])
    kind = field.get("type")
    if kind == "array":
        text = f"list of {_type(field.get('items', {}), definitions)}"
    elif kind == "object" and isinstance(field.get("additionalProperties"), dict):
        text = f"map of string to {_type(field['additionalProperties'], definitions)}"
    elif kind == "string" and field.get("format") == "ipv4network":
        text = "IPv4 network (CIDR)"
    else:
        text = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}.get(
            str(kind), "object"
        )
    return text + _constraints(field)


def _constraints(field: dict[str, Any]) -> str:
    bounds = [
        f"{word} {field[key]}"
        for key, word in (
            ("minimum", "≥"),
            ("exclusiveMinimum", ">"),
            ("maximum", "≤"),
            ("exclusiveMaximum", "<"),
            ("minItems", "at least"),
            ("maxItems", "at most"),
            ("minLength", "length ≥"),
            ("maxLength", "length ≤"),
        )
        if key in field
    ]
    if "pattern" in field:
        bounds.append(f"matching `{field['pattern']}`")
    return f" ({', '.join(bounds)})" if bounds else ""


def _value(value: Any) -> str:
    return f"`{json.dumps(value)}`" if value not in (None, [], {}) else ("none" if value is None else f"`{value}`")


def _text(text: str) -> str:
    """A docstring as Markdown text: one line, reStructuredText roles and literals as code."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", " ".join(text.split()))
    return text.replace("``", "`")


def _cell(text: str) -> str:
    return _text(text).replace("|", "\\|")


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(render(), encoding="utf-8")
