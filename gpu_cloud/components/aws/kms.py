"""KmsKey: a customer-managed, automatically rotating symmetric KMS key with an explicit key policy."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account, account_of, document
from gpu_cloud.components.naming import AWS_KMS_ALIAS, physical_name
from gpu_cloud.components.protection import protection
from gpu_cloud.components.spec import AWS_ROTATION_DAYS, ConfigError, KmsKeySpec, Problem

__all__ = ["KmsKey", "KmsKeyArgs"]

# Actions a key user needs for envelope encryption (AWS KMS Developer Guide, default key policy:
# "Allows key users to use the KMS key").
_USE_ACTIONS = ["kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*"]
# Grants for AWS services that attach encrypted resources (same guide: "Allows key users to use the KMS
# key with AWS services"), limited by kms:GrantIsForAWSResource.
_GRANT_ACTIONS = ["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"]

AUTOSCALING_SERVICE_ROLE = "aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
"""The EC2 Auto Scaling service-linked role, which launches managed node group instances; it needs the key to
create encrypted EBS volumes (EC2 Auto Scaling User Guide, "Required AWS KMS key policy for use with encrypted
volumes"). A service-linked role cannot carry IAM policies, so the key policy names it."""

# Everything the account may do with a symmetric encryption key (Service Authorization Reference, AWS KMS:
# actions on the "key" resource type; the asymmetric, HMAC, imported-material and multi-Region ones left out).
# Listed instead of "kms:*", which also names account-level actions (CreateKey, ListKeys ...) that a key
# policy cannot grant. PutKeyPolicy and ScheduleKeyDeletion stay with the account, so the key can't lock out.
_ADMIN_ACTIONS = sorted(
    {
        "kms:CancelKeyDeletion",
        "kms:CreateAlias",
        "kms:DeleteAlias",
        "kms:DescribeKey",
        "kms:DisableKey",
        "kms:DisableKeyRotation",
        "kms:EnableKey",
        "kms:EnableKeyRotation",
        "kms:GetKeyPolicy",
        "kms:GetKeyRotationStatus",
        "kms:ListKeyPolicies",
        "kms:ListKeyRotations",
        "kms:ListResourceTags",
        "kms:PutKeyPolicy",
        "kms:RetireGrant",
        "kms:RotateKeyOnDemand",
        "kms:ScheduleKeyDeletion",
        "kms:TagResource",
        "kms:UntagResource",
        "kms:UpdateAlias",
        "kms:UpdateKeyDescription",
        "kms:Decrypt",
        "kms:Encrypt",
        "kms:GenerateDataKey",
        "kms:GenerateDataKeyPair",
        "kms:GenerateDataKeyPairWithoutPlaintext",
        "kms:GenerateDataKeyWithoutPlaintext",
        "kms:ReEncryptFrom",
        "kms:ReEncryptTo",
        "kms:CreateGrant",
        "kms:ListGrants",
        "kms:RevokeGrant",
    }
)

_ALIAS = re.compile(r"^[a-zA-Z0-9/_-]{1,250}$")
_ROLE_ARN = re.compile(r"^arn:aws(-cn|-us-gov)?:iam::\d{12}:role/[\w+=,.@/-]+$")


@dataclass(frozen=True)
class KmsKeyArgs:
    """Arguments of a KmsKey."""

    spec: KmsKeySpec
    """Rotation and deletion window."""
    alias: str
    """The base of the alias, e.g. ``gpucloud``: the alias is ``alias/<alias>-<stack>`` (components.naming), known
    before deployment; IAM policies select the key by it."""
    protect: bool = True
    """Protect the key and retain it when removed from the program (StackConfig.protect_stateful); the caller's
    ``protect``/``retain_on_delete`` options win (components.protection)."""
    user_role_arns: Sequence[str] = ()
    """IAM roles (existing when the key is created) that may encrypt and decrypt with the key."""
    autoscaling_volumes: bool = True
    """Let EC2 Auto Scaling encrypt node volumes with the key (managed node groups with a KMS root volume)."""
    cloudwatch_logs: bool = True
    """Let CloudWatch Logs encrypt this account's log groups in the key's region (flow and control-plane logs)."""
    event_queues: Sequence[str] = ()
    """Names of SQS queues in the key's account and region, encrypted with the key, that EventBridge rules of the
    account deliver to (Karpenter's interruption queue: components.aws.karpenter)."""


class KmsKey(pulumi.ComponentResource):
    """A symmetric KMS key that rotates every ``spec.rotation_days`` days, with an alias.

    Children: ``<name>-key`` (aws.kms.Key), ``<name>-alias`` (aws.kms.Alias).
    """

    key_arn: pulumi.Output[str]
    """The key's ARN."""
    key_id: pulumi.Output[str]
    """The key's id."""
    alias_name: str
    """The alias, ``alias/<alias>-<stack>`` (known before deployment)."""

    def __init__(self, name: str, args: KmsKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        _check(args)
        super().__init__("gpucloud:aws:KmsKey", name, None, opts)
        account = account_of(self)
        guard = protection(self, opts, args.protect)
        key = aws.kms.Key(
            f"{name}-key",
            description=f"gpu-cloud {args.alias}: secrets, volumes, logs and checkpoints",
            customer_master_key_spec="SYMMETRIC_DEFAULT",
            key_usage="ENCRYPT_DECRYPT",
            enable_key_rotation=True,
            rotation_period_in_days=args.spec.rotation_days,
            deletion_window_in_days=args.spec.deletion_window_days,
            policy=account.apply(lambda a: key_policy(a, args)),
            opts=pulumi.ResourceOptions(parent=self, protect=guard.protect, retain_on_delete=guard.retain_stateful),
        )
        self.alias_name = f"alias/{physical_name(AWS_KMS_ALIAS, args.alias)}"
        aws.kms.Alias(
            f"{name}-alias", name=self.alias_name, target_key_id=key.key_id, opts=pulumi.ResourceOptions(parent=self)
        )
        self.key_arn = key.arn
        self.key_id = key.key_id
        self.register_outputs({"keyArn": self.key_arn, "keyId": self.key_id, "aliasName": self.alias_name})


def _check(args: KmsKeyArgs) -> None:
    problems = []
    low, high = AWS_ROTATION_DAYS
    if not low <= args.spec.rotation_days <= high:
        problems.append(Problem("rotationDays", f"aws rotates keys every {low}..{high} days", args.spec.rotation_days))
    if args.spec.alicloud_kms_instance_id:
        problems.append(
            Problem("alicloudKmsInstanceId", "is an Alibaba Cloud-only setting", args.spec.alicloud_kms_instance_id)
        )
    if not _ALIAS.match(args.alias) or args.alias.startswith("aws/"):
        problems.append(Problem("alias", "not a KMS alias name (letters, digits, /_-; not aws/)", args.alias))
    problems += [
        Problem(f"userRoleArns.{i}", "not an IAM role ARN", arn)
        for i, arn in enumerate(args.user_role_arns)
        if not _ROLE_ARN.match(arn)
    ]
    if problems:
        raise ConfigError(problems)


def key_policy(account: Account, args: KmsKeyArgs) -> str:
    """The key policy: the account administers; named roles, Auto Scaling and CloudWatch Logs may use it."""
    statements: list[dict[str, object]] = [
        # The account root principal makes IAM policies effective for the key (KMS Developer Guide, default
        # key policy: "Allows access to the AWS account and enables IAM policies").
        {
            "Sid": "AccountAdministers",
            "Effect": "Allow",
            "Principal": {"AWS": account.root},
            "Action": _ADMIN_ACTIONS,
            "Resource": "*",
        }
    ]
    users = list(args.user_role_arns)
    if args.autoscaling_volumes:
        users.append(account.arn("iam", f"role/{AUTOSCALING_SERVICE_ROLE}", region=False))
    if users:
        statements += [
            {
                "Sid": "NamedRolesUse",
                "Effect": "Allow",
                "Principal": {"AWS": users},
                "Action": _USE_ACTIONS,
                "Resource": "*",
            },
            {
                "Sid": "NamedRolesGrantToAwsResources",
                "Effect": "Allow",
                "Principal": {"AWS": users},
                "Action": _GRANT_ACTIONS,
                "Resource": "*",
                "Condition": {"Bool": {"kms:GrantIsForAWSResource": "true"}},
            },
        ]
    if args.cloudwatch_logs:
        # CloudWatch Logs User Guide, "Encrypt log data in CloudWatch Logs using AWS KMS": the regional logs
        # service principal, limited by the encryption context to this account's log groups in this region.
        statements.append(
            {
                "Sid": "CloudWatchLogsOfThisAccount",
                "Effect": "Allow",
                "Principal": {"Service": account.service_principal("logs")},
                # The guide's kms:Describe* is left out: DescribeKey carries no encryption context, so the
                # condition never admits it.
                "Action": ["kms:Decrypt*", "kms:Encrypt*", "kms:GenerateDataKey*", "kms:ReEncrypt*"],
                "Resource": "*",
                "Condition": {"StringLike": {"kms:EncryptionContext:aws:logs:arn": account.arn("logs", "log-group:*")}},
            }
        )
    if args.event_queues:
        # SQS Developer Guide, "Configure KMS permissions for AWS services": the sending service needs
        # kms:GenerateDataKey and kms:Decrypt on the queue's key; SQS passes the queue's ARN as the encryption context
        # (aws:sqs:arn), which limits the grant to these queues, and aws:SourceAccount to this account's rules.
        statements.append(
            {
                "Sid": "EventBridgeToQueuesOfThisAccount",
                "Effect": "Allow",
                "Principal": {"Service": "events.amazonaws.com"},
                "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
                "Resource": "*",
                "Condition": {
                    "StringEquals": {
                        "aws:SourceAccount": account.account_id,
                        "kms:EncryptionContext:aws:sqs:arn": [account.arn("sqs", q) for q in args.event_queues],
                    }
                },
            }
        )
    return document(*statements)


def key_use_statement(account: Account, alias_name: str, actions: Sequence[str]) -> dict[str, object]:
    """An IAM statement allowing ``actions`` on the key with alias ``alias_name`` (by the kms:ResourceAliases key).

    The key's ARN is unknown until it exists; its alias is chosen beforehand, so identity policies select the
    key through it (KMS Developer Guide, "Use aliases to control access to KMS keys").
    """
    return {
        "Effect": "Allow",
        "Action": sorted(actions),
        "Resource": account.arn("kms", "key/*"),
        "Condition": {"ForAnyValue:StringEquals": {"kms:ResourceAliases": alias_name}},
    }
