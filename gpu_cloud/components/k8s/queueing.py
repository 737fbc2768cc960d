"""Queueing of GPU training with Kueue: JobSet and Kueue installed, a ResourceFlavor per GPU pool, a ClusterQueue
and a LocalQueue per team, WorkloadPriorityClasses beside the PriorityClasses, and gang admission.

Kueue (kubernetes-sigs/kueue, chart pinned in ``components.versions``) admits a job whole: it reserves quota for every
pod of the job at once, and with ``waitForPodsReady`` it evicts and requeues a job whose pods are not all running
within the timeout, so a multi-node job never holds half its nodes (Kueue docs at v0.19.2,
site/content/en/docs/tasks/manage/setup_wait_for_pods_ready.md, "Setup All-or-nothing with ready Pods").

How flavors pick nodes (kueue v0.19.2 pkg/scheduler/flavorassigner/flavorassigner.go): a flavor fits a pod when the
pod's node selector and required affinity, restricted to the flavor's ``nodeLabels`` keys, match them, and when the
pod tolerates the flavor's ``nodeTaints``; the ClusterQueue tries its flavors in order and Kueue then adds the
flavor's ``nodeLabels`` to the pod. So a spot group has two flavors, spot first (tainted like the spot nodes: only
jobs that tolerate spot, the non-critical ones, may take it) and its on-demand fall-back second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from gpu_cloud.components import labels, versions
from gpu_cloud.components.k8s.objects import custom_object, oci_release
from gpu_cloud.components.k8s.priority import PRIORITY_VALUES
from gpu_cloud.components.k8s.scheduling import ON_DEMAND_CAPACITY, SPOT_TAINT_VALUE, is_spot
from gpu_cloud.components.spec import GpuNodePoolSpec, QueueSpec, SpotGroupSpec, TrainingSpec

__all__ = [
    "COHORT",
    "JOBSET_NAMESPACE",
    "KUEUE_API",
    "KUEUE_NAMESPACE",
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "TrainingQueues",
    "TrainingQueuesArgs",
    "cluster_queue_spec",
    "flavor_specs",
    "kueue_configuration",
]

KUEUE_API = "kueue.x-k8s.io/v1beta2"
"""The Kueue API version (the CRDs' storage version at chart 0.19.2)."""

KUEUE_NAMESPACE = "kueue-system"
"""Where the Kueue controller runs (the chart README's namespace)."""

JOBSET_NAMESPACE = "jobset-system"
"""Where the JobSet controller runs."""

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
"""Job label naming its LocalQueue (kueue v0.19.2 pkg/controller/constants/constants.go, QueueLabel)."""

PRIORITY_LABEL = "kueue.x-k8s.io/priority-class"
"""Job label naming its WorkloadPriorityClass (same file, WorkloadPriorityClassLabel)."""

COHORT = "gpu-training"
"""The cohort of every team's ClusterQueue: quota a team leaves unused may be borrowed by another, and is reclaimed
(by preemption) when its owner needs it."""

PODS_READY_TIMEOUT = "20m"
"""How long an admitted job may wait for all its pods to run before Kueue evicts and requeues it: long enough for the
cluster autoscaler to bring GPU nodes up from zero."""

_CONTROLLER_DEFAULTS: dict[str, Any] = {
    # The chart's own controllerManagerConfigYaml (charts/kueue/values.yaml at v0.19.2): the value replaces it whole,
    # so its health, metrics, webhook, leader election and client settings are repeated here.
    "health": {"healthProbeBindAddress": ":8081"},
    "metrics": {"bindAddress": ":8443"},
    "webhook": {"port": 9443},
    "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
    "clientConnection": {"qps": 300, "burst": 500},
}


def kueue_configuration() -> dict[str, Any]:
    """Kueue's Configuration (config.kueue.x-k8s.io/v1beta2; apis/config/v1beta2/configuration_types.go at v0.19.2).

    ``waitForPodsReady``: all-or-nothing (``timeout``), admissions wait while an admitted job's pods start
    (``blockAdmission``, so two half-started jobs never deadlock on the same nodes). Integrations: batch Jobs and
    JobSets only. Kueue checks quota only for GPUs: CPU, memory, hugepages and EFA devices follow from the node a pod
    takes and are left to the scheduler (``resources.excludeResourcePrefixes``; otherwise the default
    ``BlockUndeclared`` strategy refuses any job requesting a resource the ClusterQueue does not list).
    """
    return {
        "apiVersion": "config.kueue.x-k8s.io/v1beta2",
        "kind": "Configuration",
        **_CONTROLLER_DEFAULTS,
        "waitForPodsReady": {
            "timeout": PODS_READY_TIMEOUT,
            "blockAdmission": True,
            "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600},
        },
        "integrations": {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]},
        "resources": {
            "excludeResourcePrefixes": ["cpu", "memory", "ephemeral-storage", "hugepages-", "vpc.amazonaws.com/"]
        },
    }


def flavor_specs(pools: Sequence[GpuNodePoolSpec | SpotGroupSpec]) -> dict[str, dict[str, Any]]:
    """ResourceFlavor spec by flavor name: one per training pool, and for a spot group its spot flavor (named like its
    spot node group, tainted like its nodes) followed by its on-demand fall-back."""
    flavors: dict[str, dict[str, Any]] = {}
    for pool in pools:
        for name, spec in _pool_flavors(pool):
            flavors[name] = spec
    return flavors


def _pool_flavors(pool: GpuNodePoolSpec | SpotGroupSpec) -> list[tuple[str, dict[str, Any]]]:
    if not is_spot(pool):
        return [(pool.name, {"nodeLabels": {labels.POOL_LABEL: pool.name}})]
    spot: dict[str, Any] = {
        "nodeLabels": {labels.POOL_LABEL: pool.name, labels.CAPACITY_LABEL: SPOT_TAINT_VALUE},
        "nodeTaints": [{"key": labels.SPOT_TAINT_KEY, "value": SPOT_TAINT_VALUE, "effect": "NoSchedule"}],
    }
    flavors = [(f"{pool.name}{labels.SPOT_SUFFIX}", spot)]
    if isinstance(pool, SpotGroupSpec) and pool.on_demand_fallback:
        fallback: dict[str, Any] = {
            "nodeLabels": {labels.POOL_LABEL: pool.name, labels.CAPACITY_LABEL: ON_DEMAND_CAPACITY}
        }
        flavors.append((f"{pool.name}{labels.FALLBACK_SUFFIX}", fallback))
    return flavors


def cluster_queue_spec(
    queue: QueueSpec, pools: Mapping[str, GpuNodePoolSpec | SpotGroupSpec], namespace: str
) -> dict[str, Any]:
    """The team's ClusterQueue: its GPU quota on each flavor of each of its pools (spot before on-demand), in the
    cohort, for jobs of the training namespace only. Preemption: a job may evict lower-priority jobs of its own queue
    (``gpu-critical`` preempts the others) and reclaim its quota lent to other teams."""
    flavors = [
        {"name": name, "resources": [{"name": labels.GPU_TAINT_KEY, "nominalQuota": gpus}]}
        for pool, gpus in queue.gpus.items()
        for name, _ in _pool_flavors(pools[pool])
    ]
    return {
        "cohortName": COHORT,
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [{"coveredResources": [labels.GPU_TAINT_KEY], "flavors": flavors}],
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
    }


@dataclass(frozen=True)
class TrainingQueuesArgs:
    """Inputs of :class:`TrainingQueues`.

    Attributes:
        training: The training spec (its queues and namespace); the namespace must exist (pass ``depends_on``).
        pools: Every training pool and spot group of the cluster.
    """

    training: TrainingSpec
    pools: Sequence[GpuNodePoolSpec | SpotGroupSpec]


class TrainingQueues(pulumi.ComponentResource):
    """JobSet and Kueue, and the queues of the training namespace.

    Children: Releases ``jobset`` and ``kueue`` (namespaces ``jobset-system``, ``kueue-system``); a ResourceFlavor per
    flavor of :func:`flavor_specs`; a WorkloadPriorityClass per PriorityClass (same name and value); per team a
    ClusterQueue and a LocalQueue. Validation of the queues against the pools is ``spec.training_problems``.
    """

    releases: dict[str, k8s.helm.v3.Release]
    """The Helm releases by chart name."""

    def __init__(self, name: str, args: TrainingQueuesArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:k8s:TrainingQueues", name, None, opts)
        namespace = args.training.namespace
        jobset = self._release(name, versions.JOBSET_CHART, JOBSET_NAMESPACE, {}, [])
        kueue = self._release(
            name,
            versions.KUEUE_CHART,
            KUEUE_NAMESPACE,
            {"managerConfig": {"controllerManagerConfigYaml": yaml.safe_dump(kueue_configuration(), sort_keys=False)}},
            [jobset],
        )
        self.releases = {versions.JOBSET_CHART.name: jobset, versions.KUEUE_CHART.name: kueue}
        # Objects of Kueue's CRDs wait for the release (its CRDs and admission webhook), and for what the component
        # waits for (the namespace), since a component's depends_on does not reach its children (pulumi/pulumi#8721).
        waits = [kueue, *(opts.depends_on if opts is not None and isinstance(opts.depends_on, list) else [])]
        child = pulumi.ResourceOptions(parent=self, depends_on=waits)
        pools = {p.name: p for p in args.pools}
        used = {pool for queue in args.training.queues for pool in queue.gpus}
        for flavor, spec in flavor_specs([p for p in args.pools if p.name in used]).items():
            _kueue_object(f"{name}-resourceflavor-{flavor}", "ResourceFlavor", {"name": flavor}, {"spec": spec}, child)
        for class_name, value in PRIORITY_VALUES.items():
            _kueue_object(
                f"{name}-workloadpriorityclass-{class_name}",
                "WorkloadPriorityClass",
                {"name": class_name},
                {"value": value, "description": f"Kueue priority of jobs of PriorityClass {class_name}."},
                child,
            )
        for queue in args.training.queues:
            _kueue_object(
                f"{name}-clusterqueue-{queue.name}",
                "ClusterQueue",
                {"name": queue.name},
                {"spec": cluster_queue_spec(queue, pools, namespace)},
                child,
            )
            _kueue_object(
                f"{name}-localqueue-{queue.name}",
                "LocalQueue",
                {"name": queue.name, "namespace": namespace},
                {"spec": {"clusterQueue": queue.name}},
                child,
            )
        self.register_outputs({"releases": list(self.releases)})

    def _release(
        self,
        name: str,
        chart: versions.HelmChart,
        namespace: str,
        values: dict[str, Any],
        depends_on: list[pulumi.Resource],
    ) -> k8s.helm.v3.Release:
        return oci_release(self, name, chart, namespace, values, depends_on, create_namespace=True)


def _kueue_object(
    resource_name: str, kind: str, metadata: dict[str, str], fields: dict[str, Any], opts: pulumi.ResourceOptions
) -> None:
    custom_object(resource_name, {"apiVersion": KUEUE_API, "kind": kind, "metadata": metadata, **fields}, opts)
