"""RrsaRole: a RAM role a Kubernetes ServiceAccount assumes through RRSA (RAM Roles for Service Accounts).

The ServiceAccount names the role with the ack-pod-identity-webhook annotation (components.k8s.clouds), which
injects the OIDC token and role environment into its pods; pods then call STS AssumeRoleWithOIDC.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import attached_policy, check, child_options
from gpu_cloud.components.alicloud.kms import key_use_statement
from gpu_cloud.components.naming import RAM_ROLE, physical_name
from gpu_cloud.components.spec import Problem

__all__ = [
    "CHECKPOINT_KEY_ACTIONS",
    "CHECKPOINT_OBJECT_ACTIONS",
    "OIDC_AUDIENCE",
    "KeyScope",
    "RrsaRole",
    "RrsaRoleArgs",
    "checkpoint_policy",
    "job_checkpoint_policy",
    "model_read_policy",
    "rrsa_trust_policy",
]

OIDC_AUDIENCE = "sts.aliyuncs.com"
"""The audience of RRSA tokens; the trust policy's ``oidc:aud`` (ACK, "Use RRSA to authorize different pods to
access different cloud services", https://www.alibabacloud.com/help/doc-detail/356611.html)."""

CHECKPOINT_OBJECT_ACTIONS = (
    "oss:AbortMultipartUpload",
    "oss:DeleteObject",
    "oss:GetBucketInfo",
    "oss:GetObject",
    "oss:ListObjects",
    "oss:ListParts",
    "oss:PutObject",
)
"""What a checkpointing job does in its bucket: list, read, write and prune checkpoints, multipart for large ones."""

CHECKPOINT_KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey")
"""SSE-KMS with a customer key: OSS asks KMS for data keys on the caller's behalf (OSS server-side encryption,
"SSE-KMS": the RAM identity needs kms:GenerateDataKey to upload and kms:Decrypt to download)."""


@dataclass(frozen=True)
class KeyScope:
    """The one KMS key a policy's key statement names: the environment's (KmsKey.alias_name), in its account and
    region. Its id is unknown until it exists, so the statement names it by its tag (kms.key_use_statement): the
    document is readable at preview, and no other key of the account is usable (review alicloud.md F8)."""

    region: str
    """The key's region."""
    account_id: str
    """The account (uid): the key's, and the bucket's."""
    alias_name: str
    """The key's alias, the value of its KEY_TAG."""

    def statement(self, actions: Sequence[str]) -> dict[str, Any]:
        """Allow ``actions`` on this key only."""
        return key_use_statement(actions, self.region, self.account_id, self.alias_name)


@dataclass
class RrsaRoleArgs:
    """Inputs of an RrsaRole."""

    role_name: str
    """The base of the RAM role's name, ``<roleName>-<stack>`` (components.naming)."""
    namespace: str
    """The ServiceAccount's namespace."""
    service_account: str
    """The ServiceAccount's name."""
    oidc_provider_arn: pulumi.Input[str]
    """The cluster's RRSA OIDC provider in RAM (GpuCluster.rrsa_oidc_provider_arn)."""
    oidc_issuer_url: pulumi.Input[str]
    """The cluster's RRSA OIDC issuer (GpuCluster.rrsa_oidc_issuer_url)."""
    policy_document: pulumi.Input[str]
    """The role's permissions (e.g. :func:`checkpoint_policy`, readable before anything exists; or a document built
    from another resource's outputs)."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the role and its policy."""


class RrsaRole(pulumi.ComponentResource):
    """A RAM role only ``namespace/service_account`` of one ACK cluster can assume, with its custom policy.

    Children: ``<name>-role``, ``<name>-policy``, ``<name>-policy-attachment``. The trust policy names the cluster's
    OIDC provider, which ACK creates with the cluster (``ack-rrsa-<cluster id>``): it is known once the cluster
    exists, not in a preview of a new stack.
    """

    role_name: str
    """The RAM role's name, ``<roleName>-<stack>``: the ServiceAccount's ``pod-identity.alibabacloud.com/role-name``
    annotation."""
    role_arn: pulumi.Output[str]
    """The RAM role's ARN."""

    def __init__(self, name: str, args: RrsaRoleArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        check(
            Problem(path, "empty", value)
            for path, value in (
                ("roleName", args.role_name),
                ("namespace", args.namespace),
                ("serviceAccount", args.service_account),
            )
            if not value
        )
        super().__init__("gpucloud:alicloud:RrsaRole", name, None, opts)
        trust = pulumi.Output.all(args.oidc_provider_arn, args.oidc_issuer_url).apply(
            lambda v: rrsa_trust_policy(v[0], v[1], args.namespace, args.service_account)
        )
        role_name = physical_name(RAM_ROLE, args.role_name)
        role = alicloud.ram.Role(
            f"{name}-role",
            role_name=role_name,
            description=f"RRSA role of {args.namespace}/{args.service_account}",
            assume_role_policy_document=trust,
            tags=dict(args.tags),
            opts=child_options(self),
        )
        attached_policy(
            f"{name}-policy",
            self,
            role,
            role_name,
            f"What {args.namespace}/{args.service_account} may do",
            args.policy_document,
            args.tags,
        )
        self.role_name = role_name
        self.role_arn = role.arn
        self.register_outputs({"roleArn": self.role_arn})


def rrsa_trust_policy(provider_arn: str, issuer_url: str, namespace: str, service_account: str) -> str:
    """Only tokens of ``namespace/service_account`` from the cluster's issuer, for STS, may assume the role
    (``oidc:sub`` is ``system:serviceaccount:<namespace>:<name>``; ACK RRSA documentation)."""
    statement = {
        "Action": "sts:AssumeRole",
        "Effect": "Allow",
        "Principal": {"Federated": [provider_arn]},
        "Condition": {
            "StringEquals": {
                "oidc:aud": OIDC_AUDIENCE,
                "oidc:iss": issuer_url,
                "oidc:sub": f"system:serviceaccount:{namespace}:{service_account}",
            }
        },
    }
    return json.dumps({"Statement": [statement], "Version": "1"}, sort_keys=True)


def checkpoint_policy(key: KeyScope, bucket_name: str) -> str:
    """Read and write objects of checkpoint bucket ``bucket_name`` and use ``key`` for its SSE-KMS (OSS calls the
    two data-key actions for this bucket's objects)."""
    account_id = key.account_id
    statements: Sequence[dict[str, Any]] = [
        {
            "Action": list(CHECKPOINT_OBJECT_ACTIONS),
            "Effect": "Allow",
            "Resource": [f"acs:oss:*:{account_id}:{bucket_name}", f"acs:oss:*:{account_id}:{bucket_name}/*"],
        },
        key.statement(CHECKPOINT_KEY_ACTIONS),
    ]
    return json.dumps({"Statement": list(statements), "Version": "1"}, sort_keys=True)


def model_read_policy(key: KeyScope, bucket_name: str, model_source: str) -> str:
    """List and read only the model under ``model_source`` in ``bucket_name``, and decrypt it with ``key``
    (SSE-KMS).

    ListObjects is a bucket-level action; the ``oss:Prefix`` condition key limits it to the model's prefix (OSS
    "RAM policy" condition keys).
    """
    return _prefix_policy(key, bucket_name, model_source, ("oss:GetObject",), ("kms:Decrypt",))


def job_checkpoint_policy(key: KeyScope, bucket_name: str, checkpoint_prefix: str) -> str:
    """Read, write and prune only the checkpoints under ``checkpoint_prefix`` in ``bucket_name`` (one training job's
    identity): ListObjects limited by ``oss:Prefix``, the object actions on that prefix, the data-key actions."""
    objects = tuple(a for a in CHECKPOINT_OBJECT_ACTIONS if a not in ("oss:ListObjects", "oss:GetBucketInfo"))
    return _prefix_policy(key, bucket_name, checkpoint_prefix, objects, CHECKPOINT_KEY_ACTIONS)


def _prefix_policy(
    key: KeyScope,
    bucket_name: str,
    object_prefix: str,
    object_actions: Sequence[str],
    key_actions: Sequence[str],
) -> str:
    prefix = object_prefix.removesuffix("/")
    account_id = key.account_id
    statements: Sequence[dict[str, Any]] = [
        {
            "Action": ["oss:ListObjects"],
            "Effect": "Allow",
            "Resource": [f"acs:oss:*:{account_id}:{bucket_name}"],
            "Condition": {"StringLike": {"oss:Prefix": [f"{prefix}/", f"{prefix}/*"]}},
        },
        {
            "Action": list(object_actions),
            "Effect": "Allow",
            "Resource": [f"acs:oss:*:{account_id}:{bucket_name}/{prefix}/*"],
        },
        key.statement(key_actions),
    ]
    return json.dumps({"Statement": list(statements), "Version": "1"}, sort_keys=True)
