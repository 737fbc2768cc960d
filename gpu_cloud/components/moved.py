"""Resources that moved into a component keep their URNs.

Before 0.2 the environment's components (the KMS key, the network, the cluster, the Kubernetes layer's objects...)
were registered at the top of the stack by ``stacks/``; they are now children of ``GpuEnvironment`` and
``KubernetesLayer``, which changes their URNs (a child's URN carries its parent's type chain). An alias with no
parent (``pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE)``, pulumi SDK 3.272 ``pulumi/resource.py`` ``Alias``: "to
indicate that a resource was previously parented by the root stack") names the old URN, so the engine finds the
existing resource instead of replacing it. Their own children follow without aliases of their own: the engine
gives every child of a resource that matched an alias the alias its parent matched, with the parent's old type
chain (pulumi/pulumi ``pkg/resource/deploy/step_generator.go``, ``generateAliases`` and ``inheritedChildAlias``,
read 2026-12-03).
"""

from __future__ import annotations

from typing import Any

import pulumi

__all__ = ["was_top_level"]


def was_top_level(parent: pulumi.Resource, **options: Any) -> pulumi.ResourceOptions:
    """Options for a child of ``parent`` that was registered at the top of the stack before: ``parent`` and an alias
    to its old URN, with ``options`` (provider, depends_on...)."""
    return pulumi.ResourceOptions(parent=parent, aliases=[pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE)], **options)
