"""GpuAdminAccess: RAM roles with readable, cluster-scoped policies, mapped to the Kubernetes layer's roles."""

from __future__ import annotations

import json

import pulumi

from gpu_cloud.components.alicloud import GpuAdminAccess, GpuAdminAccessArgs
from gpu_cloud.components.alicloud.rbac import ADMIN_ACTIONS, USER_ACTIONS, ClusterAdmins, ClusterAdminsArgs
from gpu_cloud.components.k8s.rbac import ADMIN_NAMESPACE_ROLE, ADMIN_ROLE, USER_ROLE
from gpu_cloud.components.spec import AccessSpec
from tests.alicloud.support import applied, component, custom, of_type, plan_of, registered, rejected

ADMIN = "acs:ram::1234567890123456:role/ml-platform-admin"
USER = "acs:ram::1234567890123456:role/ml-researcher"


def _plan(users: tuple[str, ...] = (USER,)):  # type: ignore[no-untyped-def]
    spec = AccessSpec(admin_principals=(ADMIN,), user_principals=users)
    args = GpuAdminAccessArgs(spec=spec, cluster_id="c-123", cluster_name="prod-cn-gpu")
    plan = plan_of(lambda: GpuAdminAccess("prod-cn", args))
    component(plan, "gpucloud:alicloud:GpuAdminAccess")
    return plan


def _by_name(plan, type_: str) -> dict:  # type: ignore[no-untyped-def, type-arg]
    return {r.name: r.inputs for r in of_type(plan, type_)}


def test_children_are_a_role_policy_attachment_and_cluster_permission_per_role() -> None:
    assert sorted((r.type, r.name) for r in custom(_plan())) == [
        ("alicloud:cs/kubernetesPermission:KubernetesPermission", "prod-cn-gpu-admin-permission"),
        ("alicloud:cs/kubernetesPermission:KubernetesPermission", "prod-cn-gpu-user-permission"),
        ("alicloud:ram/policy:Policy", "prod-cn-gpu-admin-policy"),
        ("alicloud:ram/policy:Policy", "prod-cn-gpu-user-policy"),
        ("alicloud:ram/role:Role", "prod-cn-gpu-admin"),
        ("alicloud:ram/role:Role", "prod-cn-gpu-user"),
        ("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "prod-cn-gpu-admin-policy-attachment"),
        ("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "prod-cn-gpu-user-policy-attachment"),
    ]


def test_trust_policies_name_exactly_the_spec_principals() -> None:
    roles = _by_name(_plan(), "alicloud:ram/role:Role")
    trust = {n: json.loads(r["assumeRolePolicyDocument"]) for n, r in roles.items()}
    assert trust["prod-cn-gpu-admin"] == {
        "Statement": [{"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"RAM": [ADMIN]}}],
        "Version": "1",
    }
    assert trust["prod-cn-gpu-user"]["Statement"][0]["Principal"] == {"RAM": [USER]}


def test_admin_policy_allows_only_node_pool_scaling_and_describe_on_the_tagged_cluster() -> None:
    policy = json.loads(_by_name(_plan(), "alicloud:ram/policy:Policy")["prod-cn-gpu-admin-policy"]["policyDocument"])
    assert policy == {
        "Statement": [
            {
                "Action": list(ADMIN_ACTIONS),
                "Condition": {"StringEquals": {"acs:ResourceTag/gpucloud-cluster": "prod-cn-gpu"}},
                "Effect": "Allow",
                "Resource": ["acs:cs:*:*:cluster/*"],
            }
        ],
        "Version": "1",
    }
    assert "cs:ScaleClusterNodePool" in ADMIN_ACTIONS
    assert all("*" not in action for action in ADMIN_ACTIONS)


def test_user_policy_is_read_only() -> None:
    policy = json.loads(_by_name(_plan(), "alicloud:ram/policy:Policy")["prod-cn-gpu-user-policy"]["policyDocument"])
    assert policy["Statement"][0]["Action"] == list(USER_ACTIONS)
    assert all(a.startswith("cs:Describe") for a in USER_ACTIONS)


def test_policies_are_attached_as_custom_policies() -> None:
    attachments = _by_name(_plan(), "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment")
    assert {a["policyType"] for a in attachments.values()} == {"Custom"}


def _grant(role_type: str, role: str, namespace: str | None = None) -> dict:  # type: ignore[type-arg]
    grant = {"cluster": "c-123", "roleType": role_type, "roleName": role, "isCustom": True, "isRamRole": True}
    return grant if namespace is None else {**grant, "namespace": namespace}


def test_admin_gets_gpu_admin_and_gpu_admin_namespace_and_user_gets_gpu_user_in_each_gpu_namespace() -> None:
    grants = _by_name(_plan(), "alicloud:cs/kubernetesPermission:KubernetesPermission")
    namespaces = ("gpu-training", "gpu-inference")
    assert grants["prod-cn-gpu-admin-permission"]["permissions"] == [
        _grant("cluster", "gpu-admin"),
        *(_grant("namespace", "gpu-admin-namespace", n) for n in namespaces),
    ]
    assert grants["prod-cn-gpu-user-permission"]["permissions"] == [
        _grant("namespace", "gpu-user", n) for n in namespaces
    ]


def test_granted_roles_are_the_kubernetes_layers_cluster_roles() -> None:
    # ACK binds only custom ClusterRoles (KubernetesPermissionPermissionArgs.is_custom); tests/stacks checks that
    # the environment's plan declares each one.
    grants = of_type(_plan(), "alicloud:cs/kubernetesPermission:KubernetesPermission")
    assert {p["roleName"] for g in grants for p in g.inputs["permissions"]} == {
        ADMIN_ROLE,
        ADMIN_NAMESPACE_ROLE,
        USER_ROLE,
    }


def test_grants_wait_for_the_policy_attachment_and_the_cluster_roles() -> None:
    spec = AccessSpec(admin_principals=(ADMIN,), user_principals=(USER,))

    def program() -> None:
        roles = [pulumi.CustomResource("test:index:ClusterRole", f"role-{n}") for n in range(2)]
        args = GpuAdminAccessArgs(spec=spec, cluster_id="c-123", cluster_name="prod-cn-gpu", cluster_roles=roles)
        GpuAdminAccess("prod-cn", args)

    plan = plan_of(program)
    urns = {r.name: r.urn for r in plan.resources}
    for grant in of_type(plan, "alicloud:cs/kubernetesPermission:KubernetesPermission"):
        role = grant.name.removesuffix("-permission")
        waits = {urns[f"{role}-policy-attachment"], urns["role-0"], urns["role-1"]}
        assert set(grant.dependencies) == waits | {urns[role]}  # the RAM role through uid


def test_without_user_principals_there_is_no_gpu_user_role() -> None:
    assert [r.name for r in of_type(_plan(()), "alicloud:ram/role:Role")] == ["prod-cn-gpu-admin"]


def test_roles_and_policies_carry_the_tags() -> None:
    args = GpuAdminAccessArgs(
        spec=AccessSpec(admin_principals=("acs:ram::1234567890123456:role/admin",)),
        cluster_id="c-123",
        cluster_name="prod-cn-gpu",
        tags={"environment": "prod-cn"},
    )
    plan = plan_of(lambda: GpuAdminAccess("prod-cn", args))
    tagged = {(r.type, r.name): r.inputs.get("tags") for r in plan.resources if r.type.startswith("alicloud:ram/")}
    assert tagged == {
        ("alicloud:ram/role:Role", "prod-cn-gpu-admin"): {"environment": "prod-cn"},
        ("alicloud:ram/policy:Policy", "prod-cn-gpu-admin-policy"): {"environment": "prod-cn"},
        ("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "prod-cn-gpu-admin-policy-attachment"): None,
    }


DEPLOYERS = ["acs:ram::1234567890123456:role/ml-platform-deployer", "acs:ram::1234567890123456:role/ci.deployer"]


def test_every_deployer_role_is_an_ack_cluster_administrator() -> None:
    # Not only the creator (review alicloud.md F4): one grant of ACK's predefined admin role per deployer role id.
    plan = plan_of(lambda: ClusterAdmins("prod-cn-admins", ClusterAdminsArgs(cluster_id="c-123", role_arns=DEPLOYERS)))
    component(plan, "gpucloud:alicloud:ClusterAdmins")
    grants = {r.name: r.inputs for r in of_type(plan, "alicloud:cs/kubernetesPermission:KubernetesPermission")}
    assert sorted(grants) == ["prod-cn-admins-ci.deployer", "prod-cn-admins-ml-platform-deployer"]
    for grant in grants.values():
        assert grant["permissions"] == [
            {"cluster": "c-123", "roleType": "cluster", "roleName": "admin", "isCustom": False, "isRamRole": True}
        ]
    # The uid is the role's id, read by name (the plan's canned ram.get_roles answers a fixed id per name).
    assert grants["prod-cn-admins-ml-platform-deployer"]["uid"] != grants["prod-cn-admins-ci.deployer"]["uid"]
    assert all(grant["uid"].isdigit() for grant in grants.values())


def test_a_deployer_that_is_not_a_ram_role_arn_is_refused_before_anything_registers() -> None:
    args = ClusterAdminsArgs(cluster_id="c-123", role_arns=[DEPLOYERS[0], "arn:aws:iam::1:role/x"])
    error, plan = rejected(lambda: ClusterAdmins("admins", args))
    assert str(error) == ("roleArns.1: not a RAM role ARN (acs:ram::<account>:role/<name>) (got arn:aws:iam::1:role/x)")
    assert registered(plan) == []


def test_a_deployer_role_missing_from_the_account_fails_the_run_naming_it() -> None:
    def program() -> pulumi.Output[object]:
        ClusterAdmins("admins", ClusterAdminsArgs(cluster_id="c-123", role_arns=DEPLOYERS[:1]))
        return pulumi.Output.from_input(None)

    result = applied(program, answers={"alicloud:ram/getRoles:getRoles": {"roles": []}})
    assert isinstance(result.error, pulumi.RunError)
    assert "RAM role ml-platform-deployer (a deployer role) does not exist" in str(result.error)
    calls = [args for token, args in result.calls if token == "alicloud:ram/getRoles:getRoles"]
    assert calls == [{"nameRegex": "^ml\\-platform\\-deployer$"}]
