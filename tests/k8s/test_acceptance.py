"""PoolAcceptanceTest: GPU count/model and topology on two nodes of the pool, then a two-node nccl-tests all-reduce
with NCCL_DEBUG=INFO judged against the published bus bandwidth."""

from __future__ import annotations

from typing import Any

from gpu_cloud.components import versions
from gpu_cloud.components.k8s import PoolAcceptanceTest, PoolAcceptanceTestArgs
from gpu_cloud.components.k8s.acceptance import acceptance_manifest
from gpu_cloud.components.spec import Cloud, TrainingSpec
from tests.crds import errors
from tests.k8s.conftest import ack_training_pool, efa_training_pool, kinds, one, run

H100 = efa_training_pool(name="train-h100")
A10 = ack_training_pool()


def _jobs(manifest: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["name"]: r["template"]["spec"] for r in manifest["spec"]["replicatedJobs"]}


def _script(job: dict[str, Any]) -> str:
    [container] = job["template"]["spec"]["containers"]
    command: list[str] = container["command"]
    assert command[:2] == ["bash", "-c"]
    return command[2]


def test_the_component_declares_the_acceptance_jobset():
    args = PoolAcceptanceTestArgs(pool=H100, training=TrainingSpec(), cloud=Cloud.AWS)
    plan = run(lambda opts: PoolAcceptanceTest("accept", args, opts=opts))
    assert sorted(kinds(plan)) == [
        ("gpucloud:k8s:PoolAcceptanceTest", "accept"),
        ("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", "accept-jobset"),
    ]
    assert one(plan, "accept-jobset").inputs == acceptance_manifest(H100, TrainingSpec(), Cloud.AWS)


def test_the_manifest_is_valid_for_the_pinned_jobset_crd():
    assert errors(acceptance_manifest(H100, TrainingSpec(), Cloud.AWS)) == []
    assert errors(acceptance_manifest(A10, TrainingSpec(), Cloud.ALICLOUD)) == []


def test_two_workers_take_every_gpu_and_efa_interface_of_their_node():
    jobs = _jobs(acceptance_manifest(H100, TrainingSpec(), Cloud.AWS))
    assert (jobs["worker"]["parallelism"], jobs["launcher"]["parallelism"]) == (2, 1)
    [container] = jobs["worker"]["template"]["spec"]["containers"]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"}
    assert container["image"] == versions.NCCL_TESTS_IMAGES["aws"]
    assert jobs["worker"]["template"]["spec"]["nodeSelector"] == {"gpucloud.io/pool": "train-h100"}


def test_workers_check_topology_and_the_catalogs_gpu_count_and_model():
    script = _script(_jobs(acceptance_manifest(H100, TrainingSpec(), Cloud.AWS))["worker"])
    assert "nvidia-smi topo -m" in script
    assert "grep -c -E '^NVIDIA H100( |$)'" in script
    assert 'if [ "$found" != "8" ]' in script
    ack = _script(_jobs(acceptance_manifest(A10, TrainingSpec(), Cloud.ALICLOUD))["worker"])
    assert "grep -c -E '^NVIDIA A10( |$)'" in ack


def test_the_launcher_runs_a_two_node_all_reduce_with_nccl_debug_info_and_judges_bus_bandwidth():
    script = _script(_jobs(acceptance_manifest(H100, TrainingSpec(nccl_debug="WARN"), Cloud.AWS))["launcher"])
    assert "/opt/amazon/openmpi/bin/mpirun" in script and "/opt/nccl-tests/build/all_reduce_perf" in script
    assert "-np 16 -N 8" in script
    assert (
        "--host accept-train-h100-worker-0-0.accept-train-h100:8,accept-train-h100-worker-0-1.accept-train-h100:8"
        in script
    )
    assert "-x NCCL_DEBUG=INFO" in script and "-x FI_PROVIDER=efa" in script
    assert "awk -v min=390.0" in script
    ack = _script(_jobs(acceptance_manifest(A10, TrainingSpec(), Cloud.ALICLOUD))["launcher"])
    assert "FI_PROVIDER" not in ack and "awk -v min" not in ack and "Avg bus bandwidth" in ack


def test_the_job_succeeds_when_the_launcher_does():
    spec = acceptance_manifest(H100, TrainingSpec(), Cloud.AWS)["spec"]
    assert spec["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["launcher"]}
    assert spec["failurePolicy"] == {"maxRestarts": 0}
