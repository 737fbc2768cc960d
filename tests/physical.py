"""The physical names a plan gives that the clouds require to be unique per account (and region)."""

from __future__ import annotations

from gpu_cloud.planner.engine import Plan

UNIQUE_NAME_INPUTS = {
    "aws:eks/cluster:Cluster": "name",
    "aws:kms/alias:Alias": "name",
    "aws:cloudwatch/logGroup:LogGroup": "name",
    "aws:s3/bucket:Bucket": "bucket",
    "aws:iam/role:Role": "name",
    "aws:codebuild/project:Project": "name",
    "alicloud:cs/managedKubernetes:ManagedKubernetes": "name",
    "alicloud:kms/alias:Alias": "aliasName",
    "alicloud:oss/bucket:Bucket": "bucket",
    "alicloud:ram/role:Role": "roleName",
    "alicloud:ram/policy:Policy": "policyName",
}
"""Resource type -> the input that holds its account-unique name (unset: Pulumi auto-names it)."""


def physical_names(plan: Plan) -> set[str]:
    """Every account-unique physical name ``plan`` sets, each prefixed with its resource type."""
    return {
        f"{r.type} {r.inputs[key]}"
        for r in plan.resources
        if (key := UNIQUE_NAME_INPUTS.get(r.type)) is not None and r.inputs.get(key) is not None
    }
