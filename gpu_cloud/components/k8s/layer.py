"""The Kubernetes layer of an environment, on either cloud: priority classes, GPU RBAC, GPU add-ons, inference
services, training defaults, queues, jobs and pool acceptance tests, on a provider built from the cluster's kubeconfig.

It works on any cluster whose kubeconfig and readiness a :class:`ClusterHandle` describes: the AWS and Alibaba Cloud
``GpuEnvironment`` components build one from what they create; a cluster the user already has needs only its
kubeconfig and its node pools' specs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components.k8s.acceptance import PoolAcceptanceTest, PoolAcceptanceTestArgs
from gpu_cloud.components.k8s.addons import GpuAddons, GpuAddonsArgs
from gpu_cloud.components.k8s.cuda import acceptance_cuda_problems, cuda_problems, training_cuda_problems
from gpu_cloud.components.k8s.inference import InferenceService, InferenceServiceArgs
from gpu_cloud.components.k8s.priority import PriorityClasses
from gpu_cloud.components.k8s.queueing import TrainingQueues, TrainingQueuesArgs
from gpu_cloud.components.k8s.rbac import GpuRbac, GpuRbacArgs, WorkloadIdentityGuard, WorkloadIdentityGuardArgs
from gpu_cloud.components.k8s.training import TrainingDefaults, TrainingDefaultsArgs
from gpu_cloud.components.k8s.training_job import TrainingJob, TrainingJobArgs
from gpu_cloud.components.moved import was_top_level
from gpu_cloud.components.spec import (
    GpuNodePoolSpec,
    PoolPurpose,
    Problem,
    SpotGroupSpec,
    StackConfig,
    config_error,
)

__all__ = ["INFERENCE_NAMESPACE", "ClusterHandle", "KubernetesLayer", "KubernetesLayerArgs", "layer_problems"]

INFERENCE_NAMESPACE = "gpu-inference"
"""Where inference services run (one of access.gpuNamespaces)."""


@dataclass(frozen=True)
class ClusterHandle:
    """What the Kubernetes layer needs from an environment's cloud back end."""

    kubeconfig: pulumi.Input[str]
    """The cluster's kubeconfig (secret)."""
    ready: Sequence[pulumi.Resource]
    """The cluster component (control plane, system pool, managed add-ons): every object waits for it."""
    pools: Mapping[str, pulumi.Resource]
    """The node pool and spot group components by spec name: every object waits for them."""
    cluster_name: pulumi.Input[str] | None = None
    """AWS: the EKS cluster's name (cluster autoscaler auto-discovery)."""
    expander_priorities: Mapping[str, Sequence[str]] | None = None
    """AWS: the cluster autoscaler's priority expander config for the cluster's node groups."""
    addon_identities: Sequence[pulumi.Resource] = ()
    """Workload identities the add-ons' pods need at creation (AWS: the autoscaler's Pod Identity association)."""
    training_identities: Sequence[pulumi.Resource] = field(default_factory=list)
    """Workload identities training pods need (the checkpoint role)."""
    checkpoint_role: pulumi.Input[str] | None = None
    """Where the cloud names the checkpoint role on the ServiceAccount (ACK: the RAM role name)."""
    driver_version: str | None = None
    """The NVIDIA driver the cloud pins on its GPU pools (ACK), for the CUDA checks."""
    model_bucket: pulumi.Input[str] | None = None
    """The environment's bucket, which holds the inference services' models (needed when there are services)."""
    inference_identities: Mapping[str, pulumi.Resource] = field(default_factory=dict)
    """Per inference service name, the workload identity its pods use (a Pod Identity association's or RRSA role's
    component): every object waits for them."""
    inference_roles: Mapping[str, pulumi.Input[str]] = field(default_factory=dict)
    """ACK: per inference service name, the RAM role its ServiceAccount names."""
    inference_tls_policy: pulumi.Input[str] | None = None
    """ACK: the NLB security policy (TLS 1.3 only) of the inference endpoints' TLS listeners."""
    load_balancer_zone_maps: pulumi.Input[str] | None = None
    """ACK: ``zone:vswitch`` pairs of the inference endpoints' NLBs."""
    checkpoint_uri: pulumi.Input[str] | None = None
    """The checkpoint bucket as a URI root (``s3://<bucket>`` or ``oss://<bucket>``), for training jobs."""
    job_identities: Mapping[str, pulumi.Resource] = field(default_factory=dict)
    """Per training job name, its own checkpoint identity (Pod Identity role or RRSA role component)."""
    job_roles: Mapping[str, pulumi.Input[str]] = field(default_factory=dict)
    """ACK: per training job name, the RAM role its ServiceAccount names."""
    client_cidrs: Sequence[str] = ()
    """AWS: the networks the inference endpoints' clients are in (the VPC, a peered VPC): the internal NLBs open the
    nodes to these only (components.k8s.inference, aws.md A9)."""
    volume_key: pulumi.Input[str] | None = None
    """The environment's KMS key that encrypts the layer's volumes (AWS: its ARN; Alibaba Cloud: its id)."""


def layer_problems(config: StackConfig, driver_version: str | None = None) -> list[Problem]:
    """What keeps the Kubernetes layer of ``config`` from being declared: services, training jobs and acceptance tests
    on pools whose driver cannot run their CUDA, services without the inference namespace. Run before anything
    registers."""
    pools = _pools(config)
    found: list[Problem] = []
    if config.inference and INFERENCE_NAMESPACE not in config.access.gpu_namespaces:
        found.append(
            Problem(
                "access.gpuNamespaces", f"inference services need {INFERENCE_NAMESPACE}", config.access.gpu_namespaces
            )
        )
    for i, service in enumerate(config.inference):
        found += [
            Problem(f"inference.{i}.{p.path}", p.message, p.value)
            for p in cuda_problems(config.cloud, service, pools[service.pool], driver_version)
        ]
    for i, job in enumerate(config.training.jobs if config.training is not None else ()):
        found += [
            Problem(f"training.jobs.{i}.{p.path}", p.message, p.value)
            for p in training_cuda_problems(config.cloud, job, pools[job.pool], driver_version)
        ]
    for i, name in enumerate(config.training.acceptance_pools if config.training is not None else ()):
        found += [
            Problem(f"training.acceptancePools.{i}", p.message, name)
            for p in acceptance_cuda_problems(config.cloud, pools[name], driver_version)
        ]
    return found


@dataclass(frozen=True)
class KubernetesLayerArgs:
    """What the Kubernetes layer is built from."""

    config: StackConfig
    """The environment's validated config: access, add-ons, inference, training (checked with
    :func:`layer_problems` before anything is declared)."""
    cluster: ClusterHandle
    """The cluster it runs on."""


class KubernetesLayer(pulumi.ComponentResource):
    """The Kubernetes layer of an environment on the cluster ``args.cluster`` describes.

    Unlike the other components it creates its provider: a Kubernetes provider from the cluster's kubeconfig, as
    pulumi-eks's ``Cluster`` does (nodejs/eks/cluster/cluster.ts), because the kubeconfig exists only once the
    cluster does and the provider is what makes every Kubernetes object wait for the cluster, its pools and the
    workload identities. It is :attr:`provider`, for the user's own Kubernetes objects.

    Children are named ``<name>-<part>``; they keep the URNs they had at the top of the stack (components.moved).
    """

    provider: k8s.Provider
    """The cluster's Kubernetes provider (it waits for everything in ``ClusterHandle.ready`` and the pools)."""
    rbac: GpuRbac
    """The GPU RBAC (its ClusterRoles, which the cloud's access grants name on ACK)."""

    def __init__(self, name: str, args: KubernetesLayerArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        config, cluster = args.config, args.cluster
        found = layer_problems(config, cluster.driver_version)
        if found:
            raise config_error(found)
        super().__init__("gpucloud:k8s:KubernetesLayer", name, None, opts)
        # A component's depends_on does not reach its children (pulumi/pulumi#8721), so the wait is on the provider:
        # every Kubernetes object uses it, and it exists only once the control plane, the system pool, the managed
        # add-ons, the GPU node groups and the workload identities do (depending on a component waits for its children).
        waits = [
            *cluster.ready,
            *cluster.pools.values(),
            *cluster.addon_identities,
            *cluster.training_identities,
            *cluster.job_identities.values(),
            *cluster.inference_identities.values(),
        ]
        self.provider = k8s.Provider(
            f"{name}-kubernetes", kubeconfig=cluster.kubeconfig, opts=was_top_level(self, depends_on=waits)
        )

        def child_opts(*waits_for: pulumi.Resource) -> pulumi.ResourceOptions:
            return was_top_level(self, provider=self.provider, depends_on=list(waits_for))

        PriorityClasses(f"{name}-priority-classes", opts=child_opts())
        rbac = GpuRbac(f"{name}-gpu-rbac", GpuRbacArgs(access=config.access, cloud=config.cloud), opts=child_opts())
        pools = _pools(config)
        addons = GpuAddons(
            f"{name}-gpu-addons",
            GpuAddonsArgs(
                addons=config.addons,
                cloud=config.cloud,
                pools=list(pools.values()),
                cluster_name=cluster.cluster_name,
                region=config.region if cluster.cluster_name is not None else None,
                expander_priorities=cluster.expander_priorities,
                alerts=config.alerts,
                alert_receiver_url=(
                    None if config.alert_receiver_url is None else pulumi.Output.secret(config.alert_receiver_url)
                ),
                kubernetes_version=config.cluster.kubernetes_version,
                volume_key=cluster.volume_key,
            ),
            opts=child_opts(),
        )
        identities = _workload_identities(config)
        if identities:
            WorkloadIdentityGuard(
                f"{name}-workload-identities", WorkloadIdentityGuardArgs(identities), opts=child_opts(rbac)
            )
        for service in config.inference:
            # StackConfig requires checkpointBucket with inference services, so the back end passes its bucket.
            assert cluster.model_bucket is not None
            internal = service.internal_load_balancer
            InferenceService(
                f"{name}-{service.name}",
                InferenceServiceArgs(
                    service=service,
                    pool=pools[service.pool],
                    cloud=config.cloud,
                    model_bucket=cluster.model_bucket,
                    region=config.region,
                    namespace=rbac.namespaces[INFERENCE_NAMESPACE].metadata.name,
                    driver_version=cluster.driver_version,
                    identity_role=cluster.inference_roles.get(service.name),
                    tls_policy=cluster.inference_tls_policy if internal else None,
                    zone_maps=cluster.load_balancer_zone_maps if internal else None,
                    client_cidrs=cluster.client_cidrs if internal else (),
                ),
                opts=child_opts(addons),
            )
        if config.training is not None:
            training_pools = [p for p in pools.values() if p.purpose is PoolPurpose.TRAINING]
            TrainingDefaults(
                f"{name}-training",
                TrainingDefaultsArgs(
                    training=config.training,
                    access=config.access,
                    cloud=config.cloud,
                    checkpoint_role=cluster.checkpoint_role,
                    pools=training_pools,
                ),
                opts=child_opts(rbac),
            )
            if config.training.queues:
                queues = TrainingQueues(
                    f"{name}-training-queues",
                    TrainingQueuesArgs(training=config.training, pools=training_pools, cloud=config.cloud),
                    opts=child_opts(rbac),
                )
                for job in config.training.jobs:
                    TrainingJob(
                        f"{name}-{job.name}",
                        TrainingJobArgs(
                            job=job,
                            pool=pools[job.pool],
                            training=config.training,
                            cloud=config.cloud,
                            checkpoint_uri=pulumi.Output.concat(
                                cluster.checkpoint_uri or "", "/", job.checkpoint_prefix
                            ),
                            region=config.region,
                            role=cluster.job_roles.get(job.name),
                        ),
                        opts=child_opts(rbac, queues),
                    )
                for pool_name in config.training.acceptance_pools:
                    PoolAcceptanceTest(
                        f"{name}-accept-{pool_name}",
                        PoolAcceptanceTestArgs(pool=pools[pool_name], training=config.training, cloud=config.cloud),
                        opts=child_opts(rbac, addons, queues),
                    )
        self.rbac = rbac
        self.register_outputs({})


def _workload_identities(config: StackConfig) -> dict[str, list[str]]:
    """``<namespace>/<ServiceAccount>`` of every workload identity -> the images a JobSet may run with it
    (components.k8s.rbac.identity_policy_spec): each job's own, none for an inference service."""
    identities: dict[str, list[str]] = {f"{INFERENCE_NAMESPACE}/{s.name}": [] for s in config.inference}
    if config.training is not None:
        identities |= {f"{config.training.namespace}/{j.name}": [j.image] for j in config.training.jobs}
    return identities


def _pools(config: StackConfig) -> dict[str, GpuNodePoolSpec | SpotGroupSpec]:
    pools: dict[str, GpuNodePoolSpec | SpotGroupSpec] = {p.name: p for p in config.node_pools}
    return pools | {g.name: g for g in config.spot_groups}
