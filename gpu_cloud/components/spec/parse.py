"""Reading a stack's config: the ``gpu-cloud:*`` keys validated strictly into a :class:`StackConfig`, every problem
at once."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

import pulumi
from pulumi.runtime import config as runtime_config
from pydantic import TypeAdapter, ValidationError

from gpu_cloud.components.spec.problems import (
    CONFIG_NAMESPACE,
    ConfigError,
    Problem,
    StackConfigError,
    config_error,
    did_you_mean,
    validation_problems,
)
from gpu_cloud.components.spec.stack import LIST_ITEMS, Parts, StackConfig, config_key

__all__ = ["load_stack_config", "parse_stack_config"]


def _adapter(name: str) -> TypeAdapter[Any]:
    field = StackConfig.model_fields[name]
    annotation: Any = field.annotation
    return TypeAdapter(Annotated[(annotation, *field.metadata)] if field.metadata else annotation)


_ADAPTERS = {name: _adapter(name) for name in StackConfig.model_fields}
_TEXT_FIELDS = frozenset(
    config_key(name) for name, adapter in _ADAPTERS.items() if adapter.json_schema().get("type") == "string"
)
"""Fields whose config value is text as written (``region: "123"`` is the text 123, not a number)."""


def parse_stack_config(raw: Mapping[str, Any]) -> StackConfig:
    """Validate ``raw`` (the ``gpu-cloud:*`` config keys without the namespace) as a StackConfig.

    Validation is strict, as for JSON: no value is coerced from another type (``true`` is not 1, an integer is
    not a CIDR). Every problem is reported at once: each field on its own, then every stack-level check whose
    fields are valid, whatever else is wrong.

    Raises:
        ConfigError: listing every problem as ``path.to.field: what is wrong (got VALUE)``.
    """
    problems: list[Problem] = []
    values: dict[str, Any] = {}
    items: dict[str, list[tuple[int, Any]]] = {}
    for name, field in StackConfig.model_fields.items():
        alias = config_key(name)
        if alias not in raw:
            if field.is_required():
                problems.append(Problem(alias, "field required", None))
            else:
                values[name] = field.get_default(call_default_factory=True)
            continue
        value = raw[alias]
        if name in LIST_ITEMS and isinstance(value, list):
            found = [(i, _validate(LIST_ITEMS[name], item, f"{alias}.{i}", problems)) for i, item in enumerate(value)]
            items[name] = [(i, item) for i, item in found if item is not _INVALID]
            if len(items[name]) == len(value):
                values[name] = _validate(_ADAPTERS[name], value, alias, problems)
        else:
            values[name] = _validate(_ADAPTERS[name], value, alias, problems)
        if values.get(name) is _INVALID:
            del values[name]
    known = {config_key(name) for name in StackConfig.model_fields}
    problems += [
        Problem(key, "extra inputs are not permitted" + did_you_mean(key, known), v)
        for key, v in raw.items()
        if key not in known
    ]
    problems += Parts(values, items).problems()
    if problems:
        raise ConfigError(problems)
    return StackConfig.model_construct(**values)


_INVALID = object()


def _validate(adapter: TypeAdapter[Any], value: Any, path: str, problems: list[Problem]) -> Any:
    """``value`` validated strictly (as JSON), or _INVALID with its problems added to ``problems``."""
    try:
        return adapter.validate_json(json.dumps(value), strict=True)
    except ValidationError as err:
        problems += validation_problems(err, path, StackConfig)
        return _INVALID


def load_stack_config() -> StackConfig:
    """Read and validate the current stack's config: every key in gpu-cloud's namespace (``gpu-cloud:*``).

    Keys are the StackConfig fields in camelCase (``gpu-cloud:nodePools``); structured values are
    objects in the stack's YAML file. Unknown keys in that namespace are problems too; keys of any other
    namespace (the project's own, a provider's) are left to their readers.

    Raises:
        StackConfigError: listing every problem, each path a full config key (``gpu-cloud:nodePools.0.name``).
    """
    prefix = f"{CONFIG_NAMESPACE}:"
    keys = {k for k in _given_keys() if k.startswith(prefix)}
    config = pulumi.Config(CONFIG_NAMESPACE)
    raw: dict[str, Any] = {}
    for key in sorted(keys):
        name = key[len(prefix) :]
        text = config.require(name)
        raw[name] = text if name in _TEXT_FIELDS else _decode(text)
    secret_key = f"{prefix}{StackConfig.model_fields['alert_receiver_url'].alias}"
    if secret_key in keys and not runtime_config.is_config_secret(secret_key):
        raise StackConfigError(
            [Problem(secret_key, "must be a Pulumi secret (pulumi config set --secret)", "plain text")]
        )
    try:
        return parse_stack_config(raw)
    except ConfigError as err:
        raise config_error(err.problems) from None


def _given_keys() -> set[str]:
    """Every config key the program was given, so that an unknown key of gpu-cloud's namespace (a typo) is a problem.

    The SDK has no public reader of them all. The Pulumi CLI passes them in the ``PULUMI_CONFIG`` environment variable,
    which the public ``pulumi.runtime.get_config_env()`` reads; a host that sets them with the public
    ``pulumi.runtime.set_all_config`` (``gpucloud plan``, a component provider's construct: pulumi 3.272
    ``provider/server.py``) stores them in ``pulumi.runtime.config.CONFIG``, which is read here as the SDK's own
    ``get_config`` reads it (``runtime/config.py``). tests/components/test_config_keys.py covers both paths and fails
    if the SDK stops keeping them there.
    """
    return {*runtime_config.get_config_env(), *runtime_config.CONFIG.get()}


def _decode(text: str) -> Any:
    """Config values arrive as strings; objects, lists, numbers and booleans as their JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text
