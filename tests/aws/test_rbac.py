"""GpuAdminAccess: gpu-admin may only do scheduling work on this cluster's node groups; gpu-user only reads."""

from __future__ import annotations

import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.aws.rbac import GpuAdminAccess, GpuAdminAccessArgs
from gpu_cloud.components.spec import AccessSpec, ConfigError
from tests.aws.helpers import assert_policies_lint_clean, named, of_type, run, statements, type_counts

ADMIN = "arn:aws:iam::123456789012:role/ml-platform-admin"
USER = "arn:aws:iam::123456789012:role/ml-researcher"
CLUSTER = "arn:aws:eks:us-east-1:123456789012:cluster/gpu"
NODEGROUPS = "arn:aws:eks:us-east-1:123456789012:nodegroup/gpu/*/*"


def _access(users: tuple[str, ...] = (USER,)) -> None:
    spec = AccessSpec(admin_principals=(ADMIN,), user_principals=users)
    GpuAdminAccess("access", GpuAdminAccessArgs(spec=spec, cluster_name="gpu"))


def test_children() -> None:
    assert type_counts(run(_access)) == {
        "aws:iam/role:Role": 2,
        "aws:iam/rolePolicy:RolePolicy": 2,
        "aws:eks/accessEntry:AccessEntry": 2,
    }


def test_without_user_principals_there_is_no_gpu_user_role() -> None:
    plan = run(lambda: _access(users=()))
    assert [r.inputs["name"] for r in of_type(plan, "aws:iam/role:Role")] == ["access-admin-test"]


def test_role_names_derive_from_the_component_name_so_two_of_them_never_collide() -> None:
    def two() -> None:
        spec = AccessSpec(admin_principals=(ADMIN,), user_principals=(USER,))
        GpuAdminAccess("train-access", GpuAdminAccessArgs(spec=spec, cluster_name="train"))
        GpuAdminAccess("serve-access", GpuAdminAccessArgs(spec=spec, cluster_name="serve", role_base="serve-gpu"))

    assert sorted(r.inputs["name"] for r in of_type(run(two), "aws:iam/role:Role")) == [
        "serve-gpu-admin-test",
        "serve-gpu-user-test",
        "train-access-admin-test",
        "train-access-user-test",
    ]


def test_gpu_admin_trusts_only_the_admin_principals() -> None:
    role = named(run(_access), "access-admin-role").inputs
    assert role["name"] == "access-admin-test"
    assert statements(role["assumeRolePolicy"]) == [
        {"Effect": "Allow", "Principal": {"AWS": [ADMIN]}, "Action": "sts:AssumeRole"}
    ]


def test_gpu_admin_policy_allows_only_scheduling_on_this_clusters_node_groups() -> None:
    assert statements(named(run(_access), "access-admin-policy").inputs["policy"]) == [
        {
            "Sid": "Cluster",
            "Effect": "Allow",
            "Action": ["eks:DescribeCluster", "eks:ListNodegroups"],
            "Resource": CLUSTER,
        },
        {
            "Sid": "NodeGroups",
            "Effect": "Allow",
            "Action": ["eks:DescribeNodegroup", "eks:UpdateNodegroupConfig"],
            "Resource": NODEGROUPS,
        },
    ]


def test_gpu_user_policy_is_read_only() -> None:
    policy = statements(named(run(_access), "access-user-policy").inputs["policy"])
    assert [s["Action"] for s in policy] == [["eks:DescribeCluster", "eks:ListNodegroups"], ["eks:DescribeNodegroup"]]
    assert statements(named(run(_access), "access-user-role").inputs["assumeRolePolicy"])[0]["Principal"] == {
        "AWS": [USER]
    }


def test_access_entries_map_roles_to_the_kubernetes_groups_without_access_policies() -> None:
    plan = run(_access)
    admin = named(plan, "access-admin-entry")
    assert admin.inputs["type"] == "STANDARD"
    assert admin.inputs["kubernetesGroups"] == [labels.ADMIN_GROUP]
    assert admin.inputs["clusterName"] == "gpu"
    assert admin.property_dependencies["principalArn"] == (named(plan, "access-admin-role").urn,)
    assert named(plan, "access-user-entry").inputs["kubernetesGroups"] == [labels.USER_GROUP]
    assert of_type(plan, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation") == []


def test_policies_lint_clean() -> None:
    assert assert_policies_lint_clean(run(_access)) == 4


def test_bad_principal_is_rejected() -> None:
    spec = AccessSpec(admin_principals=("acs:ram::123:role/x",))
    with pytest.raises(
        ConfigError, match=r"^adminPrincipals\.0: not an aws role or user ARN \(got acs:ram::123:role/x\)$"
    ):
        GpuAdminAccess("access", GpuAdminAccessArgs(spec=spec, cluster_name="gpu"))
