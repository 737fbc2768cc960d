"""Pulumi transforms under ``gpucloud plan``: applied as the engine applies them, before the pack sees a resource."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
import pytest
from pulumi import ResourceOptions, ResourceTransformArgs, ResourceTransformResult

from gpu_cloud.components.aws import KmsKey, KmsKeyArgs
from gpu_cloud.components.spec import KmsKeySpec
from gpu_cloud.planner.cli import main
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.planner.model import PlanError, RecordedResource
from tests.gpucloud.conftest import MakeProject


def _one(plan: Plan, type_: str) -> RecordedResource:
    (found,) = [r for r in plan.resources if r.type == type_]
    return found


def _tagging(marker: str) -> pulumi.ResourceTransform:
    """A transform that appends ``marker`` to the ``order`` tag of every resource that takes tags."""

    def transform(args: ResourceTransformArgs) -> ResourceTransformResult | None:
        if "tags" not in args.props:
            return None
        tags = dict(args.props["tags"])
        tags["order"] = tags.get("order", "") + marker
        return ResourceTransformResult(props={**args.props, "tags": tags}, opts=args.opts)

    return transform


def _no_rotation(args: ResourceTransformArgs) -> ResourceTransformResult | None:
    if args.type_ != "aws:kms/key:Key":
        return None
    return ResourceTransformResult(props={**args.props, "enableKeyRotation": False}, opts=args.opts)


def test_a_resource_transform_changes_the_recorded_inputs() -> None:
    plan = record(lambda: aws.kms.Key("key", enable_key_rotation=True, opts=ResourceOptions(transforms=[_no_rotation])))
    assert _one(plan, "aws:kms/key:Key").inputs == {"enableKeyRotation": False}


def test_a_component_transform_reaches_its_children() -> None:
    def program() -> None:
        KmsKey("team-kms", KmsKeyArgs(spec=KmsKeySpec(), alias="team"), opts=ResourceOptions(transforms=[_no_rotation]))

    plan = record(program)
    key = _one(plan, "aws:kms/key:Key")
    assert key.parent == "urn:pulumi:test::test::gpucloud:aws:KmsKey::team-kms"
    assert key.inputs["enableKeyRotation"] is False
    assert key.inputs["rotationPeriodInDays"] == 90


@pytest.mark.parametrize(
    "register", [pulumi.runtime.register_resource_transform, pulumi.runtime.register_stack_transform]
)
def test_a_stack_transform_applies_to_every_later_resource(register: object) -> None:
    def program() -> None:
        aws.ec2.Vpc("before", cidr_block="10.0.0.0/16", tags={})
        register(_tagging("stack"))  # type: ignore[operator]
        aws.ec2.Vpc("after", cidr_block="10.1.0.0/16", tags={})

    plan = record(program)
    tags = {r.name: r.inputs["tags"] for r in plan.resources if r.type == "aws:ec2/vpc:Vpc"}
    assert tags == {"before": {}, "after": {"order": "stack"}}


def test_transforms_run_own_then_each_ancestor_then_the_stack() -> None:
    def program() -> None:
        pulumi.runtime.register_resource_transform(_tagging("-stack"))
        outer = pulumi.ComponentResource(
            "test:index:Outer", "outer", opts=ResourceOptions(transforms=[_tagging("-outer")])
        )
        inner = pulumi.ComponentResource(
            "test:index:Inner", "inner", opts=ResourceOptions(parent=outer, transforms=[_tagging("-inner")])
        )
        aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", tags={"order": "own"}, opts=ResourceOptions(parent=inner))

    plan = record(program)
    assert _one(plan, "aws:ec2/vpc:Vpc").inputs["tags"] == {"order": "own-inner-outer-stack"}


def test_a_transform_can_change_the_resource_options() -> None:
    def protect(args: ResourceTransformArgs) -> ResourceTransformResult:
        return ResourceTransformResult(
            props=args.props,
            opts=ResourceOptions.merge(args.opts, ResourceOptions(protect=True, ignore_changes=["tags"])),
        )

    plan = record(lambda: aws.s3.Bucket("bucket", opts=ResourceOptions(transforms=[protect])))
    bucket = _one(plan, "aws:s3/bucket:Bucket")
    assert (bucket.protect, bucket.ignore_changes) == (True, ("tags",))


def test_the_legacy_transformations_keep_working() -> None:
    def legacy(args: pulumi.ResourceTransformationArgs) -> pulumi.ResourceTransformationResult | None:
        if args.type_ != "aws:kms/key:Key":
            return None
        return pulumi.ResourceTransformationResult(props={**args.props, "enable_key_rotation": False}, opts=args.opts)

    def program() -> None:
        KmsKey("team-kms", KmsKeyArgs(spec=KmsKeySpec(), alias="team"), opts=ResourceOptions(transformations=[legacy]))

    assert _one(record(program), "aws:kms/key:Key").inputs["enableKeyRotation"] is False


def test_a_transform_that_raises_fails_the_plan_naming_the_resource_and_line() -> None:
    def broken(args: ResourceTransformArgs) -> ResourceTransformResult:
        raise ValueError("no keys here")

    with pytest.raises(PlanError) as failure:
        record(lambda: aws.kms.Key("key", opts=ResourceOptions(transforms=[broken])))
    message = str(failure.value)
    assert message.startswith("a transform of aws:kms/key:Key 'key' failed: no keys here")
    assert 'test_transforms.py", line' in message


def test_an_invoke_transform_fails_the_plan_instead_of_being_dropped() -> None:
    def program() -> None:
        pulumi.runtime.register_invoke_transform(lambda args: None)
        aws.get_caller_identity()

    with pytest.raises(PlanError, match=r"register_invoke_transform \(invoke transforms are not applied offline\)"):
        record(program)


KMS_PROGRAM = """
    import pulumi
    from gpu_cloud.components.aws import KmsKey, KmsKeyArgs
    from gpu_cloud.components.spec import KmsKeySpec

    def no_rotation(args):
        if args.type_ == "aws:kms/key:Key":
            return pulumi.ResourceTransformResult(props={**args.props, "enableKeyRotation": False}, opts=args.opts)
        return None

    KmsKey("team-kms", KmsKeyArgs(spec=KmsKeySpec(), alias="team"),
           opts=pulumi.ResourceOptions(transforms=[no_rotation]))
"""


def test_a_transform_that_disables_rotation_is_a_kms_key_rotation_violation(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["plan", "--dir", str(make_project(KMS_PROGRAM)), "--json"])
    document = json.loads(capsys.readouterr().out)
    (key,) = [r for r in document["resources"] if r["type"] == "aws:kms/key:Key"]
    assert key["inputs"]["enableKeyRotation"] is False
    assert status == 1
    assert [(v["policy"], v["level"], v["name"]) for v in document["violations"] if v["level"] == "mandatory"] == [
        ("kms-key-rotation", "mandatory", "team-kms-key")
    ]
