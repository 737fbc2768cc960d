"""TrainingJob: a JobSet queued by Kueue with the pool's GPUs, EFA, NCCL settings, /dev/shm, tolerations, its own
checkpoint identity and a grace period to checkpoint in."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_cloud.components.k8s import TrainingJob, TrainingJobArgs
from gpu_cloud.components.k8s.training_job import jobset_manifest
from gpu_cloud.components.spec import Cloud, GpuNodePoolSpec, PoolPurpose, SpotGroupSpec, TrainingJobSpec, TrainingSpec
from tests.crds import errors
from tests.k8s.conftest import ack_training_pool, assert_valid, efa_training_pool, kinds, one, run

H100 = efa_training_pool(name="train-h100")
A10G = efa_training_pool(name="train-a10g", instance_types=("g5.12xlarge",), max_size=2)
SPOT = SpotGroupSpec(name="batch", purpose=PoolPurpose.TRAINING, instance_types=("g5.xlarge", "g5.2xlarge"), max_size=8)
A10 = ack_training_pool()
TRAINING = TrainingSpec()
URI = "s3://ckpt/jobs/llm/"
REGIONS = {Cloud.AWS: "us-east-1", Cloud.ALICLOUD: "cn-hangzhou"}


def _job(**changes: Any) -> TrainingJobSpec:
    fields: dict[str, Any] = {
        "name": "llm",
        "queue": "research",
        "pool": "train-h100",
        "nodes": 2,
        "priority": "gpu-critical",
        "image": "example.com/train:1",
        "command": ("/workspace/train.py", "--epochs", "3"),
        "checkpoint_prefix": "jobs/llm/",
    }
    return TrainingJobSpec(**(fields | changes))


def _pod(manifest: dict[str, Any]) -> dict[str, Any]:
    [replicated] = manifest["spec"]["replicatedJobs"]
    spec: dict[str, Any] = replicated["template"]["spec"]["template"]["spec"]
    return spec


def _container(manifest: dict[str, Any]) -> dict[str, Any]:
    [container] = _pod(manifest)["containers"]
    return container


def _env(manifest: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in _container(manifest)["env"]}


def test_children_are_the_jobs_service_account_and_jobset():
    args = TrainingJobArgs(
        job=_job(), pool=H100, training=TRAINING, cloud=Cloud.AWS, checkpoint_uri=URI, region="us-east-1"
    )
    plan = run(lambda opts: TrainingJob("llm", args, opts=opts))
    assert sorted(kinds(plan)) == [
        ("gpucloud:k8s:TrainingJob", "llm"),
        ("kubernetes:core/v1:ServiceAccount", "llm-service-account"),
        ("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "llm-jobset"),
    ]
    assert one(plan, "llm-jobset").inputs == jobset_manifest(_job(), H100, TRAINING, Cloud.AWS, URI, "us-east-1")
    account = one(plan, "llm-service-account")
    assert account.inputs["metadata"] == {"name": "llm", "namespace": "gpu-training"}
    assert_valid(account)


def test_on_ack_the_service_account_names_the_jobs_rrsa_role():
    args = TrainingJobArgs(
        job=_job(pool="training"),
        pool=A10,
        training=TRAINING,
        cloud=Cloud.ALICLOUD,
        checkpoint_uri=URI,
        region="cn-hangzhou",
        role="r",
    )
    plan = run(lambda opts: TrainingJob("llm", args, opts=opts))
    assert one(plan, "llm-service-account").inputs["metadata"]["annotations"] == {
        "pod-identity.alibabacloud.com/role-name": "r"
    }


def test_the_jobset_is_valid_for_the_pinned_crd():
    for job, pool, cloud in (
        (_job(), H100, Cloud.AWS),
        (_job(pool="batch", priority="gpu-preemptible"), SPOT, Cloud.AWS),
    ):
        assert errors(jobset_manifest(job, pool, TRAINING, cloud, URI, REGIONS[cloud])) == []


def test_the_job_names_its_local_queue_and_priority():
    manifest = jobset_manifest(_job(), H100, TRAINING, Cloud.AWS, URI, "us-east-1")
    assert manifest["metadata"]["labels"] == {
        "kueue.x-k8s.io/queue-name": "research",
        "kueue.x-k8s.io/priority-class": "gpu-critical",
    }
    assert _pod(manifest)["priorityClassName"] == "gpu-critical"


def test_the_job_is_one_gang_of_indexed_pods_one_per_node_restarted_whole():
    manifest = jobset_manifest(_job(nodes=3, max_restarts=5), H100, TRAINING, Cloud.AWS, URI, "us-east-1")
    [replicated] = manifest["spec"]["replicatedJobs"]
    job = replicated["template"]["spec"]
    assert (replicated["replicas"], job["parallelism"], job["completions"]) == (1, 3, 3)
    assert (job["completionMode"], job["backoffLimit"]) == ("Indexed", 0)
    assert manifest["spec"]["failurePolicy"] == {"maxRestarts": 5}
    assert _pod(manifest)["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == [
        {
            # One pod per node among the pods of this JobSet, whatever its (declared or generated) name.
            "labelSelector": {"matchExpressions": [{"key": "jobset.sigs.k8s.io/jobset-name", "operator": "Exists"}]},
            "matchLabelKeys": ["jobset.sigs.k8s.io/jobset-name"],
            "topologyKey": "kubernetes.io/hostname",
        }
    ]
    assert _container(manifest)["args"][:5] == [
        "--nnodes=3",
        "--nproc-per-node=8",
        "--node-rank=$(JOB_COMPLETION_INDEX)",
        "--master-addr=$(JOBSET_NAME)-node-0-0.$(JOBSET_NAME)",
        "--master-port=29500",
    ]


@pytest.mark.parametrize(
    ("pool", "cloud", "job", "expected"),
    [
        (H100, Cloud.AWS, {}, {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32", "cpu": "153", "memory": "1638Gi"}),
        (
            H100,
            Cloud.AWS,
            {"gpus_per_node": 4},
            {"nvidia.com/gpu": "4", "vpc.amazonaws.com/efa": "16", "cpu": "76", "memory": "819Gi"},
        ),
        (
            A10G,
            Cloud.AWS,
            {"pool": "train-a10g"},
            {"nvidia.com/gpu": "4", "vpc.amazonaws.com/efa": "1", "cpu": "38", "memory": "153Gi"},
        ),
        (
            A10G,
            Cloud.AWS,
            {"pool": "train-a10g", "efa": False},
            {"nvidia.com/gpu": "4", "cpu": "38", "memory": "153Gi"},
        ),
        (A10, Cloud.ALICLOUD, {"pool": "training"}, {"nvidia.com/gpu": "8", "cpu": "102", "memory": "409Gi"}),
    ],
)
def test_requests_follow_the_pools_instance_type_and_equal_the_limits(pool, cloud, job, expected):
    """Requests equal limits for every resource: the pod is of the Guaranteed QoS class, the one whose integer CPU
    requests the static CPU manager pins to whole cores (aligned with its GPUs by the topology manager)."""
    resources = _container(jobset_manifest(_job(**job), pool, TRAINING, cloud, URI, REGIONS[cloud]))["resources"]
    assert resources["requests"] == expected
    assert resources["limits"] == expected
    assert _qos_class(resources) == "Guaranteed"


def _qos_class(resources: dict[str, Any]) -> str:
    """The pod QoS class of a one-container pod (kubernetes.io/docs/concepts/workloads/pods/pod-qos: Guaranteed when
    every container has CPU and memory limits equal to its requests; BestEffort with no requests or limits)."""
    requests, limits = resources.get("requests", {}), resources.get("limits", {})
    if not requests and not limits:
        return "BestEffort"
    guaranteed = all(k in limits and limits[k] == requests.get(k, limits[k]) for k in ("cpu", "memory"))
    return "Guaranteed" if guaranteed and all(requests.get(k) == v for k, v in limits.items()) else "Burstable"


def test_nccl_settings_are_the_pools():
    assert {
        k: v
        for k, v in _env(jobset_manifest(_job(), H100, TRAINING, Cloud.AWS, URI, "us-east-1")).items()
        if k.isupper()
    } | {} == {
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_DEBUG": "INFO",
        "FI_PROVIDER": "efa",
        "FI_EFA_USE_DEVICE_RDMA": "1",
        "JOBSET_NAME": {"fieldRef": {"fieldPath": "metadata.labels['jobset.sigs.k8s.io/jobset-name']"}},
        "JOB_COMPLETION_INDEX": {
            "fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}
        },
        "CHECKPOINT_URI": URI,
        "PYTHONUNBUFFERED": "1",
    }
    env = _env(
        jobset_manifest(_job(pool="batch", priority="gpu-standard"), SPOT, TRAINING, Cloud.AWS, URI, "us-east-1")
    )
    assert "FI_PROVIDER" not in env and "FI_EFA_USE_DEVICE_RDMA" not in env


def test_dev_shm_is_memory_sized_from_the_node_or_the_spec():
    def shm(job: TrainingJobSpec, pool: GpuNodePoolSpec) -> Any:
        manifest = jobset_manifest(job, pool, TRAINING, Cloud.AWS, URI, "us-east-1")
        assert _container(manifest)["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
        [volume] = _pod(manifest)["volumes"]
        return volume["emptyDir"]

    assert shm(_job(), H100) == {"medium": "Memory", "sizeLimit": "64Gi"}
    assert shm(_job(pool="train-a10g"), A10G) == {"medium": "Memory", "sizeLimit": "48Gi"}
    assert shm(_job(shm_size_gib=128), H100) == {"medium": "Memory", "sizeLimit": "128Gi"}


def test_the_pod_runs_as_the_jobs_identity_on_its_pool_with_a_grace_period_to_checkpoint():
    pod = _pod(jobset_manifest(_job(termination_grace_seconds=300), H100, TRAINING, Cloud.AWS, URI, "us-east-1"))
    assert pod["serviceAccountName"] == "llm"
    assert pod["terminationGracePeriodSeconds"] == 300
    assert pod["nodeSelector"] == {"gpucloud.io/pool": "train-h100"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_only_non_critical_jobs_tolerate_spot_so_kueue_may_give_them_the_spot_flavor():
    standard = _pod(
        jobset_manifest(_job(pool="batch", priority="gpu-standard"), SPOT, TRAINING, Cloud.AWS, URI, "us-east-1")
    )
    critical = _pod(jobset_manifest(_job(pool="batch"), SPOT, TRAINING, Cloud.AWS, URI, "us-east-1"))
    spot = {"key": "gpucloud.io/capacity", "operator": "Equal", "value": "spot", "effect": "NoSchedule"}
    assert spot in standard["tolerations"]
    assert spot not in critical["tolerations"]
    assert standard["terminationGracePeriodSeconds"] == 100


def test_on_ack_the_trainer_gets_the_oss_and_sts_endpoints_of_its_region():
    """With CHECKPOINT_URI oss://..., the trainer reaches OSS through its S3-compatible internal endpoint with the
    credentials it gets from STS for its RRSA token (examples/checkpoint_store.py)."""
    env = _env(
        jobset_manifest(_job(pool="training"), A10, TRAINING, Cloud.ALICLOUD, "oss://ckpt/jobs/llm/", "cn-hangzhou")
    )
    assert {k: env[k] for k in ("CHECKPOINT_S3_ENDPOINT", "CHECKPOINT_REGION", "ALIBABA_CLOUD_STS_ENDPOINT")} == {
        "CHECKPOINT_S3_ENDPOINT": "https://s3.oss-cn-hangzhou-internal.aliyuncs.com",
        "CHECKPOINT_REGION": "cn-hangzhou",
        "ALIBABA_CLOUD_STS_ENDPOINT": "sts-vpc.cn-hangzhou.aliyuncs.com",
    }
    assert "CHECKPOINT_S3_ENDPOINT" not in _env(jobset_manifest(_job(), H100, TRAINING, Cloud.AWS, URI, "us-east-1"))


def test_a_submitted_run_gets_a_name_of_its_own_and_the_same_spec():
    declared = jobset_manifest(_job(), H100, TRAINING, Cloud.AWS, URI, "us-east-1")
    submitted = jobset_manifest(_job(), H100, TRAINING, Cloud.AWS, URI, "us-east-1", generate_name=True)
    assert declared["metadata"]["name"] == "llm"
    assert submitted["metadata"] == {
        "generateName": "llm-",
        "namespace": "gpu-training",
        "labels": declared["metadata"]["labels"],
    }
    assert submitted["spec"] == declared["spec"]
    assert errors(submitted) == []
