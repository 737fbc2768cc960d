"""gpu-cost-guard: a non-prod stack keeps its GPU bill within a monthly budget and runs GPU pools on spot.

Advisory. A stack is non-prod when it is named and its name is not in ``prodStacks`` (by default the
``protectedStacks`` of protect-stateful: prod, prod-cn); in a prod stack the policy reports nothing.

- Budget (on the stack resource): the monthly GPU cost at max size -- every GPU pool (EKS node group, ACK
  node pool, EC2/ECS instance of a GPU type) at its maximum node count for 730 hours, spot pools at the
  estimated spot price, on-demand pools (spot fall-backs included) on demand, a pool of several types
  priced as the most expensive: the GPU "max" of ``gpucloud cost``. Per currency, over
  ``monthlyGpuBudget[currency]`` is a violation naming the total, the budget and the pools. A GPU pool
  that cannot be priced gets its own could-not-decide violation and is left out, never counted as zero.
- On demand only (on the pool): a GPU node group or pool (as gpu-node-isolation defines it) with
  capacityType ON_DEMAND or unset (EKS) or spotStrategy NoSpot or unset (ACK), unless it is the declared
  fall-back of a spot group: it is named ``<base>-ondemand`` (EKS: or by the prefix ``<base>-ondemand-``) and
  the stack holds a spot node group or pool of the same type named ``<base>-spot`` (or ``<base>-spot-``) -- the
  names SpotGpuGroup gives its two node groups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from functools import partial
from typing import Final

from . import cost_model as cm
from .gpu_node_isolation import is_gpu_instance_type, is_gpu_pool
from .gpu_prices import PRICES_SCHEMA, PriceList, family_of
from .protect_stateful import DEFAULT_PROTECTED_STACKS
from .rule import Config, Stack, StackResource, StackRule, could_not_decide, string_list
from .values import Findings, Undecided, as_text, entries

__all__ = ["RULE", "check"]

STACK: Final = "pulumi:pulumi:Stack"
# components/labels.py SPOT_SUFFIX and FALLBACK_SUFFIX, copied because the pack cannot import gpu_cloud.components:
# a SpotGpuGroup named X creates the node groups X-spot and X-ondemand.
SPOT_SUFFIX: Final = "-spot"
FALLBACK_SUFFIX: Final = "-ondemand"
# components/aws/expander.py node_group_name_prefix: an EKS node group of pool X is named by the prefix "X-".
PREFIX_SEPARATOR: Final = "-"
# Per pool type: the properties that name it in the cloud API, first found first (EKS nodeGroupNamePrefix
# without its final "-", else nodeGroupName: a stack policy reads outputs, where a node group named by prefix
# has both and nodeGroupName holds the generated name; ACK nodePoolName, or name, its deprecated predecessor),
# the capacity property, and its on-demand and spot values (EKS API CreateNodegroup capacityType; ACK NodePool
# spotStrategy). Unset means on demand on both.
POOLS: Final[Mapping[str, tuple[tuple[str, ...], str, frozenset[str], frozenset[str]]]] = {
    cm.AWS_NODE_GROUP: (
        ("nodeGroupNamePrefix", "nodeGroupName"),
        "capacityType",
        frozenset({"on_demand"}),
        frozenset({"spot"}),
    ),
    cm.ALICLOUD_NODE_POOL: (
        ("nodePoolName", "name"),
        "spotStrategy",
        frozenset({"nospot"}),
        frozenset({"spotwithpricelimit", "spotaspricego"}),
    ),
}
COMPUTE: Final = frozenset({*POOLS, cm.AWS_INSTANCE, cm.ALICLOUD_INSTANCE, cm.KARPENTER_NODE_POOL})
DEFAULT_PROD_STACKS: Final = DEFAULT_PROTECTED_STACKS  # the same stacks by default
DEFAULT_MONTHLY_GPU_BUDGET: Final = {"USD": 20000}
_ON_DEMAND, _SPOT, _OTHER = "on demand", "spot", "other"
_CENT: Final = Decimal("0.01")
_GIVE_IT: Final = " (give it in the prices config)"


@dataclass(frozen=True)
class _PoolCost:
    """A GPU pool's monthly cost at max size, or why it is unknown."""

    urn: str
    currency: str = ""
    monthly: Decimal = Decimal(0)
    summary: str = ""
    unknown: str = ""


def _money(currency: str, value: Decimal) -> str:
    return f"{currency} {value.quantize(_CENT, ROUND_HALF_UP):,}"


def _name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1]


def _capacity(resource: StackResource) -> str:
    """On demand, spot or other (e.g. an EKS capacity block); raises `Undecided` if the input is unknown."""
    _, key, on_demand, spot = POOLS[resource.type]
    value = (as_text(resource.props.get(key), key) or "").lower()
    if not value or value in on_demand:
        return _ON_DEMAND
    return _SPOT if value in spot else _OTHER


def _pool_name(resource: StackResource) -> str | None:
    keys = POOLS[resource.type][0]
    name = next((name for key in keys if (name := as_text(resource.props.get(key), key))), None)
    return None if name is None else name.removesuffix(PREFIX_SEPARATOR)


def _capacities(pools: Sequence[StackResource]) -> dict[tuple[str, str], str | None]:
    """(type, pool name) -> capacity of every pool whose name is known; None where the capacity is unknown."""
    found: dict[tuple[str, str], str | None] = {}
    for pool in pools:
        try:
            name = _pool_name(pool)
        except Undecided:
            continue
        if name is None:
            continue
        try:
            found[(pool.type, name)] = _capacity(pool)
        except Undecided:
            found[(pool.type, name)] = None
    return found


def _launch_template(resource: StackResource, templates: Mapping[str, cm.Props]) -> cm.Props | None:
    dependencies = resource.property_dependencies.get("launchTemplate", ())
    return cm.launch_template_of(resource.props, dependencies, templates)


def _on_demand_only(
    pool: StackResource, capacities: Mapping[tuple[str, str], str | None], templates: Mapping[str, cm.Props]
) -> str | None:
    if not is_gpu_pool(pool.type, pool.props, _launch_template(pool, templates)) or _capacity(pool) != _ON_DEMAND:
        return None
    name = _pool_name(pool)
    if name is not None and name.endswith(FALLBACK_SUFFIX):
        sibling = name.removesuffix(FALLBACK_SUFFIX) + SPOT_SUFFIX
        key = (pool.type, sibling)
        if key in capacities and capacities[key] is None:
            raise Undecided(f"{POOLS[pool.type][1]} of its spot sibling {sibling}")
        if capacities.get(key) == _SPOT:
            return None
    return (
        "GPU pool runs on demand only in a non-prod stack: run it on spot with an on-demand fall-back "
        f"(a SpotGpuGroup: <name>{SPOT_SUFFIX} and <name>{FALLBACK_SUFFIX})"
    )


def _may_be_gpu(resource: StackResource) -> bool:
    """Whether compute whose capacity cannot be read may be GPU capacity: only known non-GPU types say no."""
    key = "instanceTypes" if resource.type in POOLS else "instanceType"
    cloud = resource.type.split(":", 1)[0]
    try:
        types = [as_text(t, path) or "" for path, t in entries(resource.props.get(key), key)]
    except Undecided:
        return True
    return not types or any(is_gpu_instance_type(cloud, t) for t in types)


def _pool_cost(resource: StackResource, templates: Mapping[str, cm.Props], prices: PriceList) -> _PoolCost | None:
    """The monthly cost at max size of a GPU pool; None for compute that is not GPU capacity."""
    capacity = cm.read_capacity(resource.type, resource.props, _launch_template(resource, templates))
    assert capacity is not None, resource.type  # COMPUTE holds only types read_capacity reads
    if capacity.unread:
        return _PoolCost(resource.urn, unknown=capacity.unread) if _may_be_gpu(resource) else None
    cloud, types = capacity.cloud, capacity.instance_types
    if (capacity.sizes is None and capacity.gpu_limit is None) or not any(
        is_gpu_instance_type(cloud, t) for t in types
    ):
        return None
    region = cm.region_of(resource.props, resource.provider, None)
    if region is None:
        return _PoolCost(resource.urn, unknown=f"no region: set the provider's region or {cloud}:region")
    listed = {t: prices.on_demand(cloud, region, t) for t in types}
    known = {t: p for t, p in listed.items() if p is not None}
    if len(known) < len(listed):
        missing = ", ".join(t for t, p in listed.items() if p is None)
        return _PoolCost(resource.urn, unknown=f"no on-demand price for {missing} in {region}{_GIVE_IT}")
    if len({p.currency for p in known.values()}) > 1:
        return _PoolCost(resource.urn, unknown="its instance types are priced in different currencies")
    if capacity.gpu_limit is None:
        priced_as = cm.most_expensive({t: p.hourly for t, p in known.items()})
    else:  # a Karpenter NodePool: its GPU limit filled with the dearest of its types
        hourly_of = {t: p.hourly for t, p in known.items()}
        priced_as, _ = cm.at_gpu_limit(capacity.gpu_limit, dict(capacity.gpus_per_node), hourly_of)
    hourly = known[priced_as].hourly
    if capacity.spot:
        family = family_of(cloud, priced_as)
        discount = prices.spot_discount(cloud, family)
        if discount is None:
            return _PoolCost(resource.urn, unknown=f"no spot discount estimate for family {family}{_GIVE_IT}")
        hourly = cm.spot_hourly(hourly, discount)
    gpus = dict(capacity.gpus_per_node)
    nodes = capacity.sizes.maximum if capacity.sizes is not None else (capacity.gpu_limit or 0) // gpus[priced_as]
    currency = known[priced_as].currency
    monthly = cm.monthly(hourly, nodes)
    kind = _SPOT if capacity.spot else _ON_DEMAND
    summary = f"{_name(resource.urn)} {nodes} x {priced_as} {kind} {_money(currency, monthly)}"
    return _PoolCost(resource.urn, currency, monthly, summary)


def _unpriced(cost: _PoolCost) -> str | None:
    if not cost.unknown:
        return None
    return f"could not decide: {cost.unknown}; this GPU pool is left out of the monthly GPU budget, not counted as zero"


def _budget_problems(costs: Sequence[_PoolCost], budgets: Config) -> list[str]:
    incomplete = any(c.unknown for c in costs)
    problems = []
    for currency in sorted({c.currency for c in costs if not c.unknown}):
        pools = sorted((c for c in costs if c.currency == currency), key=lambda c: (-c.monthly, c.urn))
        total = sum((c.monthly for c in pools), Decimal(0))
        budget = budgets.get(currency)
        if budget is None:
            if total > 0:
                problems.append(
                    f"could not decide: GPU pools are priced in {currency} and monthlyGpuBudget has no {currency}"
                )
            continue
        limit = Decimal(str(budget))
        if total > limit:
            problems.append(
                f"monthly GPU cost at max size is {'at least ' if incomplete else ''}{_money(currency, total)} "
                f"(730 h, spot pools at the estimated spot price), over the budget of {_money(currency, limit)}: "
                + "; ".join(c.summary for c in pools)
            )
    return problems


def _templates(stack: Stack) -> Mapping[str, cm.Props]:
    return {r.urn: r.props for r in stack.of_type(cm.AWS_LAUNCH_TEMPLATE)}


def _cost_or_unknown(resource: StackResource, templates: Mapping[str, cm.Props], prices: PriceList) -> _PoolCost | None:
    """`_pool_cost`, or unknown when it cannot be computed (the pool's own check reports why)."""
    try:
        return _pool_cost(resource, templates, prices)
    except Exception as error:  # left out of the budget, never counted as zero
        return _PoolCost(resource.urn, unknown=could_not_decide(error))


def _budget(stack: Stack, templates: Mapping[str, cm.Props], config: Config) -> list[str]:
    prices = PriceList(config["prices"])
    pools = sorted(stack.of_type(*COMPUTE), key=lambda r: r.urn)
    costs = [c for r in pools if (c := _cost_or_unknown(r, templates, prices)) is not None]
    return _budget_problems(costs, config["monthlyGpuBudget"])


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``gpu-cost-guard`` for one resource: the budget on the stack resource, the
    on-demand and pricing ones on GPU pools; none in a prod stack (one in ``prodStacks``, or unnamed)."""
    if not stack.name or stack.name in config["prodStacks"]:
        return []
    templates = stack.shared("templates", partial(_templates, stack))
    if resource.type == STACK:
        return _budget(stack, templates, config)
    if resource.type not in COMPUTE:
        return []
    messages = Findings()
    if resource.type in POOLS:
        capacities = stack.shared("capacities", partial(_capacities, stack.of_type(*POOLS)))
        messages.explain(partial(_on_demand_only, resource, capacities, templates))
    cost = _pool_cost(resource, templates, PriceList(config["prices"]))
    if cost is not None:
        messages.explain(partial(_unpriced, cost))
    return messages.messages


RULE = StackRule(
    name="gpu-cost-guard",
    description="Non-prod stacks keep their max-size monthly GPU cost within budget and run GPU pools on spot.",
    level="advisory",
    resource_types=frozenset({STACK, cm.AWS_LAUNCH_TEMPLATE, *COMPUTE}),
    check=check,
    config={
        "prodStacks": string_list(
            DEFAULT_PROD_STACKS, "Stacks this policy leaves alone; every other named stack is non-prod."
        ),
        "monthlyGpuBudget": {
            "type": "object",
            "propertyNames": {"pattern": "^[A-Z]{3}$"},
            "additionalProperties": {"type": "number", "minimum": 0},
            "default": DEFAULT_MONTHLY_GPU_BUDGET,
            "description": "Currency (ISO code) -> the most a non-prod stack's GPU pools may cost per month at "
            "max size. Giving it replaces the whole default.",
        },
        "prices": dict(PRICES_SCHEMA),
    },
)
