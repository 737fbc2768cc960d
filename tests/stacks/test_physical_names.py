"""Account-unique physical names (components.naming): one environment config planned as two stacks (dev and staging)
gives disjoint names, on both clouds, so the stacks can share an account; no plan gives one name twice; and the
shipped stacks keep the names they had before the names derived from the environment component's name."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.project import load_project, load_stack
from tests.physical import UNIQUE_NAME_INPUTS, clashes, physical_names
from tests.stacks.test_environments import ROOT, STACKS, plan

BASELINE = json.loads((Path(__file__).parent / "physical_names_88a26d5.json").read_text())

ADDED_SINCE = {
    # Issue 25: the vLLM service's own RRSA role and policy (it reads only its model).
    "prod-cn": {"alicloud:ram/policy:Policy llm-inference-prod-cn", "alicloud:ram/role:Role llm-inference-prod-cn"},
    # Issue 24 (alicloud.md F2): the environments' OSS state bucket and its key, and the policy that lets each deployer
    # role read the bootstrap's OOS parameters.
    "bootstrap/shared-cn": {
        "alicloud:kms/alias:Alias alias/gpucloud-pulumi-state-shared-cn",
        "alicloud:oss/bucket:Bucket gpucloud-state-shared-cn-1234567890123456",
        "alicloud:ram/policy:Policy gpucloud-bootstrap-facts-read-shared-cn",
        "alicloud:ram/policy:Policy gpucloud-deploy-runner",
    },
}
"""Physical names of resources added on purpose after 88a26d5, by stack."""

REMOVED_SINCE = {
    # The runner's only permission was AssumeRole; its policy now covers the state, source, key and passphrase too,
    # under the runner role's own name (alicloud.md F2).
    "bootstrap/shared-cn": {"alicloud:ram/policy:Policy gpucloud-deploy-runner-assume"},
}
"""Physical names of resources removed on purpose after 88a26d5, by stack."""

BEFORE = {
    stack: sorted((set(names) - REMOVED_SINCE.get(stack, set())) | ADDED_SINCE.get(stack, set()))
    for stack, names in BASELINE.items()
}
"""The names each stack should give: the baseline at 88a26d5 (before the names derived from the environment
component's name) with the additions and removals made on purpose since."""


def _plan_as(config_of: str, stack: str) -> Plan:
    """The plan of stack ``config_of``'s config file, run as the stack ``stack`` (a stack's own: its one plan)."""
    if config_of == stack:
        return plan(stack)
    project = load_project(ROOT)
    settings = dataclasses.replace(load_stack(project, config_of), name=stack)
    return run_program(project, settings, load_offline_answers(project.config_dir))


@pytest.mark.parametrize("config_of", ["dev", "prod-cn"])
def test_one_config_as_dev_and_as_staging_plans_disjoint_physical_names(config_of: str) -> None:
    dev, staging = _plan_as(config_of, "dev"), _plan_as(config_of, "staging")
    dev_names, staging_names = physical_names(dev), physical_names(staging)
    assert dev_names.isdisjoint(staging_names)
    assert len(dev_names) == len(staging_names)
    # Every named resource of these types carries the stack; the unnamed ones are auto-named by Pulumi.
    named = [r for r in dev.resources if r.type in UNIQUE_NAME_INPUTS and r.inputs.get(UNIQUE_NAME_INPUTS[r.type])]
    assert len(named) == len(dev_names) > 0
    assert all("-dev" in str(r.inputs[UNIQUE_NAME_INPUTS[r.type]]) for r in named)


def test_the_dev_environment_names_carry_its_stack() -> None:
    names = physical_names(_plan_as("dev", "dev"))
    assert {
        "aws:eks/cluster:Cluster gpu-dev",
        "aws:kms/alias:Alias alias/gpucloud-dev",
        "aws:cloudwatch/logGroup:LogGroup /aws/eks/gpu-dev/cluster",
        "aws:cloudwatch/logGroup:LogGroup /gpucloud/dev-network-dev/vpc-flow-logs",
        "aws:iam/role:Role gpu-admin-dev",
        "aws:s3/bucket:Bucket gpucloud-ckpt-dev-123456789012-us-east-1",
    } <= names


@pytest.mark.parametrize("stack", STACKS)
def test_the_shipped_stacks_keep_their_physical_names_and_give_none_twice(stack: str) -> None:
    planned = plan(stack)
    assert sorted(physical_names(planned)) == BEFORE[stack]
    assert clashes(planned.resources) == {}


@pytest.mark.parametrize("stack", ["shared", "shared-cn"])
def test_the_bootstrap_stacks_keep_their_physical_names(stack: str) -> None:
    project = load_project(ROOT / "bootstrap")
    planned = run_program(project, load_stack(project, stack), load_offline_answers(project.config_dir))
    assert sorted(physical_names(planned)) == BEFORE[f"bootstrap/{stack}"]
    assert clashes(planned.resources) == {}


def test_the_stacks_autonaming_pattern_names_the_environment() -> None:
    project = load_project(ROOT)
    settings = load_stack(project, "dev")
    pattern = '{"providers": {"aws": {"pattern": "${project}-${name}-${stack}"}}}'
    settings = dataclasses.replace(settings, config={**settings.config, "pulumi:autonaming": pattern})
    names = physical_names(run_program(project, settings, load_offline_answers(project.config_dir)))
    assert {
        "aws:eks/cluster:Cluster gpu-cloud-gpu-dev",
        "aws:kms/alias:Alias alias/gpu-cloud-gpucloud-dev",
        "aws:iam/role:Role gpu-cloud-gpu-admin-dev",
        "aws:s3/bucket:Bucket gpu-cloud-gpucloud-ckpt-123456789012-us-east-1-dev",
    } <= names
