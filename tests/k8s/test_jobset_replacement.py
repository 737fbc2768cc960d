"""A second ``pulumi up`` with a changed training job or acceptance test replaces its JobSet, never updates it.

The step is modelled as the engine computes it: the changed input paths of the two registrations, made replacements
where a ``replaceOnChanges`` path contains them (pulumi/pulumi pkg/resource/deploy/step_generator.go
``applyReplaceOnChanges``: ``replaceOnChangePath.Contains(diffPath)``, read 2026-12-03). An update is then checked
against what the JobSet API accepts on update (kubernetes-sigs/jobset v0.12.0): the webhook's ``ValidateUpdate``
refuses any change of ``spec.replicatedJobs`` of a JobSet that is not suspended (pkg/webhooks/jobset_webhook.go; only
pod labels, annotations, node selector, tolerations and scheduling gates may change, and only while suspended), and
the CRD's CEL makes ``spec.failurePolicy``, ``spec.successPolicy`` and ``spec.network`` ``self == oldSelf``. A JobSet
Pulumi declares runs (Kueue unsuspends it), so any update of those paths would fail the ``up``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gpu_cloud.components import versions
from gpu_cloud.components.k8s import PoolAcceptanceTest, PoolAcceptanceTestArgs, TrainingJob, TrainingJobArgs
from gpu_cloud.components.spec import Cloud, TrainingJobSpec, TrainingSpec
from gpu_cloud.planner.model import RecordedResource
from tests.k8s.conftest import efa_training_pool, one, run
from tests.lifecycle import steps

H100 = efa_training_pool(name="train-h100")
TRAINING = TrainingSpec()


def step(old: RecordedResource, new: RecordedResource) -> str:
    """``same``, ``replace`` (``delete-before-replace`` with that option) or ``update``; ``refused update`` when the
    JobSet API would refuse that update (tests.lifecycle.steps, the rehearsal's step model)."""
    kind, _ = steps.step(_record(old), _record(new))
    return "delete-before-replace" if kind == "replace" and new.delete_before_replace else kind


def _record(resource: RecordedResource) -> dict[str, Any]:
    return {"type": resource.type, "inputs": resource.inputs, "replace_on_changes": resource.replace_on_changes}


def _job(**changes: Any) -> TrainingJobSpec:
    fields: dict[str, Any] = {
        "name": "llm",
        "queue": "research",
        "pool": "train-h100",
        "nodes": 2,
        "image": "example.com/train:1",
        "command": ("/workspace/train.py",),
        "checkpoint_prefix": "jobs/llm/",
    }
    return TrainingJobSpec(**(fields | changes))


def _training_jobset(job: TrainingJobSpec, training: TrainingSpec = TRAINING) -> RecordedResource:
    args = TrainingJobArgs(
        job=job, pool=H100, training=training, cloud=Cloud.AWS, checkpoint_uri="s3://b/jobs/llm/", region="us-east-1"
    )
    return one(run(lambda opts: TrainingJob("llm", args, opts=opts)), "llm-jobset")


def _acceptance_jobset(training: TrainingSpec = TRAINING) -> RecordedResource:
    args = PoolAcceptanceTestArgs(pool=H100, training=training, cloud=Cloud.AWS)
    return one(run(lambda opts: PoolAcceptanceTest("accept", args, opts=opts)), "accept-jobset")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda: _training_jobset(_job(image="example.com/train:2")), id="new image"),
        pytest.param(lambda: _training_jobset(_job(command=("/workspace/train.py", "--lr", "3e-4"))), id="new command"),
        pytest.param(lambda: _training_jobset(_job(), TrainingSpec(nccl_debug="WARN")), id="new NCCL setting"),
        pytest.param(lambda: _training_jobset(_job(max_restarts=5)), id="new failure policy"),
    ],
)
def test_a_changed_training_job_replaces_its_jobset(change: Callable[[], RecordedResource]) -> None:
    assert step(_training_jobset(_job()), change()) == "delete-before-replace"


def test_a_changed_acceptance_test_replaces_its_jobset(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _acceptance_jobset()
    monkeypatch.setitem(versions.NCCL_TESTS_IMAGES, "aws", "public.ecr.aws/hpc-cloud/nccl-tests:next")
    assert step(before, _acceptance_jobset()) == "delete-before-replace"


def test_an_unchanged_job_is_left_alone() -> None:
    assert step(_training_jobset(_job()), _training_jobset(_job())) == "same"


def test_without_replace_on_changes_the_same_change_is_an_update_the_jobset_api_refuses() -> None:
    """The model itself: the registration of today's code, without the options, makes the refused update."""
    old, new = _training_jobset(_job()), _training_jobset(_job(image="example.com/train:2"))
    bare = RecordedResource(**{**new.__dict__, "replace_on_changes": (), "delete_before_replace": False})
    assert step(old, bare) == "refused update"
