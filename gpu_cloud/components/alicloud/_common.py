"""Small helpers the Alibaba Cloud components share: child options and validation."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.naming import RAM_POLICY, fit
from gpu_cloud.components.protection import Protection
from gpu_cloud.components.spec import ConfigError, Problem


def child_options(parent: pulumi.Resource, **options: object) -> pulumi.ResourceOptions:
    """Options of a child: parented to the component (so it inherits the component's provider)."""
    return pulumi.ResourceOptions(parent=parent, **options)  # type: ignore[arg-type]


def stateful_options(parent: pulumi.Resource, guard: Protection) -> pulumi.ResourceOptions:
    """Options of a stateful child (key, bucket): protected and retained on delete as ``guard`` says
    (components.protection)."""
    return pulumi.ResourceOptions(parent=parent, protect=guard.protect, retain_on_delete=guard.retain_stateful)


def check(problems: Iterable[Problem]) -> None:
    """Raise ConfigError listing ``problems``, if there are any, before anything is registered."""
    found = list(problems)
    if found:
        raise ConfigError(found)


def attached_policy(
    resource_name: str,
    parent: pulumi.Resource,
    role: alicloud.ram.Role,
    policy_name: str,
    description: pulumi.Input[str],
    document: pulumi.Input[str],
    tags: Mapping[str, str],
) -> alicloud.ram.RolePolicyAttachment:
    """A custom RAM policy ``resource_name`` with ``document`` and its attachment ``<resource_name>-attachment`` to
    ``role`` (returned). ``policy_name`` is the role's stack-scoped name, fitted to what RAM accepts for policies
    (components.naming.RAM_POLICY: no periods)."""
    policy = alicloud.ram.Policy(
        resource_name,
        policy_name=fit(RAM_POLICY, policy_name),
        description=description,
        policy_document=document,
        tags=dict(tags),
        opts=child_options(parent),
    )
    return alicloud.ram.RolePolicyAttachment(
        f"{resource_name}-attachment",
        role_name=role.role_name,
        policy_name=policy.policy_name,
        policy_type="Custom",
        opts=child_options(parent),
    )
