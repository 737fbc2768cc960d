"""GPU namespaces and who may do what in them: ``gpu-admin`` does scheduling work only, ``gpu-user`` runs jobs.

gpu-admin reads nodes, pods, jobs, JobSets, Kueue's queues and workloads, priority classes and events cluster-wide,
cordons, uncordons and drains nodes (patch nodes, evict pods, read the DaemonSets that own pods), and in the GPU
namespaces only deletes pods and jobs, manages JobSets and Kueue workloads (deactivate, delete) and manages resource
quotas. Nothing on secrets, RBAC objects, ``pods/exec`` or ``pods/attach``; no wildcards; no escalate, bind or
impersonate. gpu-user runs jobs and JobSets in the GPU namespaces and follows them and their Kueue workloads.

Running a pod as a ServiceAccount gives it that ServiceAccount's cloud identity, and RBAC cannot say which
ServiceAccount a workload may name ("Workload creation", kubernetes.io/docs/concepts/security/rbac-good-practices,
read 2026-12-03): :class:`WorkloadIdentityGuard` is a ValidatingAdmissionPolicy that keeps each job's and inference
service's own ServiceAccount to that workload.

Every right is a ClusterRole; the namespaced ones (:data:`ADMIN_NAMESPACE_ROLE`, :data:`USER_ROLE`) are bound per
GPU namespace only. Who gets them depends on how the cloud maps identities (``CloudProfile.maps_groups``): on EKS
the access entries put IAM roles in the ``labels.ADMIN_GROUP``/``labels.USER_GROUP`` groups, which the bindings
here name; on ACK, GrantPermissions (``components.alicloud.GpuAdminAccess``) binds these ClusterRoles to the RAM
roles itself, since ACK binds only custom ClusterRoles and maps no Kubernetes groups.

The GPU namespaces enforce the Pod Security Standard ``baseline`` (no privileged, host namespace or hostPath pods:
gpu-user's Jobs cannot take over a GPU node) and warn and audit on ``restricted``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.k8s.objects import custom_object
from gpu_cloud.components.spec import AccessSpec, Cloud

__all__ = [
    "ADMIN_CLUSTER_RULES",
    "ADMIN_NAMESPACE_ROLE",
    "ADMIN_NAMESPACE_RULES",
    "ADMIN_ROLE",
    "GPU_NAMESPACE_LABEL",
    "IDENTITY_POLICY",
    "JOBSET_CONTROLLER",
    "POD_SECURITY_LABELS",
    "USER_ROLE",
    "USER_RULES",
    "GpuRbac",
    "GpuRbacArgs",
    "WorkloadIdentityGuard",
    "WorkloadIdentityGuardArgs",
    "identity_policy_spec",
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
_JOBSET = "jobset.x-k8s.io"
_KUEUE = "kueue.x-k8s.io"

ADMIN_CLUSTER_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["nodes"], verbs=[*_READ, "patch"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods", "events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods/eviction"], verbs=["create"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["apps"], resources=["daemonsets"], verbs=["get"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["events.k8s.io"], resources=["events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[_JOBSET], resources=["jobsets"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(
        api_groups=[_KUEUE],
        resources=["workloads", "localqueues", "clusterqueues", "resourceflavors", "workloadpriorityclasses"],
        verbs=_READ,
    ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["scheduling.k8s.io"], resources=["priorityclasses"], verbs=_READ),
]
"""gpu-admin everywhere: read scheduling state, cordon/uncordon (patch nodes), drain. ``kubectl drain
--ignore-daemonsets`` lists the node's pods, GETs the DaemonSet owning each DaemonSet pod (anything but NotFound
fails the drain) and evicts the rest (k8s.io/kubectl pkg/drain/filters.go ``daemonSetFilter``, pkg/drain/drain.go
``EvictPod``; read 2026-12-02)."""

ADMIN_NAMESPACE_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods"], verbs=["delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=["delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[_JOBSET], resources=["jobsets"], verbs=["update", "patch", "delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[_KUEUE], resources=["workloads"], verbs=["update", "patch", "delete"]),
    k8s.rbac.v1.PolicyRuleArgs(
        api_groups=[""], resources=["resourcequotas"], verbs=[*_READ, "create", "update", "patch", "delete"]
    ),
]
"""gpu-admin in a GPU namespace: delete pods and jobs; manage JobSets (suspend one, delete a stuck one) and Kueue
workloads (``spec.active: false`` evicts and deactivates one; Kueue v0.19.2 apis/kueue/v1beta2/workload_types.go
``Active``); manage resource quotas. No create: administrators schedule, they do not run workloads as others."""

USER_RULES: list[k8s.rbac.v1.PolicyRuleArgs] = [
    k8s.rbac.v1.PolicyRuleArgs(api_groups=["batch"], resources=["jobs"], verbs=[*_READ, "create", "delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[_JOBSET], resources=["jobsets"], verbs=[*_READ, "create", "delete"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[_JOBSET], resources=["jobsets/status"], verbs=["get"]),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[_KUEUE], resources=["workloads", "localqueues"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods", "events"], verbs=_READ),
    k8s.rbac.v1.PolicyRuleArgs(api_groups=[""], resources=["pods/log"], verbs=["get"]),
]
"""gpu-user in a GPU namespace: run Jobs and JobSets and follow them, their pods, logs and Kueue workloads (no exec,
attach, secrets, update or patch). The verbs on JobSets and Workloads are those of Kueue's ``jobset-editor`` (less
update/patch) and ``workload-viewer`` roles its ``batch-user`` role aggregates (kueue v0.19.2 charts/kueue/templates/
rbac/jobset_editor_role.yaml, batch_user_role.yaml); that aggregate itself is not bound, as it grants every integration
Kueue ships (Kubeflow jobs, RayJobs, pods, ...), none of which this layer runs."""


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


IDENTITY_POLICY = "gpucloud-workload-identities"
"""Name of the ValidatingAdmissionPolicy (and its binding) of :class:`WorkloadIdentityGuard`."""

JOBSET_CONTROLLER = "system:serviceaccount:jobset-system:jobset-controller"
"""The JobSet controller's user: the chart's ServiceAccount ``<fullname>-controller`` (kubernetes-sigs/jobset v0.12.0
charts/jobset/templates/controller/_helpers.tpl ``jobset.controller.serviceAccount.name``; the release is named after
the chart, so the full name is ``jobset``) in ``components.k8s.queueing.JOBSET_NAMESPACE``. It creates each JobSet's
Jobs from the JobSet's template."""

_ACCOUNT = (
    "has(t.serviceAccountName) && t.serviceAccountName != '' ? t.serviceAccountName : "
    "(has(t.serviceAccount) && t.serviceAccount != '' ? t.serviceAccount : 'default')"
)
"""The ServiceAccount a pod template runs as: ``serviceAccountName``, else the deprecated alias ``serviceAccount``
(which the API server copies into it when it defaults the pod), else ``default``."""


def _cel_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def identity_policy_spec(identities: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The ValidatingAdmissionPolicy spec (admissionregistration.k8s.io/v1) that keeps each workload identity to its
    workload.

    Args:
        identities: ``<namespace>/<ServiceAccount>`` of every workload identity (a training job's or an inference
            service's own ServiceAccount) -> the images a JobSet may run with it: the job's image; none for an
            inference service, whose Deployment no GPU user can create.

    On CREATE and UPDATE of a JobSet or batch Job in a GPU namespace, when a pod template runs as one of them: a
    JobSet must be the workload's own (named after the ServiceAccount, or ``<ServiceAccount>-<suffix>`` as the
    API server completes a ``generateName`` before validating admission runs) and every container and init container
    must run an image of that identity; a Job must be created by the JobSet controller (:data:`JOBSET_CONTROLLER`),
    from a JobSet that passed this check. Any other ServiceAccount (``default``, the shared ``training``) is left
    alone. Expressions and variables per kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy
    (read 2026-12-03), in the common CEL subset that cel-python evaluates in the tests.
    """
    table = ", ".join(
        f"{_cel_string(key)}: [{', '.join(_cel_string(i) for i in images)}]"
        for key, images in sorted(identities.items())
    )
    allowed = "variables.protected.all(a, c.image in variables.identities[request.namespace + '/' + a])"
    return {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "namespaceSelector": {"matchLabels": {GPU_NAMESPACE_LABEL: "true"}},
            "resourceRules": [
                {
                    "apiGroups": [group],
                    "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"],
                    "resources": [resource],
                }
                for group, resource in ((_JOBSET, "jobsets"), ("batch", "jobs"))
            ],
        },
        "variables": [
            {
                "name": "templates",
                "expression": (
                    "object.kind == 'JobSet' ? object.spec.replicatedJobs.map(r, r.template.spec.template.spec)"
                    " : [object.spec.template.spec]"
                ),
            },
            {"name": "identities", "expression": "{" + table + "}"},
            {
                "name": "protected",
                "expression": (
                    f"variables.templates.map(t, {_ACCOUNT})"
                    ".filter(a, request.namespace + '/' + a in variables.identities)"
                ),
            },
        ],
        "validations": [
            {
                "expression": (
                    "size(variables.protected) == 0"
                    f" || (object.kind == 'Job' && request.userInfo.username == {_cel_string(JOBSET_CONTROLLER)})"
                    " || (object.kind == 'JobSet'"
                    " && variables.protected.all(a, object.metadata.name == a"
                    " || object.metadata.name.startsWith(a + '-'))"
                    f" && variables.templates.all(t, t.containers.all(c, {allowed})"
                    f" && (!has(t.initContainers) || t.initContainers.all(c, {allowed}))))"
                ),
                "message": (
                    "a training job's or inference service's own ServiceAccount runs only that workload: a JobSet "
                    "named after it (or <name>-<suffix>) with its declared image, or the Jobs the JobSet controller "
                    "makes of one"
                ),
                "reason": "Forbidden",
            }
        ],
    }


@dataclass(frozen=True)
class WorkloadIdentityGuardArgs:
    """Inputs of :class:`WorkloadIdentityGuard`: the workload identities (see :func:`identity_policy_spec`)."""

    identities: Mapping[str, Sequence[str]]


class WorkloadIdentityGuard(pulumi.ComponentResource):
    """A ValidatingAdmissionPolicy :data:`IDENTITY_POLICY` (:func:`identity_policy_spec`) and its binding, which
    denies what it refuses: no user of a GPU namespace runs a workload under another workload's cloud identity."""

    def __init__(self, name: str, args: WorkloadIdentityGuardArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:WorkloadIdentityGuard", name, None, opts)
        api = "admissionregistration.k8s.io/v1"
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts is not None else None)
        policy = custom_object(
            f"{name}-policy",
            {
                "apiVersion": api,
                "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": IDENTITY_POLICY},
                "spec": identity_policy_spec(args.identities),
            },
            child,
        )
        custom_object(
            f"{name}-binding",
            {
                "apiVersion": api,
                "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": IDENTITY_POLICY},
                "spec": {"policyName": IDENTITY_POLICY, "validationActions": ["Deny"]},
            },
            pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[policy])),
        )
        self.register_outputs({"policy": IDENTITY_POLICY})
