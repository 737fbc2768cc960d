"""PrivateVpcPeering: a cross-region connection and routes through it on both sides."""

from __future__ import annotations

from ipaddress import IPv4Network

import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud import PrivateVpcPeering, PrivateVpcPeeringArgs
from gpu_cloud.components.spec import PeeringSpec
from tests.alicloud.support import component, custom, of_type, one, plan_of, registered, rejected

SPEC = PeeringSpec.model_validate(
    {
        "peerRegion": "cn-shanghai",
        "peerVpcCidr": "10.40.0.0/16",
        "peerPrivateSubnets": [
            {"zone": "cn-shanghai-e", "cidr": "10.40.0.0/18"},
            {"zone": "cn-shanghai-f", "cidr": "10.40.64.0/18"},
        ],
    }
)


def _build(vpc_cidr: str = "10.30.0.0/16") -> None:
    peer = alicloud.Provider("peer", region="cn-shanghai")
    PrivateVpcPeering(
        "peering",
        PrivateVpcPeeringArgs(
            spec=SPEC,
            vpc_cidr=IPv4Network(vpc_cidr),
            vpc_id="vpc-hz",
            route_table_ids=["vtb-hz"],
            peer_vpc_id="vpc-sh",
            peer_route_table_ids=["vtb-sh"],
            peer_provider=peer,
            account_id="1234567890123456",
        ),
    )


def test_children_are_the_connection_and_one_route_on_each_side() -> None:
    plan = plan_of(_build)
    component(plan, "gpucloud:alicloud:PrivateVpcPeering")
    assert sorted((r.type, r.name) for r in custom(plan)) == sorted(
        [
            ("alicloud:vpc/peerConnection:PeerConnection", "peering-connection"),
            ("alicloud:vpc/routeEntry:RouteEntry", "peering-route-0"),
            ("alicloud:vpc/routeEntry:RouteEntry", "peering-peer-route-0"),
        ]
    )


def test_the_connection_names_the_accepting_region_vpc_and_account() -> None:
    inputs = one(plan_of(_build), "alicloud:vpc/peerConnection:PeerConnection").inputs
    assert {k: inputs[k] for k in ("vpcId", "acceptingVpcId", "acceptingRegionId", "acceptingAliUid")} == {
        "vpcId": "vpc-hz",
        "acceptingVpcId": "vpc-sh",
        "acceptingRegionId": "cn-shanghai",
        "acceptingAliUid": 1234567890123456,
    }


def test_routes_point_each_side_at_the_other_range_through_the_connection() -> None:
    plan = plan_of(_build)
    connection = one(plan, "alicloud:vpc/peerConnection:PeerConnection").urn
    routes = {r.name: r for r in of_type(plan, "alicloud:vpc/routeEntry:RouteEntry")}
    assert {n: (r.inputs["routeTableId"], r.inputs["destinationCidrblock"]) for n, r in routes.items()} == {
        "peering-route-0": ("vtb-hz", "10.40.0.0/16"),
        "peering-peer-route-0": ("vtb-sh", "10.30.0.0/16"),
    }
    assert all(r.inputs["nexthopType"] == "VpcPeer" for r in routes.values())
    assert all(r.property_dependencies["nexthopId"] == (connection,) for r in routes.values())


def test_the_peer_side_route_goes_through_the_peer_region_provider() -> None:
    plan = plan_of(_build)
    peer = one(plan, "pulumi:providers:alicloud")
    routes = {r.name: r for r in of_type(plan, "alicloud:vpc/routeEntry:RouteEntry")}
    assert routes["peering-peer-route-0"].provider.startswith(peer.urn + "::")
    assert not routes["peering-route-0"].provider.startswith(peer.urn + "::")


def test_overlapping_ranges_are_rejected_before_anything_is_registered() -> None:
    error, plan = rejected(lambda: _build("10.40.128.0/17"))
    assert str(error) == "peerVpcCidr: overlaps this VPC's range 10.40.128.0/17 (got 10.40.0.0/16)"
    assert registered(plan) == ["pulumi:providers:alicloud"]
