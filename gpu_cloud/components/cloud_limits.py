"""What the clouds accept in what a stack config names: regions, zones, CIDR sizes, tags, log retention, instance
types, and the subnet addresses a node takes.

The facts live in ``cloud_limits.json`` and ``ec2_facts.json`` beside this module, each with the provider material it
was read from and the date it was read; this module only loads them, once. The config checks that use them are in
``components.spec.refusals``.
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
    reserved_per_subnet: int | None
    """Addresses of every subnet the cloud keeps for itself, or None where not sourced."""


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
    instance_types: frozenset[str] | None
    """Every instance type name of the cloud, or None where no list was sourced."""
    node_addresses: dict[str, int]
    """Instance type -> the most addresses the pod network can take from a node's subnet, for the types sourced
    (AWS: the VPC CNI, network interfaces of the default network card x IPv4 addresses per interface)."""


def limits(cloud: Cloud) -> CloudLimits:
    """The limits of ``cloud``."""
    return _all()[cloud]


def _read(name: str) -> dict[str, Any]:
    text = resources.files("gpu_cloud.components").joinpath(name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@cache
def _all() -> dict[Cloud, CloudLimits]:
    data, ec2 = _read("cloud_limits.json"), _read("ec2_facts.json")
    vpc_cni = ec2["vpc_cni_addresses"]["types"]
    found = {}
    for cloud in Cloud:
        cidr, tags = data["cidr"][cloud.value], data["tags"][cloud.value]
        retention = data["log_retention_days"].get(cloud.value)
        aws = cloud is Cloud.AWS
        found[cloud] = CloudLimits(
            regions=frozenset(data["regions"][cloud.value]["regions"]),
            zones={region: tuple(zones) for region, zones in data["zones"][cloud.value]["zones"].items()},
            cidr=CidrLimits(
                vpc=tuple(cidr["vpc_prefix"]),
                subnet=tuple(cidr["subnet_prefix"]),
                reserved_per_subnet=cidr.get("reserved_per_subnet"),
            ),
            tags=TagLimits(
                max_tags=tags["max_tags"],
                max_key_length=tags["max_key_length"],
                max_value_length=tags["max_value_length"],
                reserved_prefixes=tuple(tags["reserved_prefixes"]),
            ),
            log_retention_days=None if retention is None else tuple(retention["values"]),
            instance_types=frozenset(ec2["instance_types"]["names"]) if aws else None,
            node_addresses={name: t["enis"] * t["ipv4_per_eni"] for name, t in vpc_cni.items()} if aws else {},
        )
    return found
