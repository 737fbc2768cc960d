"""Nonsense ``gpucloud plan`` refuses, run as a user runs it: a shipped stack config (or the stack outputs it reads)
changed in one place, then ``gpucloud plan <stack>``. Each ends in exit 2 with every problem as
``gpu-cloud:path.to.field: what is wrong (got VALUE)``, and nothing else on the screen."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_cloud.planner.cli import main

REPO = Path(__file__).resolve().parents[2]
STACKS = REPO / "stacks"
NAMESPACE = "gpu-cloud:"

Mutation = Callable[[dict[str, Any]], object]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project running the shipped program with its stack-outputs file; each test writes its stack's config."""
    (tmp_path / "Pulumi.yaml").write_text(f"name: gpu-cloud\nmain: {STACKS}\nruntime: python\n")
    (tmp_path / "stack-outputs.yaml").write_text((STACKS / "stack-outputs.yaml").read_text())
    return tmp_path


def _shipped(environment: str) -> dict[str, Any]:
    """The shipped config of ``environment``, keys without the project's namespace."""
    document = yaml.safe_load((STACKS / f"Pulumi.{environment}.yaml").read_text(encoding="utf-8"))
    return {key.removeprefix(NAMESPACE): value for key, value in document["config"].items()}


def refused(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    environment: str,
    mutate: Mutation,
    outputs: Mutation | None = None,
) -> list[str]:
    """The problem lines of ``gpucloud plan <environment>`` on the shipped config changed by ``mutate`` (and the
    stack outputs changed by ``outputs``); the plan must exit 2 with nothing on stdout."""
    config = _shipped(environment)
    mutate(config)
    document = {"config": {f"{NAMESPACE}{key}": value for key, value in config.items()}}
    (project / f"Pulumi.{environment}.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    if outputs is not None:
        canned = yaml.safe_load((STACKS / "stack-outputs.yaml").read_text())
        outputs(canned)
        (project / "stack-outputs.yaml").write_text(yaml.safe_dump(canned))
    status = main(["plan", environment, "--dir", str(project), "--no-policy"])
    out, err = capsys.readouterr()
    assert (status, out) == (2, ""), err
    first, *lines = err.splitlines()
    assert first == f"error: invalid config in Pulumi.{environment}.yaml:", err
    return [line.removeprefix("  ") for line in lines]


# -- The peer VPC created here is checked as the environment's own network is (no raw pydantic error).


def test_peer_subnets_in_one_zone(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"]["peerPrivateSubnets"][1]["zone"] = "us-west-2a"

    assert refused(project, capsys, "prod", mutate) == [
        'gpu-cloud:peering.peerPrivateSubnets: needs subnets in at least two zones (got ["us-west-2a", "us-west-2a"])'
    ]


def test_overlapping_peer_subnets(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"]["peerPrivateSubnets"][1]["cidr"] = "10.40.0.0/20"

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:peering.peerPrivateSubnets.1.cidr: overlaps peerPrivateSubnets.0 (10.40.0.0/18) (got 10.40.0.0/20)"
    ]


# -- Another stack's outputs that do not match this stack's config (read when the reference resolves).


def test_a_route_table_count_the_peer_stack_does_not_export(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"]["peerRouteTableCount"] = 3

    assert refused(project, capsys, "staging", mutate) == [
        "gpu-cloud:peering.peerRouteTableCount: organization/gpu-cloud-data/staging exports 2 ids as "
        "privateRouteTableIds (got 3)"
    ]


def test_a_runner_route_table_count_the_bootstrap_stack_does_not_export(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["deploy"]["runnerRouteTableCount"] = 1

    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:deploy.runnerRouteTableCount: organization/gpu-cloud-bootstrap/shared exports 2 ids as "
        "runnerRouteTableIds (got 1)"
    ]


def test_route_tables_that_are_not_a_list(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def outputs(o: dict[str, Any]) -> None:
        o["organization/gpu-cloud-data/staging"]["privateRouteTableIds"] = "rtb-1"

    assert refused(project, capsys, "staging", lambda c: None, outputs) == [
        "gpu-cloud:peering.peerRouteTableCount: organization/gpu-cloud-data/staging exports privateRouteTableIds "
        "that is not a list of ids (got rtb-1)"
    ]


def test_an_alibaba_runner_stack_without_its_route_table(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def outputs(o: dict[str, Any]) -> None:
        o["organization/gpu-cloud-bootstrap/shared-cn"]["runnerRouteTableIds"] = []

    assert refused(project, capsys, "prod-cn", lambda c: None, outputs) == [
        "gpu-cloud:deploy.runnerRouteTableCount: organization/gpu-cloud-bootstrap/shared-cn exports 0 ids as "
        "runnerRouteTableIds (got 1)"
    ]


def test_a_kms_instance_stack_without_its_instance(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def outputs(o: dict[str, Any]) -> None:
        del o["organization/gpu-cloud-bootstrap/shared-cn"]["kmsInstanceId"]

    assert refused(project, capsys, "prod-cn", lambda c: None, outputs) == [
        "gpu-cloud:kms.alicloudKmsInstanceStack: organization/gpu-cloud-bootstrap/shared-cn exports no kmsInstanceId "
        "id (got null)"
    ]


def test_a_vpc_id_that_is_not_text(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def outputs(o: dict[str, Any]) -> None:
        o["organization/gpu-cloud-data/staging"]["vpcId"] = ["vpc-1"]

    assert refused(project, capsys, "staging", lambda c: None, outputs) == [
        'gpu-cloud:peering.peerStack: organization/gpu-cloud-data/staging exports no vpcId id (got ["vpc-1"])'
    ]
