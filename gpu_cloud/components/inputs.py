"""Arguments that may come from another resource (``pulumi.Input``): checked when the program runs if they are known
then, else when they resolve.

A plain value is checked before anything is registered, with every other problem of the arguments (a ConfigError
naming the field and the value). An Output's value exists only once the resource that produces it does, so its
check runs in an apply: a bad value fails the deployment at that point (``pulumi preview`` shows it when the value
is known at preview time), naming the field and the value the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import pulumi

from gpu_cloud.components.spec import ConfigError, Problem

__all__ = ["checked", "known_problems"]


def known_problems(field: str, value: pulumi.Input[str], valid: Callable[[str], bool], message: str) -> list[Problem]:
    """The problem of ``value`` if it is a plain value that is not ``valid`` (an Output is :func:`checked` later)."""
    return [Problem(field, message, value)] if isinstance(value, str) and not valid(value) else []


def checked(field: str, value: pulumi.Input[str], valid: Callable[[str], bool], message: str) -> pulumi.Output[str]:
    """``value`` as an Output that fails with a ConfigError naming ``field`` when its value is not ``valid``."""

    def check(resolved: str) -> str:
        if not valid(resolved):
            raise ConfigError([Problem(field, message, resolved)])
        return resolved

    return pulumi.Output.from_input(value).apply(check)
