"""Read the files a plan is given (stack config, Pulumi.yaml, policy config, prices, stack outputs) defensively.

Every file may be careless or hostile: not UTF-8, nested thousands of levels deep, a YAML alias bomb (a few
hundred bytes whose aliases expand to billions of nodes), duplicate keys that silently drop a value. Each is
refused with a :class:`PlanError` that names the file and says why, before anything else reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from gpu_cloud.planner.model import PlanError

__all__ = ["MAX_ALIASES", "MAX_BYTES", "MAX_DEPTH", "MAX_NODES", "load_json", "load_yaml", "read_text"]

MAX_BYTES = 16 * 1024 * 1024
"""Largest file read (16 MiB); the shipped stack configs are a few KiB."""
MAX_DEPTH = 64
"""Deepest nesting of mappings and lists; a stack config nests five levels."""
MAX_ALIASES = 100
"""Most YAML aliases (``*name``) in one file."""
MAX_NODES = 1_000_000
"""Most YAML nodes once every alias is expanded (what a consumer of the data would walk)."""


def read_text(path: Path) -> str:
    """The text of ``path``, which must be UTF-8 (a BOM is allowed) and at most MAX_BYTES long.

    Raises:
        PlanError: the file cannot be read, is too large, or is not UTF-8 (naming the offset of the bad byte).
    """
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_BYTES + 1)
    except OSError as err:
        raise PlanError(f"{path}: cannot read: {err.strerror}") from None
    if len(data) > MAX_BYTES:
        raise PlanError(f"{path}: larger than {MAX_BYTES // (1024 * 1024)} MiB; refusing to read it")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        bad = data[err.start : err.start + 1].hex()
        raise PlanError(f"{path}: not UTF-8 text (byte 0x{bad} at offset {err.start})") from None


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader with bounds on depth and aliases, and duplicate keys refused."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _refusal(self._mark(), f"more than {MAX_ALIASES} aliases")
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _refusal(self._mark(), f"nested deeper than {MAX_DEPTH} levels")
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def _mark(self) -> yaml.Mark:
        mark: yaml.Mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
        return mark

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                continue  # unhashable; the base loader reports it
            if key in seen:
                raise _refusal(key_node.start_mark, f"duplicate key {key!r} (a second value would replace the first)")
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _refusal(mark: yaml.Mark | None, problem: str) -> yaml.MarkedYAMLError:
    return yaml.MarkedYAMLError(problem=problem, problem_mark=mark)


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` stands for once aliases are expanded (shared nodes counted at every use)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = size
    return size


def load_yaml(path: Path) -> Any:
    """The YAML document in ``path``, read with the safe loader within MAX_DEPTH, MAX_ALIASES and MAX_NODES.

    Raises:
        PlanError: the file cannot be read, is not UTF-8 or not valid YAML, has a duplicate key, or exceeds a
            bound (``file:line:column: what``).
    """
    loader = _BoundedLoader(read_text(path))
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_NODES:
            raise _refusal(node.start_mark, f"expands to more than {MAX_NODES} nodes (an alias bomb?)")
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(err, "problem", None) or str(err)
        raise PlanError(f"{where}: not valid YAML: {problem}") from None
    finally:
        loader.dispose()


def load_json(path: Path) -> Any:
    """The JSON document in ``path``: UTF-8, finite numbers only (no NaN or Infinity), at most MAX_DEPTH deep.

    Raises:
        PlanError: the file cannot be read, is not UTF-8 or not valid JSON, or exceeds a bound.
    """
    text = read_text(path)
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise PlanError(f"{path}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}") from None
    except _NotANumber as err:
        raise PlanError(f"{path}: not valid JSON: {err} is not a JSON number") from None
    except RecursionError:
        raise PlanError(f"{path}: not valid JSON: nested deeper than {MAX_DEPTH} levels") from None
    if _depth(document) > MAX_DEPTH:
        raise PlanError(f"{path}: not valid JSON: nested deeper than {MAX_DEPTH} levels")
    return document


class _NotANumber(ValueError):
    """NaN, Infinity or -Infinity: Python's json reads them, JSON (RFC 8259, section 6) has no such numbers."""


def _no_constant(name: str) -> Any:
    raise _NotANumber(name)


def _depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value, iteratively (a deep value must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack.extend((child, depth + 1) for child in children)
    return deepest
