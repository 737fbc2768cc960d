"""tls-1-3: load balancers speak TLS 1.3 only: ELB listeners, LoadBalancer Services (the cloud's service
controller builds their listeners from annotations, ``load_balancer_services``), and Alibaba NLB and CLB listeners
and their custom TLS policies."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .load_balancer_services import (
    AWS_ANNOTATION,
    AWS_LBC_CLASS,
    Controller,
    LoadBalancerService,
    NoLoadBalancer,
    load_balancer_service,
)
from .rule import Config, Props, ResourceRule
from .values import Findings, all_entries, as_number, as_object, as_text, entries, equals, has_reference, is_unknown

__all__ = ["RULE", "check"]

# ELB security policies that negotiate TLS 1.3 only (Elastic Load Balancing user guide,
# "Security policies for your Application Load Balancer", TLS 1.3 policies).
DEFAULT_ALLOWED_SSL_POLICIES = [
    "ELBSecurityPolicy-TLS13-1-3-2021-06",
    "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04",
]
ENCRYPTED_PROTOCOLS = ("https", "tls")
AWS_CERT, AWS_PORTS, AWS_POLICY, AWS_TYPE = (
    f"{AWS_ANNOTATION}{k}" for k in ("ssl-cert", "ssl-ports", "ssl-negotiation-policy", "type")
)

# The system TLS policies of Alibaba Cloud load balancers (tls_cipher_policy_1_0 ...
# tls_cipher_policy_1_2_strict_with_1_3) all allow TLS 1.2 or older ("TLS security policies" of CLB, NLB and ALB);
# only a custom policy, a reference checked on its own resource (alicloud:nlb/securityPolicy:SecurityPolicy,
# alicloud:slb/tlsCipherPolicy:TlsCipherPolicy), can be TLS 1.3 only. The prefix compares case-insensitively: a system
# name in another case is no custom policy either.
ALI_SYSTEM_POLICY_PREFIX = "tls_cipher_policy_"
TLS13 = "TLSv1.3"


def _redirects_to_https(path: str, action: object) -> bool:
    entry = as_object(action, path)
    redirect = as_object(entry.get("redirect"), f"{path}.redirect")
    return equals(entry.get("type"), "redirect", f"{path}.type") and equals(
        redirect.get("protocol"), "HTTPS", f"{path}.redirect.protocol"
    )


def _ssl_policy_problem(policy: str | None, where: str, allowed: list[str]) -> str | None:
    if policy is None:
        return f"{where} is unset: set a TLS 1.3 policy (" + ", ".join(allowed) + ")"
    if policy not in allowed:
        return f"{where} {policy} is not a TLS 1.3 policy: use one of " + ", ".join(allowed)
    return None


def _http_problem(props: Props) -> str | None:
    actions = entries(props.get("defaultActions"), "defaultActions")
    if actions and all_entries(props.get("defaultActions"), "defaultActions", _redirects_to_https):
        return None
    return "HTTP listener must only redirect to HTTPS: every defaultActions entry must be a redirect to HTTPS"


def _elb_listener(props: Props, config: Config, findings: Findings) -> None:
    protocol = (as_text(props.get("protocol"), "protocol") or "HTTP").lower()
    allowed = [str(p) for p in config["allowedSslPolicies"]]
    if protocol in ENCRYPTED_PROTOCOLS:
        findings.explain(
            lambda: _ssl_policy_problem(as_text(props.get("sslPolicy"), "sslPolicy"), "sslPolicy", allowed)
        )
    elif protocol == "http":
        findings.explain(lambda: _http_problem(props))


class _Refused(Exception):
    """The Service's controller refuses the annotation (the message says which and why): no listener is built."""


class _Plaintext(Exception):
    """A Service port that no TLS listener serves."""


@dataclass(frozen=True)
class _Port:
    path: str
    number: str  # as the controllers print it, e.g. "443"
    name: str  # "" when unnamed, as Go reads it
    protocol: str  # TCP unless given


def _ports(service: LoadBalancerService) -> list[_Port]:
    found = []
    for path, entry in entries(service.spec.get("ports"), "spec.ports"):
        port = as_object(entry, path)
        number = as_number(port.get("port"), f"{path}.port")
        shown = str(int(number)) if number is not None else ""
        protocol = (as_text(port.get("protocol"), f"{path}.protocol") or "TCP").upper()
        found.append(_Port(path, shown, as_text(port.get("name"), f"{path}.name") or "", protocol))
    return found


def _plaintext(port: _Port, why: str) -> _Plaintext:
    return _Plaintext(f"LoadBalancer Service exposes plaintext: {port.path} (port {port.number}) {why}")


def _elb_policy(policy: str | None, where: str, config: Config) -> str | None:
    return _ssl_policy_problem(policy, where, [str(p) for p in config["allowedSslPolicies"]])


def _certificate_set(service: LoadBalancerService) -> bool:
    return has_reference(service.annotations.get(AWS_CERT), f"metadata.annotations[{AWS_CERT}]")


def _aws_classic(service: LoadBalancerService, _config: Config) -> str | None:
    given = service.aws("type")
    hint = f" ({given!r} is not; the controller compares exactly)" if given and given.lower() == "nlb" else ""
    return (
        f"LoadBalancer Service gets a classic ELB, which has no TLS 1.3 policy: set {AWS_TYPE} to nlb{hint}, or "
        f"spec.loadBalancerClass to {AWS_LBC_CLASS}"
    )


def _in_tree_nlb(service: LoadBalancerService, config: Config) -> str | None:
    # kubernetes/cloud-provider-aws v1.36.1 pkg/providers/v1/aws.go:2366-2400: a TCP port is a TLS listener when
    # ssl-cert is set and ssl-ports is "" or "*" (getPortSets, aws.go:1909-1930: no port set) or lists its number or
    # its name; items are split at "," and not trimmed, a number is what strconv.Atoi reads. UDP stays UDP; other
    # protocols are refused (checkProtocol, aws.go:3674-3684). The policy is ssl-negotiation-policy, sent to the ELB API
    # unchanged when not empty (aws.go:2393, aws_loadbalancer.go:720-723).
    certificate = _certificate_set(service)
    listed = service.aws("ssl-ports")
    items = None if listed is None or listed in ("", "*") else listed.split(",")
    numbers = {str(int(item)) for item in items or () if _GO_INTEGER.match(item)}
    names = {item for item in items or () if not _GO_INTEGER.match(item)}
    for port in _ports(service):
        if port.protocol not in ("TCP", "UDP"):
            raise _Refused(f"{port.path}.protocol {port.protocol} (an NLB takes TCP and UDP)")
        if port.protocol == "UDP":
            raise _plaintext(port, "is UDP")
        if not certificate:
            raise _plaintext(port, f"has no certificate: {AWS_CERT} is unset")
        if items is not None and port.number not in numbers and port.name not in names:
            raise _plaintext(port, f"is not in {AWS_PORTS} (neither its number nor its name)")
    return _elb_policy(service.aws("ssl-negotiation-policy") or None, AWS_POLICY, config)


def _load_balancer_controller(service: LoadBalancerService, config: Config) -> str | None:
    # kubernetes-sigs/aws-load-balancer-controller v3.5.0 pkg/service/model_build_listener.go: a port is a TLS listener
    # when it is not UDP, a certificate is given and ssl-ports is empty or lists its name or number (:107-108); the
    # lists are split at "," and trimmed (pkg/annotations/parser.go:204-215), and an ssl-ports entry that is no port's
    # name or number -- "*" included -- is an error, so no load balancer is built (validateTLSPortsSet, :269-292). The
    # policy is ssl-negotiation-policy, or the controller's --default-ssl-policy, ELBSecurityPolicy-2016-08 unless the
    # controller is started otherwise (:250-256; pkg/config/controller_config.go:49).
    certificates = _comma_list(service.annotations.get(AWS_CERT), AWS_CERT, reference=True)
    listed = _comma_list(service.annotations.get(AWS_PORTS), AWS_PORTS, reference=False)
    ports = _ports(service)
    known = {port.name for port in ports} | {port.number for port in ports}
    unused = [item for item in listed or () if item not in known]
    if unused:
        raise _Refused(f"{AWS_PORTS} lists {', '.join(unused)}, which no port is named or numbered")
    for port in ports:
        if port.protocol != "TCP":
            raise _plaintext(port, f"is {port.protocol}, not TLS")
        if not certificates:
            raise _plaintext(port, f"has no certificate: {AWS_CERT} is unset")
        if listed and port.name not in listed and port.number not in listed:
            raise _plaintext(port, f"is not in {AWS_PORTS} (neither its number nor its name)")
    if service.annotations.get(AWS_POLICY) is None:
        return (
            f"{AWS_POLICY} is unset: the controller uses its --default-ssl-policy (ELBSecurityPolicy-2016-08 unless "
            "started otherwise); set a TLS 1.3 policy (" + ", ".join(str(p) for p in config["allowedSslPolicies"]) + ")"
        )
    return _elb_policy(service.aws("ssl-negotiation-policy"), AWS_POLICY, config)


_GO_INTEGER = re.compile(r"^[+-]?[0-9]+$")
"""What Go's strconv.Atoi reads as a number (the in-tree controller's ssl-ports numbers)."""


def _comma_list(value: object, name: str, reference: bool) -> list[str] | None:
    """The LBC's reading of a list annotation: split at ",", trimmed, empties dropped; None if absent. An unknown value
    counts as one entry when the entries are references (certificate ARNs), else it is `Undecided`."""
    if value is None:
        return None
    if is_unknown(value) and reference:
        return [str(value)]
    text = as_text(value, f"metadata.annotations[{name}]") or ""
    return [part.strip() for part in text.split(",") if part.strip()]


def _alibaba_protocol(service: LoadBalancerService, port: _Port, nlb: bool) -> str:
    """The listener protocol ACK's controller gives ``port`` (clbv1/listeners.go:711-737, nlbv2/listeners.go:620-644):
    the first ``<protocol>:<port>`` item of protocol-port for its number, else the port's own protocol; CLB protocols
    are exactly http, https, tcp or udp, NLB ones TCP, UDP or TCPSSL in any case; another item is refused."""
    name, listed = service.alibaba("protocol-port")
    for item in (listed or "").split(",") if listed else ():
        parts = item.split(":")
        if len(parts) < 2:
            raise _Refused(f"{name} item {item!r} is not <protocol>:<port>")
        protocol = parts[0].upper() if nlb else parts[0]
        if protocol not in (ALI_NLB_PROTOCOLS if nlb else ALI_CLB_PROTOCOLS):
            choices = "TCP, UDP or TCPSSL" if nlb else "http, https, tcp or udp (lower case)"
            raise _Refused(f"{name} protocol {parts[0]!r} is not {choices}")
        if parts[1] == port.number:
            return protocol
    return port.protocol if nlb else port.protocol.lower()


ALI_CLB_PROTOCOLS = ("http", "https", "tcp", "udp")


def _alibaba_policy_problem(value: object, where: str) -> str | None:
    if not has_reference(value, where):
        return f"{where} is unset: the default policy allows TLS 1.0; name a TLS 1.3-only custom security policy"
    if not is_unknown(value) and str(value).strip().lower().startswith(ALI_SYSTEM_POLICY_PREFIX):
        return f"{where} {value} allows TLS below 1.3: name a TLS 1.3-only custom security policy"
    return None


ALI_NLB_PROTOCOLS = ("TCP", "UDP", "TCPSSL")


def _alibaba(service: LoadBalancerService, nlb: bool) -> str | None:
    tls = "TCPSSL" if nlb else "https"
    name = service.alibaba_name("protocol-port")
    for port in _ports(service):
        if _alibaba_protocol(service, port, nlb) != tls:
            raise _plaintext(port, f"is not {tls} in {name}")
    cert_name = service.alibaba_name("cert-id")
    if not has_reference(service.annotations.get(cert_name), f"metadata.annotations[{cert_name}]"):
        return f"LoadBalancer Service has TLS ports without a certificate: {cert_name} is unset"
    policy_name = service.alibaba_name("tls-cipher-policy")
    return _alibaba_policy_problem(service.annotations.get(policy_name), policy_name)


_SERVICE_CHECKS: Mapping[Controller, Callable[[LoadBalancerService, Config], str | None]] = {
    Controller.AWS_CLASSIC: _aws_classic,
    Controller.AWS_NLB: _in_tree_nlb,
    Controller.AWS_LBC: _load_balancer_controller,
    Controller.ALIBABA_CLB: lambda service, _config: _alibaba(service, nlb=False),
    Controller.ALIBABA_NLB: lambda service, _config: _alibaba(service, nlb=True),
}


def _service(props: Props, config: Config, findings: Findings) -> None:
    def problem() -> str | None:
        try:
            service = load_balancer_service(props)
        except NoLoadBalancer as error:
            return f"LoadBalancer Service gets no load balancer, so no TLS listener: {error}"
        if service is None:
            return None
        try:
            return _SERVICE_CHECKS[service.controller](service, config)
        except _Refused as error:
            return f"{service.controller.value} refuses the Service, so no TLS listener is built: {error}"
        except _Plaintext as error:
            return str(error)

    findings.explain(problem)


def _nlb_listener(props: Props, _config: Config, findings: Findings) -> None:
    if equals(props.get("listenerProtocol"), "TCPSSL", "listenerProtocol"):
        findings.explain(lambda: _alibaba_policy_problem(props.get("securityPolicyId"), "securityPolicyId"))


def _clb_listener(props: Props, _config: Config, findings: Findings) -> None:
    # A CLB listener's protocol is http, https, tcp or udp; https takes tlsCipherPolicy (default tls_cipher_policy_1_0);
    # an http listener is a redirect to https when listenerForward is "on" with a forwardPort (pulumi-alicloud
    # slb.Listener; CLB "Add an HTTP listener", redirect HTTP requests to HTTPS). tcp and udp: not applicable.
    if equals(props.get("protocol"), "https", "protocol"):
        findings.explain(lambda: _alibaba_policy_problem(props.get("tlsCipherPolicy"), "tlsCipherPolicy"))
    elif equals(props.get("protocol"), "http", "protocol"):
        findings.check(
            lambda: (
                not (
                    equals(props.get("listenerForward"), "on", "listenerForward")
                    and as_number(props.get("forwardPort"), "forwardPort") is not None
                )
            ),
            "HTTP listener must only redirect to HTTPS: set listenerForward on and forwardPort to the HTTPS listener",
        )


def _tls_versions(props: Props, _config: Config, findings: Findings) -> None:
    versions = props.get("tlsVersions")
    findings.check(
        lambda: (
            not entries(versions, "tlsVersions")
            or not all_entries(versions, "tlsVersions", lambda path, version: equals(version, TLS13, path))
        ),
        f"security policy allows TLS below 1.3: tlsVersions must be [{TLS13}] only",
    )


_SURFACES: Mapping[str, Callable[[Props, Config, Findings], None]] = {
    "aws:lb/listener:Listener": _elb_listener,
    "aws:alb/listener:Listener": _elb_listener,
    "kubernetes:core/v1:Service": _service,
    "alicloud:nlb/listener:Listener": _nlb_listener,
    "alicloud:nlb/securityPolicy:SecurityPolicy": _tls_versions,
    "alicloud:slb/listener:Listener": _clb_listener,
    "alicloud:slb/tlsCipherPolicy:TlsCipherPolicy": _tls_versions,
}


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``tls-1-3`` for one listener, Service or security policy."""
    del provider
    findings = Findings()
    _SURFACES[resource_type](props, config, findings)
    return findings.messages


RULE = ResourceRule(
    name="tls-1-3",
    description="Load balancers must speak TLS 1.3 only: no plaintext listener, no policy that allows older TLS.",
    level="mandatory",
    resource_types=frozenset(_SURFACES),
    check=check,
    config={
        "allowedSslPolicies": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 1,
            "default": DEFAULT_ALLOWED_SSL_POLICIES,
            "description": "ELB security policies accepted on HTTPS and TLS listeners.",
        }
    },
)
