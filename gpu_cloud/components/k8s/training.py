"""Defaults for training jobs in a GPU namespace: NCCL settings, a workload-identity ServiceAccount, a GPU quota."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.spec import (
    AccessSpec,
    Cloud,
    ConfigError,
    GpuNodePoolSpec,
    PoolPurpose,
    Problem,
    TrainingSpec,
)

__all__ = ["NCCL_CONFIG_MAP", "TRAINING_SERVICE_ACCOUNT", "TrainingDefaults", "TrainingDefaultsArgs", "nccl_settings"]

NCCL_CONFIG_MAP = "nccl-defaults"
"""Name of the ConfigMap of NCCL settings (jobs load it with ``envFrom``)."""

TRAINING_SERVICE_ACCOUNT = "training"
"""Name of the ServiceAccount training jobs run as (it assumes the checkpoint role)."""


def nccl_settings(training: TrainingSpec, pool: GpuNodePoolSpec | None) -> dict[str, str]:
    """NCCL environment of training jobs; EFA transport settings when ``pool`` has EFA.

    NCCL_SOCKET_IFNAME/NCCL_DEBUG: NCCL environment variables (docs.nvidia.com/deeplearning/nccl/user-guide/docs/
    env.html). FI_PROVIDER=efa selects libfabric's EFA provider for the aws-ofi-nccl plugin, and
    FI_EFA_USE_DEVICE_RDMA=1 turns on GPUDirect RDMA on EFA instances (AWS EC2 user guide, "Get started with EFA and
    NCCL"; aws/sagemaker-training-toolkit torch_distributed.py sets the same for its RDMA instance types).
    """
    settings = {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": training.nccl_debug}
    if pool is not None and pool.efa:
        settings |= {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1"}
    return settings


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
        pool: The training pool jobs run on; its EFA setting decides the EFA transport variables.
    """

    training: TrainingSpec
    access: AccessSpec
    cloud: Cloud
    checkpoint_role: pulumi.Input[str] | None = None
    pool: GpuNodePoolSpec | None = None


class TrainingDefaults(pulumi.ComponentResource):
    """NCCL ConfigMap, checkpoint ServiceAccount and ``requests.nvidia.com/gpu`` ResourceQuota of the training
    namespace.

    Raises:
        ConfigError: the namespace is not a GPU namespace, or the pool is not a training pool.
    """

    config_map: k8s.core.v1.ConfigMap
    """The NCCL settings."""
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
        if args.pool is not None and args.pool.purpose is not PoolPurpose.TRAINING:
            problems.append(Problem("pool", f"pool {args.pool.name!r} is not a training pool", args.pool.purpose.value))
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:k8s:TrainingDefaults", name, None, opts)
        # The namespace is named, not referenced: the children wait for what the component waits for (GpuRbac),
        # since a component's depends_on does not reach its children (pulumi/pulumi#8721).
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts is not None else None)
        self.config_map = k8s.core.v1.ConfigMap(
            f"{name}-nccl",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=NCCL_CONFIG_MAP, namespace=namespace),
            data=nccl_settings(args.training, args.pool),
            opts=child,
        )
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
        self.register_outputs({"serviceAccount": TRAINING_SERVICE_ACCOUNT, "configMap": NCCL_CONFIG_MAP})
