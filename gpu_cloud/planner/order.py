"""A deterministic order of recorded resources: the tree walk, parents first, siblings by type then name.

The SDK registers resources from several threads, so registration order changes from run to run; everything
the engine hands out (plans, reports, the graph) uses this order instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from gpu_cloud.planner.model import RecordedResource

__all__ = ["children_of", "ordered"]


def children_of(resources: Sequence[RecordedResource]) -> dict[str, list[RecordedResource]]:
    """Parent URN ("" for the roots) -> its children, sorted by type, name and URN."""
    children: dict[str, list[RecordedResource]] = defaultdict(list)
    urns = {r.urn for r in resources}
    for r in resources:
        children[r.parent if r.parent in urns else ""].append(r)
    for siblings in children.values():
        siblings.sort(key=lambda r: (r.type, r.name, r.urn))
    return children


def ordered(resources: Sequence[RecordedResource]) -> list[RecordedResource]:
    """The resources as a tree walk: parents first, siblings by type then name."""
    children = children_of(resources)
    walk: list[RecordedResource] = []

    def visit(parent: str) -> None:
        for child in children.get(parent, []):
            walk.append(child)
            visit(child.urn)

    visit("")
    return walk
