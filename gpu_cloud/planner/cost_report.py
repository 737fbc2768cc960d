"""The cost estimate as a table for people: per GPU pool, the other items, totals per currency, sources."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

from gpu_cloud.planner.cost import CostEstimate, ItemCost, PoolCost, Totals, amount
from gpu_cloud.policies.gpucloud_rules.cost_model import HOURS_PER_MONTH

__all__ = ["cost_lines"]

PRICE_UNKNOWN: Final = "price unknown"
_CENT: Final = Decimal("0.01")


def _money(currency: str, value: Decimal | None) -> str:
    if value is None:
        return "-"
    return f"{currency} {value.quantize(_CENT, ROUND_HALF_UP):,}"


def _count(n: int | None, noun: str) -> str:
    """``1 GPU``, ``4 GPUs``; ``? GPUs`` when unknown."""
    return f"{'?' if n is None else n} {noun}{'' if n == 1 else 's'}"


def _grid(rows: Sequence[Sequence[str]], indent: str) -> list[str]:
    """Rows as columns: the first left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent
        + "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]


def _pool_lines(p: PoolCost) -> list[str]:
    types = ", ".join(p.capacity.instance_types) or "instance type unknown"
    capacity = "spot" if p.capacity.spot else "on-demand"
    head = f"  {p.resource.name}  ({p.resource.type}, {p.region or 'region unknown'}, {capacity}: {types})"
    lines = [head]
    if p.priced_as is not None and p.on_demand is not None:
        price = f"{p.on_demand.currency} {amount(p.on_demand.hourly)}/h on demand"
        if p.spot_hourly is not None and p.discount is not None:
            off = amount(p.discount.fraction * 100)
            price = f"{p.on_demand.currency} {amount(p.spot_hourly)}/h spot estimate ({off}% off {price})"
        mixed = (
            f" (the most expensive of {len(p.capacity.instance_types)})" if len(p.capacity.instance_types) > 1 else ""
        )
        per_node = f"{p.gpus_per_node} GPU{'' if p.gpus_per_node == 1 else 's'}"
        lines.append(f"    priced as {p.priced_as}{mixed}, {per_node} per node, {price} per node")
    if p.unknown:
        lines.append(f"    {PRICE_UNKNOWN}: {p.unknown}")
    gpus, monthly, on_demand = p.gpus(), p.monthly(), p.monthly_on_demand()
    currency = p.on_demand.currency if p.on_demand else ""
    rows = [["", "min", "desired", "max"]]
    if p.capacity.sizes is not None:
        nodes = p.capacity.sizes.as_tuple()
        rows.append(["nodes (GPUs)", *(f"{n} ({g})" for n, g in zip(nodes, gpus or ("?", "?", "?"), strict=True))])
    if monthly is not None:
        rows.append(
            [
                "per month" + (" at the spot estimate" if p.capacity.spot else ""),
                *(_money(currency, v) for v in monthly),
            ]
        )
    if on_demand is not None and p.capacity.spot:
        rows.append(["per month on demand (fall-back)", *(_money(currency, v) for v in on_demand)])
    if len(rows) > 1:
        lines += _grid(rows, "    ")
    if p.holds:
        held = ", ".join(f"{h.workload} ({h.replicas} x {h.gpus_per_replica} GPU)" for h in p.holds)
        idle_nodes, idle = p.idle_nodes(), p.idle_monthly()
        idle_gpus = None if idle_nodes is None or p.gpus_per_node is None else idle_nodes * p.gpus_per_node
        lines.append(
            f"    at idle: {_count(idle_nodes, 'node')} ({_count(idle_gpus, 'GPU')}) for the minimum replicas of "
            f"{held}, {_money(currency, idle) if idle is not None else PRICE_UNKNOWN} per month"
        )
    lines += [f"    note: {note}" for note in p.capacity.notes]
    return lines


def _item_rows(items: Sequence[ItemCost]) -> list[list[str]]:
    rows = [["", "qty", "per unit-hour", "per month"]]
    for i in items:
        label = f"{i.resource.name}  {i.billable.description}"
        quantity = "?" if i.billable.quantity is None else str(i.billable.quantity)
        if i.price is None:
            rows.append([label, quantity, PRICE_UNKNOWN, PRICE_UNKNOWN])
        else:
            hourly = f"{i.price.currency} {amount(i.price.hourly)}"
            rows.append([label, quantity, hourly, _money(i.price.currency, i.monthly())])
    return rows


def _totals_lines(t: Totals) -> list[str]:
    c = t.currency
    per_gpu_hour = t.cost_per_gpu_hour()
    rows = [
        ["", "min", "desired", "max"],
        ["GPUs", *(str(g) for g in t.gpus)],
        ["GPU pools (spot at the estimate)", *(_money(c, v) for v in t.gpu_monthly)],
        ["same GPU capacity on demand", *(_money(c, v) for v in t.gpu_monthly_on_demand)],
        ["saving of spot", *(_money(c, v) for v in t.spot_saving)],
        ["other items", *(_money(c, t.other_monthly) for _ in range(3))],
        ["environment per month", *(_money(c, v) for v in t.monthly)],
        ["per GPU-hour of the fleet", *("-" if v is None else f"{c} {v}" for v in per_gpu_hour)],
    ]
    idle = (
        f"  at idle (autoscaled workloads at their minimum replicas): {_count(t.idle_gpus, 'GPU')}, GPU pools "
        f"{_money(c, t.idle_gpu_monthly)}, environment per month {_money(c, t.idle_monthly)}"
    )
    return [f"Totals ({c})", *_grid(rows, "  "), idle]


def cost_lines(cost: CostEstimate) -> list[str]:
    """The cost section of the human report; every unknown price is a line saying ``price unknown``."""
    hours = int(HOURS_PER_MONTH)
    lines = [f"Cost estimate ({hours} h/month; list prices unless overridden; spot at an estimated typical discount)"]
    if not (cost.pools or cost.items or cost.not_costed):
        return [*lines, "  no GPU pools, NAT gateways, control planes or interface endpoints"]
    if cost.pools:
        lines.append("GPU pools")
        for pool in cost.pools:
            lines += _pool_lines(pool)
    if cost.items:
        lines.append("Other items")
        lines += _grid(_item_rows(cost.items), "  ")
        lines += [f"  {i.resource.name}: {PRICE_UNKNOWN}: {i.unknown}" for i in cost.items if i.unknown]
        notes = sorted({note for i in cost.items for note in i.billable.notes})
        lines += [f"  note: {note}" for note in notes]
    if cost.not_costed:
        lines.append("Not GPU capacity (not estimated)")
        lines += [f"  {n.resource.name}  ({n.resource.type}): {n.reason}" for n in cost.not_costed]
    for totals in cost.totals():
        lines += _totals_lines(totals)
    if not cost.complete:
        unknown = sum(1 for p in cost.pools if p.unknown) + sum(1 for i in cost.items if i.unknown)
        lines.append(f"Incomplete: {unknown} pool(s) or item(s) with {PRICE_UNKNOWN} are left out of the totals")
    lines += _source_lines(cost)
    return lines


def _source_lines(cost: CostEstimate) -> list[str]:
    sources: set[str] = set()
    for p in cost.pools:
        if p.on_demand is not None:
            sources.add(_cite(p.on_demand.source, p.on_demand.date, p.on_demand.override))
        if p.discount is not None:
            sources.add(_cite(p.discount.source, p.discount.date, p.discount.override) + " (spot discount, estimate)")
    for i in cost.items:
        if i.price is not None:
            sources.add(_cite(i.price.source, i.price.date, i.price.override))
    return ["Price sources"] + [f"  - {s}" for s in sorted(sources)] if sources else []


def _cite(source: str, stated: object, override: bool) -> str:
    if override:
        return f"{source} (override)"
    return f"{source} ({stated})"
