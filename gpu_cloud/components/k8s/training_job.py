"""TrainingJob: a multi-node PyTorch job (``torchrun``, one pod per node) as a JobSet queued by Kueue.

Why JobSet: it is the Kubernetes SIG Apps API for groups of Jobs (kubernetes-sigs/jobset, chart pinned in
``components.versions``), Kueue queues it as one workload (integration ``jobset.x-k8s.io/jobset``), and it gives
what ``torchrun`` needs without an operator of its own: an Indexed Job (``JOB_COMPLETION_INDEX`` is the node rank),
a headless Service so that pod ``<jobset>-node-0-0`` resolves as the rendezvous host, and a failure policy that
recreates the whole gang when one pod fails (``failurePolicy.maxRestarts``), which is what a collective job needs
(its surviving ranks cannot continue). The Kubeflow trainer would add its own controller and runtime CRDs; a bare
Indexed Job with a hand-made Service would give neither the gang restart nor Kueue's JobSet accounting.

:func:`jobset_manifest` is pure: the same manifest is declared by the component and printed by
``python -m gpu_cloud.planner.render`` for teams that submit with ``kubectl`` instead of Pulumi.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels
from gpu_cloud.components.catalog import lookup
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.k8s.objects import custom_object
from gpu_cloud.components.k8s.queueing import PRIORITY_LABEL, QUEUE_LABEL
from gpu_cloud.components.k8s.scheduling import SPOT_TAINT_VALUE, is_spot
from gpu_cloud.components.k8s.training import nccl_settings
from gpu_cloud.components.spec import (
    Cloud,
    GpuNodePoolSpec,
    SpotGroupSpec,
    TrainingJobSpec,
    TrainingSpec,
    pool_gpus,
    pool_memory_gib,
)

__all__ = [
    "EFA_RESOURCE",
    "JOBSET_API",
    "RENDEZVOUS_PORT",
    "REPLICATED_JOB",
    "TrainingJob",
    "TrainingJobArgs",
    "jobset_manifest",
    "service_account_manifest",
]

JOBSET_API = "jobset.x-k8s.io/v1alpha2"
"""The JobSet API version (chart 0.12.0)."""

REPLICATED_JOB = "node"
"""The one replicated job of a training JobSet; its pods are ``<job>-node-0-<rank>``."""

RENDEZVOUS_PORT = 29500
"""torchrun's rendezvous port on rank 0 (its default, torch.distributed.run --master-port)."""

EFA_RESOURCE = "vpc.amazonaws.com/efa"
"""Extended resource of EFA interfaces (the AWS EFA Kubernetes device plugin; EKS User Guide, "Run machine learning
training on Amazon EKS with Elastic Fabric Adapter")."""

DEFAULT_SHM_GIB = 64
"""Default ``/dev/shm`` ceiling: DataLoader workers and NCCL's shared-memory transport use it; the container default
(64 MiB) is far too small for either."""

REQUEST_SHARE = 0.8
"""Share of a node's vCPUs and memory (per GPU taken) a pod requests; the rest covers what the node reserves for the
kubelet, the system and the node agents."""


def _gpus(job: TrainingJobSpec, cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    return job.gpus_per_node or pool_gpus(cloud, pool)


def _efa(job: TrainingJobSpec, cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    """EFA interfaces per pod: the node's share for the GPUs taken (every interface with every GPU)."""
    wanted = job.efa if job.efa is not None else isinstance(pool, GpuNodePoolSpec) and pool.efa
    found = lookup(cloud, pool.instance_types[0])
    if not wanted or found is None or found.efa_interfaces == 0:
        return 0
    return max(1, found.efa_interfaces * _gpus(job, cloud, pool) // found.gpu_count)


def _requests(job: TrainingJobSpec, cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> dict[str, str]:
    found = lookup(cloud, pool.instance_types[0])
    gpus = _gpus(job, cloud, pool)
    resources = {labels.GPU_TAINT_KEY: str(gpus)}
    if found is not None:
        share = gpus / found.gpu_count * REQUEST_SHARE
        resources |= {
            "cpu": str(max(1, int(found.vcpu * share))),
            "memory": f"{max(1, int(found.memory_gib * share))}Gi",
        }
    efa = _efa(job, cloud, pool)
    if efa:
        resources[EFA_RESOURCE] = str(efa)
    return resources


def shm_gib(job: TrainingJobSpec, cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> int:
    """Size of the job's ``/dev/shm``: its spec, else a quarter of the node's memory, at most DEFAULT_SHM_GIB."""
    return job.shm_size_gib or max(1, min(DEFAULT_SHM_GIB, int(pool_memory_gib(cloud, pool) / 4)))


def service_account_manifest(
    job: TrainingJobSpec, training: TrainingSpec, cloud: Cloud, role: str | None
) -> dict[str, Any]:
    """The job's own ServiceAccount: its checkpoint identity (EKS Pod Identity association, or the RRSA annotation
    naming ``role`` on ACK)."""
    annotation = profile(cloud).workload_identity_annotation
    metadata: dict[str, Any] = {"name": job.name, "namespace": training.namespace}
    if annotation is not None and role is not None:
        metadata["annotations"] = {annotation: role}
    return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def jobset_manifest(
    job: TrainingJobSpec,
    pool: GpuNodePoolSpec | SpotGroupSpec,
    training: TrainingSpec,
    cloud: Cloud,
    checkpoint_uri: pulumi.Input[str],
) -> dict[str, Any]:
    """The JobSet of ``job`` on ``pool`` (a validated spec: ``spec.training_problems`` found nothing).

    ``checkpoint_uri`` is the job's prefix in the checkpoint bucket (``s3://<bucket>/<prefix>`` or ``oss://...``),
    given to the trainer as ``CHECKPOINT_URI``.
    """
    gpus = _gpus(job, cloud, pool)
    host = f"{job.name}-{REPLICATED_JOB}-0-0.{job.name}"
    tolerations: list[dict[str, str]] = [{"key": labels.GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]
    if is_spot(pool) and job.priority != labels.PRIORITY_CRITICAL:
        # Kueue gives a job only flavors whose taints it tolerates: a critical job never gets the spot flavor.
        tolerations.append(
            {"key": labels.SPOT_TAINT_KEY, "operator": "Equal", "value": SPOT_TAINT_VALUE, "effect": "NoSchedule"}
        )
    env: list[dict[str, Any]] = [
        {"name": name, "value": value} for name, value in nccl_settings(training, pool).items()
    ]
    env += [
        {
            "name": "JOB_COMPLETION_INDEX",
            "valueFrom": {
                "fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}
            },
        },
        {"name": "CHECKPOINT_URI", "value": checkpoint_uri},
        {"name": "PYTHONUNBUFFERED", "value": "1"},
    ]
    resources = _requests(job, cloud, pool)
    limits = {k: v for k, v in resources.items() if k in (labels.GPU_TAINT_KEY, EFA_RESOURCE)}
    container = {
        "name": "trainer",
        "image": job.image,
        "command": ["torchrun"],
        "args": [
            f"--nnodes={job.nodes}",
            f"--nproc-per-node={gpus}",
            "--node-rank=$(JOB_COMPLETION_INDEX)",
            f"--master-addr={host}",
            f"--master-port={RENDEZVOUS_PORT}",
            *job.command,
        ],
        "env": env,
        "ports": [{"name": "rendezvous", "containerPort": RENDEZVOUS_PORT}],
        "resources": {"requests": resources, "limits": limits},
        "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
    }
    pod = {
        "serviceAccountName": job.name,
        "priorityClassName": job.priority,
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": job.termination_grace_seconds,
        "nodeSelector": {labels.POOL_LABEL: pool.name},
        "tolerations": tolerations,
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchLabels": {"jobset.sigs.k8s.io/jobset-name": job.name}},
                        "topologyKey": "kubernetes.io/hostname",
                    }
                ]
            }
        },
        "containers": [container],
        "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": f"{shm_gib(job, cloud, pool)}Gi"}}],
    }
    return {
        "apiVersion": JOBSET_API,
        "kind": "JobSet",
        "metadata": {
            "name": job.name,
            "namespace": training.namespace,
            "labels": {QUEUE_LABEL: job.queue, PRIORITY_LABEL: job.priority},
        },
        "spec": {
            "failurePolicy": {"maxRestarts": job.max_restarts},
            "successPolicy": {"operator": "All", "targetReplicatedJobs": [REPLICATED_JOB]},
            "network": {"enableDNSHostnames": True},
            "replicatedJobs": [
                {
                    "name": REPLICATED_JOB,
                    "replicas": 1,
                    "template": {
                        "spec": {
                            "parallelism": job.nodes,
                            "completions": job.nodes,
                            "completionMode": "Indexed",
                            "backoffLimit": 0,
                            "template": {"metadata": {"annotations": {DO_NOT_DISRUPT: "true"}}, "spec": pod},
                        }
                    },
                }
            ],
        },
    }


DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
"""Pod annotation with which Karpenter never voluntarily disrupts (consolidates, or drains for drift) the node a
training pod runs on, and does not evict the pod when it drains the node for another reason (Karpenter v1.14.1
concepts/disruption.md "Pod-Level Controls": ``"true"`` is permanent protection, for "a long batch job (such as you
might have with machine learning) that would need to start over if it were interrupted"). Ignored where Karpenter
does not provision the nodes."""


@dataclass(frozen=True)
class TrainingJobArgs:
    """Inputs of :class:`TrainingJob`.

    Attributes:
        job: The job (validated with its environment by ``spec.training_problems``).
        pool: The pool it runs on.
        training: The training spec (namespace, NCCL_DEBUG).
        cloud: The cluster's cloud.
        checkpoint_uri: The job's prefix in the checkpoint bucket (``s3://<bucket>/<prefix>`` or ``oss://...``).
        role: ACK: the RAM role (components.alicloud.RrsaRole) the job's ServiceAccount names; AWS: None (a
            components.aws.PodIdentityRole associates the ServiceAccount ``job.name``).
    """

    job: TrainingJobSpec
    pool: GpuNodePoolSpec | SpotGroupSpec
    training: TrainingSpec
    cloud: Cloud
    checkpoint_uri: pulumi.Input[str]
    role: str | None = None


class TrainingJob(pulumi.ComponentResource):
    """A training job: its ServiceAccount ``<job>`` and its JobSet (:func:`jobset_manifest`), waiting for what the
    component waits for (the queues, the namespace, the identity)."""

    def __init__(self, name: str, args: TrainingJobArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:TrainingJob", name, None, opts)
        # A component's depends_on does not reach its children (pulumi/pulumi#8721).
        child = pulumi.ResourceOptions(parent=self, depends_on=opts.depends_on if opts is not None else None)
        account = service_account_manifest(args.job, args.training, args.cloud, args.role)
        k8s.core.v1.ServiceAccount(
            f"{name}-service-account",
            metadata=k8s.meta.v1.ObjectMetaArgs(**account["metadata"]),
            opts=child,
        )
        manifest = jobset_manifest(args.job, args.pool, args.training, args.cloud, args.checkpoint_uri)
        custom_object(f"{name}-jobset", manifest, child)
        self.register_outputs({"jobSet": args.job.name})
