"""IAM and KMS policy documents built from values known at preview time.

Policy documents name the account, partition and region from data sources (canned in an offline plan and
known in a real preview) and names the components choose, never ids or ARNs of resources created in the
same program, so that a policy check can read every document before anything exists.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

__all__ = ["Account", "account_of", "document", "managed_policy_arn", "principal_trust", "service_trust"]

POLICY_VERSION = "2012-10-17"
"""The current IAM policy language version (IAM User Guide, IAM JSON policy elements: Version)."""


@dataclass(frozen=True)
class Account:
    """Where a component's resources live: the account, its partition and the region."""

    account_id: str
    partition: str
    region: str
    dns_suffix: str

    def arn(self, service: str, resource: str, *, region: bool = True, account: bool = True) -> str:
        """An ARN in this account and region, e.g. ``arn:aws:eks:us-east-1:123456789012:cluster/x``."""
        return ":".join(
            (
                "arn",
                self.partition,
                service,
                self.region if region else "",
                self.account_id if account else "",
                resource,
            )
        )

    @property
    def root(self) -> str:
        """The account principal (``arn:aws:iam::<account>:root``)."""
        return self.arn("iam", "root", region=False)

    def service_principal(self, service: str) -> str:
        """A regional service principal, e.g. ``logs.us-east-1.amazonaws.com``."""
        return f"{service}.{self.region}.{self.dns_suffix}"


def account_of(parent: pulumi.Resource) -> pulumi.Output[Account]:
    """The account, partition and region that ``parent``'s provider deploys to."""
    opts = pulumi.InvokeOutputOptions(parent=parent)
    identity = aws.get_caller_identity_output(opts=opts)
    partition = aws.get_partition_output(opts=opts)
    region = aws.get_region_output(opts=opts)
    return pulumi.Output.all(identity.account_id, partition.partition, region.region, partition.dns_suffix).apply(
        lambda v: Account(account_id=v[0], partition=v[1], region=v[2], dns_suffix=v[3])
    )


def document(*statements: Mapping[str, Any]) -> str:
    """A policy document (JSON) of ``statements``."""
    return json.dumps({"Version": POLICY_VERSION, "Statement": list(statements)}, sort_keys=True)


def service_trust(service: str, conditions: Mapping[str, Any] | None = None) -> str:
    """A trust policy letting AWS service ``service`` (e.g. ``eks.amazonaws.com``) assume the role."""
    statement: dict[str, Any] = {"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}
    if conditions:
        statement["Condition"] = dict(conditions)
    return document(statement)


def principal_trust(principals: Sequence[str]) -> str:
    """A trust policy letting the IAM roles or users ``principals`` assume the role."""
    return document({"Effect": "Allow", "Principal": {"AWS": list(principals)}, "Action": "sts:AssumeRole"})


def managed_policy_arn(account: pulumi.Output[Account], name: str) -> pulumi.Output[str]:
    """The ARN of the AWS managed policy ``name`` in the account's partition."""
    return account.apply(lambda a: f"arn:{a.partition}:iam::aws:policy/{name}")
