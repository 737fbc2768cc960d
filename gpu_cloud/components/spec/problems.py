"""Problems found in a config, and the errors that carry them: every problem at once, each naming the field, what is
wrong and the value found."""

from __future__ import annotations

import difflib
import json
import types
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

import pulumi
from pydantic import BaseModel, ValidationError

__all__ = [
    "CONFIG_NAMESPACE",
    "PROBLEMS_MARK",
    "SECRET_SHOWN",
    "ConfigError",
    "Problem",
    "StackConfigError",
    "config_error",
    "did_you_mean",
    "given",
    "keys_at",
    "raise_problems",
    "show",
    "validation_problems",
]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a config: where, what, and the value found."""

    path: str
    message: str
    value: Any

    def __str__(self) -> str:
        return f"{self.path}: {self.message} (got {show(self.value)})"


class ConfigError(ValueError):
    """Invalid input (a spec or a component's arguments); ``problems`` lists every problem found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class StackConfigError(ConfigError):
    """An invalid stack config: each problem's path is a full config key (``gpu-cloud:nodePools.0.name``).

    ``gpucloud plan`` reports it as invalid config in the stack's file; any other ConfigError comes from
    arguments given in code, and is reported as a program error at the line of the program that gave them.
    """


def show(value: Any) -> str:
    """``value`` as a problem shows it: text as it is, anything else as JSON, at most 80 characters."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def given(value: Any) -> Any:
    """A field's value as the config gave it (a nested spec as its camelCase mapping)."""
    return value.model_dump(by_alias=True, exclude_defaults=True) if isinstance(value, BaseModel) else value


PROBLEMS_MARK = "gpucloud-problems:"
"""Marks the problems a spec's validator found inside pydantic's error message (see :func:`raise_problems`)."""


def raise_problems(problems: list[Problem]) -> None:
    """Raise ``problems`` from a spec's model validator, if any.

    Carried through pydantic as one error; ``parse_stack_config`` splits it back into problems.
    """
    if problems:
        raise ValueError(PROBLEMS_MARK + json.dumps([[p.path, p.message, show(p.value)] for p in problems]))


def validation_problems(
    err: ValidationError, root: str = "", shape: type[BaseModel] | None = None, in_code: bool = False
) -> list[Problem]:
    """The problems of pydantic's ``err`` under the field path ``root``: each error's field path and message, and the
    problems a spec's validator carried through it (:func:`raise_problems`) split back out. With ``shape``, the model
    the path starts from, an unknown key names the known key it is closest to (a typo): a config key, or also a
    Python field name for a spec built ``in_code``."""
    problems: list[Problem] = []
    for error in err.errors(include_url=False):
        path = ".".join([*([root] if root else []), *(str(part) for part in error["loc"])])
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden" and shape is not None:
            *parent, key = path.split(".")
            message += did_you_mean(key, keys_at(shape, parent, in_code))
        given_value = error.get("input")
        if PROBLEMS_MARK in message:
            for sub_path, sub_message, value in json.loads(message.split(PROBLEMS_MARK, 1)[1]):
                problems.append(Problem(".".join(p for p in (path, sub_path) if p), sub_message, value))
        elif isinstance(given_value, pulumi.Output):
            message = "a pulumi Output: spec fields are plain values known when the program runs (a value from another"
            problems.append(Problem(path, f"{message} resource goes in the component's Args)", "Output"))
        else:
            problems.append(Problem(path, message[0].lower() + message[1:], _jsonable(given_value)))
    return problems


def keys_at(shape: Any, path: Sequence[str], in_code: bool = False) -> tuple[str, ...]:
    """The keys of the object at ``path`` (keys and list indexes) under the type ``shape``: a spec's config keys, and
    ``in_code`` its Python field names too (a spec takes both: populate_by_name); none where the path meets a type
    that is no spec, list or mapping of one, or a union of several."""
    origin, args = get_origin(shape), get_args(shape)
    if origin is Annotated:
        return keys_at(args[0], path, in_code)
    if origin in (Union, types.UnionType):
        specs = [arg for arg in args if arg is not type(None)]
        return keys_at(specs[0], path, in_code) if len(specs) == 1 else ()
    if isinstance(shape, type) and issubclass(shape, BaseModel):
        fields = {field.alias or name: field for name, field in shape.model_fields.items()}
        if in_code:
            fields |= shape.model_fields
        if not path:
            return tuple(fields)
        field = fields.get(path[0])
        return keys_at(field.annotation, path[1:], in_code) if field is not None else ()
    if path and origin in (tuple, list, Sequence) and args and path[0].isdigit():
        return keys_at(args[0], path[1:], in_code)
    if path and origin in (dict, Mapping) and len(args) == 2:
        return keys_at(args[1], path[1:], in_code)
    return ()


def did_you_mean(key: str, known: Iterable[str]) -> str:
    """``; did you mean <the known key closest to key>?``, or nothing when none is close (difflib's ratio >= 0.6)."""
    close = difflib.get_close_matches(key, list(known), n=1)
    return f"; did you mean {close[0]}?" if close else ""


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


SECRET_SHOWN = "[secret]"
"""How a problem shows a secret value: never the value itself."""

CONFIG_NAMESPACE = "gpu-cloud"
"""The config namespace gpu-cloud reads (``gpu-cloud:region``), whatever the project's name: like a provider's
(``aws:region``), so that a project that uses the components keeps its own namespace for its own keys."""


def config_error(problems: Iterable[Problem]) -> StackConfigError:
    """A StackConfigError for ``problems`` found in the stack config: their paths as full config keys
    (``gpu-cloud:path.to.field``)."""
    return StackConfigError(Problem(f"{CONFIG_NAMESPACE}:{p.path}", p.message, p.value) for p in problems)
