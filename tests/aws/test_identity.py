"""PodIdentityRole: trust on EKS Pod Identity scoped to one ServiceAccount, least-privilege permissions."""

from __future__ import annotations

import pytest

from gpu_cloud.components.aws.identity import (
    PodIdentityRole,
    PodIdentityRoleArgs,
    checkpoint_statements,
    cluster_autoscaler_statements,
    job_checkpoint_statements,
)
from gpu_cloud.components.spec import ConfigError
from tests.aws.helpers import assert_policies_lint_clean, named, run, statements, type_counts


def _autoscaler() -> PodIdentityRole:
    return PodIdentityRole(
        "ca",
        PodIdentityRoleArgs(
            cluster_name="prod-gpu",
            namespace="kube-system",
            service_account="cluster-autoscaler",
            statements=cluster_autoscaler_statements,
        ),
    )


def _training() -> PodIdentityRole:
    return PodIdentityRole(
        "train",
        PodIdentityRoleArgs(
            cluster_name="prod-gpu",
            namespace="gpu-training",
            service_account="training",
            statements=checkpoint_statements("gpucloud-ckpt", "alias/gpucloud-prod"),
        ),
    )


def test_children_are_a_role_its_policy_and_the_association() -> None:
    assert type_counts(run(_autoscaler)) == {
        "aws:iam/role:Role": 1,
        "aws:iam/rolePolicy:RolePolicy": 1,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 1,
    }


def test_association_binds_the_service_account_to_the_role() -> None:
    inputs = named(run(_autoscaler), "ca-association").inputs
    assert {k: inputs[k] for k in ("clusterName", "namespace", "serviceAccount")} == {
        "clusterName": "prod-gpu",
        "namespace": "kube-system",
        "serviceAccount": "cluster-autoscaler",
    }


def test_trust_is_pod_identity_for_one_service_account_of_one_cluster() -> None:
    (trust,) = statements(named(run(_autoscaler), "ca-role").inputs["assumeRolePolicy"])
    assert trust == {
        "Effect": "Allow",
        "Principal": {"Service": "pods.eks.amazonaws.com"},
        "Action": ["sts:AssumeRole", "sts:TagSession"],
        "Condition": {
            "StringEquals": {
                "aws:RequestTag/eks-cluster-name": "prod-gpu",
                "aws:RequestTag/kubernetes-namespace": "kube-system",
                "aws:RequestTag/kubernetes-service-account": "cluster-autoscaler",
            }
        },
    }


def test_autoscaler_scales_only_groups_tagged_for_its_cluster() -> None:
    scale, read, nodegroups = statements(named(run(_autoscaler), "ca-policy").inputs["policy"])
    assert scale == {
        "Sid": "ScaleThisClustersGroups",
        "Effect": "Allow",
        "Action": ["autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup"],
        "Resource": "arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:*:autoScalingGroupName/*",
        "Condition": {"StringEquals": {"aws:ResourceTag/k8s.io/cluster-autoscaler/prod-gpu": "owned"}},
    }
    assert read["Resource"] == "*"
    assert all(":Describe" in a or ":Get" in a for a in read["Action"])
    assert nodegroups["Action"] == ["eks:DescribeNodegroup"]
    assert nodegroups["Resource"] == "arn:aws:eks:us-east-1:123456789012:nodegroup/prod-gpu/*/*"


def test_training_role_reaches_only_the_checkpoint_bucket_and_key() -> None:
    bucket, objects, key = statements(named(run(_training), "train-policy").inputs["policy"])
    name = "arn:aws:s3:::gpucloud-ckpt-test-123456789012-us-east-1"
    assert (bucket["Resource"], objects["Resource"]) == (name, f"{name}/*")
    assert objects["Action"] == [
        "s3:AbortMultipartUpload",
        "s3:DeleteObject",
        "s3:GetObject",
        "s3:ListMultipartUploadParts",
        "s3:PutObject",
    ]
    assert key == {
        "Sid": "Key",
        "Effect": "Allow",
        "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
        "Resource": "arn:aws:kms:us-east-1:123456789012:key/*",
        "Condition": {"ForAnyValue:StringEquals": {"kms:ResourceAliases": "alias/gpucloud-prod"}},
    }


def _job() -> PodIdentityRole:
    return PodIdentityRole(
        "job",
        PodIdentityRoleArgs(
            cluster_name="prod-gpu",
            namespace="gpu-training",
            service_account="llm",
            statements=job_checkpoint_statements("gpucloud-ckpt", "alias/gpucloud-prod", "jobs/llm/"),
        ),
    )


def test_a_jobs_role_reaches_only_its_checkpoint_prefix() -> None:
    listing, objects, key = statements(named(run(_job), "job-policy").inputs["policy"])
    name = "arn:aws:s3:::gpucloud-ckpt-test-123456789012-us-east-1"
    assert listing == {
        "Sid": "ListCheckpoints",
        "Effect": "Allow",
        "Action": ["s3:ListBucket"],
        "Resource": name,
        "Condition": {"StringLike": {"s3:prefix": ["jobs/llm/", "jobs/llm/*"]}},
    }
    assert (objects["Resource"], objects["Action"]) == (
        f"{name}/jobs/llm/*",
        ["s3:AbortMultipartUpload", "s3:DeleteObject", "s3:GetObject", "s3:ListMultipartUploadParts", "s3:PutObject"],
    )
    assert key["Action"] == ["kms:Decrypt", "kms:GenerateDataKey"]


@pytest.mark.parametrize("build", [_autoscaler, _training, _job])
def test_policies_are_readable_and_lint_clean(build: object) -> None:
    assert assert_policies_lint_clean(run(build)) == 2  # type: ignore[arg-type]


def test_an_empty_service_account_is_rejected_before_anything_registers() -> None:
    args = PodIdentityRoleArgs(
        cluster_name="c", namespace="", service_account="sa", statements=cluster_autoscaler_statements
    )
    registered: list[str] = []

    def program() -> None:
        with pytest.raises(ConfigError, match=r"^namespace: empty \(got \)$"):
            PodIdentityRole("x", args)

    plan = run(program)
    registered = [r.type for r in plan.resources if r.type != "pulumi:pulumi:Stack"]
    assert registered == []
