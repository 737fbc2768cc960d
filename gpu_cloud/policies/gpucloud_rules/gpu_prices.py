"""The GPU prices gpu-cost-guard uses: the catalog's, copied into ``gpu_prices.json``, and config overrides.

``gpu_prices.json`` is generated from ``components/prices.json`` by ``policies/scripts/generate_gpu_prices.py``
(the pack cannot import ``components``). The ``prices`` config takes the shape of a ``gpucloud --prices``
file: cloud -> region -> instance type -> price per hour, ``currency`` (cloud -> ISO code of its
overrides, default USD) and ``spotDiscounts`` (cloud -> family -> fraction off on demand). Names the pack
does not price (NAT gateways, control planes) are accepted and not used, so one file serves both.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any, Final

__all__ = ["PRICES_SCHEMA", "HourlyPrice", "PriceList", "family_of"]

CLOUDS: Final = ("aws", "alicloud")
DEFAULT_OVERRIDE_CURRENCY: Final = "USD"
_PRICE_TABLE: Final[Mapping[str, Any]] = {
    "type": "object",
    "description": "Region -> instance type -> on-demand price per hour.",
    "additionalProperties": {"type": "object", "additionalProperties": {"type": "number", "exclusiveMinimum": 0}},
}
PRICES_SCHEMA: Final[Mapping[str, Any]] = {
    "type": "object",
    "description": "Price overrides, the shape of a `gpucloud --prices` file: per cloud, region -> instance type "
    "-> price per hour; `currency` (cloud -> ISO code, default USD); `spotDiscounts` (cloud -> family -> "
    "fraction off the on-demand price).",
    "properties": {
        **{cloud: _PRICE_TABLE for cloud in CLOUDS},
        "currency": {
            "type": "object",
            "additionalProperties": {"type": "string", "pattern": "^[A-Z]{3}$"},
            "propertyNames": {"enum": list(CLOUDS)},
        },
        "spotDiscounts": {
            "type": "object",
            "propertyNames": {"enum": list(CLOUDS)},
            "additionalProperties": {
                "type": "object",
                "additionalProperties": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
            },
        },
    },
    "additionalProperties": False,
    "default": {},
}
"""The JSON schema of the ``prices`` config property."""


@dataclass(frozen=True)
class HourlyPrice:
    """An on-demand price per instance-hour.

    Attributes:
        hourly: The price.
        currency: ISO currency code.
    """

    hourly: Decimal
    currency: str


def family_of(cloud: str, instance_type: str) -> str:
    """The instance family: ``p5`` of ``p5.48xlarge``, ``gn7i`` of ``ecs.gn7i-c8g1.2xlarge``.

    The catalog's rule (components/catalog.py, ``_belongs_to_family``): on AWS the part before the dot, on
    Alibaba Cloud the part after ``ecs.`` up to the next dash or dot.
    """
    if cloud == "aws":
        return instance_type.split(".", 1)[0]
    return instance_type.removeprefix("ecs.").split(".", 1)[0].split("-", 1)[0]


class PriceList:
    """Looks GPU prices up: the config overrides first, then the catalog's copy."""

    def __init__(self, overrides: Mapping[str, Any]) -> None:
        """Args: overrides: the ``prices`` config (validated against `PRICES_SCHEMA` by the CLI or gpucloud)."""
        self._overrides = overrides

    def on_demand(self, cloud: str, region: str, instance_type: str) -> HourlyPrice | None:
        """The on-demand price of an instance type in a region, None if neither source has one."""
        given = self._overrides.get(cloud, {}).get(region, {}).get(instance_type)
        if given is not None:
            currency = self._overrides.get("currency", {}).get(cloud, DEFAULT_OVERRIDE_CURRENCY)
            return HourlyPrice(Decimal(str(given)), str(currency))
        table = _listed()["onDemand"].get(cloud, {}).get(region)
        if table is None or instance_type not in table["prices"]:
            return None
        return HourlyPrice(Decimal(table["prices"][instance_type]), table["currency"])

    def spot_discount(self, cloud: str, family: str) -> Decimal | None:
        """The estimated spot discount of a family (0.6 = 60% off), None if neither source has one."""
        given = self._overrides.get("spotDiscounts", {}).get(cloud, {}).get(family)
        if given is not None:
            return Decimal(str(given))
        listed = _listed()["spotDiscounts"].get(cloud, {}).get(family)
        return None if listed is None else Decimal(listed)


@cache
def _listed() -> Mapping[str, Any]:
    document: Mapping[str, Any] = json.loads(Path(__file__).with_name("gpu_prices.json").read_text(encoding="utf-8"))
    return document
