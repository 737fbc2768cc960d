"""One environment config planned as two stacks (dev and staging) gives disjoint account-unique names, on both
clouds: the stacks can share an account (components.naming)."""

from __future__ import annotations

import dataclasses

import pytest

from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.project import load_project, load_stack
from tests.physical import UNIQUE_NAME_INPUTS, physical_names
from tests.stacks.test_environments import ROOT


def _plan_as(config_of: str, stack: str) -> Plan:
    """The plan of stack ``config_of``'s config file, run as the stack ``stack``."""
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
