"""Render a plan: the JSON document, the human tree like ``pulumi preview``, and Graphviz DOT."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from gpu_cloud.planner.cost import CostEstimate
from gpu_cloud.planner.cost_report import cost_lines
from gpu_cloud.planner.engine import Plan
from gpu_cloud.planner.model import JSON_SCHEMA_VERSION, RecordedResource, Violation
from gpu_cloud.planner.order import children_of, ordered

__all__ = ["JSON_SCHEMA_VERSION", "to_dot", "to_human", "to_json_document"]


def _tree(resources: Sequence[RecordedResource]) -> list[tuple[str, RecordedResource]]:
    """(tree-drawing prefix, resource) in walk order, the prefix as ``pulumi preview`` draws it."""
    children = children_of(resources)
    rows: list[tuple[str, RecordedResource]] = []

    def walk(parent: str, indent: str, root: bool) -> None:
        siblings = children.get(parent, [])
        for i, child in enumerate(siblings):
            last = i == len(siblings) - 1
            rows.append((indent + ("" if root else "└─ " if last else "├─ "), child))
            walk(child.urn, indent + ("" if root else "   " if last else "│  "), False)

    walk("", "", True)
    return rows


def _resource_json(r: RecordedResource) -> dict[str, Any]:
    return {
        "urn": r.urn,
        "type": r.type,
        "name": r.name,
        "parent": r.parent,
        "provider": r.provider,
        "dependencies": sorted(r.dependencies),
        "propertyDependencies": {k: sorted(v) for k, v in sorted(r.property_dependencies.items())},
        "inputs": r.inputs,
        "protect": r.protect,
        "ignoreChanges": sorted(r.ignore_changes),
        "retainOnDelete": r.retain_on_delete,
    }


def _violation_json(v: Violation) -> dict[str, str]:
    return {"policy": v.policy, "level": v.level, "urn": v.urn, "name": v.name, "type": v.type, "message": v.message}


def to_json_document(plan: Plan, violations: Sequence[Violation], cost: Mapping[str, Any]) -> str:
    """The ``--json`` document: byte-identical for identical input.

    ``outputs`` are the stack outputs (secrets and unknowns as placeholders); ``warnings`` what the plan could
    not model faithfully; ``cannedAnswers`` the data sources answered from canned data, not by a cloud.
    """
    document = {
        "schemaVersion": JSON_SCHEMA_VERSION,
        "project": plan.project,
        "stack": plan.stack,
        "resources": [_resource_json(r) for r in ordered(plan.resources)],
        "violations": [_violation_json(v) for v in sorted(violations, key=_violation_key)],
        "outputs": dict(sorted(plan.outputs.items())),
        "warnings": list(plan.warnings),
        "cannedAnswers": list(plan.canned_answers),
        "cost": cost,
    }
    return json.dumps(document, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def _violation_key(v: Violation) -> tuple[str, str, str, str]:
    return (v.policy, v.level, v.urn, v.message)


def _flags(r: RecordedResource) -> str:
    flags = []
    if r.protect:
        flags.append("protect")
    if r.retain_on_delete:
        flags.append("retain")
    if r.ignore_changes:
        flags.append("ignore " + ",".join(r.ignore_changes))
    return f"  [{'; '.join(flags)}]" if flags else ""


def to_human(plan: Plan, violations: Sequence[Violation], policies_ran: bool, cost: CostEstimate | None = None) -> str:
    """A preview-like tree, counts per type, the violations grouped by policy, and the cost table."""
    lines = [f"Plan of {plan.project}/{plan.stack} (offline preview: no cloud account, no Pulumi CLI)", ""]
    rows = [(prefix + r.type, r) for prefix, r in _tree(plan.resources)]
    width = max((len(label) for label, _ in rows), default=0) + 2
    lines.append(f"    {'Type'.ljust(width)}Name")
    lines += [f"  + {label.ljust(width)}{r.name}{_flags(r)}" for label, r in rows]
    counts = Counter(r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack")
    lines += ["", f"Resources: {sum(counts.values())} to create"]
    lines += [f"  {n:>4} {t}" for t, n in sorted(counts.items())]
    if plan.outputs:
        lines += ["", "Outputs:"]
        lines += [f"  {k}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(plan.outputs.items())]
    if plan.warnings:
        lines += ["", "Warnings:"] + [f"  - {w}" for w in plan.warnings]
    lines += ["", *_violation_lines(violations, policies_ran)]
    if cost is not None:
        lines += ["", *cost_lines(cost)]
    return "\n".join(lines) + "\n"


def _violation_lines(violations: Sequence[Violation], policies_ran: bool) -> list[str]:
    if not policies_ran:
        return ["Policies: not run (--no-policy)"]
    if not violations:
        return ["Policies: no violations"]
    mandatory = sum(v.level == "mandatory" for v in violations)
    lines = [f"Policy violations: {mandatory} mandatory, {len(violations) - mandatory} advisory"]
    by_policy: dict[str, list[Violation]] = defaultdict(list)
    for v in sorted(violations, key=_violation_key):
        by_policy[v.policy].append(v)
    for policy, items in sorted(by_policy.items()):
        lines.append(f"  {policy} ({items[0].level})")
        for v in items:
            message = v.message.replace("\n", "\n      ")
            lines.append(f"    - {v.type} {v.name}: {message}" if v.urn else f"    - {message}")
    return lines


def to_dot(plan: Plan) -> str:
    """The resource graph as Graphviz DOT: solid edges parent -> child, dashed edges dependent -> dependency.

    Each component is drawn as a box (a cluster) around its children, so an environment reads as its parts.
    """
    rows = ordered(plan.resources)
    ids = {r.urn: f"r{i}" for i, r in enumerate(rows)}
    children = children_of(plan.resources)
    lines = [
        "digraph plan {",
        "  rankdir=LR;",
        "  compound=true;",
        '  node [shape=box, fontname="Helvetica", fontsize=10];',
        f'  label="{_escape(plan.project)}/{_escape(plan.stack)}: solid = parent, dashed = depends on";',
    ]

    def node(r: RecordedResource, indent: str) -> None:
        shape = "box" if r.custom else "folder"
        lines.append(f'{indent}{ids[r.urn]} [label="{_escape(r.type)}\\n{_escape(r.name)}", shape={shape}];')

    def nest(parent: str, indent: str) -> None:
        for r in children.get(parent, []):
            if r.custom or not children.get(r.urn) or r.type == "pulumi:pulumi:Stack":
                node(r, indent)
                if r.type == "pulumi:pulumi:Stack":
                    nest(r.urn, indent)
                continue
            lines.append(f"{indent}subgraph cluster_{ids[r.urn]} {{")
            lines.append(f'{indent}  label="{_escape(r.name)}"; style=rounded; color="gray60"; fontname="Helvetica";')
            node(r, indent + "  ")
            nest(r.urn, indent + "  ")
            lines.append(f"{indent}}}")

    nest("", "  ")
    for r in rows:
        if r.parent in ids:
            lines.append(f'  {ids[r.parent]} -> {ids[r.urn]} [style=solid, color="gray40"];')
    for r in rows:
        for dep in sorted(set(r.dependencies)):
            if dep in ids:
                lines.append(f'  {ids[r.urn]} -> {ids[dep]} [style=dashed, color="steelblue"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')
