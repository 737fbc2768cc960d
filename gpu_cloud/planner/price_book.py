"""Where the estimate's prices come from: the GPU catalog, gpucloud's non-GPU price list, and overrides.

An override file (``--prices FILE``, JSON or YAML) replaces any price with a negotiated rate::

    aws:                      # cloud -> region -> instance type or item -> price per hour
      us-east-1:
        p5.48xlarge: 40.00
        nat-gateway: 0.045
    alicloud:
      cn-hangzhou:
        ecs.gn7i-c8g1.2xlarge: 1.90
    currency:                 # optional: the currency of a cloud's overrides (default USD)
      alicloud: CNY
    spotDiscounts:            # optional: cloud -> instance family -> typical spot discount, 0 <= d < 1
      aws:
        p5: 0.50

Keys are catalog instance types, the item names of ``cost_prices.json`` (``nat-gateway``,
``vpc-interface-endpoint``, ``eks-control-plane``, ``ack.pro.small`` ...) or catalog families; anything
else is a mistake and rejected, so that a typo never leaves a list price in place silently.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

from gpu_cloud.components import catalog, cloud_limits
from gpu_cloud.planner.files import load_yaml
from gpu_cloud.planner.model import PlanError

__all__ = ["Discount", "Overrides", "Price", "PriceBook", "load_overrides"]

_ITEM_PRICES: Final = "cost_prices.json"
_CLOUDS: Final = tuple(c.value for c in catalog.Cloud)
_DEFAULT_OVERRIDE_CURRENCY: Final = "USD"
_MOST_HOURLY: Final = Decimal(10_000)
"""The highest hourly price an override may give, in any currency: far above any instance's list price (the dearest
catalog type lists below 100 USD an hour), so that 1e308 or a price per month is a mistake, not a plan."""


@dataclass(frozen=True)
class Price:
    """An hourly unit price and where it was read.

    Attributes:
        hourly: Price per unit-hour.
        currency: ISO currency code.
        source: The page or file it was read from (the override file for a negotiated rate).
        date: The date the material states for it, else the date it was read; None for an override.
        override: Whether it comes from an override file.
    """

    hourly: Decimal
    currency: str
    source: str
    date: date | None
    override: bool = False


@dataclass(frozen=True)
class Discount:
    """A typical spot discount of an instance family; always an estimate.

    Attributes:
        fraction: Discount off the on-demand price (0.6 = 60% cheaper).
        source: Where it was read (the override file for one given there).
        date: The date the material states, else the date it was read; None for an override.
        override: Whether it comes from an override file.
    """

    fraction: Decimal
    source: str
    date: date | None
    override: bool = False


@dataclass(frozen=True)
class Overrides:
    """Prices from an override file.

    Attributes:
        source: The file they were read from.
        hourly: (cloud, region, instance type or item) -> price per hour.
        currency: cloud -> the currency of its overrides.
        discounts: (cloud, family) -> spot discount.
    """

    source: str
    hourly: Mapping[tuple[str, str, str], Decimal]
    currency: Mapping[str, str]
    discounts: Mapping[tuple[str, str], Decimal]


class PriceBook:
    """Looks prices up: the override file first, then the catalog or gpucloud's non-GPU price list."""

    def __init__(self, overrides: Overrides | None = None) -> None:
        self._overrides = overrides

    def _override(self, cloud: str, region: str, name: str) -> Price | None:
        o = self._overrides
        if o is None or (cloud, region, name) not in o.hourly:
            return None
        currency = o.currency.get(cloud, _DEFAULT_OVERRIDE_CURRENCY)
        return Price(o.hourly[(cloud, region, name)], currency, o.source, None, override=True)

    def instance(self, cloud: str, region: str, name: str) -> Price | None:
        """The on-demand price of an instance type, None if neither an override nor the catalog has one."""
        found = self._override(cloud, region, name)
        if found is not None:
            return found
        listed = catalog.price_of(catalog.Cloud(cloud), region, name)
        if listed is None:
            return None
        return Price(listed.hourly, listed.currency, listed.source.url, listed.source.as_of or listed.source.read_on)

    def item(self, cloud: str, region: str, item: str) -> Price | None:
        """The hourly price of a non-GPU item, None if neither an override nor the price list has one."""
        return self._override(cloud, region, item) or _item_prices().get((cloud, region, item))

    def discount(self, cloud: str, family: str) -> Discount | None:
        """The typical spot discount of a family, None if neither an override nor the catalog has one."""
        o = self._overrides
        if o is not None and (cloud, family) in o.discounts:
            return Discount(o.discounts[(cloud, family)], o.source, None, override=True)
        listed = catalog.spot_discount(catalog.Cloud(cloud), family)
        if listed is None:
            return None
        return Discount(listed.fraction, listed.source.url, listed.source.as_of or listed.source.read_on)


@cache
def _item_prices() -> Mapping[tuple[str, str, str], Price]:
    text = resources.files("gpu_cloud.planner").joinpath(_ITEM_PRICES).read_text(encoding="utf-8")
    found: dict[tuple[str, str, str], Price] = {}
    for entry in json.loads(text, parse_float=Decimal)["prices"]:
        source = entry["source"]
        stated = source["as_of"] or source["read_on"]
        price = Price(Decimal(entry["hourly"]), entry["currency"], source["url"], date.fromisoformat(stated))
        found[(entry["cloud"], entry["region"], entry["item"])] = price
    return found


def _item_names(cloud: str) -> frozenset[str]:
    """The non-GPU items gpucloud's price list knows on a cloud (the names an override may use)."""
    return frozenset(item for c, _, item in _item_prices() if c == cloud)


def load_overrides(path: Path) -> Overrides:
    """Read and validate an override file (JSON or YAML).

    Raises:
        PlanError: the file cannot be read or parsed, or has problems (all of them listed, one a line).
    """
    raw = load_yaml(path)
    problems: list[str] = []
    overrides = _read_overrides(raw, str(path), problems)
    if problems:
        raise PlanError(f"invalid price file {path}:\n  " + "\n  ".join(problems))
    return overrides


def _number(value: Any, path: str, problems: list[str], *, below_one: bool = False) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        problems.append(f"{path}: must be a number (got {value!r})")
        return None
    try:
        number = Decimal(str(value))
    except ArithmeticError:
        problems.append(f"{path}: must be a number (got {value!r})")
        return None
    if below_one and not 0 <= number < 1:
        problems.append(f"{path}: must be a fraction, 0 <= discount < 1 (got {value!r})")
        return None
    if not below_one and not (number.is_finite() and 0 < number <= _MOST_HOURLY):
        problems.append(f"{path}: must be a price per hour > 0 and at most {_MOST_HOURLY} (got {value!r})")
        return None
    return number


def _mapping(value: Any, path: str, problems: list[str]) -> Mapping[str, Any]:
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        return value
    problems.append(f"{path}: must be a mapping (got {value!r})")
    return {}


def _read_overrides(raw: Any, source: str, problems: list[str]) -> Overrides:
    hourly: dict[tuple[str, str, str], Decimal] = {}
    currency: dict[str, str] = {}
    discounts: dict[tuple[str, str], Decimal] = {}
    root = _mapping(raw, "(top level)", problems)
    for key, value in root.items():
        if key in _CLOUDS:
            known = {t.name for t in catalog.instance_types(catalog.Cloud(key))} | _item_names(key)
            regions = cloud_limits.limits(catalog.Cloud(key)).regions
            for region, prices in _mapping(value, key, problems).items():
                if region not in regions:
                    problems.append(f"{key}.{region}: not a region of {key} (got {region!r})")
                    continue
                for name, price in _mapping(prices, f"{key}.{region}", problems).items():
                    path = f"{key}.{region}.{name}"
                    if name not in known:
                        problems.append(f"{path}: not a catalog GPU instance type nor a priced item (got {name!r})")
                    elif (number := _number(price, path, problems)) is not None:
                        hourly[(key, region, name)] = number
        elif key == "currency":
            for cloud, code in _mapping(value, key, problems).items():
                if cloud not in _CLOUDS:
                    problems.append(f"currency.{cloud}: not a cloud, expected one of {', '.join(_CLOUDS)}")
                elif not (isinstance(code, str) and len(code) == 3 and code.isalpha() and code.isupper()):
                    problems.append(f"currency.{cloud}: must be an ISO currency code like USD (got {code!r})")
                else:
                    currency[cloud] = code
        elif key == "spotDiscounts":
            for cloud, by_family in _mapping(value, key, problems).items():
                if cloud not in _CLOUDS:
                    problems.append(f"spotDiscounts.{cloud}: not a cloud, expected one of {', '.join(_CLOUDS)}")
                    continue
                families = catalog.families(catalog.Cloud(cloud))
                for family, fraction in _mapping(by_family, f"{key}.{cloud}", problems).items():
                    path = f"{key}.{cloud}.{family}"
                    if family not in families:
                        problems.append(f"{path}: not a catalog instance family (got {family!r})")
                    elif (number := _number(fraction, path, problems, below_one=True)) is not None:
                        discounts[(cloud, family)] = number
        else:
            expected = ", ".join((*_CLOUDS, "currency", "spotDiscounts"))
            problems.append(f"{key}: unknown key, expected one of {expected}")
    return Overrides(source=source, hourly=hourly, currency=currency, discounts=discounts)
