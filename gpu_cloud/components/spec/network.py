"""The network of an environment: its private VPC and subnets, and the peering to a VPC in another region."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from ipaddress import IPv4Network

from pydantic import Field, model_validator

from gpu_cloud.components.spec._base import Spec
from gpu_cloud.components.spec.problems import Problem, raise_problems

__all__ = ["ACK_SERVICE_CIDR", "EgressMode", "NetworkSpec", "PeeringSpec", "SubnetSpec", "layout_problems"]


ACK_SERVICE_CIDR = IPv4Network("172.21.0.0/20")
"""The Service range of every ACK cluster; no VPC may overlap it."""


class EgressMode(StrEnum):
    """How private GPU nodes reach the internet."""

    NAT = "nat"
    """NAT gateways in small public subnets that hold nothing else."""
    ENDPOINTS_ONLY = "endpoints-only"
    """No internet path at all: only private endpoints to cloud services."""


class SubnetSpec(Spec):
    """One subnet (a vswitch on Alibaba Cloud) in one zone."""

    zone: str = Field(min_length=1)
    """The availability zone, e.g. ``us-east-1a`` or ``cn-hangzhou-h``."""
    cidr: IPv4Network
    """The subnet's IPv4 range; must lie inside the VPC."""


class NetworkSpec(Spec):
    """A private VPC for GPU nodes."""

    vpc_cidr: IPv4Network
    """The VPC's IPv4 range."""
    private_subnets: tuple[SubnetSpec, ...] = Field(min_length=2)
    """Private subnets for nodes, at least two zones."""
    egress: EgressMode = EgressMode.NAT
    """How nodes reach the internet."""
    nat_subnets: tuple[SubnetSpec, ...] = ()
    """Small subnets that hold only NAT gateways (AWS: public; required when egress is nat on AWS)."""
    pod_subnets: tuple[SubnetSpec, ...] = ()
    """Alibaba Cloud: Terway's pod vswitches, apart from the node vswitches as ACK recommends, in exactly the zones of
    the private subnets (cs.ManagedKubernetes ``pod_vswitch_ids``: "not belong to vswitch_ids but must be in same
    availability zones. Only works for Create"); empty: pods take node vswitch addresses. AWS: must be empty."""
    nat_per_zone: bool = True
    """One NAT gateway per zone (prod) or a single shared one (dev)."""
    flow_log_retention_days: int = Field(default=90, ge=1, le=3653)
    """How long VPC flow logs are kept."""

    @model_validator(mode="after")
    def _subnets_fit(self) -> NetworkSpec:
        subnets = {
            "privateSubnets": self.private_subnets,
            "natSubnets": self.nat_subnets,
            "podSubnets": self.pod_subnets,
        }
        problems = layout_problems("vpcCidr", self.vpc_cidr, subnets)
        if self.egress is EgressMode.ENDPOINTS_ONLY and self.nat_subnets:
            problems.append(Problem("natSubnets", "must be empty when egress is endpoints-only", len(self.nat_subnets)))
        raise_problems(problems)
        return self

    @property
    def zones(self) -> tuple[str, ...]:
        """The zones of the private subnets, in order, without repeats."""
        return tuple(dict.fromkeys(s.zone for s in self.private_subnets))


class PeeringSpec(Spec):
    """Private peering to a VPC in another region (e.g. a data VPC)."""

    peer_region: str = Field(min_length=1)
    """The peer VPC's region."""
    peer_vpc_cidr: IPv4Network
    """The peer VPC's range; must not overlap this VPC."""
    peer_private_subnets: tuple[SubnetSpec, ...] = ()
    """When the peer VPC is created by this program: its private subnets (at least two zones)."""
    peer_stack: str | None = None
    """When the peer VPC lives in another stack: that stack's name (outputs vpcId and privateRouteTableIds on
    AWS, vpcId and routeTableId on Alibaba Cloud)."""
    peer_route_table_count: int = Field(default=1, ge=1, le=16)
    """With peerStack on AWS: how many ids its privateRouteTableIds output lists (one per zone). A route to this
    VPC goes into each; the count must be known before the other stack's outputs are read."""

    @model_validator(mode="after")
    def _one_source(self) -> PeeringSpec:
        if bool(self.peer_private_subnets) == bool(self.peer_stack):
            raise_problems(
                [
                    Problem(
                        "peerStack", "give either peerPrivateSubnets or peerStack, not both or neither", self.peer_stack
                    )
                ]
            )
        if self.peer_private_subnets and self.peer_route_table_count != 1:
            raise_problems([Problem("peerRouteTableCount", "only with peerStack", self.peer_route_table_count)])
        if self.peer_private_subnets:
            raise_problems(
                layout_problems("peerVpcCidr", self.peer_vpc_cidr, {"peerPrivateSubnets": self.peer_private_subnets})
            )
        return self

    @property
    def peer_network(self) -> NetworkSpec | None:
        """The data VPC this program creates in the peer region (endpoints only), or None with ``peer_stack``."""
        if not self.peer_private_subnets:
            return None
        return NetworkSpec(
            vpc_cidr=self.peer_vpc_cidr, private_subnets=self.peer_private_subnets, egress=EgressMode.ENDPOINTS_ONLY
        )


def layout_problems(vpc_field: str, vpc: IPv4Network, subnets: Mapping[str, tuple[SubnetSpec, ...]]) -> list[Problem]:
    """Subnets outside the VPC or overlapping each other; fewer than two zones in the first field's subnets."""
    problems: list[Problem] = []
    listed = [(field, i, s) for field, items in subnets.items() for i, s in enumerate(items)]
    for field, i, subnet in listed:
        if not subnet.cidr.subnet_of(vpc):
            problems.append(Problem(f"{field}.{i}.cidr", f"not inside {vpc_field} {vpc}", str(subnet.cidr)))
    for a, (fa, ia, sa) in enumerate(listed):
        for fb, ib, sb in listed[a + 1 :]:
            if sa.cidr.overlaps(sb.cidr):
                problems.append(Problem(f"{fb}.{ib}.cidr", f"overlaps {fa}.{ia} ({sa.cidr})", str(sb.cidr)))
    first, nodes = next(iter(subnets.items()))
    zones = [s.zone for s in nodes]
    if len(set(zones)) < 2:
        problems.append(Problem(first, "needs subnets in at least two zones", zones))
    return problems
