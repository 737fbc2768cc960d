"""GpuAdminAccess: RAM roles gpu-admin (node-pool scaling) and gpu-user (read-only), mapped into the cluster.

ACK maps a RAM role into Kubernetes only through GrantPermissions (cs.KubernetesPermission), which binds predefined
roles or custom ClusterRoles, also for namespace scope; ACK maps no Kubernetes groups. So both roles get the
Kubernetes layer's ClusterRoles (components.k8s.rbac) here: gpu-admin cluster-wide plus gpu-admin-namespace in each
GPU namespace, gpu-user in each GPU namespace. The grants wait for those ClusterRoles and for the RAM policy
attachment (GrantPermissions wants the RAM user to hold read access to the cluster first,
https://www.alibabacloud.com/help/doc-detail/202561.htm; read 2026-12-02).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import attached_policy, check, child_options
from gpu_cloud.components.alicloud.cluster import CLUSTER_TAG_KEY
from gpu_cloud.components.k8s.rbac import ADMIN_NAMESPACE_ROLE, ADMIN_ROLE, USER_ROLE
from gpu_cloud.components.naming import RAM_ROLE, physical_name
from gpu_cloud.components.spec import AccessSpec, Problem

__all__ = [
    "ACK_ADMIN_ROLE",
    "ADMIN_ACTIONS",
    "RAM_ROLE_ARN",
    "USER_ACTIONS",
    "ClusterAdmins",
    "ClusterAdminsArgs",
    "GpuAdminAccess",
    "GpuAdminAccessArgs",
    "ram_role_name",
    "scoped_policy",
    "trust_policy",
]

# ACK RAM actions (RamCode cs; resource acs:cs:*:*:cluster/<ClusterId>) —
# https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/developer-reference/api-cs-2015-12-15-ram
USER_ACTIONS = (
    "cs:DescribeClusterDetail",
    "cs:DescribeClusterNodePools",
    "cs:DescribeClusterNodePoolDetail",
    "cs:DescribeClusterNodes",
    "cs:DescribeClusterUserKubeconfig",
)
"""What gpu-user may do: look at the cluster and its node pools, and get a kubeconfig."""

ADMIN_ACTIONS = (
    *USER_ACTIONS,
    "cs:ScaleClusterNodePool",
    "cs:RemoveNodePoolNodes",
)
"""What gpu-admin may do besides: scale node pools out and remove nodes from them. No other change."""

CLUSTER_RESOURCE = "acs:cs:*:*:cluster/*"
"""ACK cluster ARNs; narrowed to this cluster by its tag, since its id is unknown until it exists."""


def trust_policy(principals: Sequence[str]) -> str:
    """A RAM trust policy that lets exactly ``principals`` (RAM user or role ARNs) assume the role.

    Format: https://help.aliyun.com/en/ram/user-guide/edit-the-trust-policy-of-a-ram-role
    """
    statement = {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"RAM": sorted(principals)}}
    return json.dumps({"Statement": [statement], "Version": "1"}, sort_keys=True)


def scoped_policy(actions: Sequence[str], cluster_name: str) -> str:
    """A RAM policy allowing ``actions`` only on the ACK cluster tagged ``CLUSTER_TAG_KEY=cluster_name``.

    ``acs:ResourceTag`` is an ACK condition key; requests without a cluster id fail it
    (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/
    use-labels-to-enforce-fine-grained-access-control). The document is plain text at preview time.
    """
    statement: dict[str, Any] = {
        "Action": list(actions),
        "Effect": "Allow",
        "Resource": [CLUSTER_RESOURCE],
        "Condition": {"StringEquals": {f"acs:ResourceTag/{CLUSTER_TAG_KEY}": cluster_name}},
    }
    return json.dumps({"Statement": [statement], "Version": "1"}, sort_keys=True)


_Grant = alicloud.cs.KubernetesPermissionPermissionArgs

RAM_ROLE_ARN = re.compile(r"^acs:ram::[0-9]+:role/([A-Za-z0-9.-]{1,64})$")
"""A RAM role's ARN, ``acs:ram::<account>:role/<name>`` (the name: components.naming.RAM_ROLE's characters)."""

ACK_ADMIN_ROLE = "admin"
"""ACK's predefined cluster role for full administration (cs.KubernetesPermission ``role_name``: "Valid values
``admin``, ``ops``, ``dev``, ``restricted`` and the custom cluster roles")."""


def ram_role_name(arn: str) -> str | None:
    """The role name of RAM role ARN ``arn``; None when it is not one."""
    match = RAM_ROLE_ARN.match(arn)
    return match.group(1) if match else None


@dataclass
class ClusterAdminsArgs:
    """Inputs of a ClusterAdmins."""

    cluster_id: pulumi.Input[str]
    """The ACK cluster."""
    role_arns: Sequence[str]
    """The RAM roles that deploy the environment (the bootstrap's deployer roles,
    bootstrap_facts.DEPLOYER_ROLE_ARNS)."""


class ClusterAdmins(pulumi.ComponentResource):
    """Every deployer role is an administrator of the cluster, not only the one that created it.

    "By default, only the Alibaba Cloud account and the cluster creator have full administrative permissions" (ACK,
    "Grant RBAC permissions to RAM users or RAM roles", https://www.alibabacloud.com/help/en/ack/
    ack-managed-and-ack-dedicated/user-guide/grant-rbac-permissions-to-ram-users-or-ram-roles, read 2026-12-03;
    review alicloud.md F4): a run as another deployer role would get 403 from the API server. Each role gets ACK's
    predefined ``admin`` role on the cluster through GrantPermissions (cs.KubernetesPermission, which takes the RAM
    role's id, "If you use Ram Role id, you need to set ``is_ram_role`` to ``true``"); the id is read by name
    (ram.get_roles ``name_regex``). Children: ``<name>-<role name>`` per role.
    """

    def __init__(self, name: str, args: ClusterAdminsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        names = [ram_role_name(arn) for arn in args.role_arns]
        check(
            Problem(f"roleArns.{i}", "not a RAM role ARN (acs:ram::<account>:role/<name>)", arn)
            for i, (arn, role_name) in enumerate(zip(args.role_arns, names, strict=True))
            if role_name is None
        )
        super().__init__("gpucloud:alicloud:ClusterAdmins", name, None, opts)
        for role_name in filter(None, names):
            found = alicloud.ram.get_roles_output(
                name_regex=f"^{re.escape(role_name)}$", opts=pulumi.InvokeOutputOptions(parent=self)
            )
            alicloud.cs.KubernetesPermission(
                f"{name}-{role_name}",
                uid=found.roles.apply(partial(_only_id, role_name=role_name)),
                permissions=[
                    _Grant(
                        cluster=args.cluster_id,
                        role_type="cluster",
                        role_name=ACK_ADMIN_ROLE,
                        is_custom=False,
                        is_ram_role=True,
                    )
                ],
                opts=child_options(self),
            )
        self.register_outputs({})


def _only_id(roles: Sequence[Any], *, role_name: str) -> str:
    """The id of the one role named ``role_name``."""
    ids = [role.id for role in roles if role.name == role_name]
    if len(ids) != 1:
        raise pulumi.RunError(f"RAM role {role_name} (a deployer role) does not exist in this account")
    return str(ids[0])


def _permission(
    cluster_id: pulumi.Input[str], role_type: str, cluster_role: str, namespace: str | None = None
) -> _Grant:
    """A grant of the Kubernetes layer's custom ClusterRole ``cluster_role`` to a RAM role."""
    return alicloud.cs.KubernetesPermissionPermissionArgs(
        cluster=cluster_id,
        role_type=role_type,
        namespace=namespace,
        role_name=cluster_role,
        is_custom=True,
        is_ram_role=True,
    )


@dataclass
class GpuAdminAccessArgs:
    """Inputs of a GpuAdminAccess."""

    spec: AccessSpec
    """Who may assume gpu-admin and gpu-user, and the GPU namespaces."""
    cluster_id: pulumi.Input[str]
    """The ACK cluster the Kubernetes permissions are granted on."""
    cluster_name: pulumi.Input[str]
    """The cluster's name (GpuCluster.cluster_name, or another stack's), the value of its scoping tag."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the roles and policies."""
    cluster_roles: Sequence[pulumi.Resource] = ()
    """The Kubernetes layer's ClusterRoles the grants name (GpuRbac.cluster_roles): the grants wait for them."""


class GpuAdminAccess(pulumi.ComponentResource):
    """RAM role ``<name>-gpu-admin-<stack>`` (components.naming): scale and inspect this cluster's node pools, the
    gpu-admin ClusterRole inside it and gpu-admin-namespace in the GPU namespaces; RAM role ``<name>-gpu-user-<stack>``
    (when the spec names users):
    read-only, gpu-user in the GPU namespaces.
    """

    admin_role_arn: pulumi.Output[str]
    """The gpu-admin role's ARN."""
    user_role_arn: pulumi.Output[str] | None
    """The gpu-user role's ARN, if there is one."""

    def __init__(self, name: str, args: GpuAdminAccessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        super().__init__("gpucloud:alicloud:GpuAdminAccess", name, None, opts)
        namespaces = spec.gpu_namespaces
        admin, attached = self._role(f"{name}-gpu-admin", spec.admin_principals, ADMIN_ACTIONS, args)
        self._grant(
            f"{name}-gpu-admin-permission",
            admin,
            [
                _permission(args.cluster_id, "cluster", ADMIN_ROLE),
                *(_permission(args.cluster_id, "namespace", ADMIN_NAMESPACE_ROLE, n) for n in namespaces),
            ],
            [attached, *args.cluster_roles],
        )
        self.admin_role_arn = admin.arn
        self.user_role_arn = None
        if spec.user_principals:
            user, attached = self._role(f"{name}-gpu-user", spec.user_principals, USER_ACTIONS, args)
            self._grant(
                f"{name}-gpu-user-permission",
                user,
                [_permission(args.cluster_id, "namespace", USER_ROLE, n) for n in namespaces],
                [attached, *args.cluster_roles],
            )
            self.user_role_arn = user.arn
        self.register_outputs({"adminRoleArn": self.admin_role_arn})

    def _grant(
        self, name: str, role: alicloud.ram.Role, permissions: list[_Grant], waits: list[pulumi.Resource]
    ) -> None:
        """Map ``role`` into the cluster with ``permissions`` (all of them: ACK replaces a role's grants), after
        ``waits``."""
        alicloud.cs.KubernetesPermission(
            name, uid=role.role_id, permissions=permissions, opts=child_options(self, depends_on=waits)
        )

    def _role(
        self, base: str, principals: Sequence[str], actions: Sequence[str], args: GpuAdminAccessArgs
    ) -> tuple[alicloud.ram.Role, alicloud.ram.RolePolicyAttachment]:
        """The RAM role ``<base>-<stack>`` (resource ``base``) and its policy ``<base>-policy``."""
        cluster_name = pulumi.Output.from_input(args.cluster_name)
        role_name = physical_name(RAM_ROLE, base)
        role = alicloud.ram.Role(
            base,
            role_name=role_name,
            description=pulumi.Output.concat(role_name, ": GPU scheduling on ACK cluster ", cluster_name),
            assume_role_policy_document=trust_policy(principals),
            tags=dict(args.tags),
            opts=child_options(self),
        )
        attached = attached_policy(
            f"{base}-policy",
            self,
            role,
            role_name,
            pulumi.Output.concat(role_name, " on ACK cluster ", cluster_name, " only"),
            cluster_name.apply(lambda cluster: scoped_policy(actions, cluster)),
            args.tags,
        )
        return role, attached
