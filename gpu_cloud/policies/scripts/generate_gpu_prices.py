"""Regenerate ``gpucloud_rules/gpu_prices.json`` (the prices gpu-cost-guard uses) from the GPU catalog.

The pack cannot import ``components`` (under the Pulumi CLI it stands on pulumi-policy and the standard
library alone), so the catalog's on-demand prices and spot discount estimates are copied here, with
where each price table was read, and checked in. ``tests/policies/test_gpu_cost_guard.py`` fails when
the committed file and the catalog drift apart.

Usage: python gpu_cloud/policies/scripts/generate_gpu_prices.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpu_cloud.components import catalog

OUTPUT = Path(__file__).resolve().parent.parent / "gpucloud_rules" / "gpu_prices.json"


def document() -> dict[str, Any]:
    """The file's content: cloud -> region -> on-demand price table, and cloud -> family -> spot discount.

    Amounts are exact decimal strings, as the catalog reads them.
    """
    on_demand: dict[str, dict[str, Any]] = {}
    discounts: dict[str, dict[str, str]] = {}
    for cloud in catalog.Cloud:
        for price in catalog.prices(cloud):
            table = on_demand.setdefault(cloud.value, {}).setdefault(
                price.region,
                {
                    "currency": price.currency,
                    "source": price.source.url,
                    "date": (price.source.as_of or price.source.read_on).isoformat(),
                    "prices": {},
                },
            )
            table["prices"][price.instance_type] = str(price.hourly)
        for discount in catalog.spot_discounts(cloud):
            discounts.setdefault(cloud.value, {})[discount.family] = str(discount.fraction)
    return {
        "generatedBy": "gpu_cloud/policies/scripts/generate_gpu_prices.py",
        "note": "Copied from gpu_cloud/components/prices.json by its catalog; spot discounts are estimates.",
        "onDemand": on_demand,
        "spotDiscounts": discounts,
    }


def render() -> str:
    """The file's text."""
    return json.dumps(document(), indent=1, sort_keys=True) + "\n"


def main() -> None:
    """Write the file."""
    OUTPUT.write_text(render(), encoding="utf-8")
    print(f"{OUTPUT}: written")


if __name__ == "__main__":
    main()
