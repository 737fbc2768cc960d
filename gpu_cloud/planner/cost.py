"""The cost estimate of a plan: what its GPU capacity and the items around it cost per month.

It reads the recorded resources, so it works for any program: every EKS node group, ACK node pool and
EC2/ECS instance of a catalog GPU type is a GPU pool; NAT gateways, EKS/ACK Pro control planes and
interface VPC endpoints are the other items. Arithmetic is exact (``Decimal``); amounts are rounded only
when printed. The idle figure is what the pools cost while the plan's autoscaled workloads (HorizontalPodAutoscalers
of Deployments) sit at their minimum replicas: a pool then runs its minimum size or the nodes those replicas' GPUs
need, whichever is larger (a Karpenter NodePool has no minimum, so its idle nodes are the replicas' alone).
A price that is not known is reported as unknown with the reason, and what it belongs to
stays out of the totals, which then say they are incomplete.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Final

from gpu_cloud.components import catalog, labels
from gpu_cloud.planner.engine import Plan
from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.price_book import Discount, Price, PriceBook
from gpu_cloud.policies.gpucloud_rules import cost_model as cm

__all__ = ["CostEstimate", "IdleHold", "ItemCost", "NotCosted", "PoolCost", "Totals", "amount", "estimate"]

Triple = tuple[Decimal, Decimal, Decimal]
SIZE_NAMES: Final = ("min", "desired", "max")
_PER_GPU_HOUR: Final = Decimal("0.0001")
_HPA: Final = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
_DEPLOYMENT: Final = "kubernetes:apps/v1:Deployment"
_GPU: Final = "nvidia.com/gpu"


@dataclass(frozen=True)
class IdleHold:
    """The GPUs one autoscaled workload keeps on its pool when idle: the HPA's ``minReplicas`` (autoscaling/v2
    default 1) times the ``nvidia.com/gpu`` limits of one pod. A pod of a time-sliced pool asks for a slice, which
    is counted as a whole GPU (an upper bound).

    Attributes:
        workload: ``<namespace>/<name>`` of the scaled Deployment.
        replicas: Its HPA's minimum replicas.
        gpus_per_replica: GPUs one of its pods asks for.
    """

    workload: str
    replicas: int
    gpus_per_replica: int

    @property
    def gpus(self) -> int:
        """GPUs it holds at idle."""
        return self.replicas * self.gpus_per_replica


@dataclass(frozen=True)
class PoolCost:
    """The estimate of one GPU pool (node group, node pool or single instance).

    Attributes:
        resource: The recorded resource.
        cloud: ``aws`` or ``alicloud``.
        region: The region it is priced in, None if unknown.
        capacity: What it asks for.
        priced_as: The instance type it is priced as (the most expensive of its types), None if unknown.
        gpus_per_node: GPUs of that type, None if unknown.
        on_demand: The on-demand price of one node, None if unknown.
        discount: The spot discount estimate used (spot pools only), None if not spot or unknown.
        unknown: Why its cost is unknown ("" when it is known); it is then left out of the totals.
        holds: The autoscaled workloads whose pods select this pool (``gpucloud.io/pool``), for the idle figure.
    """

    resource: RecordedResource
    cloud: str
    region: str | None
    capacity: cm.Capacity
    priced_as: str | None = None
    gpus_per_node: int | None = None
    on_demand: Price | None = None
    discount: Discount | None = None
    unknown: str = ""
    holds: tuple[IdleHold, ...] = ()

    @property
    def spot_hourly(self) -> Decimal | None:
        """The estimated spot price of one node, None if not spot or not known."""
        if self.on_demand is None or self.discount is None:
            return None
        return cm.spot_hourly(self.on_demand.hourly, self.discount.fraction)

    @property
    def hourly(self) -> Decimal | None:
        """The price one node runs at: the spot estimate for a spot pool, else on demand."""
        if self.capacity.spot:
            return self.spot_hourly
        return None if self.on_demand is None else self.on_demand.hourly

    def gpus(self) -> tuple[int, int, int] | None:
        """GPUs at the minimum, desired and maximum size."""
        sizes = self.capacity.sizes
        if sizes is None or self.gpus_per_node is None:
            return None
        return (
            sizes.minimum * self.gpus_per_node,
            sizes.desired * self.gpus_per_node,
            sizes.maximum * self.gpus_per_node,
        )

    def idle_nodes(self) -> int | None:
        """Nodes while its workloads are idle: the minimum size, or the nodes their minimum replicas' GPUs need if
        more (at most the maximum size); None if the sizes or GPUs per node are unknown."""
        sizes = self.capacity.sizes
        if sizes is None or not self.gpus_per_node:
            return None
        held = -(-sum(h.gpus for h in self.holds) // self.gpus_per_node)
        return min(sizes.maximum, max(sizes.minimum, held))

    def idle_monthly(self) -> Decimal | None:
        """Monthly cost of :meth:`idle_nodes` at the price it runs at."""
        nodes, hourly = self.idle_nodes(), self.hourly
        return None if nodes is None or hourly is None else cm.monthly(hourly, nodes)

    def _monthly_at(self, hourly: Decimal | None) -> Triple | None:
        sizes = self.capacity.sizes
        if hourly is None or sizes is None:
            return None
        low, mid, high = (cm.monthly(hourly, n) for n in sizes.as_tuple())
        return (low, mid, high)

    def monthly(self) -> Triple | None:
        """Monthly cost at the minimum, desired and maximum size, at the price it runs at."""
        return self._monthly_at(self.hourly)

    def monthly_on_demand(self) -> Triple | None:
        """Monthly cost of the same nodes on demand: a spot pool's fall-back cost."""
        return self._monthly_at(None if self.on_demand is None else self.on_demand.hourly)


@dataclass(frozen=True)
class ItemCost:
    """The estimate of one non-GPU item.

    Attributes:
        resource: The recorded resource.
        billable: What is billed.
        region: The region it is priced in, None if unknown.
        price: Its hourly unit price, None if unknown.
        unknown: Why its cost is unknown ("" when it is known).
    """

    resource: RecordedResource
    billable: cm.Billable
    region: str | None
    price: Price | None = None
    unknown: str = ""

    def monthly(self) -> Decimal | None:
        """Monthly cost of all its units."""
        if self.price is None or self.billable.quantity is None:
            return None
        return cm.monthly(self.price.hourly, self.billable.quantity)


@dataclass(frozen=True)
class NotCosted:
    """Compute that is not GPU capacity (e.g. a system node group): named, not estimated.

    Attributes:
        resource: The recorded resource.
        reason: Why it is not estimated.
    """

    resource: RecordedResource
    reason: str


@dataclass(frozen=True)
class Totals:
    """The totals of one currency over every pool and item whose cost is known.

    Attributes:
        currency: ISO currency code.
        gpus: GPUs at the minimum, desired and maximum size.
        gpu_monthly: GPU pools per month, spot pools at the spot estimate.
        gpu_monthly_on_demand: The same GPU capacity on demand.
        other_monthly: The non-GPU items per month.
        idle_gpus: GPUs while the autoscaled workloads are idle (:meth:`PoolCost.idle_nodes`).
        idle_gpu_monthly: GPU pools per month while they are idle.
    """

    currency: str
    gpus: tuple[int, int, int]
    gpu_monthly: Triple
    gpu_monthly_on_demand: Triple
    other_monthly: Decimal
    idle_gpus: int
    idle_gpu_monthly: Decimal

    @property
    def spot_saving(self) -> Triple:
        """What spot saves against running the same GPU capacity on demand."""
        a, b, c = (od - run for od, run in zip(self.gpu_monthly_on_demand, self.gpu_monthly, strict=True))
        return (a, b, c)

    @property
    def monthly(self) -> Triple:
        """The environment per month: GPU pools plus the other items."""
        a, b, c = (gpu + self.other_monthly for gpu in self.gpu_monthly)
        return (a, b, c)

    @property
    def idle_monthly(self) -> Decimal:
        """The environment per month while the autoscaled workloads are idle."""
        return self.idle_gpu_monthly + self.other_monthly

    def cost_per_gpu_hour(self) -> tuple[Decimal | None, Decimal | None, Decimal | None]:
        """What one GPU-hour of the fleet costs at each size (rounded to 0.0001); None with no GPUs."""
        a, b, c = (
            None if gpus == 0 else (cost / cm.HOURS_PER_MONTH / gpus).quantize(_PER_GPU_HOUR, ROUND_HALF_UP)
            for gpus, cost in zip(self.gpus, self.gpu_monthly, strict=True)
        )
        return (a, b, c)


@dataclass(frozen=True)
class CostEstimate:
    """The cost estimate of a plan.

    Attributes:
        pools: GPU pools, by URN.
        items: Non-GPU items, by URN.
        not_costed: Compute that is not GPU capacity, by URN.
    """

    pools: tuple[PoolCost, ...]
    items: tuple[ItemCost, ...]
    not_costed: tuple[NotCosted, ...]

    @property
    def complete(self) -> bool:
        """Whether every pool and item has a known cost (else the totals leave some out)."""
        return not any(p.unknown for p in self.pools) and not any(i.unknown for i in self.items)

    def totals(self) -> tuple[Totals, ...]:
        """Per currency, in currency order, over the pools and items whose cost is known."""
        currencies = sorted(
            {p.on_demand.currency for p in self.pools if not p.unknown and p.on_demand}
            | {i.price.currency for i in self.items if not i.unknown and i.price}
        )
        return tuple(self._totals(currency) for currency in currencies)

    def _totals(self, currency: str) -> Totals:
        pools = [p for p in self.pools if not p.unknown and p.on_demand and p.on_demand.currency == currency]
        items = [i for i in self.items if not i.unknown and i.price and i.price.currency == currency]
        gpus = [p.gpus() or (0, 0, 0) for p in pools]
        return Totals(
            currency=currency,
            gpus=(sum(g[0] for g in gpus), sum(g[1] for g in gpus), sum(g[2] for g in gpus)),
            gpu_monthly=_add(p.monthly() for p in pools),
            gpu_monthly_on_demand=_add(p.monthly_on_demand() for p in pools),
            other_monthly=sum((i.monthly() or Decimal(0) for i in items), Decimal(0)),
            idle_gpus=sum((p.idle_nodes() or 0) * (p.gpus_per_node or 0) for p in pools),
            idle_gpu_monthly=sum((p.idle_monthly() or Decimal(0) for p in pools), Decimal(0)),
        )

    def to_json(self) -> dict[str, Any]:
        """The ``cost`` member of ``gpucloud plan --json``: amounts as exact decimal strings."""
        return {
            "hoursPerMonth": int(cm.HOURS_PER_MONTH),
            "complete": self.complete,
            "pools": [_pool_json(p) for p in self.pools],
            "items": [_item_json(i) for i in self.items],
            "notCosted": [{**_identity(n.resource), "reason": n.reason} for n in self.not_costed],
            "totals": [_totals_json(t) for t in self.totals()],
        }


def _add(triples: Iterable[Triple | None]) -> Triple:
    total = (Decimal(0), Decimal(0), Decimal(0))
    for t in triples:
        if t is not None:
            total = (total[0] + t[0], total[1] + t[1], total[2] + t[2])
    return total


def amount(value: Decimal) -> str:
    """An exact amount as a plain decimal string without exponent or trailing zeros: ``885.76``, ``0``."""
    return format(value.normalize(), "f")


def _sizes(values: Sequence[Any] | None, render: Any = amount) -> dict[str, Any] | None:
    if values is None:
        return None
    return {name: None if v is None else render(v) for name, v in zip(SIZE_NAMES, values, strict=True)}


def _identity(r: RecordedResource) -> dict[str, str]:
    return {"urn": r.urn, "name": r.name, "type": r.type}


def _source_json(source: str, stated: Any, override: bool) -> dict[str, Any]:
    return {"source": source, "date": None if stated is None else stated.isoformat(), "override": override}


def _pool_json(p: PoolCost) -> dict[str, Any]:
    sizes = p.capacity.sizes
    price = p.on_demand
    discount = p.discount
    return {
        **_identity(p.resource),
        "cloud": p.cloud,
        "region": p.region,
        "capacity": "spot" if p.capacity.spot else "on-demand",
        "instanceTypes": list(p.capacity.instance_types),
        "pricedAs": p.priced_as,
        "gpusPerNode": p.gpus_per_node,
        "nodes": _sizes(None if sizes is None else sizes.as_tuple(), int),
        "gpus": _sizes(p.gpus(), int),
        "currency": None if price is None else price.currency,
        "hourlyOnDemand": None if price is None else amount(price.hourly),
        "hourlySpot": None if p.spot_hourly is None else amount(p.spot_hourly),
        "monthly": _sizes(p.monthly()),
        "monthlyOnDemand": _sizes(p.monthly_on_demand()),
        "price": None if price is None else _source_json(price.source, price.date, price.override),
        "spotDiscount": None
        if discount is None
        else {
            "fraction": amount(discount.fraction),
            "estimate": True,
            **_source_json(discount.source, discount.date, discount.override),
        },
        "priceUnknown": p.unknown or None,
        "idle": {
            "nodes": p.idle_nodes(),
            "monthly": None if (idle := p.idle_monthly()) is None else amount(idle),
            "holds": [
                {"workload": h.workload, "replicas": h.replicas, "gpusPerReplica": h.gpus_per_replica} for h in p.holds
            ],
        },
        "notes": list(p.capacity.notes) + _pool_notes(p),
    }


def _pool_notes(p: PoolCost) -> list[str]:
    types = p.capacity.instance_types
    if p.priced_as is None or len(types) < 2:
        return []
    if p.capacity.gpu_limit is not None:
        return [
            f"priced as {p.priced_as}, the dearest of its {len(types)} instance types at its GPU limit: an upper bound"
        ]
    return [f"priced as {p.priced_as}, the most expensive of its {len(types)} instance types: an upper bound"]


def _item_json(i: ItemCost) -> dict[str, Any]:
    price = i.price
    monthly = i.monthly()
    return {
        **_identity(i.resource),
        "cloud": i.billable.cloud,
        "region": i.region,
        "item": i.billable.item,
        "description": i.billable.description,
        "quantity": i.billable.quantity,
        "currency": None if price is None else price.currency,
        "hourly": None if price is None else amount(price.hourly),
        "monthly": None if monthly is None else amount(monthly),
        "price": None if price is None else _source_json(price.source, price.date, price.override),
        "priceUnknown": i.unknown or None,
        "notes": list(i.billable.notes),
    }


def _totals_json(t: Totals) -> dict[str, Any]:
    return {
        "currency": t.currency,
        "gpus": _sizes(t.gpus, int),
        "gpuMonthly": _sizes(t.gpu_monthly),
        "gpuMonthlyOnDemand": _sizes(t.gpu_monthly_on_demand),
        "spotSaving": _sizes(t.spot_saving),
        "otherMonthly": amount(t.other_monthly),
        "monthly": _sizes(t.monthly),
        "costPerGpuHour": _sizes(t.cost_per_gpu_hour()),
        "idle": {"gpus": t.idle_gpus, "gpuMonthly": amount(t.idle_gpu_monthly), "monthly": amount(t.idle_monthly)},
    }


def estimate(plan: Plan, config: Mapping[str, str], book: PriceBook) -> CostEstimate:
    """Estimate what a plan's resources cost per month.

    Args:
        plan: The recorded plan.
        config: The stack's config (``aws:region`` / ``alicloud:region`` price default-provider resources).
        book: Where prices come from.
    """
    by_urn = {r.urn: r for r in plan.resources}
    templates = {r.urn: r.inputs for r in plan.resources if r.type == cm.AWS_LAUNCH_TEMPLATE}
    pools: list[PoolCost] = []
    items: list[ItemCost] = []
    not_costed: list[NotCosted] = []
    for r in sorted((r for r in plan.resources if r.custom), key=lambda r: r.urn):
        capacity = cm.read_capacity(r.type, r.inputs, _launch_template(r, templates))
        if capacity is not None:
            pool = _pool(r, capacity, _region(r, capacity.cloud, by_urn, config), book)
            if isinstance(pool, NotCosted):
                not_costed.append(pool)
            else:
                pools.append(pool)
            continue
        billable = cm.read_billable(r.type, r.inputs)
        if billable is not None:
            items.append(_item(r, billable, _region(r, billable.cloud, by_urn, config), book))
    return CostEstimate(_with_holds(pools, _idle_holds(plan.resources)), tuple(items), tuple(not_costed))


def _idle_holds(resources: Iterable[RecordedResource]) -> dict[str, list[IdleHold]]:
    """Per pool name (the pods' ``gpucloud.io/pool`` node selector), what its autoscaled Deployments hold at idle."""
    resources = list(resources)
    deployments = {
        (_get(r.inputs, "metadata", "namespace"), _get(r.inputs, "metadata", "name")): r
        for r in resources
        if r.type == _DEPLOYMENT
    }
    holds: dict[str, list[IdleHold]] = {}
    for hpa in sorted((r for r in resources if r.type == _HPA), key=lambda r: r.urn):
        namespace = _get(hpa.inputs, "metadata", "namespace")
        target = _get(hpa.inputs, "spec", "scaleTargetRef") or {}
        deployment = deployments.get((namespace, target.get("name"))) if target.get("kind") == "Deployment" else None
        if deployment is None:
            continue
        pod = _get(deployment.inputs, "spec", "template", "spec") or {}
        pool = (pod.get("nodeSelector") or {}).get(labels.POOL_LABEL)
        gpus = sum(_count(_get(c, "resources", "limits", _GPU)) for c in pod.get("containers") or ())
        replicas = _count(_get(hpa.inputs, "spec", "minReplicas") or 1)
        if isinstance(pool, str) and gpus and replicas:
            holds.setdefault(pool, []).append(IdleHold(f"{namespace}/{target['name']}", replicas, gpus))
    return holds


def _with_holds(pools: Sequence[PoolCost], holds: Mapping[str, Sequence[IdleHold]]) -> tuple[PoolCost, ...]:
    """Each pool name's holds on one of the pools that carry that name: a spot one first (Karpenter and the
    cluster autoscaler's priority expander try spot before the on-demand fall-back), else the first by URN."""
    chosen: dict[str, str] = {}
    for pool in sorted(pools, key=lambda p: (not p.capacity.spot, p.resource.urn)):
        name = _pool_label(pool.resource)
        if name is not None and name in holds and name not in chosen:
            chosen[name] = pool.resource.urn
    by_urn = {urn: name for name, urn in chosen.items()}
    return tuple(
        replace(p, holds=tuple(holds[by_urn[p.resource.urn]])) if p.resource.urn in by_urn else p for p in pools
    )


def _pool_label(r: RecordedResource) -> str | None:
    """The ``gpucloud.io/pool`` label a pool gives its nodes (EKS node group and ACK node pool ``labels``, Karpenter
    NodePool ``spec.template.metadata.labels``)."""
    if r.type == cm.KARPENTER_NODE_POOL:
        node_labels = _get(r.inputs, "spec", "template", "metadata", "labels")
    elif r.type == cm.ALICLOUD_NODE_POOL:
        node_labels = {
            item.get("key"): item.get("value") for item in r.inputs.get("labels") or () if isinstance(item, dict)
        }
    else:
        node_labels = r.inputs.get("labels")
    value = node_labels.get(labels.POOL_LABEL) if isinstance(node_labels, dict) else None
    return value if isinstance(value, str) else None


def _get(value: Any, *path: str) -> Any:
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _count(value: Any) -> int:
    """A whole count recorded as a number or a decimal string (``"1"``); 0 for anything else (e.g. unknown)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else 0


def _region(
    r: RecordedResource, cloud: str, by_urn: Mapping[str, RecordedResource], config: Mapping[str, str]
) -> str | None:
    provider = by_urn.get(r.provider.rsplit("::", 1)[0]) if r.provider else None
    return cm.region_of(r.inputs, provider.inputs if provider else {}, config.get(f"{cloud}:region"))


def _launch_template(r: RecordedResource, templates: Mapping[str, Mapping[str, Any]]) -> Mapping[str, Any] | None:
    return cm.launch_template_of(r.inputs, r.property_dependencies.get("launchTemplate", ()), templates)


def _pool(r: RecordedResource, capacity: cm.Capacity, region: str | None, book: PriceBook) -> PoolCost | NotCosted:
    pool = PoolCost(resource=r, cloud=capacity.cloud, region=region, capacity=capacity)
    if capacity.unread:
        return _unknown(pool, capacity.unread)
    cloud = catalog.Cloud(capacity.cloud)
    facts = {name: catalog.lookup(cloud, name) for name in capacity.instance_types}
    if all(f is None for f in facts.values()):
        return NotCosted(r, f"{', '.join(capacity.instance_types)}: no GPU instance type of the catalog")
    missing = [name for name, f in facts.items() if f is None]
    if missing:
        return _unknown(pool, f"{', '.join(missing)} not in the GPU catalog (GPUs and price unknown)")
    if region is None:
        return _unknown(pool, f"no region: set the provider's region or {capacity.cloud}:region")
    prices = {name: book.instance(capacity.cloud, region, name) for name in capacity.instance_types}
    unpriced = [name for name, p in prices.items() if p is None]
    if unpriced:
        return _unknown(pool, f"no on-demand price for {', '.join(unpriced)} in {region} (give one with --prices)")
    known = {name: p for name, p in prices.items() if p is not None}
    if len({p.currency for p in known.values()}) > 1:
        return _unknown(pool, "its instance types are priced in different currencies")
    hourly = {name: p.hourly for name, p in known.items()}
    if capacity.gpu_limit is None:
        priced_as = cm.most_expensive(hourly)
    else:
        priced_as, nodes = cm.at_gpu_limit(capacity.gpu_limit, dict(capacity.gpus_per_node), hourly)
        capacity = replace(capacity, sizes=cm.Sizes(0, 0, nodes))
    fact = facts[priced_as]
    assert fact is not None
    discount = book.discount(capacity.cloud, fact.family) if capacity.spot else None
    pool = PoolCost(r, capacity.cloud, region, capacity, priced_as, fact.gpu_count, known[priced_as], discount)
    if capacity.spot and discount is None:
        return _unknown(pool, f"no spot discount estimate for family {fact.family} (give one with --prices)")
    return pool


def _unknown(pool: PoolCost, reason: str) -> PoolCost:
    return replace(pool, unknown=reason)


def _item(r: RecordedResource, billable: cm.Billable, region: str | None, book: PriceBook) -> ItemCost:
    if billable.unread:
        return ItemCost(r, billable, region, unknown=billable.unread)
    if region is None:
        return ItemCost(r, billable, region, unknown=f"no region: set the provider's region or {billable.cloud}:region")
    price = book.item(billable.cloud, region, billable.item)
    if price is None:
        reason = f"no price for {billable.item} in {region} (give one with --prices)"
        return ItemCost(r, billable, region, unknown=reason)
    return ItemCost(r, billable, region, price)
