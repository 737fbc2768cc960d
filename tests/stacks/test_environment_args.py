"""The environment components from a program of the user's: a config validated before the cloud package was
imported is still checked for that cloud, and arguments that do not fit the config are refused naming the field,
before anything is declared. Each program runs in its own `gpucloud plan` process (nothing imported beforehand)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.components.test_spec import BASE

GPUCLOUD = Path(sys.executable).parent / "gpucloud"

PROGRAM = """
import json
from gpu_cloud.components.spec import parse_stack_config

config = parse_stack_config(json.loads({config!r}))  # before the aws package is imported: EKS checks not registered

import pulumi
import pulumi_aws as aws
from gpu_cloud.components.aws import GpuEnvironment, GpuEnvironmentArgs

GpuEnvironment(
    "team",
    GpuEnvironmentArgs(config=config, runner_vpc_id="vpc-0123", runner_route_table_ids={tables!r}),
    opts=pulumi.ResourceOptions(provider=aws.Provider("aws", region=config.region)),
)
"""


def _plan(tmp_path: Path, config: dict[str, Any], tables: list[str]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "Pulumi.yaml").write_text("name: team\nruntime: python\n")
    (tmp_path / "__main__.py").write_text(PROGRAM.format(config=json.dumps(config), tables=tables))
    command = [str(GPUCLOUD), "plan", "dev", "--dir", str(tmp_path), "--json", "--no-policy"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_eks_checks_run_on_a_config_validated_before_the_aws_package_was_imported(tmp_path: Path) -> None:
    group = {"name": "a" * 28, "purpose": "training", "instanceTypes": ["g5.xlarge"], "maxSize": 4}
    done = _plan(tmp_path, BASE | {"spotGroups": [group]}, ["rtb-1"])
    assert (done.returncode, done.stdout) == (2, "")
    assert "Traceback" not in done.stderr
    assert (
        f"gpu-cloud:spotGroups.0.name: node group name '{'a' * 28}-ondemand' has 37 characters; EKS allows 63"
        in done.stderr
    )


def test_arguments_that_do_not_fit_the_config_are_refused_naming_the_field(tmp_path: Path) -> None:
    # BASE peers with a data VPC it creates (peerPrivateSubnets), which needs a provider of the peer region.
    done = _plan(tmp_path, BASE, ["rtb-1", "rtb-2"])
    assert (done.returncode, done.stdout) == (2, "")
    assert "Traceback" not in done.stderr
    assert "runner_route_table_ids: config.deploy.runnerRouteTableCount is 1 (got 2)" in done.stderr
    assert "peer_provider: required with peering.peerPrivateSubnets: an AWS provider of us-west-2 (got null)" in (
        done.stderr
    )
