"""rbac-least-privilege: no wildcard or escalation grants in Kubernetes RBAC, IAM or RAM policies."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from .rule import Config, Props, ResourceRule
from .values import Findings, Undecided, any_entry, as_object, as_text, entries, equals, is_unknown

__all__ = ["RULE", "check", "grants_admin"]

K8S_RBAC = "kubernetes:rbac.authorization.k8s.io/v1:"
# Verbs that let a subject grant itself more than it has (Kubernetes docs, "Using RBAC Authorization",
# privilege escalation prevention).
ESCALATION_VERBS = ("escalate", "bind", "impersonate")
OPEN_GROUPS = ("system:anonymous", "system:unauthenticated", "system:authenticated")
ADMIN_POLICY_SUFFIX = "/AdministratorAccess"


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


def _attachment(props: Props) -> list[str]:
    findings = Findings()
    findings.check(
        lambda: (as_text(props.get("policyArn"), "policyArn") or "").endswith(ADMIN_POLICY_SUFFIX),
        "attaches the AdministratorAccess managed policy",
    )
    return findings.messages


_SURFACES: Mapping[str, Callable[[Props], list[str]]] = {
    f"{K8S_RBAC}Role": _k8s_role,
    f"{K8S_RBAC}ClusterRole": _k8s_role,
    f"{K8S_RBAC}RoleBinding": _k8s_binding,
    f"{K8S_RBAC}ClusterRoleBinding": _k8s_binding,
    "aws:iam/policy:Policy": _iam_policy("policy"),
    "aws:iam/rolePolicy:RolePolicy": _iam_policy("policy"),
    "aws:iam/userPolicy:UserPolicy": _iam_policy("policy"),
    "aws:iam/groupPolicy:GroupPolicy": _iam_policy("policy"),
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": _attachment,
    "aws:iam/userPolicyAttachment:UserPolicyAttachment": _attachment,
    "aws:iam/groupPolicyAttachment:GroupPolicyAttachment": _attachment,
    "aws:iam/policyAttachment:PolicyAttachment": _attachment,  # attaches to users, roles and groups at once
    "alicloud:ram/policy:Policy": _iam_policy("policyDocument"),
}


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``rbac-least-privilege`` for one resource."""
    del config, provider
    return _SURFACES[resource_type](props)


RULE = ResourceRule(
    name="rbac-least-privilege",
    description="Roles and policies must not grant wildcards, escalation or administrator access.",
    level="mandatory",
    resource_types=frozenset(_SURFACES),
    check=check,
)
