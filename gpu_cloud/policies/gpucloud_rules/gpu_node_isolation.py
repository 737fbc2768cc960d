"""gpu-node-isolation: GPU node groups carry the nvidia.com/gpu taint so only GPU workloads land there.

A stack policy, because an EKS node group may take its instance type from a launch template: when its
own amiType and instanceTypes do not say GPU, the ``instanceType`` of the aws:ec2/launchTemplate its
``launchTemplate`` refers to (by property dependency, else by name; see `cost_model.launch_template_of`)
decides. A launch template that is not in the stack cannot be read, and the node group is judged by its
own inputs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache, partial
from pathlib import Path

from .cost_model import launch_template_of
from .rule import Config, Props, Stack, StackResource, StackRule
from .values import Findings, all_true, any_entry, any_true, as_object, as_text, entries, equals

__all__ = [
    "RULE",
    "aws_gpu_families",
    "check",
    "check_pool",
    "is_aws_gpu_instance_type",
    "is_gpu_instance_type",
    "is_gpu_pool",
]

AWS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
ALICLOUD_NODE_POOL = "alicloud:cs/nodePool:NodePool"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
POOL_TYPES = frozenset({AWS_NODE_GROUP, ALICLOUD_NODE_POOL})
# Karpenter v1.14.1 labels every GPU instance type with these (pkg/providers/instancetype/types.go,
# computeRequirements): a NodePool whose requirements ask for one of them (In, Exists, Gt, Gte) launches GPU nodes only.
KARPENTER_GPU_LABELS = (
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
)
_ASKING = ("In", "Exists", "Gt", "Gte")
GPU_TAINT_KEY = "nvidia.com/gpu"

_GPU_FAMILIES_FILE = Path(__file__).with_name("gpu_families.json")
# Alibaba Cloud GPU instance families: gn* (GPU-accelerated) and ebmgn* (ECS Bare Metal with GPUs)
# (Alibaba Cloud ECS documentation, "GPU-accelerated compute-optimized instance families").
ALICLOUD_GPU_PREFIXES = ("ecs.gn", "ecs.ebmgn")
AMI_TYPE_GPU_MARKERS = ("nvidia", "gpu")
# Taint effects that keep other pods off: the EKS API spells them NO_SCHEDULE/NO_EXECUTE, Kubernetes
# (and ACK) NoSchedule/NoExecute.
AWS_TAINT_EFFECTS = ("NO_SCHEDULE", "NO_EXECUTE")
ALICLOUD_TAINT_EFFECTS = ("NoSchedule", "NoExecute")


@cache
def aws_gpu_families() -> frozenset[str]:
    """The EC2 instance families with NVIDIA GPUs: ``gpu_families.json`` beside this module, written from botocore's EC2
    model and the GPU of each family by ``scripts/generate_gpu_families.py``."""
    return frozenset(json.loads(_GPU_FAMILIES_FILE.read_text(encoding="utf-8"))["nvidia"])


def is_aws_gpu_instance_type(instance_type: str) -> bool:
    """True for an EC2 instance type of an NVIDIA GPU family, e.g. ``p4d.24xlarge``, ``p6e-gb200.36xlarge``: its family
    (the part before the ``.``, as EC2 names families) is one of `aws_gpu_families`."""
    return instance_type.lower().split(".", 1)[0] in aws_gpu_families()


def is_gpu_instance_type(cloud: str, instance_type: str) -> bool:
    """True for a GPU instance type of ``cloud`` (``aws`` or ``alicloud``)."""
    if cloud == "aws":
        return is_aws_gpu_instance_type(instance_type)
    return instance_type.lower().startswith(ALICLOUD_GPU_PREFIXES)


def is_gpu_pool(resource_type: str, props: Props, launch_template: Props | None = None) -> bool:
    """Whether an EKS node group or ACK node pool runs GPU nodes; raises `Undecided` if that is unknown.

    Args:
        resource_type: The pool's type token.
        props: Its properties.
        launch_template: The properties of the launch template an EKS node group refers to, if known.
    """
    return _aws_gpu(props, launch_template) if resource_type == AWS_NODE_GROUP else _alicloud_gpu(props)


def _aws_gpu(props: Props, launch_template: Props | None) -> bool:
    ami = (as_text(props.get("amiType"), "amiType") or "").lower()
    if any(marker in ami for marker in AMI_TYPE_GPU_MARKERS):
        return True
    own = partial(any_entry, props.get("instanceTypes"), "instanceTypes", _aws_gpu_type)
    if launch_template is None:
        return own()
    from_template = partial(
        any_entry, launch_template.get("instanceType"), "launchTemplate instanceType", _aws_gpu_type
    )
    return any_true((own, from_template))


def _aws_gpu_type(path: str, instance_type: object) -> bool:
    return is_aws_gpu_instance_type(as_text(instance_type, path) or "")


def _alicloud_gpu(props: Props) -> bool:
    return any_entry(
        props.get("instanceTypes"),
        "instanceTypes",
        lambda p, t: is_gpu_instance_type("alicloud", as_text(t, p) or ""),
    )


def _has_gpu_taint(props: Props, effects: tuple[str, ...]) -> bool:
    def isolating(path: str, taint: object) -> bool:
        entry = as_object(taint, path)
        return as_text(entry.get("key"), f"{path}.key") == GPU_TAINT_KEY and any_true(
            partial(equals, entry.get("effect"), effect, f"{path}.effect") for effect in effects
        )

    return any_entry(props.get("taints"), "taints", isolating)


def _karpenter_gpu(requirements: object) -> bool:
    """Whether a NodePool's requirements confine it to GPU instance types: a GPU label asked for, or families or
    instance types that are all GPU ones."""

    def gpu(path: str, requirement: object) -> bool:
        entry = as_object(requirement, path)
        key = as_text(entry.get("key"), f"{path}.key")
        operator = as_text(entry.get("operator"), f"{path}.operator")
        if key in KARPENTER_GPU_LABELS:
            return operator in _ASKING
        if operator != "In" or key not in ("karpenter.k8s.aws/instance-family", "node.kubernetes.io/instance-type"):
            return False
        values = [as_text(v, f"{path}.values") or "" for _, v in entries(entry.get("values"), f"{path}.values")]
        if key == "node.kubernetes.io/instance-type":
            return bool(values) and all(is_aws_gpu_instance_type(v) for v in values)
        return bool(values) and all(v.lower() in aws_gpu_families() for v in values)

    return any_entry(requirements, "spec.template.spec.requirements", gpu)


def check_node_pool(props: Props) -> list[str]:
    """Violation messages of ``gpu-node-isolation`` for one Karpenter NodePool."""
    template = as_object(as_object(props.get("spec"), "spec").get("template"), "spec.template")
    spec = as_object(template.get("spec"), "spec.template.spec")
    findings = Findings()
    findings.check(
        lambda: all_true(
            (
                lambda: _karpenter_gpu(spec.get("requirements")),
                lambda: not _has_gpu_taint(spec, ALICLOUD_TAINT_EFFECTS),
            )
        ),
        f"GPU NodePool without the {GPU_TAINT_KEY} taint: add spec.template.spec.taints with key {GPU_TAINT_KEY} "
        "and effect NoSchedule or NoExecute",
    )
    return findings.messages


def check_pool(resource_type: str, props: Props, launch_template: Props | None = None) -> list[str]:
    """Violation messages of ``gpu-node-isolation`` for one node group or pool (and its launch template)."""
    aws = resource_type == AWS_NODE_GROUP
    effects = AWS_TAINT_EFFECTS if aws else ALICLOUD_TAINT_EFFECTS
    findings = Findings()
    findings.check(
        lambda: all_true(
            (
                lambda: is_gpu_pool(resource_type, props, launch_template),
                lambda: not _has_gpu_taint(props, effects),
            )
        ),
        f"GPU nodes without the {GPU_TAINT_KEY} taint: add a taint with key {GPU_TAINT_KEY} and effect "
        + " or ".join(effects),
    )
    return findings.messages


def _templates(stack: Stack) -> Mapping[str, Props]:
    return {r.urn: r.props for r in stack.of_type(AWS_LAUNCH_TEMPLATE)}


def check(resource: StackResource, stack: Stack, config: Config) -> list[str]:
    """Violation messages of ``gpu-node-isolation`` for one node group or pool (launch templates: none)."""
    del config
    if resource.type == KARPENTER_NODE_POOL:
        return check_node_pool(resource.props)
    if resource.type not in POOL_TYPES:
        return []
    template = None
    if resource.type == AWS_NODE_GROUP:
        dependencies = resource.property_dependencies.get("launchTemplate", ())
        template = launch_template_of(
            resource.props, dependencies, stack.shared("templates", partial(_templates, stack))
        )
    return check_pool(resource.type, resource.props, template)


RULE = StackRule(
    name="gpu-node-isolation",
    description=f"GPU node groups must carry a {GPU_TAINT_KEY} NoSchedule or NoExecute taint.",
    level="mandatory",
    resource_types=frozenset({*POOL_TYPES, AWS_LAUNCH_TEMPLATE, KARPENTER_NODE_POOL}),
    check=check,
)
