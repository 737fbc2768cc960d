"""A GPU model server: Deployment, PodDisruptionBudget, Service and an HPA on a GPU metric."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels, versions
from gpu_cloud.components.catalog import lookup
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.k8s.cuda import cuda_problems
from gpu_cloud.components.k8s.monitoring import HPA_METRICS
from gpu_cloud.components.k8s.scheduling import is_spot, workload_tolerations
from gpu_cloud.components.spec import (
    Cloud,
    ConfigError,
    GpuNodePoolSpec,
    InferenceServiceSpec,
    PoolPurpose,
    Problem,
    SpotGroupSpec,
)

__all__ = ["GRPC_PORT", "InferenceService", "InferenceServiceArgs"]

GRPC_PORT = 8500
"""TensorFlow Serving's gRPC port (its REST port is the spec's ``port``, 8501 by default)."""

_RUN_AS = 1000
"""Non-root user and group of the server process."""


@dataclass(frozen=True)
class InferenceServiceArgs:
    """Inputs of :class:`InferenceService`.

    Attributes:
        service: The inference service.
        pool: The pool or spot group named by ``service.pool`` (a SpotGroupSpec means spot capacity: the pods
            tolerate the spot taint and get the preemptible priority class).
        cloud: The cluster's cloud.
        namespace: The namespace to run in, e.g. ``GpuRbac.namespaces["gpu-inference"].metadata.name``.
        driver_version: The NVIDIA driver the cloud component pins on the pool, if it pins one (ACK:
            ``components.versions.ACK_NVIDIA_DRIVER_VERSION``); default: the node image family's branch.
    """

    service: InferenceServiceSpec
    pool: GpuNodePoolSpec | SpotGroupSpec
    cloud: Cloud
    namespace: pulumi.Input[str] = "gpu-inference"
    driver_version: str | None = None


class InferenceService(pulumi.ComponentResource):
    """A GPU model server (TensorFlow Serving GPU by default) that scales on GPU utilisation or GPU memory.

    Children: Deployment, PodDisruptionBudget (at most one pod down), Service (ClusterIP, or an internal load
    balancer with the cloud's annotations) and an autoscaling/v2 HPA on the Pods metric prometheus-adapter serves
    (``components.k8s.monitoring.HPA_METRICS``). All Kubernetes objects are named ``service.name``.

    Raises:
        ConfigError: the pool is not the service's pool or not for inference, or its driver cannot run the CUDA
            version the service needs.
    """

    deployment: k8s.apps.v1.Deployment
    """The model server."""
    kube_service: k8s.core.v1.Service
    """Where clients reach it (never internet-facing)."""

    def __init__(self, name: str, args: InferenceServiceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec, pool = args.service, args.pool
        problems = []
        if pool.name != spec.pool:
            problems.append(Problem("pool", f"inference service {spec.name!r} runs on pool {spec.pool!r}", pool.name))
        if pool.purpose is not PoolPurpose.INFERENCE:
            problems.append(Problem("pool.purpose", f"pool {pool.name!r} is not an inference pool", pool.purpose.value))
        problems += cuda_problems(args.cloud, spec, pool, args.driver_version)
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:k8s:InferenceService", name, None, opts)
        cloud = profile(args.cloud)
        app = {"app.kubernetes.io/name": spec.name, "app.kubernetes.io/part-of": "gpucloud"}
        metadata = k8s.meta.v1.ObjectMetaArgs(name=spec.name, namespace=args.namespace, labels=app)
        selector = k8s.meta.v1.LabelSelectorArgs(match_labels=app)
        self.deployment = k8s.apps.v1.Deployment(
            f"{name}-deployment",
            metadata=metadata,
            spec=k8s.apps.v1.DeploymentSpecArgs(
                replicas=spec.min_replicas,
                selector=selector,
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(labels=app),
                    spec=self._pod(spec, pool, args.cloud),
                ),
            ),
            opts=pulumi.ResourceOptions(parent=self, ignore_changes=["spec.replicas"]),
        )
        k8s.policy.v1.PodDisruptionBudget(
            f"{name}-pdb",
            metadata=metadata,
            spec=k8s.policy.v1.PodDisruptionBudgetSpecArgs(max_unavailable=1, selector=selector),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.kube_service = k8s.core.v1.Service(
            f"{name}-service",
            metadata=k8s.meta.v1.ObjectMetaArgs(
                name=spec.name,
                namespace=args.namespace,
                labels=app,
                annotations=dict(cloud.internal_load_balancer_annotations) if spec.internal_load_balancer else None,
            ),
            spec=k8s.core.v1.ServiceSpecArgs(
                type="LoadBalancer" if spec.internal_load_balancer else "ClusterIP",
                selector=app,
                ports=[k8s.core.v1.ServicePortArgs(name="http", port=spec.port, target_port=spec.port, protocol="TCP")],
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        k8s.autoscaling.v2.HorizontalPodAutoscaler(
            f"{name}-hpa",
            metadata=metadata,
            spec=k8s.autoscaling.v2.HorizontalPodAutoscalerSpecArgs(
                scale_target_ref=k8s.autoscaling.v2.CrossVersionObjectReferenceArgs(
                    api_version="apps/v1", kind="Deployment", name=spec.name
                ),
                min_replicas=spec.min_replicas,
                max_replicas=spec.max_replicas,
                metrics=[
                    k8s.autoscaling.v2.MetricSpecArgs(
                        type="Pods",
                        pods=k8s.autoscaling.v2.PodsMetricSourceArgs(
                            metric=k8s.autoscaling.v2.MetricIdentifierArgs(name=HPA_METRICS[spec.metric]),
                            target=k8s.autoscaling.v2.MetricTargetArgs(
                                type="AverageValue", average_value=str(spec.target_percent)
                            ),
                        ),
                    )
                ],
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.deployment]),
        )
        self.register_outputs({"deployment": self.deployment.id, "service": self.kube_service.id})

    @staticmethod
    def _pod(
        spec: InferenceServiceSpec, pool: GpuNodePoolSpec | SpotGroupSpec, cloud: Cloud
    ) -> k8s.core.v1.PodSpecArgs:
        default_image = spec.image is None
        port = k8s.core.v1.TCPSocketActionArgs(port=spec.port)
        # TensorFlow Serving answers /v1/models/<name> once the model is loaded; another image only gets a TCP check.
        ready = (
            k8s.core.v1.ProbeArgs(
                http_get=k8s.core.v1.HTTPGetActionArgs(path=f"/v1/models/{spec.name}", port=spec.port),
                period_seconds=10,
            )
            if default_image
            else k8s.core.v1.ProbeArgs(tcp_socket=port, period_seconds=10)
        )
        container = k8s.core.v1.ContainerArgs(
            name="server",
            image=spec.image or versions.TENSORFLOW_SERVING_GPU_IMAGE,
            command=["tensorflow_model_server"] if default_image else None,
            args=(
                [
                    f"--model_name={spec.name}",
                    f"--model_base_path={spec.model_uri}",
                    f"--rest_api_port={spec.port}",
                    f"--port={GRPC_PORT}",
                ]
                if default_image
                else None
            ),
            env=[
                k8s.core.v1.EnvVarArgs(name="MODEL_NAME", value=spec.name),
                k8s.core.v1.EnvVarArgs(name="MODEL_URI", value=spec.model_uri),
            ],
            ports=[k8s.core.v1.ContainerPortArgs(name="http", container_port=spec.port, protocol="TCP")],
            resources=k8s.core.v1.ResourceRequirementsArgs(limits=_gpu_limits(spec, pool, cloud)),
            readiness_probe=ready,
            liveness_probe=k8s.core.v1.ProbeArgs(
                tcp_socket=port, initial_delay_seconds=30, period_seconds=20, failure_threshold=3
            ),
            security_context=k8s.core.v1.SecurityContextArgs(
                allow_privilege_escalation=False,
                read_only_root_filesystem=True,
                capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"]),
            ),
            volume_mounts=[k8s.core.v1.VolumeMountArgs(name="tmp", mount_path="/tmp")],
        )
        return k8s.core.v1.PodSpecArgs(
            containers=[container],
            node_selector={labels.POOL_LABEL: pool.name},
            tolerations=workload_tolerations(pool),
            priority_class_name=labels.PRIORITY_PREEMPTIBLE if is_spot(pool) else labels.PRIORITY_STANDARD,
            security_context=k8s.core.v1.PodSecurityContextArgs(
                run_as_non_root=True,
                run_as_user=_RUN_AS,
                run_as_group=_RUN_AS,
                fs_group=_RUN_AS,
                seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault"),
            ),
            automount_service_account_token=False,
            volumes=[k8s.core.v1.VolumeArgs(name="tmp", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs())],
        )


def _gpu_limits(spec: InferenceServiceSpec, pool: GpuNodePoolSpec | SpotGroupSpec, cloud: Cloud) -> dict[str, str]:
    """``nvidia.com/gpu`` per replica; on a shared ACK pool, its share of GPU memory as ``aliyun.com/gpu-mem``."""
    replicas = pool.gpu_time_slicing_replicas if isinstance(pool, GpuNodePoolSpec) else None
    resource = profile(cloud).shared_gpu_resource if replicas is not None else labels.GPU_TAINT_KEY
    if resource == labels.GPU_TAINT_KEY:
        # Unshared, or AWS time-slicing: each nvidia.com/gpu is one time-sliced replica.
        return {resource: str(spec.gpus_per_replica)}
    assert replicas is not None
    memory = min(t.gpu_memory_gib for name in pool.instance_types if (t := lookup(cloud, name)) is not None)
    return {resource: str(int(memory // replicas) * spec.gpus_per_replica)}
