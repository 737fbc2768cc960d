"""tls-1-3: HTTPS/TLS listeners use a TLS 1.3 security policy; HTTP listeners only redirect to HTTPS."""

from __future__ import annotations

from .rule import Config, Props, ResourceRule
from .values import Findings, all_entries, as_object, as_text, entries, equals

__all__ = ["RULE", "check"]

# ELB security policies that negotiate TLS 1.3 only (Elastic Load Balancing user guide,
# "Security policies for your Application Load Balancer", TLS 1.3 policies).
DEFAULT_ALLOWED_SSL_POLICIES = [
    "ELBSecurityPolicy-TLS13-1-3-2021-06",
    "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04",
]
ENCRYPTED_PROTOCOLS = ("https", "tls")


def _redirects_to_https(path: str, action: object) -> bool:
    entry = as_object(action, path)
    redirect = as_object(entry.get("redirect"), f"{path}.redirect")
    return equals(entry.get("type"), "redirect", f"{path}.type") and equals(
        redirect.get("protocol"), "HTTPS", f"{path}.redirect.protocol"
    )


def _ssl_policy_problem(props: Props, allowed: list[str]) -> str | None:
    policy = as_text(props.get("sslPolicy"), "sslPolicy")
    if policy is None:
        return "sslPolicy is unset: set a TLS 1.3 policy (" + ", ".join(allowed) + ")"
    if policy not in allowed:
        return f"sslPolicy {policy} is not a TLS 1.3 policy: use one of " + ", ".join(allowed)
    return None


def _http_problem(props: Props) -> str | None:
    actions = entries(props.get("defaultActions"), "defaultActions")
    if actions and all_entries(props.get("defaultActions"), "defaultActions", _redirects_to_https):
        return None
    return "HTTP listener must only redirect to HTTPS: every defaultActions entry must be a redirect to HTTPS"


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``tls-1-3`` for one listener."""
    del resource_type, provider
    protocol = (as_text(props.get("protocol"), "protocol") or "HTTP").lower()
    findings = Findings()
    if protocol in ENCRYPTED_PROTOCOLS:
        findings.explain(lambda: _ssl_policy_problem(props, [str(p) for p in config["allowedSslPolicies"]]))
    elif protocol == "http":
        findings.explain(lambda: _http_problem(props))
    return findings.messages


RULE = ResourceRule(
    name="tls-1-3",
    description="Load balancer listeners must use TLS 1.3 or redirect HTTP to HTTPS.",
    level="mandatory",
    resource_types=frozenset({"aws:lb/listener:Listener", "aws:alb/listener:Listener"}),
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
