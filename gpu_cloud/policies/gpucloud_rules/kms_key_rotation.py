"""kms-key-rotation: symmetric KMS keys rotate automatically, at least every ``maxRotationDays`` days."""

from __future__ import annotations

from .rule import Config, Props, ResourceRule
from .values import Findings, as_bool, as_number, as_text, duration_days, equals, has_reference

__all__ = ["RULE", "check"]

AWS_KEY = "aws:kms/key:Key"
ALICLOUD_KEY = "alicloud:kms/key:Key"

# AWS KMS: only symmetric encryption keys (SYMMETRIC_DEFAULT / ENCRYPT_DECRYPT) support automatic
# rotation; rotation periods may be 90..2560 days (AWS KMS developer guide, "Rotating AWS KMS keys").
SYMMETRIC_SPEC = "SYMMETRIC_DEFAULT"
SYMMETRIC_USAGE = "ENCRYPT_DECRYPT"
DEFAULT_MAX_ROTATION_DAYS = 90
# Alibaba KMS protection level of hardware-protected keys (pulumi-alicloud kms.Key protection_level: SOFTWARE, HSM).
HSM = "HSM"


def _unset_or(props: Props, key: str, expected: str) -> bool:
    """True if ``key`` is unset ("" included) or equals ``expected``."""
    return as_text(props.get(key), key) is None or equals(props.get(key), expected, key)


def _aws_symmetric(props: Props) -> bool:
    return _unset_or(props, "customerMasterKeySpec", SYMMETRIC_SPEC) and _unset_or(props, "keyUsage", SYMMETRIC_USAGE)


def _aws(props: Props, max_days: float, findings: Findings) -> None:
    if not _aws_symmetric(props):
        return
    findings.check(
        lambda: as_bool(props.get("enableKeyRotation"), "enableKeyRotation") is not True,
        "automatic rotation is off: set enableKeyRotation true",
    )
    findings.explain(
        lambda: _too_long(
            as_number(props.get("rotationPeriodInDays"), "rotationPeriodInDays"),
            "rotationPeriodInDays",
            max_days,
        )
    )


def _too_long(days: float | None, what: str, max_days: float) -> str | None:
    if days is None:
        return f"{what} is unset or invalid: set it to at most {max_days:g} days"
    if days > max_days:
        return f"{what} is {days:g} days, more than {max_days:g}"
    return None


def _alicloud(props: Props, max_days: float, findings: Findings) -> None:
    findings.check(
        lambda: not equals(props.get("automaticRotation"), "Enabled", "automaticRotation"),
        'automatic rotation is off: set automaticRotation "Enabled"',
    )
    # pulumi-alicloud 4.0.0 kms.Key, rotation_interval: "takes effect only when the key management type
    # supports automatic rotation: default keys support only a fixed period of 365 days, software-protected
    # keys support 7 to 365 days, and hardware-protected keys do not support automatic rotation"; a key
    # without dkms_instance_id is a default key. KMS UpdateRotationPolicy: "Only symmetric keys in KMS
    # instances of the software key management type support key rotation"
    # (https://www.alibabacloud.com/help/en/key-management-service/latest/updaterotationpolicy, read 2026-12-02).
    findings.check(
        lambda: not has_reference(props.get("dkmsInstanceId"), "dkmsInstanceId"),
        "key is a default key (no dkmsInstanceId), which rotates every 365 days whatever rotationInterval says: "
        "create it in a software KMS instance (set dkmsInstanceId)",
    )
    findings.check(
        lambda: equals(props.get("protectionLevel"), HSM, "protectionLevel"),
        "protectionLevel is HSM: hardware-protected keys do not rotate automatically; use a key of a software "
        'KMS instance (protectionLevel "SOFTWARE")',
    )
    findings.explain(
        lambda: _too_long(
            duration_days(props.get("rotationInterval"), "rotationInterval"),
            'rotationInterval (a duration such as "90d" or "7776000s")',
            max_days,
        )
    )


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``kms-key-rotation`` for one key."""
    del provider
    max_days = float(config["maxRotationDays"])
    findings = Findings()
    if resource_type == AWS_KEY:
        _aws(props, max_days, findings)
    else:
        _alicloud(props, max_days, findings)
    return findings.messages


RULE = ResourceRule(
    name="kms-key-rotation",
    description="Symmetric KMS keys must rotate automatically at least every maxRotationDays days.",
    level="mandatory",
    resource_types=frozenset({AWS_KEY, ALICLOUD_KEY}),
    check=check,
    config={
        "maxRotationDays": {
            "type": "number",
            "minimum": 1,
            "default": DEFAULT_MAX_ROTATION_DAYS,
            "description": "The longest rotation period allowed, in days.",
        }
    },
)
