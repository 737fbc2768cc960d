"""rbac-least-privilege: no wildcard or escalation grants in Kubernetes RBAC, IAM or RAM policies, and administrator
grants only to the deployer roles.

The administrator grants: the AdministratorAccess managed policy attached to an IAM role (or user, group), the RAM
system policy AdministratorAccess attached to a RAM role (or user, group), ACK's cluster administrator permission
(predefined role ``admin``, or the custom cluster role ``cluster-admin``) and an EKS access policy association of
AmazonEKSClusterAdminPolicy. Each is a violation unless its principal is one of the deployer roles named in the config
``deployerRoles`` (default none: the bootstrap's ``deployerRoleArns``, which the pack cannot read): an IAM or RAM
role ARN matches an EKS ``principalArn`` equal to it and a role attachment whose role name is the ARN's last path
segment; an ACK grant names its principal by ``uid`` (a RAM user or role ID), which matches an entry equal to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from .rule import Config, Props, ResourceRule
from .values import (
    Findings,
    Undecided,
    all_entries,
    any_entry,
    as_bool,
    as_object,
    as_text,
    entries,
    equals,
    is_unknown,
)

__all__ = ["RULE", "check", "deployer_roles", "grants_admin"]

K8S_RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
# Verbs that let a subject grant itself more than it has (Kubernetes docs, "Using RBAC Authorization",
# privilege escalation prevention).
ESCALATION_VERBS = ("escalate", "bind", "impersonate")
OPEN_GROUPS = ("system:anonymous", "system:unauthenticated", "system:authenticated")
ADMIN_POLICY_SUFFIX = "/AdministratorAccess"
# The RAM system policy with every permission (RAM "System policies": AdministratorAccess).
RAM_ADMIN_POLICY = "AdministratorAccess"
# EKS access policy with cluster-admin rights (EKS User Guide, "Review access policy permissions":
# arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy; pulumi-aws eks.AccessPolicyAssociation).
EKS_CLUSTER_ADMIN_SUFFIX = ":cluster-access-policy/AmazonEKSClusterAdminPolicy"
# ACK's cluster administrator: the predefined role admin, or a custom grant of the Kubernetes cluster-admin role
# (pulumi-alicloud cs.KubernetesPermission permissions: role_name "admin, ops, dev, restricted and the custom cluster
# roles", is_custom).
ACK_ADMIN_ROLE, K8S_CLUSTER_ADMIN = "admin", "cluster-admin"


def _k8s_role(props: Props) -> list[str]:
    findings = Findings()
    for path, rule in entries(props.get("rules"), "rules"):

        def problem(p: str = path, r: object = rule) -> str | None:
            entry = as_object(r, p)
            for field in ("verbs", "resources", "apiGroups"):
                if any_entry(entry.get(field), f"{p}.{field}", _is_star):
                    return f'{p} grants "*" in {field}'
            if any_entry(entry.get("verbs"), f"{p}.verbs", _is_escalation):
                return f"{p} grants an escalation verb ({', '.join(ESCALATION_VERBS)})"
            return None

        findings.explain(problem)
    return findings.messages


def _is_star(path: str, value: object) -> bool:
    return as_text(value, path) == "*"


def _is_escalation(path: str, value: object) -> bool:
    return any(equals(value, verb, path) for verb in ESCALATION_VERBS)


def _k8s_binding(props: Props) -> list[str]:
    findings = Findings()
    role_ref = props.get("roleRef")
    findings.check(
        lambda: as_text(as_object(role_ref, "roleRef").get("name"), "roleRef.name") == "cluster-admin",
        "binds cluster-admin",
    )
    for path, subject in entries(props.get("subjects"), "subjects"):
        findings.explain(partial(_open_subject, path, subject))
    return findings.messages


def _open_subject(path: str, subject: object) -> str | None:
    name = as_text(as_object(subject, path).get("name"), f"{path}.name")
    return f"{path} binds the built-in group {name}" if name in OPEN_GROUPS else None


def _document(value: Any, path: str) -> Mapping[str, Any]:
    if is_unknown(value):
        raise Undecided(path)
    if isinstance(value, Mapping):
        return value
    try:
        parsed = json.loads(str(value))
    except ValueError:
        raise Undecided(path, "is not valid JSON") from None
    return as_object(parsed, path)


def _is_wildcard_action(path: str, value: object) -> bool:
    action = as_text(value, path) or ""
    return action == "*" or action.endswith(":*")


def grants_admin(document: Mapping[str, Any], path: str) -> list[str]:
    """Statements of an IAM/RAM policy document allowing "*" or "<service>:*" actions on resource "*".

    Raises `Undecided` for a document without ``Statement``, which IAM and RAM reject: not one that grants nothing.
    """
    if document.get("Statement") is None:
        raise Undecided(f"{path}.Statement", "is not set")
    findings = Findings()
    for spath, statement in entries(document.get("Statement"), f"{path}.Statement"):

        def problem(p: str = spath, s: object = statement) -> str | None:
            entry = as_object(s, p)
            if not equals(entry.get("Effect"), "Allow", f"{p}.Effect"):
                return None
            if any_entry(entry.get("Action"), f"{p}.Action", _is_wildcard_action) and any_entry(
                entry.get("Resource"), f"{p}.Resource", _is_star
            ):
                return f'{p} allows a wildcard action ("*" or "<service>:*") on resource "*"'
            return None

        findings.explain(problem)
    return findings.messages


def _iam_policy(key: str) -> Callable[[Props], list[str]]:
    def run(props: Props) -> list[str]:
        findings = Findings()
        try:
            findings.messages += grants_admin(_document(props.get(key), key), key)
        except Undecided as exc:
            findings.messages.append(exc.message)
        return findings.messages

    return run


def deployer_roles(config: Config) -> list[str]:
    """The configured deployer roles (``deployerRoles``)."""
    return [str(role) for role in config.get("deployerRoles") or ()]


def _role_name(arn: str) -> str:
    """The role name of an IAM or RAM role ARN (its last path segment); the value itself if it is no ARN."""
    return arn.rsplit("/", 1)[-1] if ":role/" in arn else arn


def _deployer(value: object, path: str, config: Config, by_name: bool) -> bool:
    """Whether ``value`` names a deployer role: equal to an entry, or (``by_name``) to an entry's role name.

    Raises `Undecided` when deployer roles are configured and the value is unknown: it may or may not be one.
    """
    roles = deployer_roles(config)
    if not roles:
        return False
    name = as_text(value, path)
    return name is not None and (name in roles or (by_name and name in {_role_name(r) for r in roles}))


def _grant(admin: Callable[[], bool], deployer: Callable[[], bool], message: str) -> list[str]:
    findings = Findings()
    findings.check(lambda: admin() and not deployer(), message)
    return findings.messages


def _attachment(props: Props, config: Config) -> list[str]:
    return _grant(
        lambda: (as_text(props.get("policyArn"), "policyArn") or "").endswith(ADMIN_POLICY_SUFFIX),
        lambda: _deployer(props.get("role"), "role", config, by_name=True),
        "attaches the AdministratorAccess managed policy to a role that is not a deployer role",
    )


def _user_or_group_attachment(props: Props, config: Config) -> list[str]:
    del config
    return _grant(
        lambda: (as_text(props.get("policyArn"), "policyArn") or "").endswith(ADMIN_POLICY_SUFFIX),
        lambda: False,
        "attaches the AdministratorAccess managed policy to a user or group (only deployer roles may have it)",
    )


def _policy_attachment(props: Props, config: Config) -> list[str]:
    def deployers_only() -> bool:
        principals = [entries(props.get(key), key) for key in ("users", "groups")]
        return not any(principals) and all_entries(
            props.get("roles"), "roles", lambda p, role: _deployer(role, p, config, by_name=True)
        )

    return _grant(
        lambda: (as_text(props.get("policyArn"), "policyArn") or "").endswith(ADMIN_POLICY_SUFFIX),
        deployers_only,
        "attaches the AdministratorAccess managed policy to a user, group or role that is not a deployer role",
    )


def _ram_admin(props: Props) -> bool:
    return equals(props.get("policyType"), "System", "policyType") and (
        as_text(props.get("policyName"), "policyName") == RAM_ADMIN_POLICY
    )


def _ram_role_attachment(props: Props, config: Config) -> list[str]:
    return _grant(
        lambda: _ram_admin(props),
        lambda: _deployer(props.get("roleName"), "roleName", config, by_name=True),
        "attaches the RAM system policy AdministratorAccess to a role that is not a deployer role",
    )


def _ram_user_or_group_attachment(props: Props, config: Config) -> list[str]:
    del config
    return _grant(
        lambda: _ram_admin(props),
        lambda: False,
        "attaches the RAM system policy AdministratorAccess to a user or group (only deployer roles may have it)",
    )


def _ack_permission(props: Props, config: Config) -> list[str]:
    def cluster_admin(path: str, permission: object) -> bool:
        entry = as_object(permission, path)
        role = as_text(entry.get("roleName"), f"{path}.roleName")
        custom = as_bool(entry.get("isCustom"), f"{path}.isCustom") is True
        return role == (K8S_CLUSTER_ADMIN if custom else ACK_ADMIN_ROLE)

    return _grant(
        lambda: any_entry(props.get("permissions"), "permissions", cluster_admin),
        lambda: _deployer(props.get("uid"), "uid", config, by_name=False),
        "grants ACK cluster administrator (role admin, or the custom role cluster-admin) to a principal that is not a "
        "deployer role",
    )


def _eks_access_policy(props: Props, config: Config) -> list[str]:
    return _grant(
        lambda: (as_text(props.get("policyArn"), "policyArn") or "").endswith(EKS_CLUSTER_ADMIN_SUFFIX),
        lambda: _deployer(props.get("principalArn"), "principalArn", config, by_name=False),
        "associates AmazonEKSClusterAdminPolicy with a principal that is not a deployer role",
    )


def _ignoring_config(check: Callable[[Props], list[str]]) -> Callable[[Props, Config], list[str]]:
    return lambda props, _config: check(props)


_SURFACES: Mapping[str, Callable[[Props, Config], list[str]]] = {
    f"{K8S_RBAC}Role": _ignoring_config(_k8s_role),
    f"{K8S_RBAC}ClusterRole": _ignoring_config(_k8s_role),
    f"{K8S_RBAC}RoleBinding": _ignoring_config(_k8s_binding),
    f"{K8S_RBAC}ClusterRoleBinding": _ignoring_config(_k8s_binding),
    "aws:iam/policy:Policy": _ignoring_config(_iam_policy("policy")),
    "aws:iam/rolePolicy:RolePolicy": _ignoring_config(_iam_policy("policy")),
    "aws:iam/userPolicy:UserPolicy": _ignoring_config(_iam_policy("policy")),
    "aws:iam/groupPolicy:GroupPolicy": _ignoring_config(_iam_policy("policy")),
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": _attachment,
    "aws:iam/userPolicyAttachment:UserPolicyAttachment": _user_or_group_attachment,
    "aws:iam/groupPolicyAttachment:GroupPolicyAttachment": _user_or_group_attachment,
    "aws:iam/policyAttachment:PolicyAttachment": _policy_attachment,  # attaches to users, roles and groups at once
    "aws:eks/accessPolicyAssociation:AccessPolicyAssociation": _eks_access_policy,
    "alicloud:ram/policy:Policy": _ignoring_config(_iam_policy("policyDocument")),
    "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": _ram_role_attachment,
    "alicloud:ram/userPolicyAttachment:UserPolicyAttachment": _ram_user_or_group_attachment,
    "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment": _ram_user_or_group_attachment,
    "alicloud:cs/kubernetesPermission:KubernetesPermission": _ack_permission,
}


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``rbac-least-privilege`` for one resource."""
    del provider
    return _SURFACES[resource_type](props, config)


RULE = ResourceRule(
    name="rbac-least-privilege",
    description="Roles and policies must not grant wildcards or escalation; admin access only to deployer roles.",
    level="mandatory",
    resource_types=frozenset(_SURFACES),
    check=check,
    config={
        "deployerRoles": {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "default": [],
            "description": "The deployer roles, the only principals an administrator grant may name: IAM and RAM role "
            "ARNs (the bootstrap's deployerRoleArns), and for ACK grants the RAM role ID the grant's uid names.",
        }
    },
)
