"""PrivateNetwork: private subnets, NAT or endpoints-only egress, private endpoints, encrypted flow logs."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_cloud.components.aws.network import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.spec import ConfigError, NetworkSpec
from tests.aws.helpers import assert_policies_lint_clean, named, of_type, run, statements, type_counts

KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
PRIVATE = [{"zone": "us-east-1a", "cidr": "10.0.0.0/18"}, {"zone": "us-east-1b", "cidr": "10.0.64.0/18"}]
NAT = [{"zone": "us-east-1a", "cidr": "10.0.255.0/28"}, {"zone": "us-east-1b", "cidr": "10.0.255.16/28"}]


def _spec(**fields: Any) -> NetworkSpec:
    return NetworkSpec.model_validate({"vpcCidr": "10.0.0.0/16", "privateSubnets": PRIVATE, **fields})


def _network(spec: NetworkSpec) -> None:
    PrivateNetwork("net", PrivateNetworkArgs(spec=spec, kms_key_arn=KEY_ARN))


NAT_PER_ZONE = _spec(egress="nat", natSubnets=NAT, natPerZone=True)
NAT_SHARED = _spec(egress="nat", natSubnets=NAT[:1], natPerZone=False)
ENDPOINTS_ONLY = _spec(egress="endpoints-only")

COMMON = {
    "aws:ec2/vpc:Vpc": 1,
    "aws:ec2/defaultSecurityGroup:DefaultSecurityGroup": 1,
    "aws:ec2/securityGroup:SecurityGroup": 1,
    "aws:ec2/vpcEndpoint:VpcEndpoint": 6,
    "aws:cloudwatch/logGroup:LogGroup": 1,
    "aws:iam/role:Role": 1,
    "aws:iam/rolePolicy:RolePolicy": 1,
    "aws:ec2/flowLog:FlowLog": 1,
}


def test_nat_per_zone_children() -> None:
    assert type_counts(run(lambda: _network(NAT_PER_ZONE))) == {
        **COMMON,
        "aws:ec2/subnet:Subnet": 4,
        "aws:ec2/routeTable:RouteTable": 3,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 4,
        "aws:ec2/internetGateway:InternetGateway": 1,
        "aws:ec2/eip:Eip": 2,
        "aws:ec2/natGateway:NatGateway": 2,
        "aws:ec2/route:Route": 3,
    }


def test_endpoints_only_has_no_internet_path() -> None:
    assert type_counts(run(lambda: _network(ENDPOINTS_ONLY))) == {
        **COMMON,
        "aws:ec2/vpcEndpoint:VpcEndpoint": 9,  # the S3 gateway, five interface endpoints and three more (W3)
        "aws:ec2/subnet:Subnet": 2,
        "aws:ec2/routeTable:RouteTable": 2,
        "aws:ec2/routeTableAssociation:RouteTableAssociation": 2,
    }


def test_every_child_is_parented_to_the_component() -> None:
    plan = run(lambda: _network(NAT_PER_ZONE))
    component = named(plan, "net")
    assert component.type == "gpucloud:aws:PrivateNetwork"
    assert all(r.parent == component.urn for r in plan.resources if r.custom)


def test_vpc_resolves_dns() -> None:
    inputs = named(run(lambda: _network(ENDPOINTS_ONLY)), "net-vpc").inputs
    assert inputs["cidrBlock"] == "10.0.0.0/16"
    assert inputs["enableDnsSupport"] is True
    assert inputs["enableDnsHostnames"] is True


def test_no_subnet_maps_public_ips_and_private_ones_are_tagged_for_internal_elbs() -> None:
    plan = run(lambda: _network(NAT_PER_ZONE))
    subnets = of_type(plan, "aws:ec2/subnet:Subnet")
    assert [s.inputs["mapPublicIpOnLaunch"] for s in subnets] == [False] * 4
    private = [s for s in subnets if s.name.startswith("net-private-")]
    assert [(s.inputs["availabilityZone"], s.inputs["tags"]["kubernetes.io/role/internal-elb"]) for s in private] == [
        ("us-east-1a", "1"),
        ("us-east-1b", "1"),
    ]


def test_default_security_group_is_managed_without_rules() -> None:
    inputs = named(run(lambda: _network(ENDPOINTS_ONLY)), "net-default-sg").inputs
    assert "ingress" not in inputs
    assert "egress" not in inputs


def test_nat_per_zone_puts_one_gateway_and_one_default_route_in_each_zone() -> None:
    plan = run(lambda: _network(NAT_PER_ZONE))
    assert [r.name for r in of_type(plan, "aws:ec2/natGateway:NatGateway")] == [
        "net-nat-us-east-1a",
        "net-nat-us-east-1b",
    ]
    routes = {r.name: r for r in of_type(plan, "aws:ec2/route:Route")}
    assert sorted(routes) == ["net-private-default-us-east-1a", "net-private-default-us-east-1b", "net-public-default"]
    gateway_urn = named(plan, "net-nat-us-east-1b").urn
    assert routes["net-private-default-us-east-1b"].property_dependencies["natGatewayId"] == (gateway_urn,)
    assert routes["net-public-default"].property_dependencies["gatewayId"] == (named(plan, "net-igw").urn,)


def test_shared_nat_serves_every_zone_from_one_gateway() -> None:
    plan = run(lambda: _network(NAT_SHARED))
    assert [r.name for r in of_type(plan, "aws:ec2/natGateway:NatGateway")] == ["net-nat-us-east-1a"]
    gateway_urn = named(plan, "net-nat-us-east-1a").urn
    for zone in ("us-east-1a", "us-east-1b"):
        route = named(plan, f"net-private-default-{zone}")
        assert route.inputs["destinationCidrBlock"] == "0.0.0.0/0"
        assert route.property_dependencies["natGatewayId"] == (gateway_urn,)


def test_nat_eips_only_back_nat_gateways() -> None:
    for eip in of_type(run(lambda: _network(NAT_PER_ZONE)), "aws:ec2/eip:Eip"):
        assert eip.inputs["domain"] == "vpc"
        assert "instance" not in eip.inputs
        assert "networkInterface" not in eip.inputs


def test_nat_subnets_route_through_the_public_table_and_private_ones_do_not() -> None:
    plan = run(lambda: _network(NAT_PER_ZONE))
    public = named(plan, "net-public-rt").urn
    assert named(plan, "net-nat-0-rta").property_dependencies["routeTableId"] == (public,)
    assert named(plan, "net-private-0-rta").property_dependencies["routeTableId"] == (
        named(plan, "net-private-rt-us-east-1a").urn,
    )


def test_endpoints_only_covers_s3_ecr_sts_ec2_logs_and_what_pod_identity_and_the_autoscaler_call() -> None:
    plan = run(lambda: _network(ENDPOINTS_ONLY))
    endpoints = {r.name: r.inputs for r in of_type(plan, "aws:ec2/vpcEndpoint:VpcEndpoint")}
    assert endpoints["net-s3"]["vpcEndpointType"] == "Gateway"
    assert endpoints["net-s3"]["serviceName"] == "com.amazonaws.us-east-1.s3"
    assert len(endpoints["net-s3"]["routeTableIds"]) == 2
    interface = {n: e for n, e in endpoints.items() if n != "net-s3"}
    assert sorted(e["serviceName"] for e in interface.values()) == [
        f"com.amazonaws.us-east-1.{s}"
        for s in ("autoscaling", "ec2", "ecr.api", "ecr.dkr", "eks", "eks-auth", "logs", "sts")
    ]
    for inputs in interface.values():
        assert inputs["vpcEndpointType"] == "Interface"
        assert inputs["privateDnsEnabled"] is True
        assert len(inputs["subnetIds"]) == 2


def test_endpoint_security_group_allows_only_https_from_the_vpc() -> None:
    inputs = named(run(lambda: _network(ENDPOINTS_ONLY)), "net-endpoints-sg").inputs
    assert inputs["ingress"] == [
        {
            "cidrBlocks": ["10.0.0.0/16"],
            "description": "HTTPS from the VPC",
            "fromPort": 443,
            "protocol": "tcp",
            "toPort": 443,
        }
    ]
    assert "egress" not in inputs


def test_flow_logs_go_to_a_kms_encrypted_log_group() -> None:
    plan = run(lambda: _network(ENDPOINTS_ONLY))
    group = named(plan, "net-flow-logs").inputs
    assert group == {"kmsKeyId": KEY_ARN, "name": "/gpucloud/net-test/vpc-flow-logs", "retentionInDays": 90}
    flow = named(plan, "net-flow-log")
    assert flow.inputs["trafficType"] == "ALL"
    assert flow.inputs["logDestinationType"] == "cloud-watch-logs"
    assert flow.property_dependencies["logDestination"] == (named(plan, "net-flow-logs").urn,)


def test_flow_log_role_writes_only_its_log_group() -> None:
    plan = run(lambda: _network(ENDPOINTS_ONLY))
    (statement,) = statements(named(plan, "net-flow-logs-policy").inputs["policy"])
    group = "arn:aws:logs:us-east-1:123456789012:log-group:/gpucloud/net-test/vpc-flow-logs"
    assert statement["Resource"] == [group, f"{group}:*"]
    assert statement["Action"] == ["logs:CreateLogStream", "logs:DescribeLogStreams", "logs:PutLogEvents"]
    (trust,) = statements(named(plan, "net-flow-logs-role").inputs["assumeRolePolicy"])
    assert trust["Principal"] == {"Service": "vpc-flow-logs.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}


def test_policies_lint_clean() -> None:
    assert assert_policies_lint_clean(run(lambda: _network(NAT_PER_ZONE))) == 2


def test_route_tables_are_exposed_per_zone() -> None:
    seen: list[int] = []

    def program() -> None:
        network = PrivateNetwork("net", PrivateNetworkArgs(spec=NAT_PER_ZONE, kms_key_arn=KEY_ARN))
        seen.append(len(network.private_route_table_ids))
        seen.append(len(network.subnet_ids_by_zone["us-east-1b"]))

    run(program)
    assert seen == [2, 1]


def test_nat_per_zone_without_a_nat_subnet_in_each_zone_is_rejected_before_registering() -> None:
    plan_resources: list[str] = []

    def program() -> None:
        with pytest.raises(ConfigError) as err:
            _network(_spec(egress="nat", natSubnets=NAT[:1], natPerZone=True))
        plan_resources.append(str(err.value))

    plan = run(program)
    assert plan_resources == [
        'natSubnets: natPerZone needs a NAT subnet in every zone; missing us-east-1b (got ["us-east-1a"])'
    ]
    assert len(plan.resources) == 1


def test_nat_egress_without_nat_subnets_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^natSubnets: AWS NAT egress needs at least one NAT subnet \(got \[\]\)$"):
        _network(_spec(egress="nat"))


@pytest.mark.parametrize("spec", [NAT_SHARED, ENDPOINTS_ONLY], ids=["nat", "endpoints-only"])
def test_without_interface_endpoints_only_the_free_s3_gateway_endpoint_is_made(spec: NetworkSpec) -> None:
    plan = run(
        lambda: PrivateNetwork("net", PrivateNetworkArgs(spec=spec, kms_key_arn=KEY_ARN, interface_endpoints=False))
    )
    assert {r.name: r.inputs["vpcEndpointType"] for r in of_type(plan, "aws:ec2/vpcEndpoint:VpcEndpoint")} == {
        "net-s3": "Gateway"
    }
    assert [r.name for r in of_type(plan, "aws:ec2/securityGroup:SecurityGroup")] == []
