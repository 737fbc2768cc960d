"""The neutral checks of a whole stack config: those that span several specs or need the cloud's rules (key rotation,
principal formats, pools and services, training, the deploy path, alerts), registered in the one validation model
(``spec.stack``) with the fields each reads."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from pydantic.alias_generators import to_camel

from gpu_cloud.components.catalog import Cloud, lookup
from gpu_cloud.components.cloud_limits import limits
from gpu_cloud.components.kubernetes_support import version_problem
from gpu_cloud.components.spec.cluster import (
    ALICLOUD_ROTATION_DAYS,
    AWS_ROTATION_DAYS,
    SYSTEM_POOL_NAME,
    system_pool_problems,
)
from gpu_cloud.components.spec.network import ACK_SERVICE_CIDR, EgressMode
from gpu_cloud.components.spec.pools import (
    GpuNodePoolSpec,
    PoolPurpose,
    SpotGroupSpec,
    max_nodes,
    pool_gpus,
    pool_memory_gib,
    pool_problems,
    spot_problems,
)
from gpu_cloud.components.spec.problems import SECRET_SHOWN, Problem
from gpu_cloud.components.spec.provisioner import NodeProvisioner
from gpu_cloud.components.spec.stack import StackConfig, item_check, stack_check
from gpu_cloud.components.spec.workloads import InferenceServiceSpec, TrainingJobSpec

__all__ = [
    "REQUIRED_TAGS",
    "SPOT_NOTICE_SECONDS",
    "ReplicaGpuMemory",
    "alert_problems",
    "replica_gpu_memory",
    "training_problems",
]

REQUIRED_TAGS = ("environment", "owner", "cost-center")
"""Tags every environment carries (the required-tags policy's default)."""

_AWS_PRINCIPAL = re.compile(r"^arn:aws(-cn|-us-gov)?:iam::\d{12}:(role|user)/[\w+=,.@/-]+$")
_ACM_CERTIFICATE = re.compile(r"^arn:aws(-cn|-us-gov)?:acm:[a-z0-9-]+:\d{12}:certificate/[0-9a-f-]{36}$")
_ALICLOUD_PRINCIPAL = re.compile(r"^acs:ram::\d+:(role|user)/[\w+=,.@/-]+$")


SPOT_NOTICE_SECONDS = 120
"""Warning a spot instance gets before it is reclaimed: "two minutes" on EC2 (EC2 User Guide, "Spot Instance
interruption notices", docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html, read
2026-12-02). A job's termination grace period on spot capacity must fit in it."""

_CHECKPOINT_PREFIX = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*/$")
"""A key prefix inside the bucket: relative segments (no scheme, no leading slash, no ``..``), ending in ``/``."""


def _training_pools(config: StackConfig) -> dict[str, GpuNodePoolSpec | SpotGroupSpec]:
    pools: list[GpuNodePoolSpec | SpotGroupSpec] = [*config.node_pools, *config.spot_groups]
    return {p.name: p for p in pools if p.purpose is PoolPurpose.TRAINING}


def training_problems(config: StackConfig) -> list[Problem]:
    """What is wrong with the queues, jobs and acceptance pools of ``config.training``."""
    training = config.training
    if training is None:
        return []
    pools = _training_pools(config)
    problems: list[Problem] = []
    queues = [q.name for q in training.queues]
    for i, queue in enumerate(training.queues):
        if queue.name in queues[:i]:
            problems.append(Problem(f"training.queues.{i}.name", "already used by another queue", queue.name))
        problems += [
            Problem(f"training.queues.{i}.gpus.{pool}", "not a training pool or spot group", pool)
            for pool in queue.gpus
            if pool not in pools
        ]
    names = [j.name for j in training.jobs]
    for i, job in enumerate(training.jobs):
        problems += _job_problems(config, job, pools, queues, f"training.jobs.{i}")
        if job.name in names[:i]:
            problems.append(Problem(f"training.jobs.{i}.name", "already used by another job", job.name))
    if training.acceptance_pools and not training.queues:
        problems.append(
            Problem(
                "training.acceptancePools", "needs training.queues (JobSet comes with them)", training.acceptance_pools
            )
        )
    for i, name in enumerate(training.acceptance_pools):
        pool = pools.get(name)
        if pool is None:
            problems.append(Problem(f"training.acceptancePools.{i}", "not a training pool or spot group", name))
        elif max_nodes(pool) < 2:
            problems.append(Problem(f"training.acceptancePools.{i}", "the two-node test needs maxSize >= 2", name))
    return problems


def _job_problems(
    config: StackConfig,
    job: TrainingJobSpec,
    pools: Mapping[str, GpuNodePoolSpec | SpotGroupSpec],
    queues: list[str],
    path: str,
) -> list[Problem]:
    problems: list[Problem] = []
    if job.queue not in queues:
        problems.append(Problem(f"{path}.queue", f"no queue of that name in training.queues ({queues})", job.queue))
    if config.checkpoint_bucket is None:
        problems.append(Problem(f"{path}.checkpointPrefix", "the environment has no checkpointBucket", job.name))
    elif not _CHECKPOINT_PREFIX.match(job.checkpoint_prefix) or ".." in job.checkpoint_prefix.split("/"):
        problems.append(
            Problem(f"{path}.checkpointPrefix", "not a key prefix inside the checkpoint bucket", job.checkpoint_prefix)
        )
    pool = pools.get(job.pool)
    if pool is None:
        problems.append(Problem(f"{path}.pool", "not a training pool or spot group", job.pool))
        return problems
    gpus = pool_gpus(config.cloud, pool)
    if job.gpus_per_node is not None and job.gpus_per_node > gpus:
        problems.append(
            Problem(
                f"{path}.gpusPerNode", f"more than the {gpus} GPUs of {job.pool}'s instance type", job.gpus_per_node
            )
        )
    pool_efa = isinstance(pool, GpuNodePoolSpec) and pool.efa
    if job.efa and not pool_efa:
        problems.append(Problem(f"{path}.efa", f"pool {job.pool} has no EFA", job.efa))
    if job.nodes > max_nodes(pool):
        problems.append(Problem(f"{path}.nodes", f"more than the {max_nodes(pool)} nodes of {job.pool}", job.nodes))
    spot = isinstance(pool, SpotGroupSpec)
    if isinstance(pool, SpotGroupSpec) and job.priority == "gpu-critical" and not pool.on_demand_fallback:
        problems.append(
            Problem(
                f"{path}.priority",
                f"critical jobs never run on spot and {job.pool} has no on-demand fall-back",
                job.priority,
            )
        )
    if spot and job.termination_grace_seconds > SPOT_NOTICE_SECONDS:
        problems.append(
            Problem(
                f"{path}.terminationGraceSeconds",
                f"longer than the {SPOT_NOTICE_SECONDS} s a spot node gets before it is reclaimed",
                job.termination_grace_seconds,
            )
        )
    memory = pool_memory_gib(config.cloud, pool)
    if job.shm_size_gib is not None and job.shm_size_gib > memory / 2:
        problems.append(
            Problem(f"{path}.shmSizeGib", f"more than half the {memory:g} GiB of {job.pool}'s nodes", job.shm_size_gib)
        )
    return problems


def _deploy_problems(config: StackConfig) -> list[Problem]:
    """The runner VPC must be routable from the environment's VPC (and its peer's, if any) to reach the API."""
    runner = config.deploy.runner_vpc_cidr
    ranges = [("network.vpcCidr", config.network.vpc_cidr)]
    if config.peering is not None:
        ranges.append(("peering.peerVpcCidr", config.peering.peer_vpc_cidr))
    problems = [
        Problem("deploy.runnerVpcCidr", f"overlaps {field} {cidr}: the API would be unreachable", str(runner))
        for field, cidr in ranges
        if runner.overlaps(cidr)
    ]
    region = config.deploy.runner_region
    if region is not None and region not in limits(config.cloud).zones:
        message = f"not a {config.cloud.value} region whose zones are known (components/cloud_limits.json)"
        problems.append(Problem("deploy.runnerRegion", message, region))
    if config.cloud is Cloud.ALICLOUD and region not in (None, config.region):
        problems.append(Problem("deploy.runnerRegion", f"the ACK runner peers within {config.region}", region))
    if config.cloud is Cloud.ALICLOUD and config.deploy.runner_route_table_count != 1:
        problems.append(
            Problem(
                "deploy.runnerRouteTableCount",
                "Alibaba Cloud runners export one route table",
                config.deploy.runner_route_table_count,
            )
        )
    return problems


@stack_check("tags")
def _required_tags(config: StackConfig) -> list[Problem]:
    missing = [t for t in REQUIRED_TAGS if t not in config.tags]
    if missing:
        return [Problem("tags", f"missing required tags {', '.join(missing)}", sorted(config.tags))]
    return []


@stack_check("cloud", "network")
def _egress(config: StackConfig) -> list[Problem]:
    if config.cloud is Cloud.AWS and config.network.egress is EgressMode.NAT and not config.network.nat_subnets:
        return [Problem("network.natSubnets", "AWS NAT egress needs at least one NAT subnet", [])]
    if config.cloud is Cloud.ALICLOUD and config.network.nat_subnets:
        message = "Alibaba Cloud NAT gateways sit in a vswitch; leave it empty"
        return [Problem("network.natSubnets", message, len(config.network.nat_subnets))]
    return []


@stack_check("cloud", "network")
def _pod_subnets(config: StackConfig) -> list[Problem]:
    if config.cloud is Cloud.AWS and config.network.pod_subnets:
        message = "EKS pods take addresses of their node's subnet (VPC CNI); leave it empty"
        return [Problem("network.podSubnets", message, len(config.network.pod_subnets))]
    network = config.network
    pod_zones = sorted({s.zone for s in network.pod_subnets})
    if network.pod_subnets and pod_zones != sorted(network.zones):
        message = f"need the zones of privateSubnets exactly ({', '.join(sorted(network.zones))})"
        return [Problem("network.podSubnets", message, pod_zones)]
    return []


@stack_check("cloud", "network")
def _ack_service_range(config: StackConfig) -> list[Problem]:
    if config.cloud is Cloud.ALICLOUD and config.network.vpc_cidr.overlaps(ACK_SERVICE_CIDR):
        message = f"overlaps the cluster's Service range {ACK_SERVICE_CIDR}"
        return [Problem("network.vpcCidr", message, str(config.network.vpc_cidr))]
    return []


@stack_check("cloud", "kms")
def _kms(config: StackConfig) -> list[Problem]:
    cloud = config.cloud
    problems = []
    low, high = AWS_ROTATION_DAYS if cloud is Cloud.AWS else ALICLOUD_ROTATION_DAYS
    if not low <= config.kms.rotation_days <= high:
        message = f"{cloud.value} rotates keys every {low}..{high} days"
        problems.append(Problem("kms.rotationDays", message, config.kms.rotation_days))
    if cloud is Cloud.AWS and config.kms.alicloud_kms_instance_id:
        message = "is an Alibaba Cloud-only setting"
        problems.append(Problem("kms.alicloudKmsInstanceId", message, config.kms.alicloud_kms_instance_id))
    return problems


@stack_check("cloud", "cluster")
def _cluster(config: StackConfig) -> list[Problem]:
    problems = system_pool_problems(config.cloud, config.cluster, "cluster")
    version = config.cluster.kubernetes_version
    unsupported = version_problem(config.cloud, version, date.today())
    if unsupported is not None:
        problems.append(Problem("cluster.kubernetesVersion", unsupported, version))
    window = config.cluster.alicloud_maintenance_window
    if config.cloud is Cloud.AWS and window is not None:
        problems.append(
            Problem(
                "cluster.alicloudMaintenanceWindow",
                "is an Alibaba Cloud-only setting",
                window.model_dump(by_alias=True),
            )
        )
    return problems


@stack_check("node_pools", "spot_groups")
def _unique_pool_names(config: StackConfig) -> list[Problem]:
    problems = []
    names: dict[str, str] = {SYSTEM_POOL_NAME: "the cluster's system pool"}
    for kind, i, name in _pool_names(config):
        if name in names:
            problems.append(Problem(f"{kind}.{i}.name", f"already used by {names[name]}", name))
        names[name] = f"{kind}.{i}"
    return problems


def _pool_names(config: StackConfig) -> list[tuple[str, int, str]]:
    pools = [("nodePools", i, p.name) for i, p in enumerate(config.node_pools)]
    return pools + [("spotGroups", i, g.name) for i, g in enumerate(config.spot_groups)]


@item_check("node_pools", "cloud")
def _pool(config: StackConfig, path: str, pool: GpuNodePoolSpec) -> list[Problem]:
    return pool_problems(config.cloud, pool, path)


@item_check("node_pools", "network")
def _pool_zones(config: StackConfig, path: str, pool: GpuNodePoolSpec) -> list[Problem]:
    zones = set(config.network.zones)
    return [Problem(f"{path}.zones", "not a zone of network.privateSubnets", z) for z in pool.zones if z not in zones]


@item_check("spot_groups", "cloud", "node_provisioner")
def _spot_group(config: StackConfig, path: str, group: SpotGroupSpec) -> list[Problem]:
    karpenter = config.node_provisioner is NodeProvisioner.KARPENTER
    return spot_problems(config.cloud, group, path, autoscaler_sizing=not karpenter)


@stack_check("node_provisioner", "cloud", "network")
def _node_provisioner(config: StackConfig) -> list[Problem]:
    if config.node_provisioner is not NodeProvisioner.KARPENTER:
        return []
    if config.cloud is not Cloud.AWS:
        message = "Karpenter provisions EKS nodes; ACK scales its node pools with its own autoscaler"
        return [Problem("nodeProvisioner", message, config.node_provisioner.value)]
    if config.network.egress is EgressMode.ENDPOINTS_ONLY:
        # The controller calls SQS (its interruption queue), SSM (AMI aliases), EKS, IAM and the pricing API, for
        # which the network declares no endpoints (components.aws.network INTERFACE_ENDPOINT_SERVICES).
        message = "Karpenter needs NAT egress: network.egress endpoints-only has no SQS, SSM or pricing endpoint"
        return [Problem("nodeProvisioner", message, config.node_provisioner.value)]
    return []


@stack_check("peering", "network")
def _peer_range(config: StackConfig) -> list[Problem]:
    peering, vpc = config.peering, config.network.vpc_cidr
    if peering is not None and peering.peer_vpc_cidr.overlaps(vpc):
        return [Problem("peering.peerVpcCidr", f"overlaps network.vpcCidr {vpc}", str(peering.peer_vpc_cidr))]
    return []


@stack_check("cloud", "region", "peering")
def _peer_region(config: StackConfig) -> list[Problem]:
    peering = config.peering
    problems: list[Problem] = []
    if peering is None:
        return problems
    if config.cloud is Cloud.ALICLOUD and peering.peer_route_table_count != 1:
        message = "an Alibaba Cloud VPC has one route table"
        problems.append(Problem("peering.peerRouteTableCount", message, peering.peer_route_table_count))
    if peering.peer_region == config.region:
        message = "must differ from region (cross-region peering)"
        problems.append(Problem("peering.peerRegion", message, peering.peer_region))
    return problems


@stack_check("cloud", "access")
def _principals(config: StackConfig) -> list[Problem]:
    principal = _AWS_PRINCIPAL if config.cloud is Cloud.AWS else _ALICLOUD_PRINCIPAL
    return [
        Problem(f"access.{to_camel(field)}.{i}", f"not a {config.cloud.value} role or user ARN", arn)
        for field in ("admin_principals", "user_principals")
        for i, arn in enumerate(getattr(config.access, field))
        if not principal.match(arn)
    ]


@stack_check("addons")
def _addons(config: StackConfig) -> list[Problem]:
    if config.addons.prometheus_adapter and not config.addons.monitoring:
        return [Problem("addons.prometheusAdapter", "needs monitoring (its Prometheus)", True)]
    return []


@stack_check("training", "access")
def _training_namespace(config: StackConfig) -> list[Problem]:
    training, namespaces = config.training, config.access.gpu_namespaces
    if training is not None and training.namespace not in namespaces:
        message = f"not a GPU namespace of access ({', '.join(namespaces)})"
        return [Problem("training.namespace", message, training.namespace)]
    return []


@item_check("inference", "node_pools", "spot_groups")
def _service_pool(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    pools: dict[str, GpuNodePoolSpec | SpotGroupSpec] = {p.name: p for p in config.node_pools}
    pools |= {g.name: g for g in config.spot_groups}
    pool = pools.get(service.pool)
    if pool is None:
        return [Problem(f"{path}.pool", "no node pool or spot group of that name", service.pool)]
    if pool.purpose is not PoolPurpose.INFERENCE:
        return [Problem(f"{path}.pool", f"pool {pool.name!r} is not an inference pool", service.pool)]
    return []


@dataclass(frozen=True)
class ReplicaGpuMemory:
    """The GPU memory of one replica of an inference service, per GPU it takes, in GiB."""

    gpu_gib: int
    """A GPU of the pool (the least of its catalog types)."""
    cap_gib: int
    """What the replica may take: ``gpuMemoryGib``, or the whole GPU, or on a pool that shares GPUs its share."""
    visible_gib: int
    """What the replica's process sees as its GPU's memory: the whole GPU, except under ACK's cGPU, which shows a
    container only the GPU memory it requested (components.alicloud.gpu_sharing)."""
    shares: int | None
    """The pool's ``gpuTimeSlicingReplicas`` (None: GPUs not shared)."""


def replica_gpu_memory(
    cloud: Cloud, service: InferenceServiceSpec, pool: GpuNodePoolSpec | SpotGroupSpec
) -> ReplicaGpuMemory | None:
    """The GPU memory of a replica of ``service`` on ``pool`` (None when no type of the pool is in the catalog)."""
    sizes = [_whole_gib(cloud, t.gpu_memory_gib) for name in pool.instance_types if (t := lookup(cloud, name))]
    if not sizes:
        return None
    gpu = min(sizes)
    shares = pool.gpu_time_slicing_replicas if isinstance(pool, GpuNodePoolSpec) else None
    cap = service.gpu_memory_gib or (gpu // shares if shares else gpu)
    visible = cap if shares and cloud is Cloud.ALICLOUD else gpu
    return ReplicaGpuMemory(gpu_gib=gpu, cap_gib=cap, visible_gib=visible, shares=shares)


def _whole_gib(cloud: Cloud, catalog_gib: float) -> int:
    """A GPU's memory in whole GiB, as a shared GPU's device plugin advertises it (the MiB NVML reports, divided by
    1024 and rounded down: AliyunContainerService/gpushare-device-plugin ``setGPUMemory``). The AWS catalog's figure
    is NVML-like MiB over 1024; Alibaba documents GB (the catalog records the figure as documented), read here as
    10^9 bytes (an A10's 24 GB give 22 GiB), which errs low, never high."""
    return int(catalog_gib * 10**9 / 2**30) if cloud is Cloud.ALICLOUD else int(catalog_gib)


def _service_pools(config: StackConfig) -> dict[str, GpuNodePoolSpec | SpotGroupSpec]:
    pools: dict[str, GpuNodePoolSpec | SpotGroupSpec] = {p.name: p for p in config.node_pools}
    return pools | {g.name: g for g in config.spot_groups}


@item_check("inference", "cloud", "node_pools", "spot_groups")
def _service_gpu_memory(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    """A replica's GPU memory must fit its GPU, and on an AWS pool that time-slices GPUs (no memory isolation) the
    share each of the GPU's replicas can have; a replica on a shared GPU takes one GPU's share."""
    pool = _service_pools(config).get(service.pool)
    memory = None if pool is None else replica_gpu_memory(config.cloud, service, pool)
    if pool is None or memory is None:
        return []
    problems = []
    if memory.shares and service.gpus_per_replica > 1:
        message = f"a replica on pool {pool.name!r}, which shares its GPUs, takes one GPU's share"
        problems.append(Problem(f"{path}.gpusPerReplica", message, service.gpus_per_replica))
    if memory.cap_gib > memory.gpu_gib:
        message = f"more than the {memory.gpu_gib} GiB of a GPU of pool {pool.name!r}"
        problems.append(Problem(f"{path}.gpuMemoryGib", message, memory.cap_gib))
    elif memory.shares and config.cloud is Cloud.AWS and memory.cap_gib * memory.shares > memory.gpu_gib:
        message = (
            f"time-slicing does not isolate GPU memory: the {memory.shares} replicas that share a "
            f"{memory.gpu_gib} GiB GPU of pool {pool.name!r} fit only in {memory.gpu_gib // memory.shares} GiB each"
        )
        problems.append(Problem(f"{path}.gpuMemoryGib", message, memory.cap_gib))
    return problems


@stack_check("inference", "cloud", "node_pools", "spot_groups")
def _pool_holds_max_replicas(config: StackConfig) -> list[Problem]:
    """At maxReplicas, a pool's services fit in the pool at its largest: GPUs (whole GPUs per replica), time-sliced
    GPU replicas (one each) or, under cGPU, GiB of GPU memory (a sum: cGPU places each replica on one GPU, so the
    check is necessary, not sufficient). An HPA asking for more than the pool holds leaves pods pending and, at the
    pool's size, rollouts waiting for a GPU (k8s.md U2)."""
    pools = _service_pools(config)
    problems = []
    for name, pool in pools.items():
        served = [(i, s) for i, s in enumerate(config.inference) if s.pool == name]
        memories = [replica_gpu_memory(config.cloud, s, pool) for _, s in served]
        if not served or any(m is None for m in memories):
            continue
        gpus = max_nodes(pool) * pool_gpus(config.cloud, pool)
        shares = memories[0].shares if memories[0] is not None else None
        if shares and config.cloud is Cloud.ALICLOUD:
            unit, holds = "GiB of GPU memory", gpus * min(m.gpu_gib for m in memories if m is not None)
            need = sum(s.max_replicas * m.cap_gib for (_, s), m in zip(served, memories, strict=True) if m is not None)
        elif shares:
            unit, holds, need = "GPU replicas", gpus * shares, sum(s.max_replicas for _, s in served)
        else:
            unit, holds, need = "GPUs", gpus, sum(s.max_replicas * s.gpus_per_replica for _, s in served)
        if need > holds:
            i = served[-1][0]
            names = ", ".join(s.name for _, s in served)
            message = f"at maxReplicas the services of pool {name!r} ({names}) need {need} {unit}; it holds {holds}"
            problems.append(Problem(f"inference.{i}.maxReplicas", message, served[-1][1].max_replicas))
    return problems


@item_check("inference", "checkpoint_bucket")
def _service_model(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    if config.checkpoint_bucket is None:
        message = "the model lives in the environment's bucket: set checkpointBucket"
        return [Problem(f"{path}.modelSource", message, service.model_source)]
    return []


@item_check("inference", "cloud", "region")
def _service_tls(config: StackConfig, path: str, service: InferenceServiceSpec) -> list[Problem]:
    problems = []
    cloud, certificate = config.cloud, service.tls_certificate
    if (
        cloud is Cloud.AWS
        and certificate
        and not (_ACM_CERTIFICATE.match(certificate) and certificate.split(":")[3] == config.region)
    ):
        problems.append(
            Problem(f"{path}.tlsCertificate", f"not an ACM certificate ARN in {config.region}", certificate)
        )
    if cloud is not Cloud.AWS and service.aws_ssl_policy is not None:
        problems.append(Problem(f"{path}.awsSslPolicy", "is an AWS-only setting", service.aws_ssl_policy))
    return problems


stack_check("cloud", "training", "node_pools", "spot_groups", "checkpoint_bucket")(training_problems)
stack_check("cloud", "region", "deploy", "network", "peering")(_deploy_problems)


@stack_check("alerts", "alert_receiver_url", "addons", "cloud", "region")
def alert_problems(config: StackConfig) -> list[Problem]:
    """What keeps the alerts of ``config`` from reaching their receiver: none configured while monitoring is on, a
    URL receiver without its URL secret, an SNS topic outside AWS or the environment's region."""
    alerts = config.alerts
    if alerts is None:
        if config.addons.monitoring:
            return [Problem("alerts", "required with addons.monitoring: alerts must reach a receiver", None)]
        if config.alert_receiver_url is not None:
            return [Problem("alertReceiverUrl", "set without alerts", SECRET_SHOWN)]
        return []
    problems = []
    if not config.addons.monitoring:
        problems.append(Problem("alerts", "needs addons.monitoring (its Alertmanager)", alerts.receiver.value))
    if alerts.needs_url and config.alert_receiver_url is None:
        problems.append(
            Problem(
                "alertReceiverUrl",
                f"required for alerts.receiver {alerts.receiver.value}: pulumi config set --secret alertReceiverUrl",
                None,
            )
        )
    if not alerts.needs_url and config.alert_receiver_url is not None:
        problems.append(Problem("alertReceiverUrl", f"receiver {alerts.receiver.value} uses no URL", SECRET_SHOWN))
    if alerts.sns_topic_arn is not None:
        if config.cloud is not Cloud.AWS:
            problems.append(Problem("alerts.receiver", "sns is AWS only", alerts.receiver.value))
        elif alerts.sns_topic_arn.split(":")[3] != config.region:
            problems.append(
                Problem("alerts.snsTopicArn", f"not a topic of region {config.region}", alerts.sns_topic_arn)
            )
    return problems
