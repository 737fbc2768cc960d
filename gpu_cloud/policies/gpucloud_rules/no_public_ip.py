"""no-public-ip: no GPU machine, cluster endpoint or load balancer is reachable from the internet."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .load_balancer_services import Controller, LoadBalancerService, NoLoadBalancer, load_balancer_service
from .rule import Config, Props, ResourceRule
from .values import (
    Findings,
    all_true,
    any_entry,
    any_true,
    as_bool,
    as_number,
    as_object,
    as_text,
    equals,
    has_reference,
    is_set,
)

__all__ = ["RULE", "check"]


def _is_true(props: Props, key: str) -> bool:
    return as_bool(props.get(key), key) is True


def _positive(props: Props, key: str) -> bool:
    return (as_number(props.get(key), key) or 0.0) > 0


def _true_or_unset(props: Props, key: str, path: str | None = None) -> bool:
    return as_bool(props.get(key), path or key) is not False


def _aws_instance(props: Props) -> bool:
    if _is_true(props, "associatePublicIpAddress"):
        return True
    # Unset ("" included) and without a subnet the instance lands in the default VPC, which assigns public IPs.
    unset = as_bool(props.get("associatePublicIpAddress"), "associatePublicIpAddress") is None
    return unset and not has_reference(props.get("subnetId"), "subnetId")


def _aws_launch_template(props: Props) -> bool:
    return any_entry(props.get("networkInterfaces"), "networkInterfaces", _interface_public)


def _interface_public(path: str, interface: object) -> bool:
    value = as_object(interface, path).get("associatePublicIpAddress")
    return as_bool(value, f"{path}.associatePublicIpAddress") is True


def _aws_eks_cluster(props: Props) -> bool:
    vpc = as_object(props.get("vpcConfig"), "vpcConfig")
    return _true_or_unset(vpc, "endpointPublicAccess", "vpcConfig.endpointPublicAccess")


def _aws_load_balancer(props: Props) -> bool:
    # Public unless it is a gateway load balancer (exempt) or internal; either one known settles it.
    return all_true(
        (
            lambda: not equals(props.get("loadBalancerType"), "gateway", "loadBalancerType"),
            lambda: not _is_true(props, "internal"),
        )
    )


def _ec2_node_class(props: Props) -> bool:
    # Karpenter v1.14.1 nodeclasses.md "spec.associatePublicIPAddress": "If not specified, the default value depends on
    # the subnet's public IP auto-assign setting" -- so only false says no.
    spec = as_object(props.get("spec"), "spec")
    return as_bool(spec.get("associatePublicIPAddress"), "spec.associatePublicIPAddress") is not False


def _alicloud_node_pool(props: Props) -> bool:
    scaling = as_object(props.get("scalingConfig"), "scalingConfig")
    return any_true(
        (
            lambda: _positive(props, "internetMaxBandwidthOut"),
            lambda: as_bool(scaling.get("isBondEip"), "scalingConfig.isBondEip") is True,
        )
    )


def _slb_internet(props: Props) -> bool:
    # Unset ("" included) defaults to internet.
    address_type = as_text(props.get("addressType"), "addressType")
    return address_type is None or equals(address_type, "internet", "addressType")


def _k8s_service(props: Props) -> bool:
    spec = as_object(props.get("spec"), "spec")
    if is_set(spec.get("externalIPs")):
        return True
    try:
        service = load_balancer_service(props)
    except NoLoadBalancer:
        return False  # no controller builds a load balancer: nothing is exposed
    return service is not None and not _INTERNAL[service.controller](service)


def _in_tree_internal(service: LoadBalancerService) -> bool:
    # kubernetes/cloud-provider-aws v1.36.1 pkg/providers/v1/aws.go:2419-2426: internal when aws-load-balancer-internal
    # is set to anything but "false"; the controller never reads aws-load-balancer-scheme.
    value = service.aws("internal")
    return value is not None and value not in ("", "false")


def _load_balancer_controller_internal(service: LoadBalancerService) -> bool:
    # kubernetes-sigs/aws-load-balancer-controller v3.5.0 pkg/service/model_build_load_balancer.go:256-286: the scheme
    # annotation, exactly "internal" or "internet-facing" (anything else is refused: no load balancer); without it the
    # legacy aws-load-balancer-internal as strconv.ParseBool reads it; without both the controller's
    # --default-load-balancer-scheme, which the pack cannot see: a Service must say internal itself.
    scheme = service.aws("scheme")
    if scheme is not None:
        return scheme != "internet-facing"  # "internal", or refused
    legacy = service.aws("internal")
    if legacy is None:
        return False
    return legacy not in _GO_FALSE  # true, or refused (ParseBool error)


_GO_FALSE = ("0", "f", "F", "FALSE", "false", "False")
"""The strings Go's strconv.ParseBool reads as false."""


def _alibaba_internal(service: LoadBalancerService, nlb: bool) -> bool:
    # kubernetes/cloud-provider-alibaba-cloud v2.14.0: address-type defaults to internet (reconcile/annotation/
    # annotations.go:136-137); a CLB is intranet only for exactly "intranet" (clbv1/loadbalancer.go:244, 389), an NLB
    # for "intranet" in any case (model/nlb/nlb.go:21-27, nlbv2/loadbalancer.go:68).
    _name, value = service.alibaba("address-type")
    if value is None:
        return False
    return value.lower() == "intranet" if nlb else value == "intranet"


_INTERNAL: Mapping[Controller, Callable[[LoadBalancerService], bool]] = {
    Controller.AWS_CLASSIC: _in_tree_internal,
    Controller.AWS_NLB: _in_tree_internal,
    Controller.AWS_LBC: _load_balancer_controller_internal,
    Controller.ALIBABA_CLB: lambda service: _alibaba_internal(service, nlb=False),
    Controller.ALIBABA_NLB: lambda service: _alibaba_internal(service, nlb=True),
}


def _alicloud_nlb(props: Props) -> bool:
    # pulumi-alicloud nlb.LoadBalancer: addressType Internet (public IPv4) or Intranet; ipv6AddressType likewise.
    return any_true(
        (
            lambda: not equals(props.get("addressType"), "Intranet", "addressType"),
            lambda: equals(props.get("ipv6AddressType"), "Internet", "ipv6AddressType"),
        )
    )


def _always(_props: Props) -> bool:
    return True


# Per type: when the resource is public, and what to say.
_SURFACES: Mapping[str, tuple[Callable[[Props], bool], str]] = {
    "aws:ec2/instance:Instance": (
        _aws_instance,
        "instance gets a public IP: associatePublicIpAddress is true, or unset without a subnetId (default VPC)",
    ),
    "aws:ec2/launchTemplate:LaunchTemplate": (
        _aws_launch_template,
        "a network interface of the launch template has associatePublicIpAddress true",
    ),
    "aws:ec2/launchConfiguration:LaunchConfiguration": (
        lambda p: _is_true(p, "associatePublicIpAddress"),
        "launch configuration has associatePublicIpAddress true",
    ),
    "aws:ec2/subnet:Subnet": (
        lambda p: _is_true(p, "mapPublicIpOnLaunch"),
        "subnet has mapPublicIpOnLaunch true",
    ),
    "aws:ec2/eip:Eip": (
        lambda p: any_true(
            (
                lambda: has_reference(p.get("instance"), "instance"),
                lambda: has_reference(p.get("networkInterface"), "networkInterface"),
            )
        ),
        "elastic IP is attached to an instance or network interface (only NAT gateway EIPs are allowed)",
    ),
    "aws:ec2/eipAssociation:EipAssociation": (_always, "elastic IP associations are not allowed"),
    "aws:eks/cluster:Cluster": (
        _aws_eks_cluster,
        "EKS API endpoint is public: vpcConfig.endpointPublicAccess must be false",
    ),
    "aws:lb/loadBalancer:LoadBalancer": (
        _aws_load_balancer,
        "load balancer is internet-facing: set internal true",
    ),
    "aws:alb/loadBalancer:LoadBalancer": (
        _aws_load_balancer,
        "load balancer is internet-facing: set internal true",
    ),
    "alicloud:ecs/instance:Instance": (
        lambda p: _positive(p, "internetMaxBandwidthOut"),
        "instance gets a public IP: internetMaxBandwidthOut > 0",
    ),
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate": (
        lambda p: _positive(p, "internetMaxBandwidthOut"),
        "launch template gives instances a public IP: internetMaxBandwidthOut > 0",
    ),
    "alicloud:ecs/eipAssociation:EipAssociation": (
        lambda p: not equals(p.get("instanceType"), "Nat", "instanceType"),
        "EIP is associated with something other than a NAT gateway (instanceType must be Nat)",
    ),
    "alicloud:cs/nodePool:NodePool": (
        _alicloud_node_pool,
        "node pool gives nodes a public IP: internetMaxBandwidthOut > 0 or scalingConfig.isBondEip true",
    ),
    "alicloud:cs/managedKubernetes:ManagedKubernetes": (
        lambda p: _true_or_unset(p, "slbInternetEnabled"),
        "ACK API server is public: slbInternetEnabled must be false (it defaults to true)",
    ),
    "alicloud:slb/loadBalancer:LoadBalancer": (
        _slb_internet,
        "SLB is internet-facing: addressType must be intranet (it defaults to internet)",
    ),
    "alicloud:slb/applicationLoadBalancer:ApplicationLoadBalancer": (
        _slb_internet,
        "SLB is internet-facing: addressType must be intranet (it defaults to internet)",
    ),
    "alicloud:alb/loadBalancer:LoadBalancer": (
        lambda p: equals(p.get("addressType"), "Internet", "addressType"),
        "ALB is internet-facing: addressType must be Intranet",
    ),
    "alicloud:vpc/forwardEntry:ForwardEntry": (_always, "DNAT forward entries into the VPC are not allowed"),
    "alicloud:nlb/loadBalancer:LoadBalancer": (
        _alicloud_nlb,
        "NLB is internet-facing: addressType must be Intranet (and ipv6AddressType not Internet)",
    ),
    "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass": (
        _ec2_node_class,
        "Karpenter nodes may get a public IP: spec.associatePublicIPAddress must be false (unset follows the subnet)",
    ),
    "kubernetes:core/v1:Service": (
        _k8s_service,
        "Service is exposed publicly: externalIPs, or a LoadBalancer its controller does not read as internal",
    ),
}


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``no-public-ip`` for one resource."""
    del config, provider
    is_public, message = _SURFACES[resource_type]
    findings = Findings()
    findings.check(lambda: is_public(props), message)
    return findings.messages


RULE = ResourceRule(
    name="no-public-ip",
    description="No GPU machine, cluster endpoint or load balancer may be reachable from the internet.",
    level="mandatory",
    resource_types=frozenset(_SURFACES),
    check=check,
)
