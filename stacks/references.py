"""Outputs of other stacks (``pulumi.StackReference``), checked where they are read.

The other stack's outputs are known only once the reference resolves, so their checks run in an apply. A missing or
malformed output is a config error naming the field of this stack's config that names the other stack, not a
KeyError or IndexError from inside the SDK.
"""

import functools

import pulumi

from gpu_cloud.components.spec import Problem, config_error


def text(other: pulumi.StackReference, stack: str, key: str, field: str) -> pulumi.Output[str]:
    """Output ``key`` of ``other`` (the stack named ``stack``), which must be a non-empty string; ``field`` is the
    config field that names the stack."""
    return other.get_output(key).apply(functools.partial(_text, stack=stack, key=key, field=field))


def ids(other: pulumi.StackReference, stack: str, key: str, count: int, field: str) -> list[pulumi.Output[str]]:
    """The ``count`` ids of list output ``key`` of ``other`` (the stack named ``stack``); ``field`` is the config
    field that gives ``count``."""
    listed = other.get_output(key).apply(functools.partial(_ids, stack=stack, key=key, count=count, field=field))
    return [listed.apply(functools.partial(_item, i=i)) for i in range(count)]


def _text(value: object, stack: str, key: str, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise config_error([Problem(field, f"{stack} exports no {key} id", value)])
    return value


def _ids(value: object, stack: str, key: str, count: int, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise config_error([Problem(field, f"{stack} exports {key} that is not a list of ids", value)])
    if len(value) != count:
        raise config_error([Problem(field, f"{stack} exports {len(value)} ids as {key}", count)])
    return value


def _item(ids: list[str], i: int) -> str:
    return ids[i]
