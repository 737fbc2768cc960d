"""Print the JobSet of a stack's training job or pool acceptance test, to submit with ``kubectl`` instead of Pulumi.

    gpucloud render STACK job NAME --bucket BUCKET [--dir DIR] | kubectl apply -f -
    gpucloud render STACK acceptance POOL [--dir DIR] | kubectl create -f -

(``python -m gpu_cloud.planner.render ...`` is the same command.)

The manifest is the one the stack declares (``components.k8s.training_job.jobset_manifest``,
``components.k8s.acceptance.acceptance_manifest``), from the same validated config. The job's ServiceAccount and
checkpoint identity are the stack's (``pulumi up`` creates them for every job in ``training.jobs``); BUCKET is the
stack's ``checkpointBucket`` output. Exit 2 when the config, the job or the pool is not valid.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from gpu_cloud.components.k8s.acceptance import acceptance_manifest
from gpu_cloud.components.k8s.training_job import jobset_manifest
from gpu_cloud.components.spec import (
    Cloud,
    ConfigError,
    GpuNodePoolSpec,
    Problem,
    SpotGroupSpec,
    StackConfig,
    parse_stack_config,
)
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.project import load_project, load_stack

__all__ = ["main", "render"]

URI_SCHEMES = {Cloud.AWS: "s3", Cloud.ALICLOUD: "oss"}
"""The checkpoint bucket's URI scheme per cloud."""


def _config(directory: Path, stack: str) -> StackConfig:
    project = load_project(directory)
    settings = load_stack(project, stack)
    prefix = f"{project.name}:"
    raw: dict[str, Any] = {}
    for key, value in settings.config.items():
        if key.startswith(prefix):
            try:
                raw[key[len(prefix) :]] = json.loads(value)
            except ValueError:
                raw[key[len(prefix) :]] = value
    return parse_stack_config(raw)


def render(config: StackConfig, kind: str, name: str, bucket: str | None) -> dict[str, Any]:
    """The manifest of job or acceptance test ``name`` of ``config``.

    Raises:
        ConfigError: no such job or pool, or no bucket for a job.
    """
    training = config.training
    if training is None:
        raise ConfigError([Problem("training", "the stack has no training", None)])
    pools: dict[str, GpuNodePoolSpec | SpotGroupSpec] = {p.name: p for p in config.node_pools}
    pools |= {g.name: g for g in config.spot_groups}
    if kind == "acceptance":
        if name not in training.acceptance_pools:
            raise ConfigError([Problem("training.acceptancePools", "has no such pool", name)])
        return acceptance_manifest(pools[name], training, config.cloud)
    jobs = {j.name: j for j in training.jobs}
    if name not in jobs:
        raise ConfigError([Problem("training.jobs", "has no job of that name", name)])
    if not bucket:
        raise ConfigError([Problem("--bucket", "required for a job (the stack's checkpointBucket output)", bucket)])
    job = jobs[name]
    uri = f"{URI_SCHEMES[config.cloud]}://{bucket}/{job.checkpoint_prefix}"
    return jobset_manifest(job, pools[job.pool], training, config.cloud, uri)


def manifest_text(directory: Path, stack: str, kind: str, name: str, bucket: str | None) -> str:
    """``gpucloud render``: the manifest of job or acceptance test ``name`` of ``stack``, as YAML.

    Raises:
        PlanError: the project, the stack's config, the job or the pool is not valid.
    """
    try:
        return yaml.safe_dump(render(_config(directory, stack), kind, name, bucket), sort_keys=False)
    except ConfigError as err:
        raise PlanError(str(err)) from None


def main(argv: list[str] | None = None) -> int:
    """``python -m gpu_cloud.planner.render ARGS``: ``gpucloud render ARGS``; returns the exit status."""
    from gpu_cloud.planner.cli import main as gpucloud

    return gpucloud(["render", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
