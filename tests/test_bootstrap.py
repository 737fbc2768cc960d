"""The bootstrap program: a protected state bucket and a rotating key for the awskms:// secrets provider, the Auto
Scaling service-linked role, and the deploy runner (CodeBuild in a private VPC)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.policy import run_policy_pack
from gpu_cloud.planner.project import load_project, load_stack

BOOTSTRAP = Path(__file__).resolve().parent.parent / "bootstrap"


@pytest.fixture(scope="module")
def plan() -> Plan:
    project = load_project(BOOTSTRAP)
    return run_program(project, load_stack(project, "shared"))


def test_it_creates_a_key_and_a_private_bucket(plan: Plan) -> None:
    state = [r for r in plan.resources if r.custom and not r.name.startswith(("runner", "autoscaling"))]
    assert Counter(r.type for r in state) == {
        "pulumi:providers:aws": 1,
        "aws:kms/key:Key": 1,
        "aws:kms/alias:Alias": 1,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
    }


def test_the_key_rotates_every_90_days_and_both_are_protected(plan: Plan) -> None:
    [key] = [r for r in plan.resources if r.type == "aws:kms/key:Key"]
    [bucket] = [r for r in plan.resources if r.type == "aws:s3/bucket:Bucket"]
    assert (key.inputs["enableKeyRotation"], key.inputs["rotationPeriodInDays"]) == (True, 90)
    assert (key.protect, key.retain_on_delete, bucket.protect, bucket.retain_on_delete) == (True, True, True, True)


def test_outputs_name_the_backend_and_the_secrets_provider(plan: Plan) -> None:
    assert plan.outputs["backendUrl"] == "s3://gpucloud-state-shared-123456789012-us-east-1"
    assert plan.outputs["secretsProvider"] == "awskms://alias/gpucloud-pulumi-state-shared?region=us-east-1"


def test_the_policy_pack_finds_nothing(plan: Plan) -> None:
    report = run_policy_pack(POLICY_PACK, plan.resources, project=plan.project, stack=plan.stack)
    assert report.violations == ()


def test_it_creates_the_auto_scaling_service_linked_role_the_key_policies_name(plan: Plan) -> None:
    [role] = [r for r in plan.resources if r.type == "aws:iam/serviceLinkedRole:ServiceLinkedRole"]
    assert role.inputs == {"awsServiceName": "autoscaling.amazonaws.com"}
    assert role.retain_on_delete


def test_the_deploy_runner_is_codebuild_in_private_subnets_with_https_egress_only(plan: Plan) -> None:
    [project] = [r for r in plan.resources if r.type == "aws:codebuild/project:Project"]
    [group] = [r for r in plan.resources if r.name == "runner-sg"]
    subnets = {r.name: r for r in plan.resources if r.type == "aws:ec2/subnet:Subnet"}
    assert project.inputs["name"] == "gpucloud-deploy-shared"
    assert project.inputs["source"]["type"] == "S3"
    assert project.inputs["vpcConfig"]["subnets"] == ["[unknown]", "[unknown]"]
    assert [e["fromPort"] for e in group.inputs["egress"]] == [443]
    assert not any(s.inputs.get("mapPublicIpOnLaunch") for s in subnets.values())
    assert set(plan.outputs) >= {"runnerVpcId", "runnerRouteTableIds", "autoscalingServiceRoleArn"}


def test_the_runner_may_only_assume_the_deployer_roles(plan: Plan) -> None:
    import json

    [policy] = [r for r in plan.resources if r.name == "runner-policy"]
    statements = json.loads(policy.inputs["policy"])["Statement"]
    assume = [s for s in statements if s["Action"] == "sts:AssumeRole"]
    assert assume == [
        {
            "Effect": "Allow",
            "Action": "sts:AssumeRole",
            "Resource": ["arn:aws:iam::123456789012:role/ml-platform-deployer"],
        }
    ]
