"""``gpucloud render`` (and its alias ``python -m gpu_cloud.planner.render``): the stack's own JobSets for kubectl,
exit 2 on what is not there."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpu_cloud.planner import cli
from gpu_cloud.planner.render import main
from tests.stacks.test_environments import plan

ROOT = Path(__file__).resolve().parents[2]


def _jobset(stack: str, name: str) -> dict[str, object]:
    [found] = [r.inputs for r in plan(stack).resources if r.type.endswith(":JobSet") and r.name == name]
    return found


def test_a_rendered_acceptance_test_is_the_one_the_stack_declares(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prod", "acceptance", "training-h100", "--dir", str(ROOT)]) == 0
    assert yaml.safe_load(capsys.readouterr().out) == _jobset("prod", "prod-accept-training-h100-jobset")


def test_a_rendered_job_is_the_stacks_with_the_bucket_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prod-cn", "job", "llm-pretrain", "--bucket", "ckpt", "--dir", str(ROOT)]) == 0
    rendered = yaml.safe_load(capsys.readouterr().out)
    [container] = rendered["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"]
    assert {"name": "CHECKPOINT_URI", "value": "oss://ckpt/jobs/llm-pretrain/"} in container["env"]
    declared = _jobset("prod-cn", "prod-cn-llm-pretrain-jobset")
    assert rendered["metadata"] == declared["metadata"]
    assert rendered["spec"]["failurePolicy"] == declared["spec"]["failurePolicy"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["prod", "job", "nope", "--bucket", "b"], "training.jobs: has no job of that name (got nope)"),
        (["prod", "job", "llm-pretrain"], "--bucket: required for a job"),
        (["prod", "acceptance", "inference-a10g"], "training.acceptancePools: has no such pool (got inference-a10g)"),
        (["nostack", "acceptance", "x"], "stack 'nostack' has no config file"),
    ],
)
def test_what_is_not_in_the_stack_exits_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--dir", str(ROOT)]) == 2
    assert message in capsys.readouterr().err


def test_gpucloud_render_is_the_same_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["render", "prod", "acceptance", "training-h100", "--dir", str(ROOT)]) == 0
    assert yaml.safe_load(capsys.readouterr().out) == _jobset("prod", "prod-accept-training-h100-jobset")
    with pytest.raises(SystemExit) as exit_:
        cli.main(["render", "--help"])
    assert exit_.value.code == 0
    help_text = capsys.readouterr().out
    assert "gpucloud render prod acceptance POOL | kubectl create -f -" in help_text
    assert "``" not in help_text  # plain text, not reStructuredText
