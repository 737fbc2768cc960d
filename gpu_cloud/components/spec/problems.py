"""Problems found in a config, and the errors that carry them: every problem at once, each naming the field, what is
wrong and the value found."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

__all__ = [
    "CONFIG_NAMESPACE",
    "PROBLEMS_MARK",
    "SECRET_SHOWN",
    "ConfigError",
    "Problem",
    "StackConfigError",
    "config_error",
    "given",
    "raise_problems",
    "show",
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


SECRET_SHOWN = "[secret]"
"""How a problem shows a secret value: never the value itself."""

CONFIG_NAMESPACE = "gpu-cloud"
"""The config namespace gpu-cloud reads (``gpu-cloud:region``), whatever the project's name: like a provider's
(``aws:region``), so that a project that uses the components keeps its own namespace for its own keys."""


def config_error(problems: Iterable[Problem]) -> StackConfigError:
    """A StackConfigError for ``problems`` found in the stack config: their paths as full config keys
    (``gpu-cloud:path.to.field``)."""
    return StackConfigError(Problem(f"{CONFIG_NAMESPACE}:{p.path}", p.message, p.value) for p in problems)
