"""The GPU fleet of a stack as the GPU-aware rules see it: node pools, the pods that may land on them, and where the
GPU allocators run.

- **Pools**: EKS node groups and ACK node pools, with the labels their nodes carry (the pool's own ``labels``; on EKS
  also ``eks.amazonaws.com/nodegroup`` and ``eks.amazonaws.com/capacityType``, which EKS puts on managed nodes, and
  ``nvidia.com/gpu.present``, which the EKS AL2023 NVIDIA AMI applies at boot: EKS User Guide,
  device-management-nvidia-dra-device-plugin.adoc at awsdocs/amazon-eks-user-guide@43d79bdb), their taints and
  their capacity (on demand, spot, mixed, Capacity Block).
- **Pod templates**: of Deployments, StatefulSets, LeaderWorkerSets (serving) and Jobs, CronJobs, JobSets, with their
  node selection (``nodeSelector`` and required node affinity), tolerations, GPU requests (``nvidia.com/gpu``,
  ``nvidia.com/mig-*``, ACK's ``aliyun.com/gpu*``, or a DRA ``resourceClaims``), priority class and grace period.
- **Node scopes**: a set of node selector terms (OR of ANDs of label requirements, as Kubernetes reads
  ``nodeSelectorTerms``); ``None`` is every node.

Whether a scope selects a pool is read from the labels the pool declares. A requirement on a key the pool does not
declare counts as met when the key is one every node may carry with a value the pack cannot see (the
``kubernetes.io``, ``k8s.io`` and node feature discovery prefixes, ``nvidia.com/gpu.*`` feature labels), else as not
met for ``In`` and ``Exists`` and met for ``NotIn`` and ``DoesNotExist``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, TypeVar

from .cost_model import launch_template_of
from .gpu_node_isolation import AWS_LAUNCH_TEMPLATE, AWS_NODE_GROUP, is_gpu_pool
from .rule import Props, Stack, StackResource
from .values import Undecided, as_bool, as_number, as_object, as_text, entries, is_unknown

__all__ = [
    "ALICLOUD_NODE_POOL",
    "AWS_LAUNCH_TEMPLATE",
    "AWS_NODE_GROUP",
    "POOL_TYPES",
    "SERVING_KINDS",
    "WORKLOAD_KINDS",
    "Capacity",
    "PodTemplate",
    "Pool",
    "Requirement",
    "Scope",
    "pod_templates",
    "pools",
    "scope_of",
    "selects",
]

_V = TypeVar("_V")
ALICLOUD_NODE_POOL: Final = "alicloud:cs/nodePool:NodePool"
POOL_TYPES: Final = frozenset({AWS_NODE_GROUP, ALICLOUD_NODE_POOL})

_K8S = "kubernetes:"
# Kind type token -> where its pod templates are (paths of keys; "*" iterates a list).
WORKLOAD_KINDS: Final[Mapping[str, tuple[tuple[str, ...], ...]]] = {
    f"{_K8S}apps/v1:Deployment": (("spec", "template"),),
    f"{_K8S}apps/v1:StatefulSet": (("spec", "template"),),
    f"{_K8S}leaderworkerset.x-k8s.io/v1:LeaderWorkerSet": (
        ("spec", "leaderWorkerTemplate", "leaderTemplate"),
        ("spec", "leaderWorkerTemplate", "workerTemplate"),
    ),
    f"{_K8S}batch/v1:Job": (("spec", "template"),),
    f"{_K8S}batch/v1:CronJob": (("spec", "jobTemplate", "spec", "template"),),
    f"{_K8S}jobset.x-k8s.io/v1alpha2:JobSet": (("spec", "replicatedJobs", "*", "template", "spec", "template"),),
}
SERVING_KINDS: Final = frozenset(list(WORKLOAD_KINDS)[:3])
"""The long-running kinds that serve (Deployment, StatefulSet, LeaderWorkerSet); the others run to completion."""

GPU_RESOURCE_PREFIXES: Final = ("nvidia.com/gpu", "nvidia.com/mig-", "aliyun.com/gpu")
"""Extended resources that are GPUs: the NVIDIA device plugin's (nvidia.com/gpu, MIG nvidia.com/mig-<profile>) and
ACK's GPU sharing ones (aliyun.com/gpu-mem, aliyun.com/gpu-core.percentage, aliyun.com/gpu-count)."""

_OPEN_KEY_PREFIXES: Final = ("kubernetes.io/", "k8s.io/", "feature.node.kubernetes.io/", "nvidia.com/gpu.")
"""Label keys any node may carry with a value the pack cannot see (well-known labels, node feature discovery's and GPU
feature discovery's); a requirement on one the pool does not declare counts as met."""

EKS_TAINT_EFFECTS: Final = {
    "NO_SCHEDULE": "NoSchedule",
    "NO_EXECUTE": "NoExecute",
    "PREFER_NO_SCHEDULE": "PreferNoSchedule",
}
"""The EKS API's taint effects, as Kubernetes spells them (EKS CreateNodegroup taints)."""
ACK_SPOT_STRATEGIES: Final = ("spotwithpricelimit", "spotaspricego")


@dataclass(frozen=True)
class Requirement:
    """A node label requirement (``matchExpressions`` entry; a ``nodeSelector`` entry is ``In`` one value)."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def met_by(self, labels: Mapping[str, str]) -> bool:
        """Whether a node with ``labels`` (the pool's declared labels) meets it; see the module docstring."""
        if self.key not in labels:
            if self.key.startswith(_OPEN_KEY_PREFIXES) or "kubernetes.io/" in self.key:
                return self.operator != "DoesNotExist"
            return self.operator in ("NotIn", "DoesNotExist")
        value = labels[self.key]
        if self.operator == "In":
            return value in self.values
        if self.operator == "NotIn":
            return value not in self.values
        return self.operator != "DoesNotExist"  # Exists, and Gt/Lt, which the pack does not evaluate


Scope = tuple[tuple[Requirement, ...], ...] | None
"""Node selector terms (OR of ANDs); None: every node."""


def selects(scope: Scope, labels: Mapping[str, str]) -> bool:
    """Whether ``scope`` may select a node with ``labels``."""
    return scope is None or any(all(r.met_by(labels) for r in term) for term in scope)


def scope_of(pod_spec: Mapping[str, Any], path: str) -> Scope:
    """The nodes a pod spec (or a chart's values with the same ``nodeSelector``/``affinity`` keys) may land on."""
    selector = as_object(pod_spec.get("nodeSelector"), f"{path}.nodeSelector")
    base = tuple(
        Requirement(str(key), "In", (as_text(value, f"{path}.nodeSelector[{key}]") or "",))
        for key, value in selector.items()
    )
    node_affinity = as_object(as_object(pod_spec.get("affinity"), f"{path}.affinity").get("nodeAffinity"), "")
    required = as_object(
        node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"),
        f"{path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
    )
    terms_path = f"{path}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    terms = [base + _requirements(term, p) for p, term in entries(required.get("nodeSelectorTerms"), terms_path)]
    if terms:
        return tuple(terms)
    return (base,) if base else None


def _requirements(term: object, path: str) -> tuple[Requirement, ...]:
    found = []
    for item_path, item in entries(as_object(term, path).get("matchExpressions"), f"{path}.matchExpressions"):
        expression = as_object(item, item_path)
        values = tuple(as_text(v, p) or "" for p, v in entries(expression.get("values"), f"{item_path}.values"))
        found.append(
            Requirement(
                as_text(expression.get("key"), f"{item_path}.key") or "",
                as_text(expression.get("operator"), f"{item_path}.operator") or "",
                values,
            )
        )
    return tuple(found)


@dataclass(frozen=True)
class Taint:
    """A node taint, with the effect spelled as Kubernetes spells it."""

    key: str
    value: str
    effect: str


class Capacity:
    """How a pool's nodes are bought."""

    ON_DEMAND: Final = "on-demand"
    SPOT: Final = "spot"
    MIXED: Final = "spot with on-demand"
    CAPACITY_BLOCK: Final = "Capacity Block"


@dataclass(frozen=True)
class Pool:
    """A node pool as the GPU-aware rules see it.

    A value of the pool that cannot be read is kept as the `Undecided` it raised and raised again by whatever reads
    it (`labels` and `taints` by `PodTemplate.may_land_on`, `capacity` by the rule): only the findings that depend on
    it become could-not-decide.
    """

    resource: StackResource
    name: str
    gpu: bool
    launch_template: Props | None
    _labels: Mapping[str, str] | Undecided
    _taints: tuple[Taint, ...] | Undecided
    _capacity: str | Undecided

    @property
    def labels(self) -> Mapping[str, str]:
        """The labels its nodes carry (module docstring)."""
        return _value(self._labels)

    @property
    def taints(self) -> tuple[Taint, ...]:
        """Its nodes' taints."""
        return _value(self._taints)

    @property
    def capacity(self) -> str:
        """A `Capacity` value."""
        return _value(self._capacity)


def _value(value: _V | Undecided) -> _V:
    if isinstance(value, Undecided):
        raise value
    return value


def _read(read: Callable[[], _V]) -> _V | Undecided:
    try:
        return read()
    except Undecided as undecided:
        return undecided


def pools(stack: Stack) -> list[Pool]:
    """Every EKS node group and ACK node pool of the stack (built once per stack evaluation)."""
    return stack.shared("gpu_fleet.pools", partial(_pools, stack))


def _pools(stack: Stack) -> list[Pool]:
    templates = {r.urn: r.props for r in stack.of_type(AWS_LAUNCH_TEMPLATE)}
    found = []
    for resource in stack.of_type(AWS_NODE_GROUP, ALICLOUD_NODE_POOL):
        props = resource.props
        aws = resource.type == AWS_NODE_GROUP
        template = (
            launch_template_of(props, resource.property_dependencies.get("launchTemplate", ()), templates)
            if aws
            else None
        )
        try:
            gpu = is_gpu_pool(resource.type, props, template)
        except Undecided:
            gpu = True  # may be a GPU pool: judged as one
        name = _pool_name(resource)
        labels = _read(partial(_labels, props, aws, gpu))
        taints = _read(partial(_taints, props, aws))
        found.append(Pool(resource, name, gpu, template, labels, taints, _read(partial(_capacity, props, aws))))
    return found


def _pool_name(resource: StackResource) -> str:
    keys = ("nodeGroupNamePrefix", "nodeGroupName") if resource.type == AWS_NODE_GROUP else ("nodePoolName", "name")
    for key in keys:
        value = resource.props.get(key)
        if isinstance(value, str) and value and not is_unknown(value):
            return value.removesuffix("-")
    return resource.urn.rsplit("::", 1)[-1]


def _labels(props: Props, aws: bool, gpu: bool) -> dict[str, str]:
    return dict(_eks_labels(props, gpu) if aws else _ack_labels(props))


def _eks_labels(props: Props, gpu: bool) -> Iterator[tuple[str, str]]:
    for key, value in as_object(props.get("labels"), "labels").items():
        yield str(key), as_text(value, f"labels[{key}]") or ""
    # EKS's own labels, where known (an unknown one is left out: it decides only the pods selecting on it).
    capacity, node_group = props.get("capacityType"), props.get("nodeGroupName")
    if capacity is None or (isinstance(capacity, str) and not is_unknown(capacity)):
        yield "eks.amazonaws.com/capacityType", capacity or "ON_DEMAND"
    if isinstance(node_group, str) and not is_unknown(node_group):
        yield "eks.amazonaws.com/nodegroup", node_group
    if gpu:
        yield "nvidia.com/gpu.present", "true"


def _ack_labels(props: Props) -> Iterator[tuple[str, str]]:
    for path, entry in entries(props.get("labels"), "labels"):
        label = as_object(entry, path)
        yield as_text(label.get("key"), f"{path}.key") or "", as_text(label.get("value"), f"{path}.value") or ""


def _taints(props: Props, aws: bool) -> tuple[Taint, ...]:
    found = []
    for path, entry in entries(props.get("taints"), "taints"):
        taint = as_object(entry, path)
        effect = as_text(taint.get("effect"), f"{path}.effect") or ""
        found.append(
            Taint(
                as_text(taint.get("key"), f"{path}.key") or "",
                as_text(taint.get("value"), f"{path}.value") or "",
                EKS_TAINT_EFFECTS.get(effect.upper(), effect) if aws else effect,
            )
        )
    return tuple(found)


def _capacity(props: Props, aws: bool) -> str:
    if aws:
        # EKS CreateNodegroup capacityType: ON_DEMAND (the default), SPOT, CAPACITY_BLOCK (botocore eks CapacityTypes).
        kind = (as_text(props.get("capacityType"), "capacityType") or "ON_DEMAND").upper()
        return {"SPOT": Capacity.SPOT, "CAPACITY_BLOCK": Capacity.CAPACITY_BLOCK}.get(kind, Capacity.ON_DEMAND)
    # ACK node pool: spotStrategy NoSpot (default) or a spot strategy; a spot pool still launches on-demand nodes with
    # compensateWithOnDemand, onDemandBaseCapacity or onDemandPercentageAboveBaseCapacity (pulumi-alicloud
    # cs.NodePool).
    strategy = (as_text(props.get("spotStrategy"), "spotStrategy") or "NoSpot").lower()
    if strategy not in ACK_SPOT_STRATEGIES:
        return Capacity.ON_DEMAND
    on_demand = (
        as_bool(props.get("compensateWithOnDemand"), "compensateWithOnDemand") is True
        or (as_number(props.get("onDemandBaseCapacity"), "onDemandBaseCapacity") or 0) > 0
        or (as_number(props.get("onDemandPercentageAboveBaseCapacity"), "onDemandPercentageAboveBaseCapacity") or 0) > 0
    )
    return Capacity.MIXED if on_demand else Capacity.SPOT


@dataclass(frozen=True)
class PodTemplate:
    """A pod template of a workload."""

    path: str
    scope: Scope
    tolerations: tuple[Mapping[str, Any], ...]
    gpu: bool
    priority_class: str | None
    grace_seconds: float

    def tolerates(self, pool: Pool) -> bool:
        """Whether its pods tolerate every NoSchedule and NoExecute taint of ``pool``."""
        return all(
            any(_tolerates(t, taint) for t in self.tolerations)
            for taint in pool.taints
            if taint.effect in ("NoSchedule", "NoExecute")
        )

    def may_land_on(self, pool: Pool) -> bool:
        """Whether its pods may be scheduled onto ``pool``'s nodes: selected, tolerated, and a GPU pool if they ask for
        GPUs."""
        return (pool.gpu or not self.gpu) and selects(self.scope, pool.labels) and self.tolerates(pool)


def _tolerates(toleration: Mapping[str, Any], taint: Taint) -> bool:
    # Kubernetes: an empty effect matches every effect; Exists with an empty key matches every taint; Equal (the
    # default operator) needs key and value equal.
    effect = toleration.get("effect") or ""
    if effect and effect != taint.effect:
        return False
    key = toleration.get("key") or ""
    if (toleration.get("operator") or "Equal") == "Exists":
        return not key or key == taint.key
    return key == taint.key and (toleration.get("value") or "") == taint.value


def pod_templates(resource: StackResource) -> list[PodTemplate]:
    """The pod templates of a workload (`WORKLOAD_KINDS`); [] for other types."""
    found = []
    for path, template in _walk(resource.props, WORKLOAD_KINDS.get(resource.type, ())):
        spec = as_object(as_object(template, path).get("spec"), f"{path}.spec")
        found.append(_pod_template(spec, f"{path}.spec"))
    return found


def _walk(props: Props, paths: tuple[tuple[str, ...], ...]) -> Iterator[tuple[str, object]]:
    for steps in paths:
        frontier: list[tuple[str, object]] = [("", props)]
        for step in steps:
            following: list[tuple[str, object]] = []
            for path, value in frontier:
                if step == "*":
                    following.extend(entries(value, path))
                else:
                    following.append((f"{path}.{step}".lstrip("."), as_object(value, path or "props").get(step)))
            frontier = following
        yield from ((path, value) for path, value in frontier if value is not None)


def _pod_template(spec: Mapping[str, Any], path: str) -> PodTemplate:
    tolerations = tuple(
        {k: as_text(v, f"{p}.{k}") for k, v in as_object(t, p).items()}
        for p, t in entries(spec.get("tolerations"), f"{path}.tolerations")
    )
    grace = as_number(spec.get("terminationGracePeriodSeconds"), f"{path}.terminationGracePeriodSeconds")
    return PodTemplate(
        path=path,
        scope=scope_of(spec, path),
        tolerations=tolerations,
        gpu=_requests_gpus(spec, path),
        priority_class=as_text(spec.get("priorityClassName"), f"{path}.priorityClassName"),
        grace_seconds=30.0 if grace is None else grace,  # the Kubernetes default
    )


def _requests_gpus(spec: Mapping[str, Any], path: str) -> bool:
    if entries(spec.get("resourceClaims"), f"{path}.resourceClaims"):
        return True  # DRA: judged as a GPU claim (the pack does not resolve DeviceClasses)
    for container_path, container in entries(spec.get("containers"), f"{path}.containers"):
        resources = as_object(as_object(container, container_path).get("resources"), f"{container_path}.resources")
        for kind in ("limits", "requests"):
            quantities = as_object(resources.get(kind), f"{container_path}.resources.{kind}")
            if any(str(name).startswith(GPU_RESOURCE_PREFIXES) for name in quantities):
                return True
    return False


def in_stacks(stack_name: str, stacks: Iterable[object]) -> bool:
    """Whether the stack is one of ``stacks`` (a config list); an unnamed stack counts as one of them."""
    return not stack_name or stack_name in [str(s) for s in stacks]
