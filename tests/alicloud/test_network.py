"""PrivateNetwork: vswitches in two zones, SNAT-only egress through one NAT gateway and its EIP."""

from __future__ import annotations

from gpu_cloud.components.alicloud import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.spec import EgressMode
from tests.alicloud.support import (
    NETWORK,
    component,
    custom,
    of_type,
    one,
    plan_of,
    raw_config,
    refused_lines,
    registered,
    rejected,
)

TAGS = {"environment": "prod-cn", "owner": "ml", "cost-center": "ml"}


def _plan(spec=NETWORK):  # type: ignore[no-untyped-def]
    return plan_of(lambda: PrivateNetwork("net", PrivateNetworkArgs(spec=spec, tags=TAGS)))


def test_nat_egress_children_are_exactly_vpc_vswitches_nat_eip_association_and_snat_entries() -> None:
    plan = _plan()
    component(plan, "gpucloud:alicloud:PrivateNetwork")
    assert sorted((r.type, r.name) for r in custom(plan)) == sorted(
        [
            ("alicloud:vpc/network:Network", "net-vpc"),
            ("alicloud:ecs/eipAddress:EipAddress", "net-nat-eip"),
            ("alicloud:vpc/switch:Switch", "net-vswitch-0"),
            ("alicloud:vpc/switch:Switch", "net-vswitch-1"),
            ("alicloud:vpc/natGateway:NatGateway", "net-nat"),
            ("alicloud:ecs/eipAssociation:EipAssociation", "net-nat-eip-association"),
            ("alicloud:vpc/snatEntry:SnatEntry", "net-snat-0"),
            ("alicloud:vpc/snatEntry:SnatEntry", "net-snat-1"),
        ]
    )


def test_vswitches_follow_the_private_subnets_zones_and_ranges() -> None:
    plan = _plan()
    assert one(plan, "alicloud:vpc/network:Network").inputs == {
        "vpcName": "net",
        "cidrBlock": "10.30.0.0/16",
        "tags": TAGS,
    }
    switches = of_type(plan, "alicloud:vpc/switch:Switch")
    assert [(s.inputs["zoneId"], s.inputs["cidrBlock"]) for s in switches] == [
        ("cn-hangzhou-h", "10.30.0.0/18"),
        ("cn-hangzhou-i", "10.30.64.0/18"),
    ]


def test_nat_gateway_is_an_enhanced_internet_gateway_in_the_first_vswitch() -> None:
    plan = _plan()
    nat = one(plan, "alicloud:vpc/natGateway:NatGateway")
    assert {k: nat.inputs[k] for k in ("natType", "networkType", "internetChargeType", "paymentType")} == {
        "natType": "Enhanced",
        "networkType": "internet",
        "internetChargeType": "PayByLcu",
        "paymentType": "PayAsYouGo",
    }
    first = of_type(plan, "alicloud:vpc/switch:Switch")[0]
    assert nat.property_dependencies["vswitchId"] == (first.urn,)


def test_the_eip_is_bound_to_the_nat_gateway_with_instance_type_nat() -> None:
    plan = _plan()
    association = one(plan, "alicloud:ecs/eipAssociation:EipAssociation")
    assert association.inputs["instanceType"] == "Nat"
    assert association.property_dependencies["instanceId"] == (one(plan, "alicloud:vpc/natGateway:NatGateway").urn,)
    assert association.property_dependencies["allocationId"] == (one(plan, "alicloud:ecs/eipAddress:EipAddress").urn,)


def test_each_vswitch_gets_an_snat_entry_through_the_eip_after_it_is_bound() -> None:
    plan = _plan()
    switches = [s.urn for s in of_type(plan, "alicloud:vpc/switch:Switch")]
    entries = of_type(plan, "alicloud:vpc/snatEntry:SnatEntry")
    association = one(plan, "alicloud:ecs/eipAssociation:EipAssociation").urn
    eip = one(plan, "alicloud:ecs/eipAddress:EipAddress").urn
    assert [e.property_dependencies["sourceVswitchId"] for e in entries] == [(s,) for s in switches]
    assert all(e.property_dependencies["snatIp"] == (eip,) for e in entries)
    assert all(association in e.dependencies for e in entries)


def test_the_networks_egress_is_its_snat_entries_and_none_without_nat() -> None:
    found: list[list[str]] = []

    def program(spec=NETWORK) -> None:  # type: ignore[no-untyped-def]
        network = PrivateNetwork("net", PrivateNetworkArgs(spec=spec, tags=TAGS))
        found.append([r._name for r in network.egress])  # type: ignore[attr-defined]

    plan_of(program)
    plan_of(lambda: program(NETWORK.model_copy(update={"egress": EgressMode.ENDPOINTS_ONLY})))
    assert found == [["net-snat-0", "net-snat-1"], []]


POD_NETWORK = NETWORK.model_validate(
    {
        **NETWORK.model_dump(by_alias=True, mode="json"),
        "podSubnets": [
            {"zone": "cn-hangzhou-h", "cidr": "10.30.128.0/18"},
            {"zone": "cn-hangzhou-i", "cidr": "10.30.192.0/18"},
        ],
    }
)


def test_pod_subnets_get_their_own_vswitches_and_snat_entries() -> None:
    found: list[object] = []

    def program() -> None:
        network = PrivateNetwork("net", PrivateNetworkArgs(spec=POD_NETWORK, tags=TAGS))
        found.append([r._name for r in network.egress])  # type: ignore[attr-defined]
        found.append(len(network.pod_vswitch_ids))

    plan = plan_of(program)
    pods = [s for s in of_type(plan, "alicloud:vpc/switch:Switch") if s.name.startswith("net-pod-")]
    assert [(s.name, s.inputs) for s in pods] == [
        (
            f"net-pod-vswitch-{i}",
            {
                "vswitchName": f"net-pods-{zone}-{i}",
                "zoneId": zone,
                "cidrBlock": cidr,
                "tags": TAGS,
                "vpcId": pods[i].inputs["vpcId"],
            },
        )
        for i, (zone, cidr) in enumerate([("cn-hangzhou-h", "10.30.128.0/18"), ("cn-hangzhou-i", "10.30.192.0/18")])
    ]
    vpc = one(plan, "alicloud:vpc/network:Network").urn
    assert all(s.property_dependencies["vpcId"] == (vpc,) for s in pods)
    entries = {e.name: e for e in of_type(plan, "alicloud:vpc/snatEntry:SnatEntry")}
    assert sorted(entries) == ["net-pod-snat-0", "net-pod-snat-1", "net-snat-0", "net-snat-1"]
    assert [entries[f"net-pod-snat-{i}"].property_dependencies["sourceVswitchId"] for i in (0, 1)] == [
        (s.urn,) for s in pods
    ]
    assert found == [["net-snat-0", "net-snat-1", "net-pod-snat-0", "net-pod-snat-1"], 2]


def test_pod_subnets_lie_in_the_vpc_apart_from_the_node_subnets_in_exactly_their_zones() -> None:
    raw = raw_config("alicloud")
    raw["network"]["podSubnets"] = [
        {"zone": "cn-hangzhou-h", "cidr": "10.50.0.0/20"},
        {"zone": "cn-hangzhou-j", "cidr": "10.51.0.0/18"},
    ]
    assert refused_lines(raw) == [
        "network.podSubnets.1.cidr: not inside vpcCidr 10.50.0.0/16 (got 10.51.0.0/18)",
        "network.podSubnets.0.cidr: overlaps privateSubnets.0 (10.50.0.0/18) (got 10.50.0.0/20)",
    ]
    raw["network"]["podSubnets"] = [
        {"zone": "cn-hangzhou-h", "cidr": "10.50.128.0/18"},
        {"zone": "cn-hangzhou-j", "cidr": "10.50.192.0/18"},
    ]
    assert refused_lines(raw) == [
        "network.podSubnets: need the zones of privateSubnets exactly (cn-hangzhou-h, cn-hangzhou-i) "
        '(got ["cn-hangzhou-h", "cn-hangzhou-j"])'
    ]


def test_pod_subnets_are_refused_on_aws_and_their_zones_and_sizes_are_checked() -> None:
    raw = raw_config("aws")
    raw["network"]["podSubnets"] = [
        {"zone": "us-east-1a", "cidr": "10.50.128.0/18"},
        {"zone": "us-east-1b", "cidr": "10.50.192.0/19"},
    ]
    assert refused_lines(raw) == [
        "network.podSubnets: EKS pods take addresses of their node's subnet (VPC CNI); leave it empty (got 2)"
    ]
    raw = raw_config("alicloud")
    raw["network"]["podSubnets"] = [
        {"zone": "cn-hangzhou-h", "cidr": "10.50.128.0/18"},
        {"zone": "cn-hangzhou-i", "cidr": "10.50.192.0/30"},
    ]
    assert refused_lines(raw) == [
        "network.podSubnets.1.cidr: alicloud takes a subnet of /16 to /29 (got 10.50.192.0/30)"
    ]


def test_the_nat_gateway_and_its_eip_are_deletion_protected_unless_protect_is_off() -> None:
    def protection(protect: bool) -> tuple[object, object]:
        plan = plan_of(lambda: PrivateNetwork("net", PrivateNetworkArgs(spec=NETWORK, tags=TAGS, protect=protect)))
        return (
            one(plan, "alicloud:vpc/natGateway:NatGateway").inputs["deletionProtection"],
            one(plan, "alicloud:ecs/eipAddress:EipAddress").inputs["deletionProtection"],
        )

    assert protection(True) == (True, True)
    assert protection(False) == (False, False)


def test_no_dnat_entry_is_ever_created() -> None:
    assert of_type(_plan(), "alicloud:vpc/forwardEntry:ForwardEntry") == []


def test_endpoints_only_egress_has_no_nat_gateway_and_no_public_address() -> None:
    plan = _plan(NETWORK.model_copy(update={"egress": EgressMode.ENDPOINTS_ONLY}))
    assert [r.type for r in custom(plan)] == [
        "alicloud:vpc/network:Network",
        "alicloud:vpc/switch:Switch",
        "alicloud:vpc/switch:Switch",
    ]


def test_nat_subnets_are_rejected_before_anything_is_registered() -> None:
    spec = NETWORK.model_validate(
        {
            **NETWORK.model_dump(by_alias=True, mode="json"),
            "natSubnets": [{"zone": "cn-hangzhou-h", "cidr": "10.30.255.0/28"}],
        }
    )
    error, plan = rejected(lambda: PrivateNetwork("net", PrivateNetworkArgs(spec=spec)))
    assert str(error) == "natSubnets: Alibaba Cloud NAT gateways sit in a vswitch; leave it empty (got 1)"
    assert registered(plan) == []
