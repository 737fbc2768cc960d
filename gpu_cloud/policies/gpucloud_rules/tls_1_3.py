"""tls-1-3: load balancers speak TLS 1.3 only: ELB listeners, LoadBalancer Services (the cloud's service
controller builds their listeners from annotations), and Alibaba NLB listeners and security policies."""

from __future__ import annotations

from collections.abc import Callable, Mapping

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

# Annotations of the AWS service controllers (the in-tree one, kubernetes/cloud-provider-aws
# pkg/providers/v1/aws.go, and the AWS Load Balancer Controller use the same names): a port of an NLB is a TLS
# listener when ssl-cert is set and ssl-ports (unset or "*": every port) lists its number or name; its policy is
# ssl-negotiation-policy. Classic ELBs ("clb", or no type) have no TLS 1.3 policy at all.
_AWS = "service.beta.kubernetes.io/aws-load-balancer-"
AWS_CERT, AWS_PORTS, AWS_POLICY, AWS_TYPE = (
    f"{_AWS}{k}" for k in ("ssl-cert", "ssl-ports", "ssl-negotiation-policy", "type")
)
AWS_NLB_TYPES = ("nlb", "external", "nlb-ip")

# Annotations of ACK's cloud controller manager ("Use annotations to configure NLB instances" and the CLB
# annotations page): protocol-port lists "<protocol>:<port>" per Service port, cert-id names the certificate,
# tls-cipher-policy the listener's security policy. Every system policy (tls_cipher_policy_1_0 ...
# tls_cipher_policy_1_2_strict_with_1_3) allows TLS 1.2 or older; only a custom NLB security policy (a reference,
# checked on its own alicloud:nlb/securityPolicy:SecurityPolicy) can be TLS 1.3 only.
_ALI = "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-"
ALI_PROTOCOL_PORT, ALI_CERT, ALI_POLICY = (f"{_ALI}{k}" for k in ("protocol-port", "cert-id", "tls-cipher-policy"))
ALI_TLS_PROTOCOLS = ("https", "tcpssl")
ALI_SYSTEM_POLICY_PREFIX = "tls_cipher_policy_"
ALI_LOAD_BALANCER_CLASS_PREFIX = "alibabacloud.com/"
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


def _ports(spec: Mapping[str, object]) -> list[tuple[str, str, str | None]]:
    """(path, port number, port name) of every TCP Service port; a UDP (or SCTP) port is plaintext on both clouds.

    Raises:
        _Plaintext: a port that is not TCP (protocol unset means TCP).
    """
    found = []
    for path, entry in entries(spec.get("ports"), "spec.ports"):
        port = as_object(entry, path)
        number = as_number(port.get("port"), f"{path}.port")
        shown = str(int(number)) if number is not None else ""
        protocol = as_text(port.get("protocol"), f"{path}.protocol") or "TCP"
        if protocol.upper() != "TCP":
            raise _Plaintext(f"LoadBalancer Service exposes plaintext: {path} (port {shown}) is {protocol}, not TLS")
        found.append((path, shown, as_text(port.get("name"), f"{path}.name")))
    return found


class _Plaintext(Exception):
    """A Service port that no TLS listener can serve."""


def _aws_service(annotations: Mapping[str, object], spec: Mapping[str, object], config: Config) -> str | None:
    def at(key: str) -> str | None:
        return as_text(annotations.get(key), f"metadata.annotations[{key}]")

    if not any(equals(annotations.get(AWS_TYPE), t, f"metadata.annotations[{AWS_TYPE}]") for t in AWS_NLB_TYPES):
        return f"LoadBalancer Service is a classic ELB, which has no TLS 1.3 policy: set {AWS_TYPE} to nlb"
    if not has_reference(annotations.get(AWS_CERT), f"metadata.annotations[{AWS_CERT}]"):
        return f"LoadBalancer Service exposes plaintext: {AWS_CERT} is unset, so no port is a TLS listener"
    listed = at(AWS_PORTS)
    tls_ports = None if listed is None or listed.strip() == "*" else {p.strip() for p in listed.split(",")}
    for path, number, name in _ports(spec):
        if tls_ports is not None and number not in tls_ports and name not in tls_ports:
            return f"LoadBalancer Service exposes plaintext: {path} (port {number}) is not in {AWS_PORTS}"
    allowed = [str(p) for p in config["allowedSslPolicies"]]
    return _ssl_policy_problem(at(AWS_POLICY), AWS_POLICY, allowed)


def _alibaba_policy_problem(value: object, where: str) -> str | None:
    if not has_reference(value, where):
        return f"{where} is unset: the default policy allows TLS 1.0; name a TLS 1.3-only custom security policy"
    if not is_unknown(value) and str(value).strip().lower().startswith(ALI_SYSTEM_POLICY_PREFIX):
        return f"{where} {value} allows TLS below 1.3: name a TLS 1.3-only custom security policy"
    return None


def _alibaba_service(annotations: Mapping[str, object], spec: Mapping[str, object]) -> str | None:
    listed = as_text(annotations.get(ALI_PROTOCOL_PORT), f"metadata.annotations[{ALI_PROTOCOL_PORT}]") or ""
    tls_ports = {
        port.strip()
        for protocol, _, port in (item.partition(":") for item in listed.split(","))
        if protocol.strip().lower() in ALI_TLS_PROTOCOLS
    }
    for path, number, _name in _ports(spec):
        if number not in tls_ports:
            return (
                f"LoadBalancer Service exposes plaintext: {path} (port {number}) is not https or tcpssl in "
                f"{ALI_PROTOCOL_PORT}"
            )
    if not has_reference(annotations.get(ALI_CERT), f"metadata.annotations[{ALI_CERT}]"):
        return f"LoadBalancer Service has TLS ports without a certificate: {ALI_CERT} is unset"
    return _alibaba_policy_problem(annotations.get(ALI_POLICY), ALI_POLICY)


def _service(props: Props, config: Config, findings: Findings) -> None:
    spec = as_object(props.get("spec"), "spec")
    if not equals(spec.get("type"), "LoadBalancer", "spec.type"):
        return
    annotations = as_object(as_object(props.get("metadata"), "metadata").get("annotations"), "annotations")
    load_balancer_class = as_text(spec.get("loadBalancerClass"), "spec.loadBalancerClass") or ""
    alibaba = load_balancer_class.lower().startswith(ALI_LOAD_BALANCER_CLASS_PREFIX) or any(
        str(key).startswith(_ALI) for key in annotations
    )

    def problem() -> str | None:
        try:
            return _alibaba_service(annotations, spec) if alibaba else _aws_service(annotations, spec, config)
        except _Plaintext as plaintext:
            return str(plaintext)

    findings.explain(problem)


def _nlb_listener(props: Props, _config: Config, findings: Findings) -> None:
    if equals(props.get("listenerProtocol"), "TCPSSL", "listenerProtocol"):
        findings.explain(lambda: _alibaba_policy_problem(props.get("securityPolicyId"), "securityPolicyId"))


def _nlb_security_policy(props: Props, _config: Config, findings: Findings) -> None:
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
    "alicloud:nlb/securityPolicy:SecurityPolicy": _nlb_security_policy,
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
