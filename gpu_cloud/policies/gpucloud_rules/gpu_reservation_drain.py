"""gpu-reservation-drain: GPU capacity reserved until a fixed end drains its pods before the reservation ends.

A Capacity Block for ML ends at a fixed time, and "Amazon EC2 starts shutting down the instances 30 minutes before
reservation end time" (EKS User Guide, capacity-blocks-mng.adoc, awsdocs/amazon-eks-user-guide@0a7189e9, read
2026-12-03).

- **EKS managed node group** with capacityType ``CAPACITY_BLOCK``: EKS schedules the scale-down itself, "40 minutes
  prior to their reservation end in order to safely and gracefully evict Pods" (same page), so its pods get the 10
  minutes before EC2's shutdown starts. A workload (Deployment, StatefulSet, LeaderWorkerSet, Job, CronJob, JobSet)
  whose pods may land on such a group (``gpu_fleet``) must stop within them: its ``terminationGracePeriodSeconds``
  (default 30) at most ``DRAIN_SECONDS``. The finding is on the workload.
- **Auto Scaling group** (``aws:autoscaling/group:Group``, self-managed nodes) whose launch template launches into a
  Capacity Block (``instanceMarketOptions.marketType`` ``capacity-block``, pulumi-aws ec2.LaunchTemplate): nothing
  scales it down before the end, so the stack must hold an ``aws:autoscaling/schedule:Schedule`` for that group (its
  ``autoscalingGroupName`` depends on the group, or names it) that sets ``desiredCapacity`` 0. The finding is on the
  group.

An On-Demand Capacity Reservation that expires leaves its instances running as on-demand instances: not applicable.
ACK has no Capacity Blocks. Karpenter NodePools are not modelled yet.
"""

from __future__ import annotations

from typing import Final

from .cost_model import launch_template_of
from .gpu_fleet import AWS_LAUNCH_TEMPLATE, POOL_TYPES, WORKLOAD_KINDS, Capacity, pod_templates, pools
from .rule import Config, Props, Stack, StackResource, StackRule
from .values import as_number, as_object, equals

__all__ = ["DRAIN_SECONDS", "RULE", "check"]

DRAIN_SECONDS: Final = 600.0
"""Between EKS's scale-down (40 minutes before the end) and EC2's shutdown (30 minutes before): 10 minutes."""
AUTOSCALING_GROUP: Final = "aws:autoscaling/group:Group"
SCHEDULE: Final = "aws:autoscaling/schedule:Schedule"
CAPACITY_BLOCK_MARKET: Final = "capacity-block"


def _workload(resource: StackResource, stack: Stack) -> list[str]:
    findings = []
    for template in pod_templates(resource):
        if template.grace_seconds <= DRAIN_SECONDS:
            continue  # stops in time wherever it lands
        blocks = [
            pool.name
            for pool in pools(stack)
            if template.may_land_on(pool) and pool.capacity == Capacity.CAPACITY_BLOCK
        ]
        if blocks:
            findings.append(
                f"{template.path}.terminationGracePeriodSeconds is {template.grace_seconds:g} s, but its pods may run "
                f"on Capacity Block node groups ({', '.join(sorted(blocks))}), whose nodes EKS drains 40 minutes "
                f"before the reservation ends and EC2 shuts down 30 minutes before: at most {DRAIN_SECONDS:g} s to stop"
            )
    return findings


def _template_of(group: StackResource, stack: Stack) -> Props | None:
    templates = {r.urn: r.props for r in stack.of_type(AWS_LAUNCH_TEMPLATE)}
    own = launch_template_of(group.props, group.property_dependencies.get("launchTemplate", ()), templates)
    if own is not None:
        return own
    mixed = as_object(group.props.get("mixedInstancesPolicy"), "mixedInstancesPolicy")
    specification = as_object(
        as_object(mixed.get("launchTemplate"), "mixedInstancesPolicy.launchTemplate").get(
            "launchTemplateSpecification"
        ),
        "mixedInstancesPolicy.launchTemplate.launchTemplateSpecification",
    )
    dependencies = group.property_dependencies.get("mixedInstancesPolicy", ())
    return launch_template_of({"launchTemplate": specification}, dependencies, templates)


def _scaled_down(group: StackResource, schedules: list[StackResource]) -> bool:
    name = group.props.get("name")
    for schedule in schedules:
        # By dependency (a group named by the program), else by its name; a schedule naming an unknown group is
        # another group's unless it depends on this one.
        targets = group.urn in schedule.property_dependencies.get("autoscalingGroupName", ()) or (
            isinstance(name, str) and schedule.props.get("autoscalingGroupName") == name
        )
        if targets and as_number(schedule.props.get("desiredCapacity"), "desiredCapacity") in (None, 0.0):
            return True  # the provider's default desiredCapacity is 0
    return False


def _group(resource: StackResource, stack: Stack) -> list[str]:
    template = _template_of(resource, stack)
    if template is None:
        return []
    market = as_object(template.get("instanceMarketOptions"), "launch template instanceMarketOptions")
    if not equals(market.get("marketType"), CAPACITY_BLOCK_MARKET, "launch template instanceMarketOptions.marketType"):
        return []
    if _scaled_down(resource, stack.of_type(SCHEDULE)):
        return []
    return [
        "Auto Scaling group launches into a Capacity Block and nothing drains it before the reservation ends (EC2 "
        "shuts its instances down 30 minutes before): add an aws.autoscaling.Schedule for this group with "
        "desired_capacity 0 early enough for its pods to stop"
    ]


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``gpu-reservation-drain`` for one workload or Auto Scaling group (others: none)."""
    del config
    if resource.type in WORKLOAD_KINDS:
        return _workload(resource, stack)
    if resource.type == AUTOSCALING_GROUP:
        return _group(resource, stack)
    return []


RULE = StackRule(
    name="gpu-reservation-drain",
    description="Capacity Block GPU nodes must be drained before the reservation ends, within the time pods need.",
    level="mandatory",
    resource_types=frozenset({*POOL_TYPES, AWS_LAUNCH_TEMPLATE, *WORKLOAD_KINDS, AUTOSCALING_GROUP, SCHEDULE}),
    check=check,
)
