import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.k8s import GpuRbac, GpuRbacArgs
from gpu_cloud.components.spec import AccessSpec, Cloud
from tests.k8s.conftest import assert_valid, children, kinds, one, run

READ = ["get", "list", "watch"]
CLUSTER_ROLES = [
    ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "rbac-admin"),
    ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "rbac-admin-namespace"),
    ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRole", "rbac-user"),
]
NAMESPACES = ("gpu-training", "gpu-inference")


def _plan(access: AccessSpec, cloud: Cloud = Cloud.AWS):
    return run(lambda opts: GpuRbac("rbac", GpuRbacArgs(access=access, cloud=cloud), opts=opts))


def test_aws_children_are_the_cluster_roles_and_their_group_bindings_per_namespace(access):
    per_namespace = []
    for ns in NAMESPACES:
        per_namespace += [
            ("kubernetes:core/v1:Namespace", f"rbac-{ns}"),
            ("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", f"rbac-{ns}-gpu-admin-namespace-binding"),
            ("kubernetes:rbac.authorization.k8s.io/v1:RoleBinding", f"rbac-{ns}-gpu-user-binding"),
        ]
    assert sorted(kinds(_plan(access))) == sorted(
        [
            ("gpucloud:k8s:GpuRbac", "rbac"),
            *CLUSTER_ROLES,
            ("kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding", "rbac-admin-binding"),
            *per_namespace,
        ]
    )


def test_ack_binds_no_group_since_grant_permissions_binds_the_cluster_roles(access):
    assert sorted(kinds(_plan(access, Cloud.ALICLOUD))) == sorted(
        [
            ("gpucloud:k8s:GpuRbac", "rbac"),
            *CLUSTER_ROLES,
            *(("kubernetes:core/v1:Namespace", f"rbac-{ns}") for ns in NAMESPACES),
        ]
    )


def test_children_use_the_provider_given_in_opts(access):
    plan = _plan(access)
    [provider] = [r for r in plan.resources if r.type == "pulumi:providers:kubernetes"]
    assert {r.provider.rsplit("::", 1)[0] for r in children(plan)[1:]} == {provider.urn}


def test_gpu_admin_cluster_role_reads_cordons_and_drains(access):
    inputs = one(_plan(access), "rbac-admin").inputs
    assert inputs["kind"] == "ClusterRole"
    assert inputs["metadata"] == {"name": "gpu-admin"}
    assert inputs["rules"] == [
        {"apiGroups": [""], "resources": ["nodes"], "verbs": [*READ, "patch"]},
        {"apiGroups": [""], "resources": ["pods", "events"], "verbs": READ},
        {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
        # kubectl drain --ignore-daemonsets GETs the DaemonSet of each DaemonSet pod (pkg/drain/filters.go).
        {"apiGroups": ["apps"], "resources": ["daemonsets"], "verbs": ["get"]},
        {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": READ},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": READ},
        {"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": READ},
        {
            "apiGroups": ["kueue.x-k8s.io"],
            "resources": ["workloads", "localqueues", "clusterqueues", "resourceflavors", "workloadpriorityclasses"],
            "verbs": READ,
        },
        {"apiGroups": ["scheduling.k8s.io"], "resources": ["priorityclasses"], "verbs": READ},
    ]


def _allows(rules, group: str, resource: str, verb: str) -> bool:
    return any(group in r["apiGroups"] and resource in r["resources"] and verb in r["verbs"] for r in rules)


def test_gpu_admin_has_every_request_kubectl_drain_makes(access):
    rules = one(_plan(access), "rbac-admin").inputs["rules"]
    # cordon: get and patch the node; list the node's pods; GET the owning DaemonSets; evict the others.
    for group, resource, verb in (
        ("", "nodes", "get"),
        ("", "nodes", "patch"),
        ("", "pods", "list"),
        ("apps", "daemonsets", "get"),
        ("", "pods/eviction", "create"),
    ):
        assert _allows(rules, group, resource, verb), (group, resource, verb)


def test_gpu_admin_namespace_role_deletes_pods_and_jobs_manages_jobsets_workloads_and_quotas(access):
    inputs = one(_plan(access), "rbac-admin-namespace").inputs
    assert inputs["kind"] == "ClusterRole"
    assert inputs["metadata"] == {"name": "gpu-admin-namespace"}
    assert inputs["rules"] == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]},
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["delete"]},
        {"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": ["update", "patch", "delete"]},
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads"], "verbs": ["update", "patch", "delete"]},
        {"apiGroups": [""], "resources": ["resourcequotas"], "verbs": [*READ, "create", "update", "patch", "delete"]},
    ]


def test_gpu_user_runs_jobs_and_jobsets_and_follows_their_kueue_workloads(access):
    inputs = one(_plan(access), "rbac-user").inputs
    assert inputs["metadata"] == {"name": "gpu-user"}
    assert inputs["rules"] == [
        {"apiGroups": ["batch"], "resources": ["jobs"], "verbs": [*READ, "create", "delete"]},
        {"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets"], "verbs": [*READ, "create", "delete"]},
        {"apiGroups": ["jobset.x-k8s.io"], "resources": ["jobsets/status"], "verbs": ["get"]},
        {"apiGroups": ["kueue.x-k8s.io"], "resources": ["workloads", "localqueues"], "verbs": READ},
        {"apiGroups": [""], "resources": ["pods", "events"], "verbs": READ},
        {"apiGroups": [""], "resources": ["pods/log"], "verbs": ["get"]},
    ]


# The requests of the documented commands (docs/training.md): kubectl create -f <JobSet> is a POST of jobsets;
# kubectl get workloads a LIST of kueue.x-k8s.io workloads; kubectl delete jobset a DELETE; logs GET pods/log.
USER_COMMANDS = [
    ("jobset.x-k8s.io", "jobsets", "create"),
    ("jobset.x-k8s.io", "jobsets", "delete"),
    ("jobset.x-k8s.io", "jobsets", "list"),
    ("kueue.x-k8s.io", "workloads", "list"),
    ("kueue.x-k8s.io", "workloads", "get"),
    ("", "pods/log", "get"),
]


@pytest.mark.parametrize(("group", "resource", "verb"), USER_COMMANDS)
def test_gpu_user_may_submit_delete_and_follow_training_the_documented_way(access, group, resource, verb):
    assert _allows(one(_plan(access), "rbac-user").inputs["rules"], group, resource, verb)


@pytest.mark.parametrize(
    ("group", "resource", "verb"),
    [
        ("jobset.x-k8s.io", "jobsets", "patch"),
        ("kueue.x-k8s.io", "workloads", "update"),
        ("", "pods", "create"),
        ("apps", "deployments", "create"),
        ("kueue.x-k8s.io", "clusterqueues", "update"),
    ],
)
def test_gpu_user_may_not_change_queues_admitted_workloads_or_run_other_kinds(access, group, resource, verb):
    assert not _allows(one(_plan(access), "rbac-user").inputs["rules"], group, resource, verb)


@pytest.mark.parametrize(
    ("role", "group", "resource", "verb"),
    [
        ("rbac-admin", "jobset.x-k8s.io", "jobsets", "list"),
        ("rbac-admin", "kueue.x-k8s.io", "workloads", "list"),
        ("rbac-admin", "kueue.x-k8s.io", "clusterqueues", "get"),
        ("rbac-admin-namespace", "jobset.x-k8s.io", "jobsets", "delete"),
        ("rbac-admin-namespace", "jobset.x-k8s.io", "jobsets", "patch"),
        # kubectl patch workload <w> --type merge -p '{"spec":{"active":false}}' evicts and deactivates it.
        ("rbac-admin-namespace", "kueue.x-k8s.io", "workloads", "patch"),
    ],
)
def test_gpu_admin_may_manage_jobsets_and_workloads(access, role, group, resource, verb):
    assert _allows(one(_plan(access), role).inputs["rules"], group, resource, verb)


def test_no_role_grants_wildcards_secrets_rbac_exec_or_escalation(access):
    roles = [r for r in children(_plan(access)) if r.type.endswith((":Role", ":ClusterRole"))]
    assert len(roles) == 3
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
    assert "namespace" not in cluster.inputs["metadata"]
    namespaced = one(plan, "rbac-gpu-training-gpu-admin-namespace-binding")
    assert namespaced.inputs["kind"] == "RoleBinding"
    assert namespaced.inputs["metadata"] == {"name": "gpu-admin-namespace", "namespace": "gpu-training"}
    assert namespaced.inputs["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "gpu-admin-namespace",
    }
    assert namespaced.inputs["subjects"] == group


def test_user_binding_binds_the_mapped_user_group_in_its_namespace_only(access):
    binding = one(_plan(access), "rbac-gpu-inference-gpu-user-binding")
    assert binding.inputs["kind"] == "RoleBinding"
    assert binding.inputs["metadata"] == {"name": "gpu-user", "namespace": "gpu-inference"}
    assert binding.inputs["roleRef"]["name"] == "gpu-user"
    assert binding.inputs["subjects"] == [
        {"kind": "Group", "name": labels.USER_GROUP, "apiGroup": "rbac.authorization.k8s.io"}
    ]


def test_every_binding_names_a_declared_cluster_role(access):
    plan = _plan(access)
    declared = {r.inputs["metadata"]["name"] for r in children(plan) if r.type.endswith(":ClusterRole")}
    bindings = [r for r in children(plan) if r.type.endswith("Binding")]
    assert len(bindings) == 5
    for binding in bindings:
        assert binding.inputs["roleRef"]["kind"] == "ClusterRole"
        assert binding.inputs["roleRef"]["name"] in declared


POD_SECURITY = {
    "pod-security.kubernetes.io/enforce": "baseline",
    "pod-security.kubernetes.io/warn": "restricted",
    "pod-security.kubernetes.io/audit": "restricted",
}


@pytest.mark.parametrize(
    ("cloud", "expected"),
    [
        (Cloud.AWS, {"gpucloud.io/gpu-namespace": "true", **POD_SECURITY}),
        (
            Cloud.ALICLOUD,
            {"gpucloud.io/gpu-namespace": "true", **POD_SECURITY, "pod-identity.alibabacloud.com/injection": "on"},
        ),
    ],
)
def test_gpu_namespaces_enforce_pod_security_and_carry_the_clouds_identity_labels(access, cloud, expected):
    for ns in NAMESPACES:
        assert one(_plan(access, cloud), f"rbac-{ns}").inputs["metadata"]["labels"] == expected


@pytest.mark.parametrize("cloud", list(Cloud))
def test_every_rbac_object_is_valid_kubernetes(access, cloud):
    for resource in children(_plan(access, cloud))[1:]:
        assert_valid(resource)
