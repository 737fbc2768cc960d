"""What the clouds accept in what a stack config names: regions, zones, CIDR sizes, tags, log retention.

The facts live in ``cloud_limits.json`` beside this module, each with the provider material it was read from and
the date it was read; this module only loads them, once. The config checks that use them are in
``components.refusals``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from gpu_cloud.components.catalog import Cloud

__all__ = ["ZONE_SEPARATOR", "CidrLimits", "CloudLimits", "TagLimits", "limits"]

ZONE_SEPARATOR = {Cloud.AWS: "", Cloud.ALICLOUD: "-"}
"""What separates a zone's letter from its region's name: ``us-east-1a`` (AWS), ``cn-hangzhou-h`` (Alibaba Cloud)."""


@dataclass(frozen=True)
class CidrLimits:
    """Prefix lengths a cloud accepts, shortest and longest: ``vpc`` for a VPC, ``subnet`` for a subnet/vSwitch."""

    vpc: tuple[int, int]
    subnet: tuple[int, int]


@dataclass(frozen=True)
class TagLimits:
    """How many tags a resource takes, how long keys and values may be, and the prefixes reserved for the cloud
    (any case)."""

    max_tags: int
    max_key_length: int
    max_value_length: int
    reserved_prefixes: tuple[str, ...]


@dataclass(frozen=True)
class CloudLimits:
    """The limits of one cloud."""

    regions: frozenset[str]
    """Every region of the cloud."""
    zones: dict[str, tuple[str, ...]]
    """Region -> its zones, for the regions whose zone list was sourced."""
    cidr: CidrLimits
    tags: TagLimits
    log_retention_days: tuple[int, ...] | None
    """The retention periods its log service accepts, or None when any number of days within the spec's bounds is
    accepted."""


def limits(cloud: Cloud) -> CloudLimits:
    """The limits of ``cloud``."""
    return _all()[cloud]


@cache
def _all() -> dict[Cloud, CloudLimits]:
    text = resources.files("gpu_cloud.components").joinpath("cloud_limits.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    found = {}
    for cloud in Cloud:
        cidr, tags = data["cidr"][cloud.value], data["tags"][cloud.value]
        retention = data["log_retention_days"].get(cloud.value)
        found[cloud] = CloudLimits(
            regions=frozenset(data["regions"][cloud.value]["regions"]),
            zones={region: tuple(zones) for region, zones in data["zones"][cloud.value]["zones"].items()},
            cidr=CidrLimits(vpc=tuple(cidr["vpc_prefix"]), subnet=tuple(cidr["subnet_prefix"])),
            tags=TagLimits(
                max_tags=tags["max_tags"],
                max_key_length=tags["max_key_length"],
                max_value_length=tags["max_value_length"],
                reserved_prefixes=tuple(tags["reserved_prefixes"]),
            ),
            log_retention_days=None if retention is None else tuple(retention["values"]),
        )
    return found
