"""PrivateNetwork: a VPC whose GPU nodes have no public address and reach AWS through private endpoints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account, account_of, document, service_trust
from gpu_cloud.components.naming import LOG_GROUP, physical_name
from gpu_cloud.components.spec import ConfigError, EgressMode, NetworkSpec, Problem, SubnetSpec

__all__ = ["ENDPOINTS_ONLY_SERVICES", "INTERFACE_ENDPOINT_SERVICES", "PrivateNetwork", "PrivateNetworkArgs"]

INTERFACE_ENDPOINT_SERVICES = ("ecr.api", "ecr.dkr", "sts", "ec2", "logs")
"""Interface endpoints private EKS nodes need to pull images and join without the internet (EKS User Guide,
"Deploy private clusters with limited internet access": ecr.api, ecr.dkr, ec2, sts, logs; S3 as a gateway
endpoint for image layers)."""
ENDPOINTS_ONLY_SERVICES = ("eks", "eks-auth", "autoscaling")
"""What else pods need where nothing leaves the VPC but through endpoints (same page, awsdocs/amazon-eks-user-guide
latest/ug/clusters/private-clusters.adoc, read 2026-12-03): EKS Pod Identity credentials come from the EKS Auth API
(``eks-auth``), and the cluster autoscaler calls Auto Scaling (``autoscaling``) and reads node groups from EKS
(``eks``) (aws.md W3). With NAT egress they are reached through the NAT gateway. Images from public registries are
another matter: no endpoint reaches them (an environment refuses endpoints-only, components.aws.checks)."""

INTERNAL_ELB_TAG = "kubernetes.io/role/internal-elb"
"""Subnet tag the AWS load balancer controller uses to place internal load balancers (EKS User Guide, "Route
internet traffic with AWS Load Balancer Controller": subnet tagging)."""

_FLOW_LOG_ACTIONS = ["logs:CreateLogStream", "logs:DescribeLogStreams", "logs:PutLogEvents"]
"""What the flow-logs service writes to its log group with (VPC User Guide, "IAM role for publishing flow logs
to CloudWatch Logs"); the group itself is created here, so logs:CreateLogGroup is not granted."""


@dataclass(frozen=True)
class PrivateNetworkArgs:
    """Arguments of a PrivateNetwork."""

    spec: NetworkSpec
    """CIDRs, zones and the egress mode."""
    kms_key_arn: pulumi.Input[str]
    """The KMS key that encrypts the flow-log group (its policy must admit CloudWatch Logs)."""
    private_subnet_tags: Mapping[str, str] = field(default_factory=dict)
    """More tags of the private subnets, e.g. the discovery tag Karpenter's EC2NodeClasses select them by."""
    interface_endpoints: bool = True
    """The interface endpoints of INTERFACE_ENDPOINT_SERVICES, for nodes (image pulls, joining, logs, credentials).
    Off where no node runs: the deploy runner's VPC (its builds leave through NAT) and a data VPC (no compute), where
    each would only cost its hourly charge in every zone (aws.md A11). The S3 gateway endpoint (free) stays."""


class PrivateNetwork(pulumi.ComponentResource):
    """A private VPC for GPU nodes.

    Children: ``<name>-vpc``; ``<name>-default-sg`` (the default security group, stripped of rules);
    per private subnet ``<name>-private-<i>`` and its ``-rta``; per zone ``<name>-private-rt-<zone>``;
    NAT egress: ``<name>-igw``, ``<name>-public-rt``, ``<name>-public-default``, per NAT subnet
    ``<name>-nat-<i>`` and its ``-rta``, per NAT gateway ``<name>-nat-eip-<zone>`` and ``<name>-nat-<zone>``,
    per private zone ``<name>-private-default-<zone>``; endpoints: ``<name>-s3`` and, with interface endpoints,
    ``<name>-endpoints-sg`` and ``<name>-<service>`` per interface endpoint; flow logs: ``<name>-flow-logs``,
    ``<name>-flow-logs-role``, ``<name>-flow-logs-policy``, ``<name>-flow-log``.
    """

    vpc_id: pulumi.Output[str]
    """The VPC's id."""
    vpc_cidr: str
    """The VPC's IPv4 range."""
    private_subnet_ids: list[pulumi.Output[str]]
    """Private subnet ids, in spec order."""
    subnet_ids_by_zone: dict[str, list[pulumi.Output[str]]]
    """Private subnet ids per zone (node pools pick their zones here)."""
    private_route_table_ids: list[pulumi.Output[str]]
    """One private route table per zone, in zone order (peering adds its routes here)."""
    flow_log_group_name: str
    """The CloudWatch log group of the VPC flow logs, ``/gpucloud/<name>-<stack>/vpc-flow-logs`` (components.naming)."""

    def __init__(self, name: str, args: PrivateNetworkArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        _check(spec)
        super().__init__("gpucloud:aws:PrivateNetwork", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        account = account_of(self)
        vpc = aws.ec2.Vpc(
            f"{name}-vpc",
            cidr_block=str(spec.vpc_cidr),
            enable_dns_support=True,
            enable_dns_hostnames=True,
            tags={"Name": name},
            opts=child,
        )
        # Managing the default security group removes all its rules; none are declared (VPC User Guide,
        # security best practice: the default security group should not allow traffic).
        aws.ec2.DefaultSecurityGroup(f"{name}-default-sg", vpc_id=vpc.id, opts=child)

        tables = {
            zone: aws.ec2.RouteTable(
                f"{name}-private-rt-{zone}", vpc_id=vpc.id, tags={"Name": f"{name}-private-{zone}"}, opts=child
            )
            for zone in spec.zones
        }
        self.subnet_ids_by_zone = {zone: [] for zone in spec.zones}
        self.private_subnet_ids = []
        for i, subnet_spec in enumerate(spec.private_subnets):
            subnet = self._subnet(
                f"{name}-private-{i}",
                vpc,
                subnet_spec,
                tables[subnet_spec.zone],
                {INTERNAL_ELB_TAG: "1", **args.private_subnet_tags},
            )
            self.private_subnet_ids.append(subnet.id)
            self.subnet_ids_by_zone[subnet_spec.zone].append(subnet.id)

        if spec.egress is EgressMode.NAT:
            self._nat(name, spec, vpc, tables)
        self._endpoints(name, spec, vpc, account, list(tables.values()), args.interface_endpoints)
        self.flow_log_group_name = f"/gpucloud/{physical_name(LOG_GROUP, name)}/vpc-flow-logs"
        self._flow_logs(name, spec, vpc, account, args.kms_key_arn)

        self.vpc_id = vpc.id
        self.vpc_cidr = str(spec.vpc_cidr)
        self.private_route_table_ids = [t.id for t in tables.values()]
        self.register_outputs(
            {
                "vpcId": self.vpc_id,
                "privateSubnetIds": self.private_subnet_ids,
                "privateRouteTableIds": self.private_route_table_ids,
            }
        )

    def _subnet(
        self, name: str, vpc: aws.ec2.Vpc, spec: SubnetSpec, table: aws.ec2.RouteTable, tags: dict[str, str]
    ) -> aws.ec2.Subnet:
        """Subnet ``name`` (never mapping public IPs) and its association with ``table``."""
        child = pulumi.ResourceOptions(parent=self)
        subnet = aws.ec2.Subnet(
            name,
            vpc_id=vpc.id,
            cidr_block=str(spec.cidr),
            availability_zone=spec.zone,
            map_public_ip_on_launch=False,
            tags={"Name": f"{name}-{spec.zone}", **tags},
            opts=child,
        )
        aws.ec2.RouteTableAssociation(f"{name}-rta", subnet_id=subnet.id, route_table_id=table.id, opts=child)
        return subnet

    def _nat(self, name: str, spec: NetworkSpec, vpc: aws.ec2.Vpc, tables: dict[str, aws.ec2.RouteTable]) -> None:
        child = pulumi.ResourceOptions(parent=self)
        igw = aws.ec2.InternetGateway(f"{name}-igw", vpc_id=vpc.id, tags={"Name": name}, opts=child)
        public = aws.ec2.RouteTable(f"{name}-public-rt", vpc_id=vpc.id, tags={"Name": f"{name}-public"}, opts=child)
        aws.ec2.Route(
            f"{name}-public-default",
            route_table_id=public.id,
            destination_cidr_block="0.0.0.0/0",
            gateway_id=igw.id,
            opts=child,
        )
        nat_subnets: dict[str, aws.ec2.Subnet] = {}
        for i, subnet_spec in enumerate(spec.nat_subnets):
            # Holds only NAT gateways: nothing launched here gets a public address either.
            nat_subnets.setdefault(subnet_spec.zone, self._subnet(f"{name}-nat-{i}", vpc, subnet_spec, public, {}))
        gateway_zones = list(spec.zones) if spec.nat_per_zone else [spec.nat_subnets[0].zone]
        gateways = {}
        for zone in gateway_zones:
            eip = aws.ec2.Eip(f"{name}-nat-eip-{zone}", domain="vpc", tags={"Name": f"{name}-nat-{zone}"}, opts=child)
            gateways[zone] = aws.ec2.NatGateway(
                f"{name}-nat-{zone}",
                allocation_id=eip.allocation_id,
                subnet_id=nat_subnets[zone].id,
                connectivity_type="public",
                tags={"Name": f"{name}-{zone}"},
                opts=pulumi.ResourceOptions(parent=self, depends_on=[igw]),
            )
        for zone, table in tables.items():
            gateway = gateways[zone] if spec.nat_per_zone else gateways[gateway_zones[0]]
            aws.ec2.Route(
                f"{name}-private-default-{zone}",
                route_table_id=table.id,
                destination_cidr_block="0.0.0.0/0",
                nat_gateway_id=gateway.id,
                opts=child,
            )

    def _endpoints(
        self,
        name: str,
        spec: NetworkSpec,
        vpc: aws.ec2.Vpc,
        account: pulumi.Output[Account],
        tables: list[aws.ec2.RouteTable],
        interface: bool,
    ) -> None:
        child = pulumi.ResourceOptions(parent=self)
        aws.ec2.VpcEndpoint(
            f"{name}-s3",
            vpc_id=vpc.id,
            service_name=_service_name(account, "s3"),
            vpc_endpoint_type="Gateway",
            route_table_ids=[t.id for t in tables],
            opts=child,
        )
        if not interface:
            return
        security_group = aws.ec2.SecurityGroup(
            f"{name}-endpoints-sg",
            vpc_id=vpc.id,
            description="HTTPS from inside the VPC to AWS interface endpoints",
            ingress=[
                aws.ec2.SecurityGroupIngressArgs(
                    protocol="tcp",
                    from_port=443,
                    to_port=443,
                    cidr_blocks=[str(spec.vpc_cidr)],
                    description="HTTPS from the VPC",
                )
            ],
            opts=child,
        )
        # An interface endpoint takes at most one subnet per zone.
        one_per_zone = [ids[0] for ids in self.subnet_ids_by_zone.values()]
        services: tuple[str, ...] = INTERFACE_ENDPOINT_SERVICES
        if spec.egress is EgressMode.ENDPOINTS_ONLY:
            services += ENDPOINTS_ONLY_SERVICES
        for service in services:
            aws.ec2.VpcEndpoint(
                f"{name}-{service.replace('.', '-')}",
                vpc_id=vpc.id,
                service_name=_service_name(account, service),
                vpc_endpoint_type="Interface",
                private_dns_enabled=True,
                subnet_ids=one_per_zone,
                security_group_ids=[security_group.id],
                opts=child,
            )

    def _flow_logs(
        self,
        name: str,
        spec: NetworkSpec,
        vpc: aws.ec2.Vpc,
        account: pulumi.Output[Account],
        kms_key_arn: pulumi.Input[str],
    ) -> None:
        child = pulumi.ResourceOptions(parent=self)
        group_name = self.flow_log_group_name
        group = aws.cloudwatch.LogGroup(
            f"{name}-flow-logs",
            name=group_name,
            retention_in_days=spec.flow_log_retention_days,
            kms_key_id=kms_key_arn,
            opts=child,
        )
        role = aws.iam.Role(
            f"{name}-flow-logs-role",
            description=f"VPC flow logs of {name} to CloudWatch Logs",
            assume_role_policy=account.apply(flow_logs_trust),
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-flow-logs-policy",
            role=role.id,
            policy=account.apply(lambda a: flow_logs_policy(a, group_name)),
            opts=child,
        )
        aws.ec2.FlowLog(
            f"{name}-flow-log",
            vpc_id=vpc.id,
            traffic_type="ALL",
            log_destination_type="cloud-watch-logs",
            log_destination=group.arn,
            iam_role_arn=role.arn,
            opts=child,
        )


def _service_name(account: pulumi.Output[Account], service: str) -> pulumi.Output[str]:
    """The VPC endpoint service name of ``service`` in the account's region."""
    return account.apply(lambda a: f"com.amazonaws.{a.region}.{service}")


def flow_logs_trust(account: Account) -> str:
    """Trust for the flow-logs service, only on behalf of this account's flow logs (confused-deputy guard)."""
    return service_trust(
        "vpc-flow-logs.amazonaws.com",
        {
            "StringEquals": {"aws:SourceAccount": account.account_id},
            "ArnLike": {"aws:SourceArn": account.arn("ec2", "vpc-flow-log/*")},
        },
    )


def flow_logs_policy(account: Account, group_name: str) -> str:
    """Write access to the one flow-log group."""
    group = account.arn("logs", f"log-group:{group_name}")
    return document({"Effect": "Allow", "Action": _FLOW_LOG_ACTIONS, "Resource": [group, f"{group}:*"]})


def _check(spec: NetworkSpec) -> None:
    problems = []
    if spec.egress is EgressMode.NAT:
        nat_zones = {s.zone for s in spec.nat_subnets}
        if not spec.nat_subnets:
            problems.append(Problem("natSubnets", "AWS NAT egress needs at least one NAT subnet", []))
        elif spec.nat_per_zone and (missing := [z for z in spec.zones if z not in nat_zones]):
            problems.append(
                Problem(
                    "natSubnets",
                    f"natPerZone needs a NAT subnet in every zone; missing {', '.join(missing)}",
                    sorted(nat_zones),
                )
            )
    if problems:
        raise ConfigError(problems)
