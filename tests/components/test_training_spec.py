"""Validation of training queues, jobs and acceptance pools: each bad spec names its field and value."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpu_cloud.components.spec import ConfigError, parse_stack_config
from tests.components.test_spec import BASE

JOB: dict[str, Any] = {
    "name": "llm",
    "queue": "research",
    "pool": "train",
    "nodes": 2,
    "image": "example.com/train:1",
    "command": ["train.py"],
    "checkpointPrefix": "jobs/llm/",
}


def _config(job: dict[str, Any] | None = None, **training: Any) -> dict[str, Any]:
    raw = copy.deepcopy(BASE)
    raw["checkpointBucket"] = {}
    raw["training"] = {
        "queues": [{"name": "research", "gpus": {"train": 16, "batch": 4}}],
        "jobs": [JOB | (job or {})],
        "acceptancePools": ["train"],
    } | training
    return raw


def _problems(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_stack_config(raw)
    return [str(p) for p in caught.value.problems]


def test_a_job_on_a_queue_and_pool_of_the_environment_is_valid() -> None:
    training = parse_stack_config(_config()).training
    assert training is not None
    assert training.jobs[0].checkpoint_prefix == "jobs/llm/"
    assert training.queues[0].gpus == {"train": 16, "batch": 4}


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        ({"gpusPerNode": 9}, "training.jobs.0.gpusPerNode: more than the 8 GPUs of train's instance type (got 9)"),
        ({"pool": "batch", "efa": True}, "training.jobs.0.efa: pool batch has no EFA (got true)"),
        (
            {"queue": "nobody"},
            "training.jobs.0.queue: no queue of that name in training.queues (['research']) (got nobody)",
        ),
        (
            {"checkpointPrefix": "s3://other-bucket/x/"},
            "training.jobs.0.checkpointPrefix: not a key prefix inside the "
            "checkpoint bucket (got s3://other-bucket/x/)",
        ),
        (
            {"checkpointPrefix": "jobs/../../x/"},
            "training.jobs.0.checkpointPrefix: not a key prefix inside the checkpoint bucket (got jobs/../../x/)",
        ),
        (
            {"checkpointPrefix": "/jobs/llm/"},
            "training.jobs.0.checkpointPrefix: not a key prefix inside the checkpoint bucket (got /jobs/llm/)",
        ),
        ({"pool": "infer"}, "training.jobs.0.pool: not a training pool or spot group (got infer)"),
        ({"nodes": 3}, "training.jobs.0.nodes: more than the 2 nodes of train (got 3)"),
        ({"shmSizeGib": 2000}, "training.jobs.0.shmSizeGib: more than half the 2048 GiB of train's nodes (got 2000)"),
        (
            {"pool": "batch", "terminationGraceSeconds": 300},
            "training.jobs.0.terminationGraceSeconds: longer than "
            "the 120 s a spot node gets before it is reclaimed (got 300)",
        ),
    ],
)
def test_a_bad_job_is_refused_with_its_field_and_value(job: dict[str, Any], expected: str) -> None:
    assert _problems(_config(job)) == [expected]


def test_a_job_needs_the_checkpoint_bucket() -> None:
    raw = _config()
    del raw["checkpointBucket"]
    raw["inference"] = []
    assert _problems(raw) == ["training.jobs.0.checkpointPrefix: the environment has no checkpointBucket (got llm)"]


def test_a_queue_names_only_training_pools() -> None:
    raw = _config(queues=[{"name": "research", "gpus": {"infer": 4}}])
    assert _problems(raw) == ["training.queues.0.gpus.infer: not a training pool or spot group (got infer)"]


def test_team_and_job_names_are_unique() -> None:
    raw = _config(queues=[{"name": "research", "gpus": {"train": 1}}] * 2, jobs=[JOB, JOB])
    assert _problems(raw) == [
        "training.queues.1.name: already used by another queue (got research)",
        "training.jobs.1.name: already used by another job (got llm)",
    ]


def test_the_acceptance_test_needs_a_training_pool_of_two_nodes() -> None:
    raw = _config(acceptancePools=["infer", "train"])
    raw["nodePools"][0]["maxSize"] = 1
    raw["nodePools"][0]["desiredSize"] = 1
    raw["training"]["jobs"] = []
    assert _problems(raw) == [
        "training.acceptancePools.0: not a training pool or spot group (got infer)",
        "training.acceptancePools.1: the two-node test needs maxSize >= 2 (got train)",
    ]


def test_a_critical_job_on_a_spot_group_needs_its_on_demand_fall_back() -> None:
    raw = _config({"pool": "batch", "priority": "gpu-critical"})
    raw["spotGroups"][0]["onDemandFallback"] = False
    assert _problems(raw) == [
        "training.jobs.0.priority: critical jobs never run on spot and batch has no on-demand fall-back "
        "(got gpu-critical)"
    ]
