"""GPU namespaces and who may do what in them: ``gpu-admin`` does scheduling work only, ``gpu-user`` runs jobs.

gpu-admin reads nodes, pods, jobs, priority classes and events cluster-wide, cordons, uncordons and drains nodes
(patch nodes, evict pods, read the DaemonSets that own pods), and in the GPU namespaces only deletes pods and jobs
and manages resource quotas. Nothing on secrets, RBAC objects, ``pods/exec`` or ``pods/attach``; no wildcards; no
escalate, bind or impersonate. gpu-user runs jobs in the GPU namespaces.

Every right is a ClusterRole; the namespaced ones (:data:`ADMIN_NAMESPACE_ROLE`, :data:`USER_ROLE`) are bound per
GPU namespace only. Who gets them depends on how the cloud maps identities (``CloudProfile.maps_groups``): on EKS
the access entries put IAM roles in the ``labels.ADMIN_GROUP``/``labels.USER_GROUP`` groups, which the bindings
here name; on ACK, GrantPermissions (``components.alicloud.GpuAdminAccess``) binds these ClusterRoles to the RAM
roles itself, since ACK binds only custom ClusterRoles and maps no Kubernetes groups.

The GPU namespaces enforce the Pod Security Standard ``baseline`` (no privileged, host namespace or hostPath pods:
gpu-user's Jobs cannot take over a GPU node) and warn and audit on ``restricted``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.spec import AccessSpec, Cloud

__all__ = [
    "ADMIN_CLUSTER_RULES",
    "ADMIN_NAMESPACE_ROLE",
    "ADMIN_NAMESPACE_RULES",
    "ADMIN_ROLE",
    "GPU_NAMESPACE_LABEL",
    "POD_SECURITY_LABELS",
    "USER_ROLE",
    "USER_RULES",
    "GpuRbac",
    "GpuRbacArgs",
]

ADMIN_ROLE = "gpu-admin"
"""Name of the cluster-wide ClusterRole of GPU administrators."""

ADMIN_NAMESPACE_ROLE = "gpu-admin-namespace"
"""Name of the ClusterRole of GPU administrators' rights in a GPU namespace (bound per namespace only)."""

USER_ROLE = "gpu-user"
"""Name of the ClusterRole of GPU users (bound per GPU namespace only)."""

GPU_NAMESPACE_LABEL = "gpucloud.io/gpu-namespace"
"""Label (value ``true``) on every GPU namespace."""

POD_SECURITY_LABELS = {
    "pod-security.kubernetes.io/enforce": "baseline",
    "pod-security.kubernetes.io/warn": "restricted",
    "pod-security.kubernetes.io/audit": "restricted",
}
"""Pod Security admission on the GPU namespaces: enforce ``baseline``, warn and audit ``restricted``
(kubernetes.io/docs/concepts/security/pod-security-admission, "Pod Security Admission labels for namespaces";
read 2026-12-02). Device-plugin GPUs need no privilege, so GPU pods pass ``baseline``."""

_READ = ["get", "list", "watch"]

ADMIN_CLUSTER_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["nodes"], verbs=[*_READ, "patch"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods", "events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods/eviction"], verbs=["create"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["apps"], resources=["daemonsets"], verbs=["get"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["events.k8s.io"], resources=["events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["scheduling.k8s.io"], resources=["priorityclasses"], verbs=_READ),
]
"""gpu-admin everywhere: read scheduling state, cordon/uncordon (patch nodes), drain. ``kubectl drain
--ignore-daemonsets`` lists the node's pods, GETs the DaemonSet owning each DaemonSet pod (anything but NotFound
fails the drain) and evicts the rest (k8s.io/kubectl pkg/drain/filters.go ``daemonSetFilter``, pkg/drain/drain.go
``EvictPod``; read 2026-12-02)."""

ADMIN_NAMESPACE_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods"], verbs=["delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=["delete"]),
    k8s.rbac.v1.PolicyRuleArgs(
        api_groups=[""], resources=["resourcequotas"], verbs=[*_READ, "create", "update", "patch", "delete"]
    ),
]
"""gpu-admin in a GPU namespace: delete pods and jobs, manage resource quotas."""

USER_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=[*_READ, "create", "delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods", "events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods/log"], verbs=["get"]),
]
"""gpu-user in a GPU namespace: run jobs and follow them (no exec, attach or secrets)."""


@dataclass(frozen=True)
class GpuRbacArgs:
    """Inputs of :class:`GpuRbac`.

    Attributes:
        access: Who administers and who uses GPUs; ``gpu_namespaces`` are the namespaces created here.
        cloud: The cluster's cloud (its workload-identity webhook may need namespace labels).
    """

    access: AccessSpec
    cloud: Cloud


class GpuRbac(pulumi.ComponentResource):
    """The GPU namespaces and the ``gpu-admin``, ``gpu-admin-namespace`` and ``gpu-user`` ClusterRoles; where the
    cloud maps groups, their bindings to the mapped groups.

    Children: the three ClusterRoles; per GPU namespace a Namespace. Where ``CloudProfile.maps_groups``: the
    gpu-admin ClusterRoleBinding and, per GPU namespace, RoleBindings of gpu-admin-namespace and gpu-user.
    """

    namespaces: dict[str, k8s.core.v1.Namespace]
    """The GPU namespaces by name; other components place their objects in them (depend on these)."""
    cluster_roles: dict[str, k8s.rbac.v1.ClusterRole]
    """The ClusterRoles by name (the cloud's grants reference these)."""

    def __init__(self, name: str, args: GpuRbacArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:GpuRbac", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        cloud = profile(args.cloud)
        self.cluster_roles = {
            role: k8s.rbac.v1.ClusterRole(
                f"{name}-{suffix}", metadata=k8s.meta.v1.ObjectMetaArgs(name=role), rules=rules, opts=child
            )
            for role, suffix, rules in (
                (ADMIN_ROLE, "admin", ADMIN_CLUSTER_RULES),
                (ADMIN_NAMESPACE_ROLE, "admin-namespace", ADMIN_NAMESPACE_RULES),
                (USER_ROLE, "user", USER_RULES),
            )
        }
        if cloud.maps_groups:
            self._bind(f"{name}-admin-binding", ADMIN_ROLE, labels.ADMIN_GROUP, None)
        namespace_labels = {
            GPU_NAMESPACE_LABEL: "true",
            **POD_SECURITY_LABELS,
            **cloud.workload_identity_namespace_labels,
        }
        self.namespaces = {}
        for namespace in args.access.gpu_namespaces:
            created = k8s.core.v1.Namespace(
                f"{name}-{namespace}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=namespace, labels=namespace_labels),
                opts=child,
            )
            self.namespaces[namespace] = created
            if cloud.maps_groups:
                for role, group in ((ADMIN_NAMESPACE_ROLE, labels.ADMIN_GROUP), (USER_ROLE, labels.USER_GROUP)):
                    self._bind(f"{name}-{namespace}-{role}-binding", role, group, created)
        self.register_outputs({"namespaces": list(self.namespaces)})

    def _bind(self, resource_name: str, role: str, group: str, namespace: k8s.core.v1.Namespace | None) -> None:
        """Bind the ClusterRole ``role`` to ``group``: cluster-wide, or in ``namespace`` only."""
        metadata = k8s.meta.v1.ObjectMetaArgs(
            name=role, namespace=None if namespace is None else namespace.metadata.name
        )
        binding = k8s.rbac.v1.ClusterRoleBinding if namespace is None else k8s.rbac.v1.RoleBinding
        binding(
            resource_name,
            metadata=metadata,
            role_ref=k8s.rbac.v1.RoleRefArgs(api_group="rbac.authorization.k8s.io", kind="ClusterRole", name=role),
            subjects=[k8s.rbac.v1.SubjectArgs(kind="Group", name=group, api_group="rbac.authorization.k8s.io")],
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.cluster_roles[role]]),
        )
