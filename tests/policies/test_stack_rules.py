"""Stack-level rules and the resource graph through the protocol: S3 encryption by property dependency,
protect-stateful by stack name, providers' default tags, component and provider resources."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.policy import PolicyReport, run_policy_pack
from tests.policies.fixtures import compliant
from tests.policies.wire import UNKNOWN, resource, stack_resource, urn

BUCKET, BUCKET_V2 = "aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2"
SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
SSE_V2 = "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2"
KMS_RULE = {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms", "kmsMasterKeyId": UNKNOWN}}
DSSE_RULE = {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms:dsse", "kmsMasterKeyId": "arn:k"}}
AES_RULE = {"applyServerSideEncryptionByDefault": {"sseAlgorithm": "AES256"}}
TAGS = {"environment": "e", "owner": "o", "cost-center": "c"}


def bucket(stack: str, name: str, type_: str = BUCKET, **props: object) -> RecordedResource:
    return resource(stack, type_, name, {"bucket": name, "tags": TAGS, **props}, protect=True)


def encryption(stack: str, name: str, bucket_urn: str | None, rule: object, type_: str = SSE) -> RecordedResource:
    deps = {"bucket": [bucket_urn]} if bucket_urn else {}
    return resource(stack, type_, name, {"bucket": UNKNOWN, "rules": rule}, property_dependencies=deps)


def s3_stack(stack: str) -> list[RecordedResource]:
    u = {
        n: urn(stack, t, n)
        for n, t in [
            ("kms", BUCKET),
            ("dsse", BUCKET),
            ("aes", BUCKET),
            ("none", BUCKET),
            ("by-value", BUCKET),
            ("v2", BUCKET_V2),
            ("sse-unknown", BUCKET),
        ]
    }
    return [
        bucket(stack, "kms"),
        encryption(stack, "kms-sse", u["kms"], [KMS_RULE]),
        bucket(stack, "dsse"),
        encryption(stack, "dsse-sse", u["dsse"], DSSE_RULE),  # a single rule object where a list is allowed
        bucket(stack, "aes"),
        encryption(stack, "aes-sse", u["aes"], [AES_RULE]),
        bucket(stack, "none"),
        bucket(stack, "by-value"),
        encryption(stack, "by-value-sse", None, [KMS_RULE]),  # names the bucket without depending on it
        bucket(stack, "inline", serverSideEncryptionConfiguration={"rule": DSSE_RULE}),
        bucket(stack, "inline-aes", serverSideEncryptionConfiguration={"rule": AES_RULE}),
        bucket(stack, "v2", BUCKET_V2),
        encryption(stack, "v2-sse", u["v2"], [AES_RULE, KMS_RULE], SSE_V2),
        bucket(stack, "sse-unknown"),
        encryption(stack, "sse-unknown-sse", u["sse-unknown"], [{"applyServerSideEncryptionByDefault": UNKNOWN}]),
    ]


@pytest.fixture(scope="module")
def dev(pack_dir: Path) -> PolicyReport:
    return run_policy_pack(
        pack_dir, [stack_resource("dev"), *s3_stack("dev"), *graph("dev")], project="gpu-cloud", stack="dev"
    )


def violations(report: PolicyReport, policy: str) -> dict[str, str]:
    return {v.name: v.level for v in report.violations if v.policy == policy}


def test_bucket_encryption_is_decided_by_property_dependencies(dev: PolicyReport) -> None:
    assert violations(dev, "encryption-at-rest") == {
        "aes": "mandatory",
        "none": "mandatory",
        "by-value": "mandatory",
        "inline-aes": "mandatory",
        "sse-unknown": "mandatory",
    }


def test_unknown_encryption_rule_is_undecided(dev: PolicyReport) -> None:
    [violation] = [v for v in dev.violations if v.name == "sse-unknown"]
    assert "could not decide: rules[0].applyServerSideEncryptionByDefault is unknown" in violation.message


# protect-stateful: mandatory in the stacks named in protectedStacks (default prod, prod-cn).


def stateful(stack: str) -> list[RecordedResource]:
    return [
        resource(stack, "aws:kms/key:Key", "key", compliant("aws:kms/key:Key")),
        resource(stack, "alicloud:oss/bucket:Bucket", "oss", compliant("alicloud:oss/bucket:Bucket")),
        resource(stack, "aws:kms/key:Key", "protected-key", compliant("aws:kms/key:Key"), protect=True),
    ]


@pytest.mark.parametrize(("stack", "level"), [("prod", "mandatory"), ("prod-cn", "mandatory"), ("dev", "advisory")])
def test_protect_stateful_level_follows_the_stack(pack_dir: Path, stack: str, level: str) -> None:
    report = run_policy_pack(pack_dir, [stack_resource(stack), *stateful(stack)], project="gpu-cloud", stack=stack)
    assert violations(report, "protect-stateful") == {"key": level, "oss": level}


# The graph: providers, components, default tags.


def graph(stack: str) -> list[RecordedResource]:
    provider = resource(stack, "pulumi:providers:aws", "tagged", {"region": "us-east-1", "defaultTags": {"tags": TAGS}})
    component = resource(stack, "gpucloud:aws:GpuNodePool", "pool", {}, custom=False)
    return [
        provider,
        component,
        resource(
            stack,
            "aws:ebs/volume:Volume",
            "default-tagged",
            {"encrypted": True},
            provider=f"{provider.urn}::04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        ),
        resource(stack, "aws:ebs/volume:Volume", "untagged", {"encrypted": True}),
    ]


def test_provider_default_tags_count(dev: PolicyReport) -> None:
    assert violations(dev, "required-tags") == {"untagged": "advisory"}


def test_components_and_providers_are_analyzed_without_findings(dev: PolicyReport) -> None:
    assert {v.name for v in dev.violations} & {"tagged", "pool", "gpu-cloud-dev"} == set()


def test_default_provider_tags_come_from_stack_config(pack_dir: Path) -> None:
    volume = resource("dev", "aws:ebs/volume:Volume", "volume", {"encrypted": True})
    report = run_policy_pack(
        pack_dir,
        [stack_resource("dev"), volume],
        project="gpu-cloud",
        stack="dev",
        stack_config={"aws:region": "us-east-1", "aws:defaultTags": {"tags": TAGS}},
    )
    assert report.violations == ()
