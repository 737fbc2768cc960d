"""The step plan of a second ``pulumi up``: what the engine does to each resource the two programs both register.

As pulumi/pulumi ``pkg/resource/deploy/step_generator.go`` computes it (read 2026-12-03): no change is ``same``; a
change under a ``replaceOnChanges`` path is a replacement (``applyReplaceOnChanges``:
``replaceOnChangePath.Contains(diffPath)``), deleted first with ``deleteBeforeReplace``; a Kubernetes object whose
``metadata.name`` changes is replaced (pulumi-kubernetes ``Diff``: a new name is a new object); any other change is an
update, which the receiving API may refuse:

- a JobSet (kubernetes-sigs/jobset v0.12.0): the webhook's ``ValidateUpdate`` refuses any change of
  ``spec.replicatedJobs`` of a running JobSet (``pkg/webhooks/jobset_webhook.go``; pod labels, annotations, node
  selector, tolerations and scheduling gates may change only while suspended) and the CRD's CEL makes
  ``spec.failurePolicy``, ``spec.successPolicy`` and ``spec.network`` ``self == oldSelf``
  (``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
IMMUTABLE_ON_UPDATE = {JOBSET: ("spec.replicatedJobs", "spec.failurePolicy", "spec.successPolicy", "spec.network")}
"""Per type, the input paths its API refuses to change on update (module docstring)."""


def changed_paths(old: Any, new: Any, path: str = "") -> Iterator[str]:
    """Every changed leaf path, in Pulumi's property-path syntax (``a.b[0].c``)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            yield from changed_paths(old.get(key), new.get(key), f"{path}.{key}" if path else key)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            yield from changed_paths(a, b, f"{path}[{i}]")
    elif old != new:
        yield path


def contains(outer: str, inner: str) -> bool:
    """``PropertyPath.Contains``: ``inner`` is ``outer`` or below it."""
    return inner == outer or inner.startswith((f"{outer}.", f"{outer}["))


def step(old: dict[str, Any], new: dict[str, Any]) -> tuple[str, list[str]]:
    """The step of one resource and the changed paths: ``same``, ``replace``, ``update`` or ``refused update``."""
    changes = list(changed_paths(old["inputs"], new["inputs"]))
    if not changes:
        return "same", changes
    if any(contains(p, c) for c in changes for p in new.get("replace_on_changes", ())):
        return "replace", changes
    if new["type"].startswith("kubernetes:") and any(contains("metadata.name", c) for c in changes):
        return "replace", changes
    if any(contains(p, c) for c in changes for p in IMMUTABLE_ON_UPDATE.get(new["type"], ())):
        return "refused update", changes
    return "update", changes


def refused_updates(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    """The updates of ``new`` over ``old`` that the receiving API refuses, each with its changed paths."""
    before = {r["urn"]: r for r in old}
    refused = []
    for resource in new:
        if resource["urn"] in before:
            kind, changes = step(before[resource["urn"]], resource)
            if kind == "refused update":
                refused.append(f"{resource['name']} ({resource['type']}): {', '.join(changes)}")
    return refused
