"""GpuAdminAccess: the gpu-admin and gpu-user IAM roles and their EKS access entries."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from gpu_cloud.components import labels
from gpu_cloud.components.aws._iam import Account, account_of, document, principal_trust
from gpu_cloud.components.naming import IAM_ROLE, physical_name
from gpu_cloud.components.spec import AccessSpec, ConfigError, Problem

__all__ = ["ADMIN_ACTIONS", "USER_ACTIONS", "GpuAdminAccess", "GpuAdminAccessArgs"]

# Scheduling work on this cluster's node groups only (Service Authorization Reference, Amazon EKS: DescribeCluster
# and ListNodegroups act on the cluster resource, DescribeNodegroup and UpdateNodegroupConfig on nodegroups).
_CLUSTER_READ = ("eks:DescribeCluster", "eks:ListNodegroups")
ADMIN_ACTIONS = (*_CLUSTER_READ, "eks:DescribeNodegroup", "eks:UpdateNodegroupConfig")
"""What gpu-admin may do in AWS; everything else happens in Kubernetes through labels.ADMIN_GROUP."""
USER_ACTIONS = (*_CLUSTER_READ, "eks:DescribeNodegroup")
"""What gpu-user may do in AWS (read only)."""

_ACCESS_ENTRY_TYPE = "STANDARD"
"""An IAM principal mapped to Kubernetes groups (EKS CreateAccessEntry type)."""


@dataclass(frozen=True)
class GpuAdminAccessArgs:
    """Arguments of a GpuAdminAccess."""

    spec: AccessSpec
    """Who may assume gpu-admin and gpu-user."""
    cluster_name: pulumi.Input[str]
    """The EKS cluster (its name output, so access entries wait for it)."""
    role_base: str | None = None
    """The start of the roles' names, ``<roleBase>-admin-<stack>`` and ``<roleBase>-user-<stack>``
    (components.naming: IAM role names are unique in the account); defaults to the component's name."""


class GpuAdminAccess(pulumi.ComponentResource):
    """IAM role ``<roleBase>-admin-<stack>`` (scheduling only) and, with user principals, ``<roleBase>-user-<stack>``
    (read only; components.naming), mapped to the Kubernetes groups labels.ADMIN_GROUP and labels.USER_GROUP by EKS
    access entries. No EKS access policy is associated: what the groups may do in the cluster is the Kubernetes
    layer's RBAC.

    Children: ``<name>-admin-role``, ``<name>-admin-policy``, ``<name>-admin-entry`` and, with user principals,
    ``<name>-user-role``, ``<name>-user-policy``, ``<name>-user-entry``.
    """

    admin_role_arn: pulumi.Output[str]
    """The gpu-admin role."""
    user_role_arn: pulumi.Output[str] | None
    """The gpu-user role (None without user principals)."""

    def __init__(self, name: str, args: GpuAdminAccessArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        _check(args)
        base = args.role_base or name
        super().__init__("gpucloud:aws:GpuAdminAccess", name, None, opts)
        account = account_of(self)
        scope = pulumi.Output.all(account, args.cluster_name)
        self.admin_role_arn = self._role(
            f"{name}-admin",
            physical_name(IAM_ROLE, f"{base}-admin"),
            args.spec.admin_principals,
            scope.apply(lambda v: access_policy(v[0], v[1], ADMIN_ACTIONS)),
            labels.ADMIN_GROUP,
            args.cluster_name,
        )
        self.user_role_arn = None
        if args.spec.user_principals:
            self.user_role_arn = self._role(
                f"{name}-user",
                physical_name(IAM_ROLE, f"{base}-user"),
                args.spec.user_principals,
                scope.apply(lambda v: access_policy(v[0], v[1], USER_ACTIONS)),
                labels.USER_GROUP,
                args.cluster_name,
            )
        self.register_outputs({"adminRoleArn": self.admin_role_arn, "userRoleArn": self.user_role_arn})

    def _role(
        self,
        base: str,
        role_name: str,
        principals: tuple[str, ...],
        policy: pulumi.Output[str],
        group: str,
        cluster_name: pulumi.Input[str],
    ) -> pulumi.Output[str]:
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            f"{base}-role",
            name=role_name,
            description=f"{role_name}: Kubernetes group {group}",
            assume_role_policy=principal_trust(principals),
            opts=child,
        )
        aws.iam.RolePolicy(f"{base}-policy", role=role.id, policy=policy, opts=child)
        aws.eks.AccessEntry(
            f"{base}-entry",
            cluster_name=cluster_name,
            principal_arn=role.arn,
            type=_ACCESS_ENTRY_TYPE,
            kubernetes_groups=[group],
            opts=child,
        )
        return role.arn


def access_policy(account: Account, cluster_name: str, actions: tuple[str, ...]) -> str:
    """``actions`` on cluster ``cluster_name`` and its node groups, and nothing else."""
    cluster = account.arn("eks", f"cluster/{cluster_name}")
    nodegroups = account.arn("eks", f"nodegroup/{cluster_name}/*/*")
    return document(
        {
            "Sid": "Cluster",
            "Effect": "Allow",
            "Action": [a for a in actions if a in _CLUSTER_READ],
            "Resource": cluster,
        },
        {
            "Sid": "NodeGroups",
            "Effect": "Allow",
            "Action": [a for a in actions if a not in _CLUSTER_READ],
            "Resource": nodegroups,
        },
    )


def _check(args: GpuAdminAccessArgs) -> None:
    arn = re.compile(r"^arn:aws(-cn|-us-gov)?:iam::\d{12}:(role|user)/[\w+=,.@/-]+$")
    problems = [
        Problem(f"{field}.{i}", "not an aws role or user ARN", value)
        for field, values in (
            ("adminPrincipals", args.spec.admin_principals),
            ("userPrincipals", args.spec.user_principals),
        )
        for i, value in enumerate(values)
        if not arn.match(value)
    ]
    if problems:
        raise ConfigError(problems)
