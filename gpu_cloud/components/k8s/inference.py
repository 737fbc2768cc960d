"""A GPU model server: its ServiceAccount, Deployment (model staged by an init container), PodDisruptionBudget,
Service (an internal TLS 1.3 load balancer, or ClusterIP), an HPA on a signal that follows traffic and, for vLLM, the
PodMonitor that scrapes it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels, versions
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.k8s.cuda import cuda_problems, default_image
from gpu_cloud.components.k8s.monitoring import (
    HPA_METRICS,
    POOL_HPA_METRICS,
    POOL_SERIES_LABEL,
    RUNNING_METRIC,
    WAITING_METRIC,
)
from gpu_cloud.components.k8s.objects import custom_object
from gpu_cloud.components.k8s.scheduling import is_spot, workload_tolerations
from gpu_cloud.components.spec import (
    AWS_TLS13_SSL_POLICIES,
    Cloud,
    ConfigError,
    GpuMetric,
    GpuNodePoolSpec,
    InferenceServiceSpec,
    ModelServer,
    PoolPurpose,
    Problem,
    ReplicaGpuMemory,
    SpotGroupSpec,
    replica_gpu_memory,
)

__all__ = [
    "GRPC_PORT",
    "MEMORY_HEADROOM",
    "MODEL_BASE_PATH",
    "ROLLOUT",
    "SKIP_AWAIT",
    "STAGE_MODEL_SCRIPT",
    "TLS_PORT",
    "InferenceService",
    "InferenceServiceArgs",
    "oss_internal_endpoint",
]

GRPC_PORT = 8500
"""TensorFlow Serving's gRPC port (its REST port is the spec's ``port``, 8501 by default)."""

TLS_PORT = 443
"""The load balancer's TLS listener port."""

MODEL_BASE_PATH = "/models"
"""Where the init container stages models and the server reads them (``<base>/<name>/<version>/``)."""

STAGE_MODEL_SCRIPT = (Path(__file__).parent / "stage_model.sh").read_text()
"""The staging script the init container runs (``sh -c``); tests run the same text against a local S3 server."""

_OSSUTIL_URL, _OSSUTIL_SHA256, _OSSUTIL_BINARY = versions.OSSUTIL_ARCHIVE
# ACK: fetch ossutil and check it against Alibaba's published checksum before the staging script uses it.
_FETCH_OSSUTIL = f"""set -eu
cd /tmp
wget -q -O ossutil.zip {_OSSUTIL_URL}
echo "{_OSSUTIL_SHA256}  ossutil.zip" | sha256sum -c -
unzip -q -o ossutil.zip
export OSSUTIL=/tmp/{_OSSUTIL_BINARY}
chmod 755 "$OSSUTIL"
"""

_STAGING = {
    Cloud.AWS: (versions.AWS_CLI_IMAGE, STAGE_MODEL_SCRIPT),
    Cloud.ALICLOUD: (versions.ALPINE_IMAGE, _FETCH_OSSUTIL + STAGE_MODEL_SCRIPT),
}

MEMORY_HEADROOM = 0.9
"""Share of a replica's GPU memory cap its server's allocator is given: TensorFlow's fraction covers only its BFC
allocator, not the process's CUDA context and libraries (tensorflow/serving 2.18.0 server.cc passes it to
``gpu_options.per_process_gpu_memory_fraction``), and vLLM's covers its whole instance ("a per-instance limit"; two
instances on one GPU can take 0.5 each: vLLM engine arguments, ``--gpu-memory-utilization``), so 10 % stays free for
what the allocators do not see."""

_VLLM_ENV = {
    # The model is staged locally; the server must not reach out to the Hugging Face Hub (private clusters).
    "HF_HUB_OFFLINE": "1",
    # No usage reports leave the cluster (vLLM's usage stats; DO_NOT_TRACK is the convention it honours too).
    "VLLM_NO_USAGE_STATS": "1",
    "DO_NOT_TRACK": "1",
    # The server runs as a uid without a passwd entry: Python's getpass.getuser() reads USER before the passwd
    # database, and PyTorch's compile cache names its directory with it.
    "USER": "vllm",
}
"""vLLM's environment besides HOME (its caches go to the writable /tmp volume)."""

_SHM_GIB = 2
"""vLLM's /dev/shm: "vLLM needs to access the host's shared memory for tensor parallel inference" (vLLM docs,
deployment/k8s.md, the GPU Deployment's ``shm`` emptyDir of 2Gi)."""

_RUN_AS = 1000
"""Non-root user and group of the server process."""

_STARTUP_MINUTES = 10
"""How long a replica may take to stage and load its model before the kubelet restarts it."""

ROLLOUT = {"max_surge": 1, "max_unavailable": 1}
"""Rolling update of a model server: one new pod beyond the desired count when a GPU is free, and one old pod down
when none is. With ``maxUnavailable: 0`` a Deployment at the pool's capacity (the HPA at maxReplicas on a full pool)
waits forever for a GPU for its surge pod: no old pod may go first (kubernetes.io/docs/concepts/workloads/
controllers/deployment, "Rolling Update Deployment", read 2026-12-03), and Pulumi's await fails the update after 10
minutes (k8s.md U2). The cost: a one-replica service is down while its new pod starts."""

SKIP_AWAIT = {"pulumi.com/skipAwait": "true"}
"""Annotation that keeps ``pulumi up`` from waiting for the Deployment's pods and the Service's endpoints
(pulumi/pulumi-kubernetes#417, the ``pulumi.com/skipAwait`` annotation). Their readiness depends on a model in the
bucket and on GPU nodes scaling up from zero, neither of which the ``up`` that creates the bucket and the pools can
wait for: the first ``up`` would fail after Pulumi's 10-minute await (aws.md A5, k8s.md U3). The replicas become
Ready once the model is uploaded (the staging init container waits for it); docs/deploy.md checks it with
``kubectl rollout status``."""


def oss_internal_endpoint(region: str) -> str:
    """The OSS endpoint of ``region`` inside its VPCs (``oss-<region>-internal.aliyuncs.com``, OSS "Regions and
    endpoints"), over HTTPS."""
    return f"https://oss-{region}-internal.aliyuncs.com"


@dataclass(frozen=True)
class InferenceServiceArgs:
    """Inputs of :class:`InferenceService`.

    Attributes:
        service: The inference service.
        pool: The pool or spot group named by ``service.pool`` (a SpotGroupSpec means spot capacity: the pods
            tolerate the spot taint and get the preemptible priority class).
        cloud: The cluster's cloud.
        model_bucket: The environment's bucket, which holds the model under ``service.model_source``.
        region: The bucket's region.
        namespace: The namespace to run in, e.g. ``GpuRbac.namespaces["gpu-inference"].metadata.name``.
        driver_version: The NVIDIA driver the cloud component pins on the pool, if it pins one (ACK:
            ``components.versions.ACK_NVIDIA_DRIVER_VERSION``); default: the node image family's branch.
        identity_role: ACK: the RAM role the ServiceAccount assumes through RRSA (an RrsaRole's name). On AWS leave it
            out and associate the ServiceAccount (named ``service.name``) with a components.aws.PodIdentityRole.
        tls_policy: ACK: the id of the NLB security policy (TLS 1.3 only) of the TLS listener. AWS: None, the
            listener uses ``service.aws_ssl_policy``.
        zone_maps: ACK: ``zone:vswitch`` pairs for the NLB (at least two zones).
        client_cidrs: AWS internal load balancer: the networks its clients are in (the environment's VPC, a peered
            VPC). The in-tree service controller opens the Service's NodePort on the nodes' security group to the
            Service's ``loadBalancerSourceRanges``, ``0.0.0.0/0`` when none are given (kubernetes/cloud-provider-aws
            v1.35.2 pkg/providers/v1/aws.go, aws_loadbalancer.go; aws.md A9).
    """

    service: InferenceServiceSpec
    pool: GpuNodePoolSpec | SpotGroupSpec
    cloud: Cloud
    model_bucket: pulumi.Input[str]
    region: str
    namespace: pulumi.Input[str] = "gpu-inference"
    driver_version: str | None = None
    identity_role: pulumi.Input[str] | None = None
    tls_policy: pulumi.Input[str] | None = None
    zone_maps: pulumi.Input[str] | None = None
    client_cidrs: Sequence[str] = ()


class InferenceService(pulumi.ComponentResource):
    """A GPU model server (vLLM by default, or TensorFlow Serving, or a custom server) that scales on a signal that
    follows its traffic.

    Children: ServiceAccount (the pod's own cloud identity), Deployment, PodDisruptionBudget, Service, an
    autoscaling/v2 HPA on the metrics prometheus-adapter serves (``components.k8s.monitoring``) and, for vLLM, the
    PodMonitor that has Prometheus scrape its ``/metrics``. All Kubernetes objects are named ``service.name``.

    Each server is capped to the replica's GPU memory (``spec.replica_gpu_memory``: ``gpuMemoryGib``, the whole GPU,
    or a shared GPU's share): vLLM ``--gpu-memory-utilization``, TensorFlow Serving
    ``--per_process_gpu_memory_fraction``, :data:`MEMORY_HEADROOM` of the cap; vLLM's tensor parallelism is
    ``gpusPerReplica``.

    The pod's init container copies one version of the model from the environment's bucket into
    ``/models/<model name>/<version>/`` with the pod's credentials (``stage_model.sh``); the server reads it from
    there. Startup and readiness probes ask TensorFlow Serving's model status endpoint (or a custom server's
    ``probe_path``; vLLM's ``/health``), so a replica is Ready only once the model is served; ``pulumi up`` does not
    wait for it
    (:data:`SKIP_AWAIT`). Requests equal limits, rolling updates never wait for a free GPU (:data:`ROLLOUT`), the
    PodDisruptionBudget lets one replica go at a time through voluntary disruptions (a drain of the node of a
    single replica too), and replicas spread over zones.

    Raises:
        ConfigError: the pool is not the service's pool or not for inference, its driver cannot run the CUDA
            version the service needs, or the cloud's identity or load balancer inputs are missing or misplaced.
    """

    deployment: k8s.apps.v1.Deployment
    """The model server."""
    kube_service: k8s.core.v1.Service
    """Where clients reach it (never internet-facing)."""
    service_account: k8s.core.v1.ServiceAccount
    """The pod's ServiceAccount (its cloud identity)."""

    def __init__(self, name: str, args: InferenceServiceArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        _check(args)
        super().__init__("gpucloud:k8s:InferenceService", name, None, opts)
        spec, cloud = args.service, profile(args.cloud)
        app = {"app.kubernetes.io/name": spec.name, "app.kubernetes.io/part-of": "gpucloud"}

        def annotated(annotations: Mapping[str, pulumi.Input[str]] | None) -> k8s.meta.v1.ObjectMetaArgs:
            return k8s.meta.v1.ObjectMetaArgs(
                name=spec.name, namespace=args.namespace, labels=app, annotations=annotations
            )

        metadata = annotated(None)
        unawaited = annotated(SKIP_AWAIT)
        selector = k8s.meta.v1.LabelSelectorArgs(match_labels=app)
        # A component's depends_on does not reach its children (pulumi/pulumi#8721; k8s.md N1): the HPA needs the
        # adapter, the PodMonitor its CRD, the pods the device plugin and the PriorityClasses.
        waits = list(opts.depends_on) if opts is not None and isinstance(opts.depends_on, list) else []
        child = pulumi.ResourceOptions(parent=self, depends_on=waits)
        annotation = cloud.workload_identity_annotation
        self.service_account = k8s.core.v1.ServiceAccount(
            f"{name}-service-account",
            metadata=annotated({annotation: args.identity_role} if annotation and args.identity_role else None),
            automount_service_account_token=False,
            opts=child,
        )
        self.deployment = k8s.apps.v1.Deployment(
            f"{name}-deployment",
            metadata=unawaited,
            spec=k8s.apps.v1.DeploymentSpecArgs(
                replicas=spec.min_replicas,
                selector=selector,
                strategy=k8s.apps.v1.DeploymentStrategyArgs(
                    type="RollingUpdate", rolling_update=k8s.apps.v1.RollingUpdateDeploymentArgs(**ROLLOUT)
                ),
                template=k8s.core.v1.PodTemplateSpecArgs(
                    metadata=k8s.meta.v1.ObjectMetaArgs(labels=app),
                    spec=_pod(args, app),
                ),
            ),
            opts=pulumi.ResourceOptions(
                parent=self, ignore_changes=["spec.replicas"], depends_on=[*waits, self.service_account]
            ),
        )
        # One replica at a time, whatever the count: a budget of minAvailable 1 on a single replica allows no
        # eviction, so no drain of its node (the XID alert's cordon-and-drain, a scale-down) could ever complete
        # ("you cannot successfully drain a Node running one of those Pods", kubernetes.io/docs/tasks/run-
        # application/configure-pdb, read 2026-12-03; k8s.md N3).
        budget = k8s.policy.v1.PodDisruptionBudgetSpecArgs(max_unavailable=1, selector=selector)
        k8s.policy.v1.PodDisruptionBudget(f"{name}-pdb", metadata=metadata, spec=budget, opts=child)
        self.kube_service = k8s.core.v1.Service(
            f"{name}-service",
            metadata=annotated({**SKIP_AWAIT, **(_tls_annotations(args) if spec.internal_load_balancer else {})}),
            spec=(
                k8s.core.v1.ServiceSpecArgs(
                    type="LoadBalancer",
                    load_balancer_class=cloud.load_balancer_class,
                    load_balancer_source_ranges=list(args.client_cidrs) or None,
                    selector=app,
                    ports=[
                        k8s.core.v1.ServicePortArgs(name="https", port=TLS_PORT, target_port="http", protocol="TCP")
                    ],
                )
                if spec.internal_load_balancer
                else k8s.core.v1.ServiceSpecArgs(
                    type="ClusterIP",
                    selector=app,
                    ports=[
                        k8s.core.v1.ServicePortArgs(
                            name="http", port=spec.serving_port, target_port="http", protocol="TCP"
                        )
                    ],
                )
            ),
            opts=child,
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
                metrics=_hpa_metrics(spec, args.pool),
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[*waits, self.deployment]),
        )
        if spec.server is ModelServer.VLLM:
            # vLLM's /metrics on the server's port (its API server), scraped every 15 s; Prometheus selects every
            # PodMonitor (components.k8s.addons: podMonitorSelectorNilUsesHelmValues false) and labels the series
            # with the pod's namespace and pod, which the adapter's queue rule maps to the HPA's pods.
            custom_object(
                f"{name}-pod-monitor",
                {
                    "apiVersion": "monitoring.coreos.com/v1",
                    "kind": "PodMonitor",
                    "metadata": {"name": spec.name, "namespace": args.namespace, "labels": app},
                    "spec": {
                        "selector": {"matchLabels": app},
                        "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
                    },
                },
                child,
            )
        self.register_outputs(
            {
                "deployment": self.deployment.id,
                "service": self.kube_service.id,
                "serviceAccount": self.service_account.id,
            }
        )


def _pods_metric(name: str, average: int) -> k8s.autoscaling.v2.MetricSpecArgs:
    return k8s.autoscaling.v2.MetricSpecArgs(
        type="Pods",
        pods=k8s.autoscaling.v2.PodsMetricSourceArgs(
            metric=k8s.autoscaling.v2.MetricIdentifierArgs(name=name),
            target=k8s.autoscaling.v2.MetricTargetArgs(type="AverageValue", average_value=str(average)),
        ),
    )


def _hpa_metrics(
    spec: InferenceServiceSpec, pool: GpuNodePoolSpec | SpotGroupSpec
) -> list[k8s.autoscaling.v2.MetricSpecArgs]:
    """vLLM's running and waiting requests per replica (Pods metrics of the server's own series, valid on shared GPUs
    too; the HPA follows whichever asks for more replicas); a GPU signal of the service's own pods (Pods metric,
    averaged per pod); on a pool that shares GPUs, the pool's GPU signal (External metric selected by the pool label,
    against the total), since shared GPUs cannot be attributed to pods (``components.k8s.monitoring.
    POOL_HPA_METRICS``)."""
    metric = spec.scaling_metric
    if metric is GpuMetric.REQUESTS:
        return [
            _pods_metric(RUNNING_METRIC, spec.target_requests_running),
            _pods_metric(WAITING_METRIC, spec.target_requests_waiting),
        ]
    if isinstance(pool, GpuNodePoolSpec) and pool.gpu_time_slicing_replicas is not None:
        external = k8s.autoscaling.v2.MetricSpecArgs(
            type="External",
            external=k8s.autoscaling.v2.ExternalMetricSourceArgs(
                metric=k8s.autoscaling.v2.MetricIdentifierArgs(
                    name=POOL_HPA_METRICS[metric],
                    selector=k8s.meta.v1.LabelSelectorArgs(match_labels={POOL_SERIES_LABEL: pool.name}),
                ),
                target=k8s.autoscaling.v2.MetricTargetArgs(type="Value", value=str(spec.target_percent)),
            ),
        )
        return [external]
    return [_pods_metric(HPA_METRICS[metric], spec.target_percent)]


def _check(args: InferenceServiceArgs) -> None:
    spec, pool, cloud = args.service, args.pool, profile(args.cloud)
    problems = []
    if pool.name != spec.pool:
        problems.append(Problem("pool", f"inference service {spec.name!r} runs on pool {spec.pool!r}", pool.name))
    if pool.purpose is not PoolPurpose.INFERENCE:
        problems.append(Problem("pool.purpose", f"pool {pool.name!r} is not an inference pool", pool.purpose.value))
    problems += cuda_problems(args.cloud, spec, pool, args.driver_version)
    if replica_gpu_memory(args.cloud, spec, pool) is None:
        problems.append(Problem("pool.instanceTypes", "no GPU type of the catalog", list(pool.instance_types)))
    if (cloud.workload_identity_annotation is None) != (args.identity_role is None):
        needs = "needed" if cloud.workload_identity_annotation is not None else "not used"
        problems.append(Problem("identityRole", f"{needs} on {args.cloud.value}", args.identity_role))
    if spec.internal_load_balancer:
        for field, value, wanted in (
            ("tlsPolicy", args.tls_policy, args.cloud is Cloud.ALICLOUD),
            ("zoneMaps", args.zone_maps, cloud.zone_maps_annotation is not None),
        ):
            if (value is not None) != wanted:
                problems.append(Problem(field, f"{'needed' if wanted else 'not used'} on {args.cloud.value}", value))
        if bool(args.client_cidrs) != cloud.limits_load_balancer_clients:
            use = "needed" if cloud.limits_load_balancer_clients else "not used"
            problems.append(Problem("clientCidrs", f"{use} on {args.cloud.value}", list(args.client_cidrs)))
    elif args.client_cidrs:
        problems.append(Problem("clientCidrs", "only an internal load balancer uses it", list(args.client_cidrs)))
    if problems:
        raise ConfigError(problems)


def _tls_annotations(args: InferenceServiceArgs) -> Mapping[str, pulumi.Input[str]]:
    """The cloud's internal-load-balancer annotations and its TLS listener on :data:`TLS_PORT`: the certificate,
    the TLS 1.3-only policy and, where a new load balancer needs them, its zones."""
    cloud, spec = profile(args.cloud), args.service
    port_key, port_value = cloud.tls_port_annotation
    policy = args.tls_policy if args.tls_policy is not None else spec.aws_ssl_policy or AWS_TLS13_SSL_POLICIES[0]
    annotations: dict[str, pulumi.Input[str]] = {
        **cloud.internal_load_balancer_annotations,
        cloud.tls_certificate_annotation: str(spec.tls_certificate),
        cloud.tls_policy_annotation: policy,
        port_key: port_value.format(name="https", port=TLS_PORT),
    }
    if cloud.zone_maps_annotation is not None and args.zone_maps is not None:
        annotations[cloud.zone_maps_annotation] = args.zone_maps
    return annotations


def _server_command(
    spec: InferenceServiceSpec, memory: ReplicaGpuMemory
) -> tuple[list[str] | None, list[str] | None, str]:
    """The server container's command, args and readiness path for its server kind, capped to the replica's GPU
    memory (:data:`MEMORY_HEADROOM` of its cap, as a fraction of the memory its process sees)."""
    model = spec.served_model_name
    fraction = f"{MEMORY_HEADROOM * memory.cap_gib / memory.visible_gib:.3f}"
    if spec.server is ModelServer.TENSORFLOW_SERVING:
        # TensorFlow Serving opens its REST port only once ServerCore::Create has loaded the models
        # (tensorflow_serving/model_servers/server.cc), and GET /v1/models/<name> reports the model's versions
        # (TensorFlow Serving RESTful API, "Model status API"): readiness means the model is served. Without a
        # fraction TensorFlow takes nearly all of the GPU (main.cc at 2.18.0: 0.0 lets "Tensorflow ...
        # automatically select a value").
        return (
            ["tensorflow_model_server"],
            [
                f"--model_name={model}",
                f"--model_base_path={MODEL_BASE_PATH}/{model}",
                f"--rest_api_port={spec.serving_port}",
                f"--port={GRPC_PORT}",
                f"--per_process_gpu_memory_fraction={fraction}",
            ],
            f"/v1/models/{model}",
        )
    if spec.server is ModelServer.VLLM:
        # The image's entrypoint is `vllm serve` (docker/Dockerfile, target vllm-openai); the model is the staged
        # directory. The API server starts listening once the engine has loaded the model, and /health answers 200
        # while the engine is alive (vLLM docs, deployment/k8s.md probes).
        return (
            None,
            [
                f"{MODEL_BASE_PATH}/{model}",
                f"--served-model-name={model}",
                "--host=0.0.0.0",
                f"--port={spec.serving_port}",
                f"--gpu-memory-utilization={fraction}",
                f"--tensor-parallel-size={spec.gpus_per_replica}",
            ],
            "/health",
        )
    return None, None, str(spec.probe_path)


def _pod(args: InferenceServiceArgs, app: Mapping[str, str]) -> k8s.core.v1.PodSpecArgs:
    spec, pool = args.service, args.pool
    model = spec.served_model_name
    memory = replica_gpu_memory(args.cloud, spec, pool)
    assert memory is not None  # _check refused a pool without catalog types
    models = k8s.core.v1.VolumeMountArgs(name="models", mount_path=MODEL_BASE_PATH)
    tmp = k8s.core.v1.VolumeMountArgs(name="tmp", mount_path="/tmp")
    command, server_args, path = _server_command(spec, memory)
    served = k8s.core.v1.HTTPGetActionArgs(path=path, port="http")
    env = {"MODEL_NAME": model, "MODEL_BASE_PATH": MODEL_BASE_PATH}
    mounts = [k8s.core.v1.VolumeMountArgs(name="models", mount_path=MODEL_BASE_PATH, read_only=True), tmp]
    volumes = [
        k8s.core.v1.VolumeArgs(name="models", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs()),
        k8s.core.v1.VolumeArgs(name="tmp", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs()),
    ]
    if spec.server is ModelServer.VLLM:
        env |= {"HOME": "/tmp", **_VLLM_ENV}
        mounts.append(k8s.core.v1.VolumeMountArgs(name="dshm", mount_path="/dev/shm"))
        volumes.append(
            k8s.core.v1.VolumeArgs(
                name="dshm", empty_dir=k8s.core.v1.EmptyDirVolumeSourceArgs(medium="Memory", size_limit=f"{_SHM_GIB}Gi")
            )
        )
    liveness = (
        k8s.core.v1.ProbeArgs(http_get=served, period_seconds=20, failure_threshold=3)
        if spec.server is ModelServer.VLLM
        else k8s.core.v1.ProbeArgs(
            tcp_socket=k8s.core.v1.TCPSocketActionArgs(port="http"), period_seconds=20, failure_threshold=3
        )
    )
    server = k8s.core.v1.ContainerArgs(
        name="server",
        image=spec.image or default_image(args.cloud, spec, args.pool, args.driver_version),
        command=command,
        args=server_args,
        # The TensorFlow Serving images' entrypoint serves ${MODEL_BASE_PATH}/${MODEL_NAME} (tools/docker/
        # Dockerfile.gpu), so an image that keeps it, or a custom server, finds the model the same way.
        env=[k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in env.items()],
        ports=[k8s.core.v1.ContainerPortArgs(name="http", container_port=spec.serving_port, protocol="TCP")],
        resources=k8s.core.v1.ResourceRequirementsArgs(
            requests={"cpu": spec.cpu, "memory": spec.memory},
            limits={"cpu": spec.cpu, "memory": spec.memory, **_gpu_limits(spec, memory, args.cloud)},
        ),
        startup_probe=k8s.core.v1.ProbeArgs(http_get=served, period_seconds=10, failure_threshold=_STARTUP_MINUTES * 6),
        readiness_probe=k8s.core.v1.ProbeArgs(http_get=served, period_seconds=10, failure_threshold=3),
        liveness_probe=liveness,
        security_context=_container_security(),
        volume_mounts=mounts,
    )
    return k8s.core.v1.PodSpecArgs(
        service_account_name=spec.name,
        init_containers=[_staging_container(args, model, [models, tmp])],
        containers=[server],
        node_selector={labels.POOL_LABEL: pool.name},
        tolerations=workload_tolerations(pool),
        priority_class_name=labels.PRIORITY_PREEMPTIBLE if is_spot(pool) else labels.PRIORITY_STANDARD,
        # Soft: a zone without capacity (spot, scale from zero) must not keep a replica from serving.
        topology_spread_constraints=[
            k8s.core.v1.TopologySpreadConstraintArgs(
                max_skew=1,
                topology_key="topology.kubernetes.io/zone",
                when_unsatisfiable="ScheduleAnyway",
                label_selector=k8s.meta.v1.LabelSelectorArgs(match_labels=dict(app)),
            )
        ],
        security_context=k8s.core.v1.PodSecurityContextArgs(
            run_as_non_root=True,
            run_as_user=_RUN_AS,
            run_as_group=_RUN_AS,
            fs_group=_RUN_AS,
            seccomp_profile=k8s.core.v1.SeccompProfileArgs(type="RuntimeDefault"),
        ),
        # No Kubernetes API token: the cloud identity webhooks mount their own projected tokens.
        automount_service_account_token=False,
        volumes=volumes,
    )


def _staging_container(
    args: InferenceServiceArgs, model: str, mounts: list[k8s.core.v1.VolumeMountArgs]
) -> k8s.core.v1.ContainerArgs:
    """The init container that runs ``stage_model.sh`` with the cloud's CLI and the pod's own credentials."""
    spec = args.service
    image, script = _STAGING[args.cloud]
    store = profile(args.cloud).model_store
    env: dict[str, pulumi.Input[str]] = {
        "MODEL_STORE": store,
        "MODEL_BUCKET": args.model_bucket,
        "MODEL_PREFIX": spec.model_source.removesuffix("/"),
        "MODEL_VERSION": str(spec.model_version),
        "MODEL_NAME": model,
        "MODEL_BASE_PATH": MODEL_BASE_PATH,
        # TensorFlow Serving reads <base>/<name>/<version>/ and a SavedModel; vLLM one Hugging Face model directory.
        "MODEL_LAYOUT": "flat" if spec.server is ModelServer.VLLM else "versioned",
        "MODEL_FORMAT": {ModelServer.VLLM: "huggingface", ModelServer.TENSORFLOW_SERVING: "savedmodel"}.get(
            spec.server, "any"
        ),
        "HOME": "/tmp",
    }
    if args.cloud is Cloud.AWS:
        env["AWS_REGION"] = args.region
    else:
        env |= {"OSS_REGION": args.region, "OSS_ENDPOINT": oss_internal_endpoint(args.region)}
    return k8s.core.v1.ContainerArgs(
        name="stage-model",
        image=image,
        command=["/bin/sh", "-c", script, "stage-model"],
        env=[k8s.core.v1.EnvVarArgs(name=k, value=v) for k, v in env.items()],
        resources=k8s.core.v1.ResourceRequirementsArgs(
            requests={"cpu": "250m", "memory": "256Mi"}, limits={"cpu": "1", "memory": "1Gi"}
        ),
        security_context=_container_security(),
        volume_mounts=mounts,
    )


def _container_security() -> k8s.core.v1.SecurityContextArgs:
    return k8s.core.v1.SecurityContextArgs(
        allow_privilege_escalation=False,
        read_only_root_filesystem=True,
        capabilities=k8s.core.v1.CapabilitiesArgs(drop=["ALL"]),
    )


def _gpu_limits(spec: InferenceServiceSpec, memory: ReplicaGpuMemory, cloud: Cloud) -> dict[str, str]:
    """``nvidia.com/gpu`` per replica (AWS time-slicing: one replica of a GPU); on a shared ACK pool its GPU memory as
    ``aliyun.com/gpu-mem`` (GiB), which cGPU makes the memory the container sees."""
    if memory.shares is None or cloud is Cloud.AWS:
        return {labels.GPU_TAINT_KEY: str(spec.gpus_per_replica)}
    return {profile(cloud).shared_gpu_resource: str(memory.cap_gib)}
