"""GPU namespaces and who may do what in them: ``gpu-admin`` does scheduling work only, ``gpu-user`` runs jobs.

gpu-admin (the ``labels.ADMIN_GROUP`` group the cloud access components map) reads nodes, pods, jobs, priority
classes and events cluster-wide, cordons and uncordons nodes (patch), evicts pods, and in the GPU namespaces only
deletes pods and jobs and manages resource quotas. Nothing on secrets, RBAC objects, ``pods/exec`` or
``pods/attach``; no wildcards; no escalate, bind or impersonate. gpu-user (``labels.USER_GROUP``) runs jobs in the
GPU namespaces.
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
    "ADMIN_NAMESPACE_RULES",
    "ADMIN_ROLE",
    "GPU_NAMESPACE_LABEL",
    "USER_ROLE",
    "USER_RULES",
    "GpuRbac",
    "GpuRbacArgs",
]

ADMIN_ROLE = "gpu-admin"
"""Name of the ClusterRole and of the namespaced Roles of GPU administrators."""

USER_ROLE = "gpu-user"
"""Name of the namespaced Role of GPU users."""

GPU_NAMESPACE_LABEL = "gpucloud.io/gpu-namespace"
"""Label (value ``true``) on every GPU namespace."""

_READ = ["get", "list", "watch"]

ADMIN_CLUSTER_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["nodes"], verbs=[*_READ, "patch"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods", "events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods/eviction"], verbs=["create"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["events.k8s.io"], resources=["events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["scheduling.k8s.io"], resources=["priorityclasses"], verbs=_READ),
]
"""gpu-admin everywhere: read scheduling state, cordon/uncordon (patch nodes), evict pods."""

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
    """The GPU namespaces with the ``gpu-admin`` and ``gpu-user`` roles bound to the mapped groups.

    Children per GPU namespace: a Namespace, a gpu-admin Role and RoleBinding, a gpu-user Role and RoleBinding;
    once: the gpu-admin ClusterRole and ClusterRoleBinding.
    """

    namespaces: dict[str, k8s.core.v1.Namespace]
    """The GPU namespaces by name; other components place their objects in them (depend on these)."""
    cluster_role: k8s.rbac.v1.ClusterRole
    """The gpu-admin ClusterRole."""

    def __init__(self, name: str, args: GpuRbacArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:GpuRbac", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        admins = [k8s.rbac.v1.SubjectArgs(kind="Group", name=labels.ADMIN_GROUP, api_group="rbac.authorization.k8s.io")]
        users = [k8s.rbac.v1.SubjectArgs(kind="Group", name=labels.USER_GROUP, api_group="rbac.authorization.k8s.io")]
        self.cluster_role = k8s.rbac.v1.ClusterRole(
            f"{name}-admin", metadata=k8s.meta.v1.ObjectMetaArgs(name=ADMIN_ROLE), rules=ADMIN_CLUSTER_RULES, opts=child
        )
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-admin-binding",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=ADMIN_ROLE),
            role_ref=k8s.rbac.v1.RoleRefArgs(
                api_group="rbac.authorization.k8s.io", kind="ClusterRole", name=ADMIN_ROLE
            ),
            subjects=admins,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.cluster_role]),
        )
        namespace_labels = {GPU_NAMESPACE_LABEL: "true", **profile(args.cloud).workload_identity_namespace_labels}
        self.namespaces = {}
        for namespace in args.access.gpu_namespaces:
            created = k8s.core.v1.Namespace(
                f"{name}-{namespace}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=namespace, labels=namespace_labels),
                opts=child,
            )
            self.namespaces[namespace] = created
            for role, rules, subjects in ((ADMIN_ROLE, ADMIN_NAMESPACE_RULES, admins), (USER_ROLE, USER_RULES, users)):
                _bound_role(f"{name}-{namespace}-{role}", role, created, rules, subjects, self)
        self.register_outputs({"namespaces": list(self.namespaces)})


def _bound_role(
    resource_name: str,
    role: str,
    namespace: k8s.core.v1.Namespace,
    rules: list[k8s.rbac.v1.PolicyRuleArgs],
    subjects: list[k8s.rbac.v1.SubjectArgs],
    parent: pulumi.Resource,
) -> None:
    metadata = k8s.meta.v1.ObjectMetaArgs(name=role, namespace=namespace.metadata.name)
    created = k8s.rbac.v1.Role(
        resource_name, metadata=metadata, rules=rules, opts=pulumi.ResourceOptions(parent=parent)
    )
    k8s.rbac.v1.RoleBinding(
        f"{resource_name}-binding",
        metadata=metadata,
        role_ref=k8s.rbac.v1.RoleRefArgs(api_group="rbac.authorization.k8s.io", kind="Role", name=role),
        subjects=subjects,
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[created]),
    )
