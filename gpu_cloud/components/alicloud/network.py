"""PrivateNetwork: a VPC whose GPU nodes have no public address; egress only through SNAT."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import check, child_options
from gpu_cloud.components.spec import EgressMode, NetworkSpec, Problem, SubnetSpec

__all__ = ["PrivateNetwork", "PrivateNetworkArgs"]

NAT_TYPE = "Enhanced"
"""The only NAT gateway type pulumi-alicloud 4 creates (``Normal`` is offline; vpc.NatGateway ``nat_type``)."""

NAT_NETWORK_TYPE = "internet"
"""An Internet NAT gateway (``intranet`` would be a VPC NAT gateway; vpc.NatGateway ``network_type``)."""

NAT_CHARGE_TYPE = "PayByLcu"
"""The only charge type of an Enhanced NAT gateway (vpc.NatGateway ``internet_charge_type``)."""

EIP_CHARGE_TYPE = "PayByTraffic"
"""Pay-as-you-go EIP billed by traffic (ecs.EipAddress ``internet_charge_type``)."""

EIP_BANDWIDTH_MBPS = "200"
"""Egress cap in Mbit/s; 200 is the most a pay-by-traffic EIP allows (ecs.EipAddress ``bandwidth``, a string)."""

EIP_ASSOCIATION_NAT = "Nat"
"""ecs.EipAssociation ``instance_type`` for a NAT gateway: the one public address the no-public-ip policy allows."""


@dataclass
class PrivateNetworkArgs:
    """Inputs of a PrivateNetwork."""

    spec: NetworkSpec
    """The VPC range, the vswitches (private subnets) and the egress mode."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on every taggable child."""
    protect: bool = True
    """Deletion protection on the NAT gateway and its EIP (StackConfig.protect_stateful): the environment's only
    public address and its egress are not released by a stray delete (vpc.NatGateway and ecs.EipAddress
    ``deletion_protection``, both "Default value: false"; review alicloud.md N7)."""


class PrivateNetwork(pulumi.ComponentResource):
    """A VPC with one vswitch per private subnet and, in NAT mode, an Internet NAT gateway used only for SNAT.

    Alibaba Cloud NAT gateways sit in an ordinary vswitch, so there is no public subnet: the NAT gateway's EIP is
    the environment's only public address, and no DNAT (forward) entry is ever created. With egress
    ``endpoints-only`` there is no NAT gateway and no EIP at all.
    """

    vpc_id: pulumi.Output[str]
    """The VPC's id."""
    route_table_id: pulumi.Output[str]
    """The VPC's system route table, which every vswitch uses."""
    vswitch_ids: list[pulumi.Output[str]]
    """The vswitch ids, in the order of ``spec.private_subnets``."""
    vswitch_ids_by_zone: dict[str, list[pulumi.Output[str]]]
    """The vswitch ids of each zone."""
    pod_vswitch_ids: list[pulumi.Output[str]]
    """Terway's pod vswitches, in the order of ``spec.pod_subnets`` (empty without pod subnets)."""
    egress_ip: pulumi.Output[str] | None
    """The NAT gateway's public IP (NAT egress only)."""
    egress: list[pulumi.Resource]
    """The SNAT entries that give each vswitch its route out (empty without NAT egress): what a cluster waits for."""

    def __init__(self, name: str, args: PrivateNetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        if spec.nat_subnets:
            message = "Alibaba Cloud NAT gateways sit in a vswitch; leave it empty"
            check([Problem("natSubnets", message, len(spec.nat_subnets))])
        super().__init__("gpucloud:alicloud:PrivateNetwork", name, None, opts)
        tags = dict(args.tags)
        vpc = alicloud.vpc.Network(
            f"{name}-vpc",
            vpc_name=name,
            cidr_block=str(spec.vpc_cidr),
            tags=tags,
            opts=child_options(self),
        )
        vswitches = self._vswitches(f"{name}-vswitch", name, vpc, spec.private_subnets, tags)
        # Terway's pod vswitches: ACK recommends them apart from the node vswitches, and the cluster takes them only
        # at creation (cs.ManagedKubernetes ``pod_vswitch_ids``), so they exist before the first cluster (F7).
        pod_vswitches = self._vswitches(f"{name}-pod-vswitch", f"{name}-pods", vpc, spec.pod_subnets, tags)
        self.pod_vswitch_ids = [v.id for v in pod_vswitches]
        self.vpc_id = vpc.id
        self.route_table_id = vpc.route_table_id
        self.vswitch_ids = [v.id for v in vswitches]
        self.vswitch_ids_by_zone = {}
        for subnet, vswitch in zip(spec.private_subnets, vswitches, strict=True):
            self.vswitch_ids_by_zone.setdefault(subnet.zone, []).append(vswitch.id)
        self.egress_ip = None
        self.egress = []
        if spec.egress is EgressMode.NAT:
            self.egress_ip = self._snat_egress(name, vpc, vswitches, pod_vswitches, tags, args.protect)
        self.register_outputs(
            {
                "vpcId": self.vpc_id,
                "routeTableId": self.route_table_id,
                "vswitchIds": self.vswitch_ids,
                "podVswitchIds": self.pod_vswitch_ids,
            }
        )

    def _vswitches(
        self,
        resource_prefix: str,
        name_prefix: str,
        vpc: alicloud.vpc.Network,
        subnets: Sequence[SubnetSpec],
        tags: dict[str, str],
    ) -> list[alicloud.vpc.Switch]:
        """One vswitch per subnet: resource ``<resource_prefix>-<i>``, named ``<name_prefix>-<zone>-<i>``."""
        return [
            alicloud.vpc.Switch(
                f"{resource_prefix}-{i}",
                vswitch_name=f"{name_prefix}-{subnet.zone}-{i}",
                vpc_id=vpc.id,
                zone_id=subnet.zone,
                cidr_block=str(subnet.cidr),
                tags=tags,
                opts=child_options(self),
            )
            for i, subnet in enumerate(subnets)
        ]

    def _snat_egress(
        self,
        name: str,
        vpc: alicloud.vpc.Network,
        vswitches: list[alicloud.vpc.Switch],
        pod_vswitches: list[alicloud.vpc.Switch],
        tags: dict[str, str],
        protect: bool,
    ) -> pulumi.Output[str]:
        # One Enhanced NAT gateway serves every zone (its availability mode defaults to CrossAZ, vpc.NatGateway
        # ``availability_mode``), so nat_per_zone has no Alibaba Cloud counterpart. The system route table gets
        # its 0.0.0.0/0 route to the gateway from the VPC service when the Internet NAT gateway is created.
        nat = alicloud.vpc.NatGateway(
            f"{name}-nat",
            nat_gateway_name=f"{name}-nat",
            vpc_id=vpc.id,
            vswitch_id=vswitches[0].id,
            nat_type=NAT_TYPE,
            network_type=NAT_NETWORK_TYPE,
            payment_type="PayAsYouGo",
            internet_charge_type=NAT_CHARGE_TYPE,
            deletion_protection=protect,
            tags=tags,
            opts=child_options(self),
        )
        eip = alicloud.ecs.EipAddress(
            f"{name}-nat-eip",
            address_name=f"{name}-nat-eip",
            payment_type="PayAsYouGo",
            internet_charge_type=EIP_CHARGE_TYPE,
            bandwidth=EIP_BANDWIDTH_MBPS,
            deletion_protection=protect,
            tags=tags,
            opts=child_options(self),
        )
        association = alicloud.ecs.EipAssociation(
            f"{name}-nat-eip-association",
            allocation_id=eip.id,
            instance_id=nat.id,
            instance_type=EIP_ASSOCIATION_NAT,
            opts=child_options(self),
        )
        # An SNAT entry matches its source vswitch: pods leave from their pod vswitch's addresses, so each pod
        # vswitch gets its own entry besides the node vswitches.
        sources = [(f"{name}-snat-{i}", v) for i, v in enumerate(vswitches)]
        sources += [(f"{name}-pod-snat-{i}", v) for i, v in enumerate(pod_vswitches)]
        for entry_name, vswitch in sources:
            entry = alicloud.vpc.SnatEntry(
                entry_name,
                snat_entry_name=entry_name,
                snat_table_id=nat.snat_table_ids,
                source_vswitch_id=vswitch.id,
                snat_ip=eip.ip_address,
                # The EIP must be bound to the gateway before an SNAT entry can use it.
                opts=child_options(self, depends_on=[association]),
            )
            self.egress.append(entry)
        return eip.ip_address
