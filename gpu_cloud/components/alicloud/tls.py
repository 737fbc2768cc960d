"""Tls13ListenerPolicy: an NLB security policy that negotiates TLS 1.3 only, for the TLS listeners of inference
endpoints (ACK's NLB Services name it in their tls-cipher-policy annotation)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import child_options

__all__ = ["TLS13_CIPHERS", "TLS13_VERSIONS", "Tls13ListenerPolicy", "Tls13ListenerPolicyArgs"]

TLS13_VERSIONS = ("TLSv1.3",)
"""nlb.SecurityPolicy ``tls_versions``: TLS 1.3 alone. NLB's system policies all allow TLS 1.2 (the newest,
tls_cipher_policy_1_2_strict_with_1_3, adds 1.3 to 1.2; NLB "TLS security policies", read 2026-12-02)."""

TLS13_CIPHERS = ("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256")
"""The TLS 1.3 cipher suites the policy offers (pulumi-alicloud nlb.SecurityPolicy ``ciphers``: TLS 1.3 supports
these and the two AES-CCM suites, left out as rarely supported by clients)."""


@dataclass
class Tls13ListenerPolicyArgs:
    """Inputs of a Tls13ListenerPolicy."""

    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the policy."""


class Tls13ListenerPolicy(pulumi.ComponentResource):
    """Children: ``<name>-policy`` (alicloud.nlb.SecurityPolicy, TLS 1.3 only)."""

    policy_id: pulumi.Output[str]
    """The security policy's id (the NLB listener's SecurityPolicyId)."""

    def __init__(self, name: str, args: Tls13ListenerPolicyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:alicloud:Tls13ListenerPolicy", name, None, opts)
        policy = alicloud.nlb.SecurityPolicy(
            f"{name}-policy",
            security_policy_name=name,
            tls_versions=list(TLS13_VERSIONS),
            ciphers=list(TLS13_CIPHERS),
            tags=dict(args.tags),
            opts=child_options(self),
        )
        self.policy_id = policy.id
        self.register_outputs({"policyId": self.policy_id})
