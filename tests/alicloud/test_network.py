"""PrivateNetwork: vswitches in two zones, SNAT-only egress through one NAT gateway and its EIP."""

from __future__ import annotations

from gpu_cloud.components.alicloud import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.spec import EgressMode
from tests.alicloud.support import NETWORK, component, custom, of_type, one, plan_of, registered, rejected

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
