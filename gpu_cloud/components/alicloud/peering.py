"""PrivateVpcPeering: a cross-region VPC peering connection with routes on both sides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Network

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import check, child_options
from gpu_cloud.components.spec import PeeringSpec, Problem

__all__ = ["PrivateVpcPeering", "PrivateVpcPeeringArgs"]

NEXT_HOP_PEERING = "VpcPeer"
"""vpc.RouteEntry ``nexthop_type`` of a route through a VPC peering connection."""


@dataclass
class PrivateVpcPeeringArgs:
    """Inputs of a PrivateVpcPeering.

    The peer VPC belongs to the same Alibaba Cloud account, so the connection needs no accepter: "for a
    same-account VPC peering connection, the system automatically accepts the connection request"
    (https://www.alibabacloud.com/help/en/virtual-private-cloud/latest/vpcpeeringoverview-1).
    """

    spec: PeeringSpec
    """The peer region and the peer VPC's range."""
    vpc_cidr: IPv4Network
    """This VPC's range: checked against the peer's, and the destination of the peer side's routes."""
    vpc_id: pulumi.Input[str]
    """This (requester) VPC."""
    route_table_ids: Sequence[pulumi.Input[str]]
    """This VPC's route tables that get a route to the peer."""
    peer_vpc_id: pulumi.Input[str]
    """The peer (accepter) VPC in ``spec.peer_region``."""
    peer_route_table_ids: Sequence[pulumi.Input[str]]
    """The peer VPC's route tables that get a route back."""
    peer_provider: pulumi.ProviderResource
    """An alicloud provider for ``spec.peer_region``: the peer side's routes are created through it."""
    account_id: pulumi.Input[str]
    """The Alibaba Cloud account (uid) that owns both VPCs (``accepting_ali_uid``)."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the connection."""


class PrivateVpcPeering(pulumi.ComponentResource):
    """A VPC peering connection to a VPC in another region, routed on both sides; nothing public."""

    connection_id: pulumi.Output[str]
    """The peering connection's id (the same on both sides)."""

    def __init__(self, name: str, args: PrivateVpcPeeringArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        if spec.peer_vpc_cidr.overlaps(args.vpc_cidr):
            check([Problem("peerVpcCidr", f"overlaps this VPC's range {args.vpc_cidr}", str(spec.peer_vpc_cidr))])
        super().__init__("gpucloud:alicloud:PrivateVpcPeering", name, None, opts)
        connection = alicloud.vpc.PeerConnection(
            f"{name}-connection",
            peer_connection_name=name,
            description=f"{name}: private peering to {spec.peer_region}",
            vpc_id=args.vpc_id,
            accepting_vpc_id=args.peer_vpc_id,
            accepting_region_id=spec.peer_region,
            accepting_ali_uid=pulumi.Output.from_input(args.account_id).apply(int),
            tags=dict(args.tags),
            opts=child_options(self),
        )
        self._routes(f"{name}-route", args.route_table_ids, spec.peer_vpc_cidr, connection, child_options(self))
        peer_side = child_options(self, provider=args.peer_provider)
        self._routes(f"{name}-peer-route", args.peer_route_table_ids, args.vpc_cidr, connection, peer_side)
        self.connection_id = connection.id
        self.register_outputs({"connectionId": self.connection_id})

    @staticmethod
    def _routes(
        prefix: str,
        tables: Sequence[pulumi.Input[str]],
        destination: IPv4Network,
        connection: alicloud.vpc.PeerConnection,
        opts: pulumi.ResourceOptions,
    ) -> None:
        """A route to ``destination`` through the connection in each of ``tables``."""
        for i, table in enumerate(tables):
            alicloud.vpc.RouteEntry(
                f"{prefix}-{i}",
                name=f"{prefix}-{i}",
                route_table_id=table,
                destination_cidrblock=str(destination),
                nexthop_type=NEXT_HOP_PEERING,
                nexthop_id=connection.id,
                opts=opts,
            )
