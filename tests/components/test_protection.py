"""Caller ResourceOptions win over the Args' ``protect`` on both clouds (components.protection), both ways."""

from __future__ import annotations

from collections.abc import Callable

import pulumi
import pytest

from gpu_cloud.components import alicloud as ali
from gpu_cloud.components import aws
from gpu_cloud.components.spec import CheckpointBucketSpec, ClusterSpec, KmsKeySpec
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.planner.model import RecordedResource
from tests.alicloud.support import NETWORK

Build = Callable[[bool, pulumi.ResourceOptions], None]
"""Declares one component with Args ``protect`` and the caller's options."""

_AWS_KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"

BUILDS: dict[str, tuple[Build, str]] = {
    "aws-key": (
        lambda p, o: aws.KmsKey("c", aws.KmsKeyArgs(spec=KmsKeySpec(), alias="k", protect=p), o),
        "aws:kms/key:Key",
    ),
    "aws-bucket": (
        lambda p, o: aws.CheckpointBucket(
            "c",
            aws.CheckpointBucketArgs(spec=CheckpointBucketSpec(), kms_key_arn=_AWS_KEY, name_prefix="b", protect=p),
            o,
        ),
        "aws:s3/bucket:Bucket",
    ),
    "aws-cluster": (
        lambda p, o: aws.GpuCluster(
            "c",
            aws.GpuClusterArgs(
                spec=ClusterSpec(), subnet_ids=["s-a", "s-b"], kms_key_arn=_AWS_KEY, kms_key_alias="alias/k", protect=p
            ),
            o,
        ),
        "aws:eks/cluster:Cluster",
    ),
    "alicloud-key": (
        lambda p, o: ali.KmsKey("c", ali.KmsKeyArgs(spec=KmsKeySpec(), protect=p), o),
        "alicloud:kms/key:Key",
    ),
    "alicloud-bucket": (
        lambda p, o: ali.CheckpointBucket(
            "c",
            ali.CheckpointBucketArgs(
                spec=CheckpointBucketSpec(), name_prefix="b", account_id="1", kms_key_id="k", protect=p
            ),
            o,
        ),
        "alicloud:oss/bucket:Bucket",
    ),
    "alicloud-cluster": (
        lambda p, o: ali.GpuCluster(
            "c",
            ali.GpuClusterArgs(
                spec=ClusterSpec(kubernetes_version="1.35"),
                network=NETWORK,
                vswitch_ids=["v-h", "v-i"],
                kms_key_id="k",
                protect=p,
            ),
            o,
        ),
        "alicloud:cs/managedKubernetes:ManagedKubernetes",
    ),
}
CONFIG = {"aws:region": "us-east-1", "alicloud:region": "cn-hangzhou"}
RETAINED = {"aws-key", "aws-bucket", "alicloud-key", "alicloud-bucket"}
"""Stateful children retained when protected (clusters are protected, not retained)."""


def _child(case: str, args_protect: bool, opts: pulumi.ResourceOptions) -> RecordedResource:
    build, child_type = BUILDS[case]
    plan: Plan = record(lambda: build(args_protect, opts), config=CONFIG)
    (child,) = [r for r in plan.resources if r.type == child_type]
    return child


DELETION_PROTECTION = {
    "aws-cluster": (True, False),
    "alicloud-cluster": (True, False),
    "alicloud-key": ("Enabled", "Disabled"),
}
"""The cloud's own deletion protection input (on, off), where the component sets one."""


def _deletion_protection(case: str, on: bool) -> object:
    values = DELETION_PROTECTION.get(case)
    return None if values is None else values[0 if on else 1]


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_the_callers_protect_false_wins_over_the_args_default(case: str) -> None:
    child = _child(case, True, pulumi.ResourceOptions(protect=False))
    assert (child.protect, child.retain_on_delete) == (False, False)
    assert child.inputs.get("deletionProtection") == _deletion_protection(case, on=False)


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_the_callers_protect_true_wins_over_args_protect_false(case: str) -> None:
    child = _child(case, False, pulumi.ResourceOptions(protect=True))
    assert (child.protect, child.retain_on_delete) == (True, case in RETAINED)
    assert child.inputs.get("deletionProtection") == _deletion_protection(case, on=True)


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_without_caller_options_the_args_decide(case: str) -> None:
    on, off = _child(case, True, pulumi.ResourceOptions()), _child(case, False, pulumi.ResourceOptions())
    assert (on.protect, on.retain_on_delete) == (True, case in RETAINED)
    assert (off.protect, off.retain_on_delete) == (False, False)


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_the_callers_retain_on_delete_wins(case: str) -> None:
    kept = _child(case, False, pulumi.ResourceOptions(retain_on_delete=True))
    dropped = _child(case, True, pulumi.ResourceOptions(retain_on_delete=False))
    assert (kept.protect, kept.retain_on_delete) == (False, True)
    assert (dropped.protect, dropped.retain_on_delete) == (True, False)


def test_protect_inherited_from_the_callers_parent_wins_too() -> None:
    def program() -> None:
        parent = pulumi.ComponentResource("test:index:Parent", "p", None, pulumi.ResourceOptions(protect=False))
        aws.KmsKey("c", aws.KmsKeyArgs(spec=KmsKeySpec(), alias="k"), pulumi.ResourceOptions(parent=parent))

    (key,) = [r for r in record(program, config=CONFIG).resources if r.type == "aws:kms/key:Key"]
    assert (key.protect, key.retain_on_delete) == (False, False)
