"""The planned IAM of an AWS stack, evaluated with a real local evaluator: principalmapper 1.1.5
(``principalmapper.querying.query_interface.local_check_authorization_full``: explicit denies, resource policies,
KMS key policies that must match or delegate to IAM, identity policies, conditions with their operators).

Managed policies attached from outside the program (a deployer role's organization deploy policy) have no document in
the plan and grant nothing here: what the rehearsal requires of a role must come from the policies the program
writes.
"""

from __future__ import annotations

import collections
import collections.abc
import json
import logging
from dataclasses import dataclass
from typing import Any

# principalmapper 1.1.5 (the last release on PyPI, 2022-01) imports Mapping and MutableMapping from `collections`,
# which Python 3.10 removed; its master has the fix (nccgroup/PMapper#106, fixed by #107, never released).
for _name in ("Mapping", "MutableMapping"):
    setattr(collections, _name, getattr(collections.abc, _name))

from principalmapper.common.nodes import Node  # noqa: E402 (after the shim above)
from principalmapper.common.policies import Policy  # noqa: E402 (after the shim above)
from principalmapper.querying.local_policy_simulation import ResourcePolicyEvalResult, resource_policy_authorization  # noqa: E402 (after the shim above)
from principalmapper.querying.query_interface import local_check_authorization_full  # noqa: E402 (after the shim above)

logging.getLogger("principalmapper").setLevel(logging.WARNING)

ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
KEY = "aws:kms/key:Key"
ALIAS = "aws:kms/alias:Alias"
BUCKET = "aws:s3/bucket:Bucket"
BUCKET_POLICY = "aws:s3/bucketPolicy:BucketPolicy"

REQUEST = {"aws:SecureTransport": "true", "s3:TlsVersion": "1.3"}
"""What every request of the AWS CLI and SDKs carries here: HTTPS, TLS 1.3 (the state bucket's policy refuses less)."""


@dataclass(frozen=True)
class Account:
    """The roles, the KMS key and the bucket one AWS stack plans, ready for authorization questions."""

    account_id: str
    region: str
    roles: dict[str, Node]
    """Role name -> the role, with the inline policies the stack gives it."""
    trusts: dict[str, dict[str, Any]]
    """Role name -> its trust policy."""
    key_arn: str
    key_policy: dict[str, Any]
    key_aliases: list[str]
    bucket: str
    bucket_policy: dict[str, Any]

    def role_arn(self, name: str) -> str:
        return f"arn:aws:iam::{self.account_id}:role/{name}"

    def can(self, role: str, action: str, resource: str, **context: Any) -> bool:
        """Whether ``role`` may do ``action`` on ``resource``; the key's and the bucket's policies apply to them."""
        keys = dict(REQUEST, **context)
        policy: dict[str, Any] | None = None
        if resource == self.key_arn:
            policy = self.key_policy
            keys.setdefault("kms:ResourceAliases", self.key_aliases)
        elif resource.startswith(f"arn:aws:s3:::{self.bucket}"):
            policy = self.bucket_policy
        return bool(
            local_check_authorization_full(
                self.roles[role], action, resource, keys, policy, self.account_id if policy else None
            )
        )

    def service_may_assume(self, role: str, service: str, **context: Any) -> bool:
        """Whether AWS service ``service`` may assume ``role`` with the request's ``context`` (aws:SourceArn ...)."""
        result = resource_policy_authorization(
            service, self.account_id, self.trusts[role], "sts:AssumeRole", self.role_arn(role), dict(context)
        )
        return result is ResourcePolicyEvalResult.SERVICE_MATCH


def account_of(resources: list[dict[str, Any]], account_id: str, region: str) -> Account:
    """The IAM of a stack's planned ``resources`` (one KMS key and one bucket: the bootstrap's state key and
    bucket)."""
    by_urn = {r["urn"]: r for r in resources}
    # An auto-named role's name is Pulumi's: the logical name and a random suffix.
    role_names = {r["urn"]: r["inputs"].get("name") or f"{r['name']}-auto" for r in resources if r["type"] == ROLE}
    inline: dict[str, list[Policy]] = {name: [] for name in role_names.values()}
    for r in resources:
        if r["type"] == ROLE_POLICY:
            [role_urn] = r["property_dependencies"]["role"]
            name = role_names[role_urn]
            inline[name].append(
                Policy(f"arn:aws:iam::{account_id}:role/{name}", r["name"], json.loads(r["inputs"]["policy"]))
            )
    roles = {
        name: Node(
            f"arn:aws:iam::{account_id}:role/{name}",
            f"AROA{name.upper()[:16]}",
            inline[name],
            [],
            json.loads(by_urn[urn]["inputs"]["assumeRolePolicy"]),
            None,
            0,
            False,
            False,
            None,
            False,
            None,
        )
        for urn, name in role_names.items()
    }
    [key] = [r for r in resources if r["type"] == KEY]
    [bucket] = [r for r in resources if r["type"] == BUCKET]
    [bucket_policy] = [r for r in resources if r["type"] == BUCKET_POLICY]
    aliases = [r["inputs"]["name"] for r in resources if r["type"] == ALIAS and key["urn"] in _deps(r, "targetKeyId")]
    return Account(
        account_id=account_id,
        region=region,
        roles=roles,
        trusts={name: json.loads(by_urn[urn]["inputs"]["assumeRolePolicy"]) for urn, name in role_names.items()},
        key_arn=f"arn:aws:kms:{region}:{account_id}:key/state-key",
        key_policy=json.loads(key["inputs"]["policy"]),
        key_aliases=aliases,
        bucket=bucket["inputs"].get("bucket") or bucket["inputs"]["bucketPrefix"],
        bucket_policy=json.loads(bucket_policy["inputs"]["policy"]),
    )


def _deps(resource: dict[str, Any], key: str) -> list[str]:
    return list(resource["property_dependencies"].get(key, ()))
