"""Defaults for training jobs in a GPU namespace: NCCL settings per pool, a workload-identity ServiceAccount, a GPU
quota."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.catalog import lookup
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.spec import (
    AccessSpec,
    Cloud,
    ConfigError,
    GpuNodePoolSpec,
    PoolPurpose,
    Problem,
    SpotGroupSpec,
    TrainingSpec,
)

__all__ = [
    "TRAINING_SERVICE_ACCOUNT",
    "TrainingDefaults",
    "TrainingDefaultsArgs",
    "nccl_config_map",
    "nccl_settings",
]

TRAINING_SERVICE_ACCOUNT = "training"
"""Name of the ServiceAccount training jobs run as (it assumes the checkpoint role)."""

EFA_PROVIDER = {"FI_PROVIDER": "efa"}
"""libfabric's EFA provider for the aws-ofi-nccl plugin (AWS EC2 User Guide, "Get started with EFA and NCCL")."""

EFA_DEVICE_RDMA = {"FI_EFA_USE_DEVICE_RDMA": "1"}
"""GPUDirect RDMA over EFA. Only for types whose EFA has RDMA read (catalog ``efa_rdma_read``): libfabric's EFA
provider aborts when it is set on a device without RDMA read ("FI_EFA_USE_DEVICE_RDMA=1 was set by user, but EFA
device has no rdma-read capability. Application will abort()", ofiwg/libfabric prov/efa/src/rdm/efa_rdm_util.c
efa_rdm_get_use_device_rdma, read 2026-12-02), and without the variable it follows the device's capability."""


def nccl_settings(training: TrainingSpec, pool: GpuNodePoolSpec | SpotGroupSpec) -> dict[str, str]:
    """The NCCL/libfabric environment of training jobs on ``pool``, from its instance types' catalog facts.

    Every pool: NCCL_SOCKET_IFNAME=eth0 (the pod's interface on VPC CNI and Terway) and NCCL_DEBUG (NCCL
    environment variables, docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html). EFA pools (AWS): the EFA
    provider, and device RDMA where every type of the pool has RDMA read. Nothing EFA-specific elsewhere: spot
    groups have no EFA. Pure; the pool is a validated spec (``pool_problems`` refuses EFA on a type without it).
    """
    settings = {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": training.nccl_debug}
    if isinstance(pool, GpuNodePoolSpec) and pool.efa:
        types = [lookup(Cloud.AWS, name) for name in pool.instance_types]
        settings |= EFA_PROVIDER
        if all(t is not None and t.efa_rdma_read for t in types):
            settings |= EFA_DEVICE_RDMA
    return settings


def nccl_config_map(pool: str) -> str:
    """Name of the ConfigMap of NCCL settings for jobs on ``pool``, for jobs written outside the project (``envFrom``):
    the project's own jobs (TrainingJob, PoolAcceptanceTest, and what ``gpucloud render`` prints) carry
    :func:`nccl_settings` in their pods' environment instead, so a change reaches them as a new JobSet."""
    return f"nccl-{pool}"


@dataclass(frozen=True)
class TrainingDefaultsArgs:
    """Inputs of :class:`TrainingDefaults`.

    Attributes:
        training: The training defaults; ``namespace`` must be one of ``access.gpu_namespaces`` (GpuRbac creates
            it with the gpu-user Role; pass ``depends_on=[rbac]`` in opts).
        access: The environment's access spec.
        cloud: The cluster's cloud (workload identity annotation).
        checkpoint_role: The role the training ServiceAccount assumes to reach the checkpoint bucket, where the
            cloud names it on the ServiceAccount: a RAM role name (RRSA) on Alibaba Cloud. On AWS, leave it out and
            associate ``TRAINING_SERVICE_ACCOUNT`` with a components.aws.PodIdentityRole.
        pools: The training pools and spot groups jobs run on; each gets its own NCCL settings.
    """

    training: TrainingSpec
    access: AccessSpec
    cloud: Cloud
    checkpoint_role: pulumi.Input[str] | None = None
    pools: Sequence[GpuNodePoolSpec | SpotGroupSpec] = ()


class TrainingDefaults(pulumi.ComponentResource):
    """One NCCL ConfigMap per training pool (``nccl-<pool>``), the checkpoint ServiceAccount and the
    ``requests.nvidia.com/gpu`` ResourceQuota of the training namespace.

    Raises:
        ConfigError: the namespace is not a GPU namespace, or a pool is not a training pool.
    """

    config_maps: dict[str, k8s.core.v1.ConfigMap]
    """The NCCL settings by pool name."""
    service_account: k8s.core.v1.ServiceAccount
    """The ServiceAccount of training jobs."""

    def __init__(self, name: str, args: TrainingDefaultsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        namespace = args.training.namespace
        problems = []
        if namespace not in args.access.gpu_namespaces:
            known = ", ".join(args.access.gpu_namespaces)
            problems.append(Problem("training.namespace", f"not a GPU namespace of access ({known})", namespace))
        annotation = profile(args.cloud).workload_identity_annotation
        if (annotation is None) != (args.checkpoint_role is None):
            needs = "needed" if annotation is not None else "not used"
            problems.append(Problem("checkpoint_role", f"{needs} on {args.cloud.value}", args.checkpoint_role))
        for i, pool in enumerate(args.pools):
            if pool.purpose is not PoolPurpose.TRAINING:
                problems.append(Problem(f"pools.{i}", f"pool {pool.name!r} is not a training pool", pool.purpose.value))
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:k8s:TrainingDefaults", name, None, opts)
        # The namespace is named, not referenced: the children wait for what the component waits for (GpuRbac),
        # since a component's depends_on does not reach its children (pulumi/pulumi#8721).
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts is not None else None)
        self.config_maps = {
            pool.name: k8s.core.v1.ConfigMap(
                f"{name}-nccl-{pool.name}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=nccl_config_map(pool.name), namespace=namespace),
                data=nccl_settings(args.training, pool),
                opts=child,
            )
            for pool in args.pools
        }
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-service-account",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=TRAINING_SERVICE_ACCOUNT,
                namespace=namespace,
                annotations={annotation: args.checkpoint_role} if annotation and args.checkpoint_role else None,
            ),
            opts=child,
        )
        k8s.core.v1.ResourceQuota(
            f"{name}-gpu-quota",
            metadata=k8s.meta.v1.ObjectMetaArgs(name="gpu-quota", namespace=namespace),
            spec=k8s.core.v1.ResourceQuotaSpecArgs(
                hard={f"requests.{labels.GPU_TAINT_KEY}": str(args.training.gpu_quota)}
            ),
            opts=child,
        )
        self.register_outputs(
            {"serviceAccount": TRAINING_SERVICE_ACCOUNT, "configMaps": [nccl_config_map(p) for p in self.config_maps]}
        )
