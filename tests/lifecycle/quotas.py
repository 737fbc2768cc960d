"""Account quotas the documented stacks use together, counted across every stack of one account, per region or zone.

Defaults and codes (read 2026-12-03): Amazon VPC quotas, docs.aws.amazon.com/general/latest/gr/vpc-service.html:
"VPCs per Region" 5, "NAT gateways per Availability Zone" 5; EC2 "Elastic IP addresses" per Region 5 (Amazon VPC User
Guide, "Elastic IP address quotas"; AWS re:Post: "The maximum number of EIPs in an account and region is 5 by
default"); Service Quotas codes ``ec2/L-0263D0A3`` (EC2-VPC Elastic IPs), ``vpc/L-F678F1CE`` (VPCs per Region),
``vpc/L-FE5A380F`` (NAT gateways per Availability Zone), as ``aws service-quotas list-service-quotas`` names them.
Every region of an account has a default VPC, which counts. An `up` that takes the account past a quota fails as EC2
refuses the resource beyond it: ``AddressLimitExceeded`` ("The maximum number of addresses has been reached."),
``VpcLimitExceeded``, ``NatGatewayLimitExceeded`` (Amazon EC2 API Reference, "Error codes for the Amazon EC2 API",
docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from tests.lifecycle.world import World, provider_regions, region_of


@dataclass(frozen=True)
class Quota:
    service: str
    code: str
    name: str
    default: int
    resource_type: str
    error: str
    """The EC2 error code of a create call beyond the quota."""
    per_zone: bool = False
    already_there: int = 0
    """What an account has before any stack (the default VPC)."""


QUOTAS = (
    Quota("ec2", "L-0263D0A3", "EC2-VPC Elastic IPs per region", 5, "aws:ec2/eip:Eip", "AddressLimitExceeded"),
    Quota("vpc", "L-F678F1CE", "VPCs per region", 5, "aws:ec2/vpc:Vpc", "VpcLimitExceeded", already_there=1),
    Quota(
        "vpc",
        "L-FE5A380F",
        "NAT gateways per zone",
        5,
        "aws:ec2/natGateway:NatGateway",
        "NatGatewayLimitExceeded",
        per_zone=True,
    ),
)


def usage(world: World) -> dict[tuple[Quota, str], int]:
    """What every AWS stack that is up uses of each quota, by region (or zone)."""
    used: Counter[tuple[Quota, str]] = Counter()
    for stacks in world.backends.values():
        for record in stacks.values():
            resources: list[dict[str, Any]] = record.get("resources") or []
            regions = provider_regions(resources)
            default = next(iter(regions.values()), "")
            by_urn = {r["urn"]: r for r in resources}
            for quota in QUOTAS:
                for r in (r for r in resources if r["type"] == quota.resource_type):
                    where = region_of(r, regions, default)
                    if quota.per_zone:
                        [subnet] = r["property_dependencies"]["subnetId"]
                        where = by_urn[subnet]["inputs"]["availabilityZone"]
                    used[(quota, where)] += 1
    for quota in QUOTAS:
        for key in [k for k in used if k[0] == quota]:
            used[key] += quota.already_there
    return dict(used)


def _exceeded(world: World) -> list[tuple[Quota, str]]:
    """Each quota the stacks exceed, unless the sequence requested enough, with what it says."""
    exceeded = []
    for (quota, where), count in sorted(usage(world).items(), key=lambda i: (i[0][0].code, i[0][1])):
        region = where if not quota.per_zone else where[:-1]
        granted = world.quota_requests.get(f"{quota.service}/{quota.code}/{region}", quota.default)
        if count > granted:
            exceeded.append(
                (
                    quota,
                    f"{quota.name} in {where}: the stacks use {count}, the quota is {granted}: request "
                    f"{quota.service}/{quota.code} of at least {count} in {region} before the first up",
                )
            )
    return exceeded


def shortfalls(world: World) -> list[str]:
    """Each quota the stacks exceed, unless the sequence requested enough: which quota to raise, and to what."""
    return [message for _, message in _exceeded(world)]


def refusals(world: World, record: dict[str, Any], resources: list[dict[str, Any]]) -> list[str]:
    """What EC2 refuses when an `up` leaves the stack of ``record`` with ``resources``: the quotas it takes the account
    past, each with the create call's error code."""
    before = record.get("resources")
    record["resources"] = resources
    try:
        return [f"{quota.error}: {message}" for quota, message in _exceeded(world)]
    finally:
        record["resources"] = before
