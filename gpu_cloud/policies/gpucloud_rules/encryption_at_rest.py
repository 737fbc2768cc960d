"""encryption-at-rest: disks, cluster secrets and buckets are encrypted with a managed key.

A stack policy, because the S3 rule needs the whole graph: a bucket is compliant when a server-side
encryption configuration resource whose ``bucket`` input depends on it uses KMS. The per-resource
rules run in the same pass over each resource of their types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from .rule import Config, Props, Stack, StackResource, StackRule
from .values import (
    Findings,
    all_entries,
    any_entry,
    any_true,
    as_bool,
    as_object,
    as_text,
    entries,
    equals,
    has_reference,
)

__all__ = ["RULE", "check", "check_resource"]

BUCKETS = frozenset({"aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2"})
BUCKET_ENCRYPTION = frozenset(
    {
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2",
    }
)
# Server-side encryption with a KMS key (S3 user guide, "Using server-side encryption with AWS KMS keys").
KMS_ALGORITHMS = ("aws:kms", "aws:kms:dsse")


def _true(props: Props, key: str, path: str) -> bool:
    return as_bool(props.get(key), path) is True


def _unencrypted(path: str, device: object) -> bool:
    return not _true(as_object(device, path), "encrypted", f"{path}.encrypted")


def _launch_template(props: Props) -> bool:
    def encrypted(path: str, mapping: object) -> bool:
        ebs = as_object(mapping, path).get("ebs")
        # A mapping without ebs is an instance-store or suppressed device: nothing to encrypt. An ebs
        # block, even an empty one ({}), is an EBS volume and must say encrypted.
        return ebs is None or _true(as_object(ebs, f"{path}.ebs"), "encrypted", f"{path}.ebs.encrypted")

    return all_entries(props.get("blockDeviceMappings"), "blockDeviceMappings", encrypted)


def _ec2_node_class(props: Props) -> bool:
    """Every EBS volume of a Karpenter EC2NodeClass says encrypted (Karpenter v1.14.1 nodeclasses.md
    "spec.blockDeviceMappings"; without mappings its AMI family's default volumes are ``encrypted: true``)."""
    spec = as_object(props.get("spec"), "spec")
    return _launch_template(spec) if spec.get("blockDeviceMappings") is not None else True


def _instance(props: Props) -> list[str]:
    findings = Findings()
    root = props.get("rootBlockDevice")
    findings.check(
        lambda: not _true(as_object(root, "rootBlockDevice"), "encrypted", "rootBlockDevice.encrypted"),
        "root volume is not encrypted: set rootBlockDevice.encrypted true",
    )
    for path, device in entries(props.get("ebsBlockDevices"), "ebsBlockDevices"):
        findings.check(
            partial(_unencrypted, path, device),
            f"{path} is not encrypted",
        )
    return findings.messages


def _is_secrets(path: str, value: object) -> bool:
    return equals(value, "secrets", path)


def _eks_cluster(props: Props) -> bool:
    def encrypts_secrets(path: str, config: object) -> bool:
        entry = as_object(config, path)
        key = as_object(entry.get("provider"), f"{path}.provider").get("keyArn")
        return has_reference(key, f"{path}.provider.keyArn") and any_entry(
            entry.get("resources"), f"{path}.resources", _is_secrets
        )

    return any_entry(props.get("encryptionConfig"), "encryptionConfig", encrypts_secrets)


def _alicloud_node_pool(props: Props) -> list[str]:
    findings = Findings()
    findings.check(
        lambda: not _true(props, "systemDiskEncrypted", "systemDiskEncrypted"),
        "system disk is not encrypted: set systemDiskEncrypted true",
    )
    for path, disk in entries(props.get("dataDisks"), "dataDisks"):
        findings.check(
            partial(_unencrypted, path, disk),
            f'{path} is not encrypted: set encrypted "true"',
        )
    return findings.messages


def _single(violated: Callable[[Props], bool], message: str) -> Callable[[Props], list[str]]:
    def run(props: Props) -> list[str]:
        findings = Findings()
        findings.check(lambda: violated(props), message)
        return findings.messages

    return run


_RESOURCES: Mapping[str, Callable[[Props], list[str]]] = {
    "aws:ebs/volume:Volume": _single(
        lambda p: not _true(p, "encrypted", "encrypted"), "volume is not encrypted: set encrypted true"
    ),
    "aws:ec2/launchTemplate:LaunchTemplate": _single(
        lambda p: not _launch_template(p),
        "an EBS block device mapping of the launch template is not encrypted",
    ),
    "aws:ec2/instance:Instance": _instance,
    "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass": _single(
        lambda p: not _ec2_node_class(p),
        "an EBS block device mapping of the EC2NodeClass is not encrypted: set ebs.encrypted true",
    ),
    "aws:eks/cluster:Cluster": _single(
        lambda p: not _eks_cluster(p),
        'Kubernetes secrets are not envelope-encrypted: set encryptionConfig with resources ["secrets"] '
        "and provider.keyArn",
    ),
    "alicloud:ecs/disk:Disk": _single(
        lambda p: not _true(p, "encrypted", "encrypted"), "disk is not encrypted: set encrypted true"
    ),
    "alicloud:ecs/ecsDisk:EcsDisk": _single(
        lambda p: not _true(p, "encrypted", "encrypted"), "disk is not encrypted: set encrypted true"
    ),
    "alicloud:cs/nodePool:NodePool": _alicloud_node_pool,
}


def check_resource(resource_type: str, props: Props) -> list[str]:
    """Violation messages of the per-resource rules for one resource."""
    return _RESOURCES[resource_type](props)


def _uses_kms(rule_value: object, path: str) -> bool:
    """True if a server-side encryption rule (or list of rules) applies KMS with a key."""

    def one(p: str, rule: object) -> bool:
        p = f"{p}.applyServerSideEncryptionByDefault"
        default = as_object(as_object(rule, p).get("applyServerSideEncryptionByDefault"), p)
        algorithm = as_text(default.get("sseAlgorithm"), f"{p}.sseAlgorithm")
        return (algorithm or "").lower() in KMS_ALGORITHMS and has_reference(
            default.get("kmsMasterKeyId"), f"{p}.kmsMasterKeyId"
        )

    return any_entry(rule_value, path, one)


def _bucket_encrypted(bucket: StackResource, configurations: Sequence[StackResource]) -> bool:
    def separate(conf: StackResource) -> bool:
        return bucket.urn in conf.property_dependencies.get("bucket", ()) and _uses_kms(
            conf.props.get("rules"), "rules"
        )

    def inline() -> bool:
        path = "serverSideEncryptionConfiguration"
        return _uses_kms(as_object(bucket.props.get(path), path).get("rule"), f"{path}.rule")

    return any_true([*(partial(separate, c) for c in configurations), inline])


def _bucket_unencrypted(bucket: StackResource, configurations: Sequence[StackResource]) -> bool:
    return not _bucket_encrypted(bucket, configurations)


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``encryption-at-rest`` for one resource of the stack."""
    del config
    if resource.type in _RESOURCES:
        return check_resource(resource.type, resource.props)
    if resource.type not in BUCKETS:
        return []
    messages = Findings()
    messages.check(
        partial(_bucket_unencrypted, resource, stack.of_type(*BUCKET_ENCRYPTION)),
        "bucket is not encrypted with KMS: add a BucketServerSideEncryptionConfiguration for it with "
        "sseAlgorithm aws:kms (or aws:kms:dsse) and a kmsMasterKeyId",
    )
    return messages.messages


RULE = StackRule(
    name="encryption-at-rest",
    description="Disks, Kubernetes secrets and buckets must be encrypted at rest with a managed key.",
    level="mandatory",
    resource_types=frozenset({*_RESOURCES, *BUCKETS, *BUCKET_ENCRYPTION}),
    check=check,
)
