"""The physical names a plan gives that the clouds require to be unique per account (and region)."""

from __future__ import annotations

from collections.abc import Iterable

from gpu_cloud.planner.engine import Plan
from gpu_cloud.planner.model import RecordedResource

UNIQUE_NAME_INPUTS = {
    "aws:eks/cluster:Cluster": "name",
    "aws:kms/alias:Alias": "name",
    "aws:cloudwatch/logGroup:LogGroup": "name",
    "aws:s3/bucket:Bucket": "bucket",
    "aws:iam/role:Role": "name",
    "aws:codebuild/project:Project": "name",
    "aws:sqs/queue:Queue": "name",
    "aws:cloudwatch/eventRule:EventRule": "name",
    "aws:iam/instanceProfile:InstanceProfile": "name",
    "alicloud:cs/managedKubernetes:ManagedKubernetes": "name",
    "alicloud:kms/alias:Alias": "aliasName",
    "alicloud:oss/bucket:Bucket": "bucket",
    "alicloud:ram/role:Role": "roleName",
    "alicloud:ram/policy:Policy": "policyName",
}
"""Resource type -> the input that holds its account-unique name (unset: Pulumi auto-names it)."""


def clashes(resources: Iterable[RecordedResource]) -> dict[str, list[str]]:
    """The account-unique names ``resources`` (a plan's, or its JSON's) give to more than one resource of a type
    (type and name -> the resources' names in the program): each would fail at ``pulumi up`` (e.g. IAM CreateRole's
    EntityAlreadyExistsException, botocore 1.44.8 iam service model), or two programs' resources would fight over
    one cloud object."""
    holders: dict[str, list[str]] = {}
    for r in resources:
        if (key := UNIQUE_NAME_INPUTS.get(r.type)) is not None and r.inputs.get(key) is not None:
            holders.setdefault(f"{r.type} {r.inputs[key]}", []).append(r.name)
    return {name: resources for name, resources in holders.items() if len(resources) > 1}


def physical_names(plan: Plan) -> set[str]:
    """Every account-unique physical name ``plan`` sets, each prefixed with its resource type."""
    return {
        f"{r.type} {r.inputs[key]}"
        for r in plan.resources
        if (key := UNIQUE_NAME_INPUTS.get(r.type)) is not None and r.inputs.get(key) is not None
    }
