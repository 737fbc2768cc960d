"""KmsKey: a symmetric KMS key that rotates automatically, with an alias; protected by default."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import check, child_options, stateful_options
from gpu_cloud.components.naming import ALICLOUD_KMS_ALIAS, physical_name
from gpu_cloud.components.protection import protection
from gpu_cloud.components.spec import ALICLOUD_ROTATION_DAYS, KmsKeySpec, Problem

__all__ = ["KEY_TAG", "KmsKey", "KmsKeyArgs", "key_use_statement", "rotation_interval"]

ENABLED = "Enabled"
"""kms.Key takes ``automatic_rotation`` and ``deletion_protection`` as the strings Enabled/Disabled."""

DISABLED = "Disabled"

PROTECTION_REASON = "GPU environment key: secrets, disks and checkpoints depend on it"

SECONDS_PER_DAY = 86400

KEY_TAG = "gpucloud-key"
"""A tag every KmsKey carries, whose value is the key's alias: RAM policies name the key by it. A key's id and ARN
are unknown until it exists, and a policy document must be readable at preview (the policy pack decides on it
then); KMS evaluates the ``kms:tag`` condition key on Encrypt, Decrypt, GenerateDataKey and the other key
operations, in RAM custom policies ("根据密钥标签,筛选对API操作的访问权限", KMS, "策略(Policy)条件键",
https://help.aliyun.com/zh/kms/security-and-compliance/condition-key, read 2026-12-03)."""


def key_use_statement(actions: Sequence[str], region: str, account_id: str, alias_name: str) -> dict[str, Any]:
    """A RAM policy statement allowing ``actions`` on the one key of the account and region tagged
    ``KEY_TAG=alias_name`` (KmsKey.alias_name), known before the key exists."""
    return {
        "Action": list(actions),
        "Effect": "Allow",
        "Resource": [f"acs:kms:{region}:{account_id}:key/*"],
        "Condition": {"StringEquals": {f"kms:tag/{KEY_TAG}": alias_name}},
    }


def rotation_interval(days: int) -> str:
    """``days`` as a kms.Key ``rotation_interval``, in seconds: ``"7776000s"`` for 90 days.

    The KMS API takes an integer with a unit (d, h, m, s; "7d" or "604800s" for seven days) —
    https://www.alibabacloud.com/help/en/key-management-service/latest/updaterotationpolicy.
    """
    return f"{days * SECONDS_PER_DAY}s"


@dataclass
class KmsKeyArgs:
    """Inputs of a KmsKey."""

    spec: KmsKeySpec
    """Rotation, deletion window and the optional dedicated KMS instance."""
    protect: bool = True
    """Protect and retain the key (StackConfig.protect_stateful); only dev turns it off. The caller's
    ``protect``/``retain_on_delete`` options win (components.protection)."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the key."""
    instance_id: pulumi.Input[str] | None = None
    """The KMS instance, when it comes from elsewhere (the account's bootstrap); else the spec's id."""
    alias: str | None = None
    """The base of the alias, ``alias/<alias>-<stack>`` (components.naming); defaults to the component's name."""


class KmsKey(pulumi.ComponentResource):
    """A customer-managed symmetric key (Aliyun_AES_256) with automatic rotation and deletion protection.

    Only keys in a KMS instance of the software key management type rotate on a custom period; a default key
    rotates every 365 days whatever the interval says (kms.Key ``rotation_interval``;
    https://www.alibabacloud.com/help/en/key-management-service/latest/updaterotationpolicy). Give
    ``spec.alicloud_kms_instance_id`` for the 90-day rotation to take effect.
    """

    key_id: pulumi.Output[str]
    """The key's id (for ACK secrets encryption, disk and OSS encryption)."""
    key_arn: pulumi.Output[str]
    """The key's ARN (``acs:kms:<region>:<account>:key/<id>``)."""
    alias_name: str
    """The key's alias, ``alias/<alias>-<stack>``."""

    def __init__(self, name: str, args: KmsKeyArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        low, high = ALICLOUD_ROTATION_DAYS
        if not low <= spec.rotation_days <= high:
            check([Problem("rotationDays", f"Alibaba Cloud keys rotate every {low}..{high} days", spec.rotation_days)])
        super().__init__("gpucloud:alicloud:KmsKey", name, None, opts)
        guard = protection(self, opts, args.protect)
        alias_name = f"alias/{physical_name(ALICLOUD_KMS_ALIAS, args.alias or name)}"
        key = alicloud.kms.Key(
            f"{name}-key",
            description=f"{name}: GPU environment key (secrets, disks, checkpoints)",
            key_spec="Aliyun_AES_256",
            key_usage="ENCRYPT/DECRYPT",
            automatic_rotation=ENABLED,
            rotation_interval=rotation_interval(spec.rotation_days),
            pending_window_in_days=spec.deletion_window_days,
            deletion_protection=ENABLED if guard.protect else DISABLED,
            deletion_protection_description=PROTECTION_REASON if guard.protect else None,
            dkms_instance_id=args.instance_id or spec.alicloud_kms_instance_id,
            tags={**args.tags, KEY_TAG: alias_name},
            opts=stateful_options(self, guard),
        )
        self.alias_name = alias_name
        alicloud.kms.Alias(f"{name}-alias", alias_name=self.alias_name, key_id=key.id, opts=child_options(self))
        self.key_id = key.id
        self.key_arn = key.arn
        self.register_outputs({"keyId": self.key_id, "keyArn": self.key_arn, "aliasName": self.alias_name})
