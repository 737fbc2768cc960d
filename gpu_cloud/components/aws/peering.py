"""PrivateVpcPeering: cross-region VPC peering with DNS resolution and routes from private route tables only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.spec import ConfigError, PeeringSpec, Problem

__all__ = ["PrivateVpcPeering", "PrivateVpcPeeringArgs"]


@dataclass(frozen=True)
class PrivateVpcPeeringArgs:
    """Arguments of a PrivateVpcPeering.

    The peer VPC either comes from this program (a PrivateNetwork on a provider of the peer region) or from
    another stack; either way its id and private route tables come in as inputs.
    """

    spec: PeeringSpec
    """The peer region and range."""
    vpc_id: pulumi.Input[str]
    """This (requester) VPC."""
    vpc_cidr: IPv4Network
    """This VPC's range (routed to from the peer)."""
    route_table_ids: Sequence[pulumi.Input[str]]
    """This VPC's private route tables."""
    peer_vpc_id: pulumi.Input[str]
    """The peer (accepter) VPC in spec.peer_region."""
    peer_route_table_ids: Sequence[pulumi.Input[str]]
    """The peer VPC's private route tables."""


class PrivateVpcPeering(pulumi.ComponentResource):
    """A requester connection in this region and its accepter in the peer region (the resource-level ``region``
    argument of pulumi-aws 7 places peer-side resources there, on the same provider).

    Children: ``<name>-requester``, ``<name>-accepter``, ``<name>-requester-options``, ``<name>-accepter-options``,
    ``<name>-route-<i>`` per private route table here and ``<name>-peer-route-<i>`` per peer route table.
    """

    connection_id: pulumi.Output[str]
    """The VPC peering connection's id."""

    def __init__(self, name: str, args: PrivateVpcPeeringArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        _check(args)
        super().__init__("gpucloud:aws:PrivateVpcPeering", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        peer_region = args.spec.peer_region
        # Cross-region peering cannot auto-accept on the requester side (pulumi-aws ec2.VpcPeeringConnection:
        # peer_region requires auto_accept false and an ec2.VpcPeeringConnectionAccepter).
        requester = aws.ec2.VpcPeeringConnection(
            f"{name}-requester",
            vpc_id=args.vpc_id,
            peer_vpc_id=args.peer_vpc_id,
            peer_region=peer_region,
            auto_accept=False,
            tags={"Name": name, "Side": "requester"},
            opts=child,
        )
        accepter = aws.ec2.VpcPeeringConnectionAccepter(
            f"{name}-accepter",
            vpc_peering_connection_id=requester.id,
            auto_accept=True,
            region=peer_region,
            tags={"Name": name, "Side": "accepter"},
            opts=child,
        )
        # Options of a cross-region connection are set on each side in its own region, once it is active
        # (pulumi-aws ec2.PeeringConnectionOptions, cross-account/region usage).
        aws.ec2.PeeringConnectionOptions(
            f"{name}-requester-options",
            vpc_peering_connection_id=accepter.id,
            requester=aws.ec2.PeeringConnectionOptionsRequesterArgs(allow_remote_vpc_dns_resolution=True),
            opts=child,
        )
        aws.ec2.PeeringConnectionOptions(
            f"{name}-accepter-options",
            vpc_peering_connection_id=accepter.id,
            accepter=aws.ec2.PeeringConnectionOptionsAccepterArgs(allow_remote_vpc_dns_resolution=True),
            region=peer_region,
            opts=child,
        )
        for i, table in enumerate(args.route_table_ids):
            aws.ec2.Route(
                f"{name}-route-{i}",
                route_table_id=table,
                destination_cidr_block=str(args.spec.peer_vpc_cidr),
                vpc_peering_connection_id=accepter.id,
                opts=child,
            )
        for i, table in enumerate(args.peer_route_table_ids):
            aws.ec2.Route(
                f"{name}-peer-route-{i}",
                route_table_id=table,
                destination_cidr_block=str(args.vpc_cidr),
                vpc_peering_connection_id=accepter.id,
                region=peer_region,
                opts=child,
            )
        self.connection_id = requester.id
        self.register_outputs({"connectionId": self.connection_id})


def _check(args: PrivateVpcPeeringArgs) -> None:
    problems = []
    if args.spec.peer_vpc_cidr.overlaps(args.vpc_cidr):
        problems.append(Problem("peerVpcCidr", f"overlaps vpcCidr {args.vpc_cidr}", str(args.spec.peer_vpc_cidr)))
    for field, tables in (("routeTableIds", args.route_table_ids), ("peerRouteTableIds", args.peer_route_table_ids)):
        if not tables:
            problems.append(Problem(field, "needs at least one private route table", 0))
    if problems:
        raise ConfigError(problems)
