"""Inference and training configs ``gpucloud plan`` refuses (exit 2, each problem's field and value): a scaling
signal that does not follow traffic, a replica whose GPU memory cannot fit, a pool too small for its services at
maxReplicas (issue 25 items 1 and 3), a training image whose CUDA the pool's driver cannot run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.gpucloud.test_refused_configs import project, refused

__all__ = ["project"]  # the fixture, used by name


def _service(config: dict[str, Any], name: str) -> dict[str, Any]:
    [service] = [s for s in config["inference"] if s["name"] == name]
    return service


def test_tensorflow_serving_on_gpu_memory(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The old default: TensorFlow Serving reserves its memory at start, so the HPA would sit at maxReplicas."""
    assert refused(project, capsys, "prod", lambda c: _service(c, "resnet").update(metric="gpu-memory")) == [
        "gpu-cloud:inference.1.metric: tensorflow-serving reserves its GPU memory when it starts, so GPU memory does "
        "not follow traffic; use gpu-utilization (got gpu-memory)"
    ]


def test_vllm_on_gpu_memory_and_requests_on_tensorflow_serving(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        _service(c, "llm")["metric"] = "gpu-memory"
        _service(c, "resnet")["metric"] = "requests"

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:inference.0.metric: vllm reserves its GPU memory when it starts, so GPU memory does not follow "
        "traffic; use gpu-utilization or requests (got gpu-memory)",
        "gpu-cloud:inference.1.metric: only vLLM reports its running and waiting requests (got requests)",
    ]


def test_a_replica_larger_than_its_gpu(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(project, capsys, "prod", lambda c: _service(c, "llm").update(gpuMemoryGib=40)) == [
        "gpu-cloud:inference.0.gpuMemoryGib: more than the 22 GiB of a GPU of pool 'inference-a10g' (got 40)"
    ]


def test_time_sliced_replicas_that_do_not_fit_their_gpu_together(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AWS time-slicing isolates no memory: 4 replicas of 12 GiB would take 48 of the A10G's 22 GiB, and the last to
    start would fail for memory its neighbours took."""

    def mutate(c: dict[str, Any]) -> None:
        c["nodePools"][1]["gpuTimeSlicingReplicas"] = 4
        _service(c, "llm")["gpuMemoryGib"] = 12

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:inference.0.gpuMemoryGib: time-slicing does not isolate GPU memory: the 4 replicas that share a "
        "22 GiB GPU of pool 'inference-a10g' fit only in 5 GiB each (got 12)"
    ]


def test_a_pool_too_small_for_its_services_at_max_replicas(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """16 single-GPU nodes: llm's 8 and resnet's 8 replicas fill them; a 9th resnet would wait for a GPU forever (and
    a rollout at that size too, k8s.md U2)."""
    assert refused(project, capsys, "prod", lambda c: _service(c, "resnet").update(maxReplicas=9)) == [
        "gpu-cloud:inference.1.maxReplicas: at maxReplicas the services of pool 'inference-a10g' (llm, resnet) need "
        "17 GPUs; it holds 16 (got 9)"
    ]


def test_a_cgpu_pool_too_small_for_its_services_gpu_memory(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ACK's cGPU pool: 8 A10s of 22 GiB hold 176 GiB; resnet's 8 replicas of 5 GiB and llm's 14 of 10 need 180."""
    assert refused(project, capsys, "prod-cn", lambda c: _service(c, "llm").update(maxReplicas=14)) == [
        "gpu-cloud:inference.1.maxReplicas: at maxReplicas the services of pool 'inference' (resnet, llm) need 180 "
        "GiB of GPU memory; it holds 176 (got 14)"
    ]


def test_vllm_is_probed_on_its_health_endpoint(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(project, capsys, "prod", lambda c: _service(c, "llm").update(probePath="/ready")) == [
        "gpu-cloud:inference.0.probePath: vLLM is probed on /health (got /ready)"
    ]


def test_a_training_image_whose_cuda_the_pools_driver_cannot_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """seed_coverage F10: a training image's CUDA (``cudaVersion``) is checked against its pool's driver, as an
    inference image's is; prod-cn's A10 nodes run ACK's pinned 570.169 (CUDA up to 12.8)."""

    def mutate(c: dict[str, Any]) -> None:
        c["training"]["jobs"][0]["cudaVersion"] = "13.0"

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:training.jobs.0.cudaVersion: training job 'llm-pretrain' needs CUDA 13.0, but pool 'training' runs "
        "NVIDIA driver 570 (ACK GPU node image), which runs CUDA up to 12.8; CUDA 13.0 needs driver 580.65.06 or later "
        "(got 13.0)"
    ]
