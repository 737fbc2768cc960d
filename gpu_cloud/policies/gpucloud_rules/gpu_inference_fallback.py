"""gpu-inference-fallback: latency-critical GPU inference never runs on spot capacity alone.

A serving workload (Deployment, StatefulSet, LeaderWorkerSet) whose pods request GPUs is latency-critical when the stack
is a production stack (``prodStacks``, by default protect-stateful's protected stacks) or its pods' priority class is
one of ``criticalPriorityClasses``. Spot capacity is reclaimed with a two-minute notice (EC2 User Guide, "Spot
Instance interruption notices", docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html,
read 2026-12-03) and may not come back, so such a workload must be able to land on at least one pool that is not spot
only: on-demand, a Capacity Block, or an ACK spot pool that falls back to on-demand nodes.

The pools a workload may land on are the stack's node groups and pools its pod template selects (``nodeSelector``,
required node affinity) and tolerates, GPU pools for a GPU request (``gpu_fleet``). A workload whose pools are all
outside the stack (none selected) is not judged: Karpenter NodePools are not modelled yet.
"""

from __future__ import annotations

from typing import Final

from .gpu_fleet import AWS_LAUNCH_TEMPLATE, POOL_TYPES, SERVING_KINDS, Capacity, in_stacks, pod_templates, pools
from .protect_stateful import DEFAULT_PROTECTED_STACKS
from .rule import Config, Stack, StackResource, StackRule, string_list

__all__ = ["DEFAULT_CRITICAL_PRIORITY_CLASSES", "RULE", "check"]

DEFAULT_CRITICAL_PRIORITY_CLASSES: Final = ["gpu-critical", "system-cluster-critical", "system-node-critical"]
"""gpu-cloud's critical class (components/labels.py PRIORITY_CRITICAL) and Kubernetes' two built-in critical classes."""


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``gpu-inference-fallback`` for one serving workload (pools: none)."""
    if resource.type not in SERVING_KINDS:
        return []
    prod = in_stacks(stack.name, config["prodStacks"])
    critical_classes = [str(c) for c in config["criticalPriorityClasses"]]
    findings = []
    for template in pod_templates(resource):
        critical = template.priority_class in critical_classes
        if not template.gpu or not (prod or critical):
            continue
        landing = [pool for pool in pools(stack) if template.may_land_on(pool)]
        if landing and all(pool.capacity == Capacity.SPOT for pool in landing):
            why = f"priority class {template.priority_class}" if critical else f"production stack {stack.name}"
            names = ", ".join(sorted(pool.name for pool in landing))
            findings.append(
                f"latency-critical GPU inference ({why}) can only run on spot pools ({names}): spot capacity is "
                "reclaimed with two minutes' notice and may not come back; let its pods also land on an on-demand "
                "pool (a SpotGpuGroup's <name>-ondemand group, or an ACK spot pool with compensateWithOnDemand)"
            )
    return findings


RULE = StackRule(
    name="gpu-inference-fallback",
    description="Latency-critical GPU inference must be able to run on on-demand capacity, not on spot pools alone.",
    level="mandatory",
    resource_types=frozenset({*POOL_TYPES, AWS_LAUNCH_TEMPLATE, *SERVING_KINDS}),
    check=check,
    config={
        "prodStacks": string_list(DEFAULT_PROTECTED_STACKS, "Stacks whose GPU inference is all latency-critical."),
        "criticalPriorityClasses": string_list(
            DEFAULT_CRITICAL_PRIORITY_CLASSES,
            "Priority classes that mark a GPU serving workload latency-critical in any stack.",
        ),
    },
)
