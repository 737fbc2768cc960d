import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.k8s import GpuRbac, GpuRbacArgs
from gpu_cloud.components.spec import AccessSpec, Cloud
from tests.k8s.conftest import assert_valid, children, kinds, one, run

READ = ["get", "list", "watch"]


def _plan(access: AccessSpec, cloud: Cloud = Cloud.AWS):
    return run(lambda opts: GpuRbac("rbac", GpuRbacArgs(access=access, cloud=cloud), opts=opts))


def test_children_are_the_cluster_role_and_per_namespace_roles(access):
    per_namespace = []
    for ns in ("gpu-training", "gpu-inference"):
        per_namespace += [
            ("kubernetes:core/v1:Namespace", f"rbac-{ns}"),
            ("kubernetes:rbac.authorization.k8s.io/v1:Role", f"rbac-{ns}-gpu-admin"),
            ("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", f"rbac-{ns}-gpu-admin-binding"),
            ("kubernetes:rbac.authorization.k8s.io/v1:Role", f"rbac-{ns}-gpu-user"),
            ("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", f"rbac-{ns}-gpu-user-binding"),
        ]
    assert sorted(kinds(_plan(access))) == sorted(
        [
            ("gpucloud:k8s:GpuRbac", "rbac"),
            ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "rbac-admin"),
            ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "rbac-admin-binding"),
            *per_namespace,
        ]
    )


def test_children_use_the_provider_given_in_opts(access):
    plan = _plan(access)
    [provider] = [r for r in plan.resources if r.type == "pulumi:providers:kubernetes"]
    assert {r.provider.rsplit("::", 1)[0] for r in children(plan)[1:]} == {provider.urn}


def test_gpu_admin_cluster_role_only_reads_cordons_and_evicts(access):
    inputs = one(_plan(access), "rbac-admin").inputs
    assert inputs["kind"] == "ClusterRole"
    assert inputs["metadata"] == {"name": "gpu-admin"}
    assert inputs["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": [*READ, "patch"]},
        {"apiGroups": [""], "resources": ["pods", "events"], "verbs": READ},
        {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
        {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": READ},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": READ},
        {"apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"], "verbs": READ},
    ]


def test_gpu_admin_deletes_pods_and_jobs_and_manages_quotas_only_in_gpu_namespaces(access):
    inputs = one(_plan(access), "rbac-gpu-training-gpu-admin").inputs
    assert inputs["kind"] == "Role"
    assert inputs["metadata"] == {"name": "gpu-admin", "namespace": "gpu-training"}
    assert inputs["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["delete"]},
        {"apiGroups": [""], "resources": ["resourcequotas"], "verbs": [*READ, "create", "update", "patch", "delete"]},
    ]


def test_gpu_user_runs_jobs_in_its_namespace(access):
    inputs = one(_plan(access), "rbac-gpu-inference-gpu-user").inputs
    assert inputs["metadata"] == {"name": "gpu-user", "namespace": "gpu-inference"}
    assert inputs["rules"] == [
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": [*READ, "create", "delete"]},
        {"apiGroups": [""], "resources": ["pods", "events"], "verbs": READ},
        {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
    ]


def test_no_role_grants_wildcards_secrets_rbac_exec_or_escalation(access):
    roles = [r for r in children(_plan(access)) if r.type.endswith((":Role", ":ClusterRole"))]
    assert len(roles) == 5
    for role in roles:
        for rule in role.inputs["rules"]:
            words = rule["apiGroups"] + rule["resources"] + rule["verbs"]
            assert "*" not in words
            assert not {"secrets", "pods/exec", "pods/attach", "roles", "clusterroles"} & set(rule["resources"])
            assert "rbac.authorization.k8s.io" not in rule["apiGroups"]
            assert not {"escalate", "bind", "impersonate"} & set(rule["verbs"])


def test_admin_bindings_bind_the_mapped_admin_group(access):
    plan = _plan(access)
    group = [{"kind": "Group", "name": labels.ADMIN_GROUP, "apiGroup": "rbac.authorization.k8s.io"}]
    cluster = one(plan, "rbac-admin-binding")
    assert cluster.inputs["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "gpu-admin",
    }
    assert cluster.inputs["subjects"] == group
    namespaced = one(plan, "rbac-gpu-training-gpu-admin-binding")
    assert namespaced.inputs["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": "gpu-admin",
    }
    assert namespaced.inputs["subjects"] == group


def test_user_binding_binds_the_mapped_user_group(access):
    binding = one(_plan(access), "rbac-gpu-training-gpu-user-binding")
    assert binding.inputs["subjects"] == [
        {"kind": "Group", "name": labels.USER_GROUP, "apiGroup": "rbac.authorization.k8s.io"}
    ]


@pytest.mark.parametrize(
    ("cloud", "expected"),
    [
        (Cloud.AWS, {"gpucloud.io/gpu-namespace": "true"}),
        (Cloud.ALICLOUD, {"gpucloud.io/gpu-namespace": "true", "pod-identity.alibabacloud.com/injection": "on"}),
    ],
)
def test_gpu_namespaces_carry_the_clouds_identity_labels(access, cloud, expected):
    assert one(_plan(access, cloud), "rbac-gpu-training").inputs["metadata"]["labels"] == expected


def test_every_rbac_object_is_valid_kubernetes(access):
    for resource in children(_plan(access))[1:]:
        assert_valid(resource)
