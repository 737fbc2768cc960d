"""PrivateVpcPeering: cross-region requester/accepter, DNS both ways, routes in private route tables only."""

from __future__ import annotations

from ipaddress import IPv4Network

import pytest

from gpu_cloud.components.aws.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from gpu_cloud.components.spec import ConfigError, PeeringSpec
from tests.aws.helpers import named, of_type, run, type_counts

SPEC = PeeringSpec.model_validate(
    {
        "peerRegion": "us-west-2",
        "peerVpcCidr": "10.30.0.0/16",
        "peerPrivateSubnets": [
            {"zone": "us-west-2a", "cidr": "10.30.0.0/20"},
            {"zone": "us-west-2b", "cidr": "10.30.16.0/20"},
        ],
    }
)


def _peering(vpc_cidr: str = "10.20.0.0/16", tables: tuple[str, ...] = ("rtb-a", "rtb-b", "rtb-c")) -> None:
    args = PrivateVpcPeeringArgs(
        spec=SPEC,
        vpc_id="vpc-here",
        vpc_cidr=IPv4Network(vpc_cidr),
        route_table_ids=list(tables),
        peer_vpc_id="vpc-peer",
        peer_route_table_ids=["rtb-peer-a", "rtb-peer-b"],
    )
    PrivateVpcPeering("peer", args)


def test_children() -> None:
    assert type_counts(run(_peering)) == {
        "aws:ec2/vpcPeeringConnection:VpcPeeringConnection": 1,
        "aws:ec2/vpcPeeringConnectionAccepter:VpcPeeringConnectionAccepter": 1,
        "aws:ec2/peeringConnectionOptions:PeeringConnectionOptions": 2,
        "aws:ec2/route:Route": 5,
    }


def test_requester_asks_the_peer_region_without_auto_accept() -> None:
    inputs = named(run(_peering), "peer-requester").inputs
    assert (inputs["vpcId"], inputs["peerVpcId"], inputs["peerRegion"], inputs["autoAccept"]) == (
        "vpc-here",
        "vpc-peer",
        "us-west-2",
        False,
    )


def test_accepter_accepts_in_the_peer_region() -> None:
    plan = run(_peering)
    accepter = named(plan, "peer-accepter")
    assert (accepter.inputs["autoAccept"], accepter.inputs["region"]) == (True, "us-west-2")
    assert accepter.property_dependencies["vpcPeeringConnectionId"] == (named(plan, "peer-requester").urn,)


def test_dns_resolution_is_allowed_on_both_sides_each_in_its_region() -> None:
    plan = run(_peering)
    requester = named(plan, "peer-requester-options").inputs
    accepter = named(plan, "peer-accepter-options").inputs
    assert requester["requester"] == {"allowRemoteVpcDnsResolution": True}
    assert "region" not in requester
    assert accepter["accepter"] == {"allowRemoteVpcDnsResolution": True}
    assert accepter["region"] == "us-west-2"


def test_every_private_route_table_on_both_sides_routes_to_the_other_vpc() -> None:
    routes = {r.name: r.inputs for r in of_type(run(_peering), "aws:ec2/route:Route")}
    here = {
        r["routeTableId"]: r["destinationCidrBlock"] for n, r in routes.items() if not n.startswith("peer-peer-route")
    }
    there = {
        r["routeTableId"]: (r["destinationCidrBlock"], r["region"])
        for n, r in routes.items()
        if n.startswith("peer-peer-route")
    }
    assert here == {"rtb-a": "10.30.0.0/16", "rtb-b": "10.30.0.0/16", "rtb-c": "10.30.0.0/16"}
    assert there == {"rtb-peer-a": ("10.20.0.0/16", "us-west-2"), "rtb-peer-b": ("10.20.0.0/16", "us-west-2")}


def test_routes_use_the_accepted_connection() -> None:
    plan = run(_peering)
    accepter = named(plan, "peer-accepter").urn
    for route in of_type(plan, "aws:ec2/route:Route"):
        assert route.property_dependencies["vpcPeeringConnectionId"] == (accepter,)


def test_overlapping_ranges_are_rejected_before_registering() -> None:
    errors: list[str] = []

    def program() -> None:
        with pytest.raises(ConfigError) as err:
            _peering(vpc_cidr="10.30.128.0/17")
        errors.append(str(err.value))

    plan = run(program)
    assert errors == ["peerVpcCidr: overlaps vpcCidr 10.30.128.0/17 (got 10.30.0.0/16)"]
    assert len(plan.resources) == 1


def test_no_route_tables_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^routeTableIds: needs at least one private route table \(got 0\)$"):
        _peering(tables=())
