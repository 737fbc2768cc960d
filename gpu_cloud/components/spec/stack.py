"""The root of a stack's config, :class:`StackConfig`, and the one validation model that checks it whole.

Each spec validates itself. Checks that need the cloud or span several specs are registered here with
:func:`stack_check` or :func:`item_check`, each naming the StackConfig fields it reads, so that a check runs whenever
those fields validated, whatever else in the config is wrong: an invalid config yields every problem at once. The
neutral checks are registered by ``spec.checks`` and ``spec.refusals``; a cloud registers its own checks
(``stack_check(..., cloud=Cloud.AWS)``) from its package (``gpu_cloud.components.aws.checks``), so the neutral spec
never imports a cloud's module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_args, get_origin

from pydantic import Field, TypeAdapter, model_validator

from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec._base import K8sName, Spec
from gpu_cloud.components.spec.cluster import AccessSpec, AddonsSpec, ClusterSpec, KmsKeySpec
from gpu_cloud.components.spec.deploy import DeploySpec
from gpu_cloud.components.spec.network import NetworkSpec, PeeringSpec
from gpu_cloud.components.spec.pools import GpuNodePoolSpec, SpotGroupSpec
from gpu_cloud.components.spec.problems import Problem, raise_problems
from gpu_cloud.components.spec.provisioner import NodeProvisioner
from gpu_cloud.components.spec.workloads import AlertsSpec, CheckpointBucketSpec, InferenceServiceSpec, TrainingSpec

__all__ = ["LIST_ITEMS", "StackConfig", "cloud_problems", "config_key", "item_check", "stack_check"]


class StackConfig(Spec):
    """One environment: the root of a stack's config (``gpu-cloud:*`` keys)."""

    cloud: Cloud
    """aws or alicloud."""
    region: str = Field(min_length=1)
    """The region of the cluster, e.g. ``us-east-1`` or ``cn-hangzhou``."""
    environment: K8sName
    """The environment's name, e.g. dev, staging, prod, prod-cn."""
    protect_stateful: bool = True
    """Protect and retain KMS keys and checkpoint buckets; only dev may turn it off."""
    tags: dict[str, str]
    """Tags on every resource; must include environment, owner and cost-center."""
    network: NetworkSpec
    """The private network."""
    kms: KmsKeySpec = KmsKeySpec()
    """The environment's KMS key."""
    cluster: ClusterSpec = ClusterSpec()
    """The Kubernetes control plane."""
    node_pools: tuple[GpuNodePoolSpec, ...] = ()
    """On-demand GPU pools."""
    spot_groups: tuple[SpotGroupSpec, ...] = ()
    """Spot GPU groups with on-demand fall-back."""
    node_provisioner: NodeProvisioner = NodeProvisioner.NODEGROUPS
    """What gives the GPU pools and spot groups their nodes: managed node groups (the default: switching a running
    environment replaces every GPU node, so it is a choice to write down) or, on EKS, Karpenter."""
    peering: PeeringSpec | None = None
    """Private peering to a VPC in another region."""
    access: AccessSpec
    """gpu-admin and gpu-user principals."""
    addons: AddonsSpec = AddonsSpec()
    """GPU add-ons."""
    inference: tuple[InferenceServiceSpec, ...] = ()
    """Inference services."""
    training: TrainingSpec | None = None
    """Training defaults (namespace, NCCL, quota)."""
    checkpoint_bucket: CheckpointBucketSpec | None = None
    """A checkpoint bucket."""
    deploy: DeploySpec
    """The deploy runner that reaches the private Kubernetes API (required: without it the API is unreachable)."""
    alerts: AlertsSpec | None = None
    """Where the alerts go; required with ``addons.monitoring`` (an alert must reach someone)."""
    alert_receiver_url: str | None = Field(default=None, min_length=1, repr=False)
    """The webhook or Slack receiver's URL: a Pulumi secret in the stack (:func:`load_stack_config` refuses it in
    plain text)."""

    @model_validator(mode="after")
    def _cross_checks(self) -> StackConfig:
        raise_problems(cloud_problems(self))
        return self


def config_key(name: str) -> str:
    """The config key of StackConfig field ``name`` (``node_pools`` -> ``nodePools``)."""
    return StackConfig.model_fields[name].alias or name


LIST_ITEMS = {
    name: TypeAdapter(item)
    for name, field in StackConfig.model_fields.items()
    if get_origin(field.annotation) is tuple
    and isinstance(item := get_args(field.annotation)[0], type)
    and issubclass(item, Spec)
}
"""StackConfig's list fields of specs, validated item by item so that one bad item does not hide the checks of the
others: field name -> the adapter of one item."""

_Check = Callable[[StackConfig], list[Problem]]
_ItemCheck = Callable[[StackConfig, str, Any], list[Problem]]
_C = TypeVar("_C", bound=_Check)
_I = TypeVar("_I", bound=Callable[..., list[Problem]])


@dataclass(frozen=True)
class _Registered:
    fields: frozenset[str]
    """The StackConfig fields the check reads: it runs when all of them validated."""
    cloud: Cloud | None
    """The one cloud whose configs the check applies to, or None for every cloud."""


_CHECKS: list[tuple[_Registered, _Check]] = []
_ITEM_CHECKS: list[tuple[str, _Registered, _ItemCheck]] = []


def _registered(fields: tuple[str, ...], cloud: Cloud | None) -> _Registered:
    unknown = [f for f in fields if f not in StackConfig.model_fields]
    if unknown:
        raise ValueError(f"not StackConfig fields: {unknown}")
    return _Registered(frozenset(fields) | ({"cloud"} if cloud is not None else set()), cloud)


def stack_check(*fields: str, cloud: Cloud | None = None) -> Callable[[_C], _C]:
    """Register a check of the whole config that reads ``fields`` (StackConfig field names); with ``cloud``, it runs
    on that cloud's configs only. Checks run in the order they are registered."""

    def register(check: _C) -> _C:
        _CHECKS.append((_registered(fields, cloud), check))
        return check

    return register


def item_check(list_field: str, *fields: str, cloud: Cloud | None = None) -> Callable[[_I], _I]:
    """Register a check of each valid item of ``list_field`` (``check(config, path, item)``, ``path`` its config
    key such as ``nodePools.0``), which also reads ``fields``; the list itself need not be valid as a whole."""

    def register(check: _I) -> _I:
        if list_field not in LIST_ITEMS:
            raise ValueError(f"not a StackConfig list of specs: {list_field}")
        _ITEM_CHECKS.append((list_field, _registered(fields, cloud), check))
        return check

    return register


def cloud_problems(config: StackConfig) -> list[Problem]:
    """Every registered check of ``config``: those that need its cloud or span several specs."""
    return Parts.of(config).problems()


@dataclass(frozen=True)
class Parts:
    """The parts of a stack config that validated: whole fields, and the valid items of list fields."""

    values: dict[str, Any]
    """Field name -> validated value, for every field that validated whole (defaults included)."""
    items: dict[str, list[tuple[int, Any]]]
    """List field name -> (index, validated item) for each of its items that validated."""

    @classmethod
    def of(cls, config: StackConfig) -> Parts:
        """The parts of a config that validated whole."""
        values = {name: getattr(config, name) for name in type(config).model_fields}
        return cls(values, {name: list(enumerate(values[name])) for name in LIST_ITEMS})

    def problems(self) -> list[Problem]:
        """Every check whose fields are at hand, in the order the checks are registered; item checks after the
        others."""
        config = StackConfig.model_construct(**self.values)
        found: list[Problem] = []
        for registered, check in _CHECKS:
            if self._applies(registered):
                found += check(config)
        for list_field, registered, each in _ITEM_CHECKS:
            if self._applies(registered):
                key = config_key(list_field)
                for i, item in self.items.get(list_field, []):
                    found += each(config, f"{key}.{i}", item)
        return found

    def _applies(self, registered: _Registered) -> bool:
        fields_at_hand = registered.fields <= self.values.keys()
        return fields_at_hand and (registered.cloud is None or self.values["cloud"] is registered.cloud)
