"""Who decides whether a stateful child is protected: the caller's ``ResourceOptions`` first, then the Args.

Components that hold state (KMS keys, buckets, clusters) take a ``protect`` flag in their Args
(StackConfig.protect_stateful; default True). A Pulumi user also expects ``ResourceOptions(protect=...,
retain_on_delete=...)`` given to a component to reach what it creates. The precedence, the same on both clouds:

1. ``protect`` the caller gave the component (in its ``opts``, or inherited from the component's own parent, as
   Pulumi inherits it) wins over ``Args.protect``;
2. else ``Args.protect``.

The result drives Pulumi ``protect`` on the stateful child and the cloud's own deletion protection where the
component sets one (EKS/ACK clusters, Alibaba KMS keys). ``retain_on_delete`` the caller gave wins likewise; without
one, keys and buckets are retained exactly when they are protected, and clusters are not retained.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi

__all__ = ["Protection", "protection"]


@dataclass(frozen=True)
class Protection:
    """The effective protection of a component's stateful child."""

    protect: bool
    """Pulumi ``protect`` (and the cloud's deletion protection)."""
    retain_on_delete: bool | None
    """The caller's ``retain_on_delete``, None when not given."""

    @property
    def retain_stateful(self) -> bool:
        """``retain_on_delete`` of a key or bucket: the caller's, else retained when protected."""
        return self.protect if self.retain_on_delete is None else self.retain_on_delete


def protection(component: pulumi.Resource, opts: pulumi.ResourceOptions | None, default: bool) -> Protection:
    """The protection of ``component``'s stateful child, after ``super().__init__`` of the component: ``opts`` and
    what the component inherited win over ``default`` (its Args' ``protect``)."""
    caller = component._protect  # the SDK sets it from opts.protect, else from the parent's (Resource.__init__)
    retain = opts.retain_on_delete if opts is not None else None
    return Protection(default if caller is None else caller, retain)
