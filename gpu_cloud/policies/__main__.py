"""Assemble the gpu-cloud policy pack. Policies and their rules live in ``gpucloud_rules``.

To add a policy: write ``gpucloud_rules/<name>.py`` defining
``RULE`` (a `ResourceRule` or `StackRule`) and add it to ``RULES`` below.
"""

from gpucloud_rules import (  # type: ignore[import-not-found]
    encryption_at_rest,
    gpu_allocator_exclusive,
    gpu_cost_guard,
    gpu_inference_fallback,
    gpu_node_isolation,
    gpu_reservation_drain,
    gpu_sharing_isolation,
    kms_key_rotation,
    kubernetes_version_support,
    no_public_ip,
    protect_stateful,
    rbac_least_privilege,
    required_tags,
    tls_1_3,
)
from gpucloud_rules.sdk import share_decoding, to_policy  # type: ignore[import-not-found]
from pulumi_policy import EnforcementLevel, PolicyPack

RULES = [
    no_public_ip.RULE,
    kms_key_rotation.RULE,
    encryption_at_rest.RULE,
    tls_1_3.RULE,
    rbac_least_privilege.RULE,
    gpu_node_isolation.RULE,
    protect_stateful.RULE,
    required_tags.RULE,
    gpu_cost_guard.RULE,
    kubernetes_version_support.RULE,
    gpu_allocator_exclusive.RULE,
    gpu_sharing_isolation.RULE,
    gpu_inference_fallback.RULE,
    gpu_reservation_drain.RULE,
]

share_decoding()
PolicyPack(
    name="gpu-cloud-policies",
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=[to_policy(rule) for rule in RULES],
)
