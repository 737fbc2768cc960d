"""What runs on the GPUs: inference services, training queues and jobs, the checkpoint bucket they use, and where
alerts go."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, model_validator
from pydantic.alias_generators import to_camel

from gpu_cloud.components.spec._base import K8sName, Spec
from gpu_cloud.components.spec.problems import Problem, raise_problems

__all__ = [
    "AWS_TLS13_SSL_POLICIES",
    "AlertReceiverKind",
    "AlertsSpec",
    "CheckpointBucketSpec",
    "GpuMetric",
    "InferenceServiceSpec",
    "ModelServer",
    "QueueSpec",
    "TrainingJobSpec",
    "TrainingSpec",
]


class GpuMetric(StrEnum):
    """The signal inference autoscaling follows (served to the HPA by prometheus-adapter)."""

    UTILIZATION = "gpu-utilization"
    """DCGM_FI_DEV_GPU_UTIL: the share of time the GPU runs work, which follows traffic (the DCGM exporter)."""
    MEMORY = "gpu-memory"
    """Framebuffer used over total: DCGM_FI_DEV_FB_USED / (DCGM_FI_DEV_FB_USED + DCGM_FI_DEV_FB_FREE). Only for a
    custom server whose memory follows its traffic: TensorFlow Serving and vLLM reserve theirs when they start
    (TF Serving's ``--per_process_gpu_memory_fraction``, vLLM's ``--gpu-memory-utilization``), so it never moves and
    an HPA on it sits at one end of its range."""
    REQUESTS = "requests"
    """vLLM only: each replica's requests, running (``vllm:num_requests_running``, target
    ``targetRequestsRunning``) and waiting (``vllm:num_requests_waiting``, target ``targetRequestsWaiting``); the
    HPA follows whichever asks for more replicas. The running requests grow with the load up to what a replica
    batches, so they hold a replica count that fits the load; the waiting ones, the queue depth AWS's EKS inference
    autoscaling guide scales on, add replicas once the replicas are full. The queue alone is 0 until the replicas
    are full and grows without bound after: an HPA on it alone drops to minReplicas, queues, jumps, drops again."""


class ModelServer(StrEnum):
    """The model server an inference service runs."""

    VLLM = "vllm"
    """vLLM's OpenAI-compatible server (the default; components.versions.VLLM_IMAGES): the component stages a Hugging
    Face model directory, starts ``vllm serve`` on it with its GPU memory share and tensor parallelism, probes
    ``/health`` and scales on the waiting requests."""
    TENSORFLOW_SERVING = "tensorflow-serving"
    """TensorFlow Serving (the default image, or another build of it): the component passes the model name and base
    path and probes the model status endpoint."""
    CUSTOM = "custom"
    """Another server: it gets ``MODEL_NAME`` and ``MODEL_BASE_PATH`` and must name its readiness path."""


AWS_TLS13_SSL_POLICIES = ("ELBSecurityPolicy-TLS13-1-3-2021-06", "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04")
"""ELB security policies that negotiate TLS 1.3 only (Elastic Load Balancing, "Security policies for your Network
Load Balancer": the TLS13-1-3 policies support TLSv1.3 alone); the first is the default."""

_PATH_SEGMENT = re.compile(r"^(?!\.{1,2}$)[A-Za-z0-9._-]{1,128}$")


class AlertReceiverKind(StrEnum):
    """Where Alertmanager sends the environment's alerts (its receiver integrations, Alertmanager 0.30)."""

    WEBHOOK = "webhook"
    """An HTTP endpoint taking Alertmanager's webhook JSON, e.g. a DingTalk bridge such as
    prometheus-webhook-dingtalk (Alertmanager has no DingTalk integration)."""
    SLACK = "slack"
    """A Slack incoming webhook and its channel."""
    SNS = "sns"
    """An Amazon SNS topic (AWS only); Alertmanager publishes with its Pod Identity role."""


class AlertsSpec(Spec):
    """The receiver every alert of the environment goes to. Its URL, a credential, is never here: it is the Pulumi
    secret ``alertReceiverUrl`` of the stack (``pulumi config set --secret alertReceiverUrl <url>``)."""

    receiver: AlertReceiverKind
    """webhook, slack or sns."""
    slack_channel: str | None = Field(default=None, pattern=r"^#[a-z0-9][a-z0-9._-]{0,79}$")
    """Slack only: the channel, e.g. ``#gpu-alerts``."""
    sns_topic_arn: str | None = Field(
        default=None, pattern=r"^arn:aws(-cn|-us-gov)?:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$"
    )
    """SNS only: the topic, in the environment's region."""

    @model_validator(mode="after")
    def _receiver_fields(self) -> AlertsSpec:
        wanted = {AlertReceiverKind.SLACK: "slack_channel", AlertReceiverKind.SNS: "sns_topic_arn"}
        problems = [
            Problem(to_camel(field), f"required for receiver {kind.value}", None)
            for kind, field in wanted.items()
            if self.receiver is kind and getattr(self, field) is None
        ]
        problems += [
            Problem(to_camel(field), f"only receiver {kind.value} uses it", getattr(self, field))
            for kind, field in wanted.items()
            if self.receiver is not kind and getattr(self, field) is not None
        ]
        raise_problems(problems)
        return self

    @property
    def needs_url(self) -> bool:
        """The receiver posts to a URL (webhook, Slack), which the ``alertReceiverUrl`` secret holds."""
        return self.receiver is not AlertReceiverKind.SNS


class InferenceServiceSpec(Spec):
    """A GPU model server with GPU-driven autoscaling, its model staged from the environment's bucket."""

    name: K8sName
    """The service's name (its Kubernetes objects and ServiceAccount)."""
    pool: K8sName
    """The inference pool (or spot group) it runs on."""
    model_source: str = Field(min_length=1)
    """Key prefix of the model in the environment's bucket (checkpointBucket), e.g. ``models/resnet50``; its
    numeric sub-prefixes (``models/resnet50/1/``) are the versions: a SavedModel for TensorFlow Serving, a Hugging
    Face model directory (``config.json``, weights) for vLLM."""
    model_name: str | None = None
    """The name the server serves the model as (a path segment); default: the service's name."""
    model_version: Literal["latest"] | Annotated[int, Field(ge=0)] = "latest"
    """Which version to stage and serve: the highest-numbered one, or that number."""
    server: ModelServer = ModelServer.VLLM
    """The model server of ``image``: vLLM by default, the OpenAI-compatible LLM server both clouds' AI guides serve
    with (docs/inference.md)."""
    image: str | None = None
    """The server image; default the server's (``components.versions``): TensorFlow Serving GPU, or vLLM's build of
    the newest CUDA release the pool's driver runs (CUDA 13.0 on EKS's AL2023 NVIDIA AMI, 12.9 on ACK)."""
    probe_path: str | None = Field(default=None, pattern=r"^/[!-~]*$")
    """A custom server's HTTP path that answers 200 once the model is served (startup and readiness probes)."""
    port: int | None = Field(default=None, ge=1, le=65535)
    """The server's HTTP port (probes; the Service's target); default vLLM's 8000, else 8501."""
    gpus_per_replica: int = Field(default=1, ge=1, le=8)
    """``nvidia.com/gpu`` limit per pod; vLLM's tensor parallelism (``--tensor-parallel-size``)."""
    gpu_memory_gib: int | None = Field(default=None, ge=1, le=1024)
    """The GPU memory a replica may take on each of its GPUs, in GiB: the server is started capped to it (vLLM
    ``--gpu-memory-utilization``, TensorFlow Serving ``--per_process_gpu_memory_fraction``) and, on an ACK pool that
    shares GPUs, it is the ``aliyun.com/gpu-mem`` the pod requests and cGPU enforces. Default: the whole GPU, or on a
    pool that shares GPUs its share (the GPU's memory over ``gpuTimeSlicingReplicas``). A config where it does not
    fit is refused."""
    cpu: str = Field(default="1", pattern=r"^([1-9][0-9]*m|[0-9]+(\.[0-9]+)?)$")
    """CPU request and limit of the server (a Kubernetes quantity)."""
    memory: str = Field(default="4Gi", pattern=r"^[1-9][0-9]*(Mi|Gi)$")
    """Memory request and limit of the server."""
    min_replicas: int = Field(default=1, ge=1, le=1000)
    """Fewest replicas."""
    max_replicas: int = Field(default=4, ge=1, le=1000)
    """Most replicas."""
    metric: GpuMetric | None = None
    """The signal the HPA follows; default one that follows traffic: vLLM's requests, else GPU utilisation."""
    target_percent: int = Field(default=70, ge=1, le=100)
    """The HPA target of a GPU metric, in percent."""
    target_requests_running: int = Field(default=16, ge=1, le=10000)
    """The HPA target of ``requests`` for the running requests per replica (an average): the concurrency a replica
    serves within the latency you want (measure it: ``vllm bench serve`` at rising ``--max-concurrency``); at most
    what a replica batches (``--max-num-seqs``, its KV cache), or only the queue scales."""
    target_requests_waiting: int = Field(default=5, ge=1, le=10000)
    """The HPA target of ``requests`` for the waiting requests per replica (an average)."""
    internal_load_balancer: bool = False
    """Expose through the cloud's internal load balancer with a TLS 1.3 listener instead of ClusterIP (never
    internet-facing)."""
    tls_certificate: str | None = None
    """The load balancer listener's certificate: an ACM certificate ARN (AWS) or a Certificate Management Service
    certificate id (Alibaba Cloud); needed with ``internal_load_balancer``."""
    aws_ssl_policy: str | None = None
    """AWS: the TLS listener's ELB security policy, one of :data:`AWS_TLS13_SSL_POLICIES` (default the first)."""
    cuda_version: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    """The CUDA version the image needs; checked against the pool's driver."""
    framework: str | None = Field(default=None, pattern=r"^[a-z]+-\d+\.\d+$")
    """The framework release whose GPU serving image this is, e.g. ``tensorflow-2.18`` for a build of TensorFlow
    Serving 2.18; the CUDA of that release's serving image (components.k8s.cuda) is checked against the pool's driver.
    A ``tensorflow/serving:<X.Y.Z>-gpu`` image, the default one included, is checked from its tag without it."""

    @property
    def served_model_name(self) -> str:
        """The name the server serves the model as."""
        return self.model_name or self.name

    @property
    def serving_port(self) -> int:
        """The server's HTTP port: ``port``, or the server's own default."""
        return self.port or (8000 if self.server is ModelServer.VLLM else 8501)

    @property
    def scaling_metric(self) -> GpuMetric:
        """The signal the HPA follows: ``metric``, or the server's default."""
        if self.metric is not None:
            return self.metric
        return GpuMetric.REQUESTS if self.server is ModelServer.VLLM else GpuMetric.UTILIZATION

    @model_validator(mode="after")
    def _checks(self) -> InferenceServiceSpec:
        problems = []
        if self.min_replicas > self.max_replicas:
            problems.append(Problem("minReplicas", f"greater than maxReplicas {self.max_replicas}", self.min_replicas))
        source = self.model_source
        if "://" in source or source.startswith("/"):
            problems.append(
                Problem(
                    "modelSource",
                    "outside the environment's bucket: give the model's key prefix in it (e.g. models/resnet50)",
                    source,
                )
            )
        elif not all(_PATH_SEGMENT.match(part) for part in source.removesuffix("/").split("/")):
            problems.append(Problem("modelSource", "not a key prefix of path segments (a-z, 0-9, . _ -)", source))
        if self.model_name is not None and not _PATH_SEGMENT.match(self.model_name):
            problems.append(
                Problem("modelName", "not a path segment (1-128 of A-Z a-z 0-9 . _ -; not . or ..)", self.model_name)
            )
        if self.server is ModelServer.CUSTOM and self.probe_path is None:
            problems.append(Problem("probePath", "a custom server must name its readiness path", None))
        if self.server is ModelServer.CUSTOM and self.image is None:
            problems.append(Problem("image", "a custom server needs its image", None))
        if self.server is ModelServer.TENSORFLOW_SERVING and self.probe_path is not None:
            problems.append(
                Problem("probePath", "TensorFlow Serving is probed on its model status endpoint", self.probe_path)
            )
        if self.server is ModelServer.VLLM and self.probe_path is not None:
            problems.append(Problem("probePath", "vLLM is probed on /health", self.probe_path))
        if self.metric is GpuMetric.MEMORY and self.server is not ModelServer.CUSTOM:
            problems.append(
                Problem(
                    "metric",
                    f"{self.server.value} reserves its GPU memory when it starts, so GPU memory does not follow "
                    "traffic; use gpu-utilization" + (" or requests" if self.server is ModelServer.VLLM else ""),
                    self.metric.value,
                )
            )
        if self.metric is GpuMetric.REQUESTS and self.server is not ModelServer.VLLM:
            problems.append(Problem("metric", "only vLLM reports its running and waiting requests", self.metric.value))
        if self.internal_load_balancer and not self.tls_certificate:
            problems.append(Problem("tlsCertificate", "the internal load balancer's TLS 1.3 listener needs one", None))
        if self.aws_ssl_policy is not None and self.aws_ssl_policy not in AWS_TLS13_SSL_POLICIES:
            problems.append(
                Problem(
                    "awsSslPolicy",
                    f"allows TLS below 1.3; use one of {', '.join(AWS_TLS13_SSL_POLICIES)}",
                    self.aws_ssl_policy,
                )
            )
        raise_problems(problems)
        return self


class QueueSpec(Spec):
    """A team's queue: a Kueue ClusterQueue with the team's GPU quota per pool, and its LocalQueue (same name) in the
    training namespace."""

    name: K8sName
    """The team, and the name of its ClusterQueue and LocalQueue."""
    gpus: dict[str, Annotated[int, Field(ge=0, le=100000)]] = Field(min_length=1)
    """GPUs the team may use at once per training pool or spot group (a spot group's quota holds for its spot and for
    its on-demand fall-back capacity each); unused quota of one team may be borrowed by another."""


class TrainingJobSpec(Spec):
    """A multi-node PyTorch job (``torchrun``, one pod per node) submitted to a team's queue."""

    name: K8sName
    """The job's name (its JobSet, ServiceAccount and checkpoint identity)."""
    queue: K8sName
    """The team queue (one of ``training.queues``) it is submitted to."""
    pool: K8sName
    """The training pool or spot group it runs on."""
    nodes: int = Field(ge=1, le=1000)
    """Nodes (pods, torchrun agents) of the job."""
    gpus_per_node: int | None = Field(default=None, ge=1, le=16)
    """GPUs per node; default every GPU of the pool's instance type."""
    efa: bool | None = None
    """Request the pool's EFA interfaces (AWS); default the pool's ``efa``."""
    priority: Literal["gpu-critical", "gpu-standard", "gpu-preemptible"] = "gpu-standard"
    """Its PriorityClass and Kueue WorkloadPriorityClass; only non-critical jobs may run on spot capacity."""
    image: str = Field(min_length=1)
    """The training image (with PyTorch and, on EFA pools, the aws-ofi-nccl plugin)."""
    cuda_version: str | None = Field(default=None, pattern=r"^\d+\.\d+$")
    """The CUDA release the image is built on (``torch.version.cuda``, e.g. ``12.8``); checked against the pool's
    driver, as an inference service's is. Without it the image's CUDA is not checked."""
    command: tuple[str, ...] = Field(min_length=1)
    """The training script and its arguments, run by ``torchrun`` on every node."""
    checkpoint_prefix: str = Field(min_length=1)
    """Key prefix in the environment's checkpoint bucket the job may read and write (``jobs/<name>/``)."""
    shm_size_gib: int | None = Field(default=None, ge=1, le=4096)
    """Size of ``/dev/shm`` (memory-backed); default a quarter of the node's memory, at most 64 GiB."""
    termination_grace_seconds: int = Field(default=100, ge=30, le=3600)
    """Time between SIGTERM and SIGKILL: rank 0 writes its checkpoint in it. On spot capacity it must end before the
    instance does (``SPOT_NOTICE_SECONDS``)."""
    max_restarts: int = Field(default=3, ge=0, le=100)
    """Times the whole job is recreated after a pod fails (it then resumes from its latest checkpoint)."""


class TrainingSpec(Spec):
    """Defaults for training jobs: namespace, NCCL settings, GPU quota."""

    namespace: K8sName = "gpu-training"
    """The training namespace."""
    gpu_quota: int = Field(default=64, ge=1, le=100000)
    """Most ``nvidia.com/gpu`` requested in the namespace."""
    nccl_debug: Literal["VERSION", "WARN", "INFO", "TRACE"] = "INFO"
    """NCCL_DEBUG."""
    queues: tuple[QueueSpec, ...] = ()
    """Team queues (Kueue); none means no Kueue in the environment."""
    jobs: tuple[TrainingJobSpec, ...] = ()
    """Training jobs the environment runs."""
    acceptance_pools: tuple[K8sName, ...] = ()
    """Training pools a GPU pool acceptance job checks (GPU count and model, topology, two-node NCCL all-reduce)."""


class CheckpointBucketSpec(Spec):
    """A private, versioned, KMS-encrypted bucket for training checkpoints."""

    noncurrent_version_days: int = Field(default=30, ge=1, le=3650)
    """Days before a non-current checkpoint version expires."""
