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
    """A project running the shipped program with its offline answers; each test writes its stack's config."""
    (tmp_path / "Pulumi.yaml").write_text(f"name: gpu-cloud\nmain: {STACKS}\nruntime: python\n")
    (tmp_path / "offline-answers.yaml").write_text((STACKS / "offline-answers.yaml").read_text())
    return tmp_path


def shipped(environment: str) -> dict[str, Any]:
    """The shipped config of ``environment``, keys without the project's namespace."""
    document = yaml.safe_load((STACKS / f"Pulumi.{environment}.yaml").read_text(encoding="utf-8"))
    return {key.removeprefix(NAMESPACE): value for key, value in document["config"].items()}


def refused(
    project: Path,
    capsys: pytest.CaptureFixture[str],
    environment: str,
    mutate: Mutation,
    answers: Mutation | None = None,
    first_line: str = "invalid config in Pulumi.{environment}.yaml:",
) -> list[str]:
    """The problem lines of ``gpucloud plan <environment>`` on the shipped config changed by ``mutate`` (and the
    offline answers changed by ``answers``); the plan must exit 2 with nothing on stdout."""
    config = shipped(environment)
    mutate(config)
    document = {"config": {f"{NAMESPACE}{key}": value for key, value in config.items()}}
    (project / f"Pulumi.{environment}.yaml").write_text(yaml.safe_dump(document), encoding="utf-8")
    if answers is not None:
        given = yaml.safe_load((STACKS / "offline-answers.yaml").read_text())
        answers(given)
        (project / "offline-answers.yaml").write_text(yaml.safe_dump(given))
    status = main(["plan", environment, "--dir", str(project), "--no-policy"])
    out, err = capsys.readouterr()
    assert (status, out) == (2, ""), err
    first, *lines = err.splitlines()
    assert first == "error: " + first_line.format(environment=environment), err
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


# -- What the bootstrap publishes, or another stack of this backend exports, that does not match this stack's config
# (read when the parameter or the reference resolves).

BACKEND = "s3://gpucloud-state-shared-123456789012-us-east-1"
DATA = "organization/gpu-cloud-data/staging"
PARAMETERS = ("parameters", "aws:us-east-1")


def _data_stack(tables: object = ("rtb-1", "rtb-2"), vpc: object = "vpc-1") -> Mutation:
    """Answers in which the backend of the environments also holds a data stack exporting ``vpc`` and ``tables``."""

    def answers(a: dict[str, Any]) -> None:
        listed = list(tables) if isinstance(tables, tuple) else tables
        a["backends"][BACKEND][DATA] = {"vpcId": vpc, "privateRouteTableIds": listed}

    return answers


def _peering_with_the_data_stack(count: int = 2) -> Mutation:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"] = {"peerRegion": "us-west-2", "peerVpcCidr": "10.35.0.0/16", "peerStack": DATA}
        c["peering"]["peerRouteTableCount"] = count

    return mutate


def test_a_route_table_count_the_peer_stack_does_not_export(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(project, capsys, "staging", _peering_with_the_data_stack(3), _data_stack()) == [
        f"gpu-cloud:peering.peerRouteTableCount: {DATA} exports 2 ids as privateRouteTableIds (got 3)"
    ]


def test_a_runner_route_table_count_the_bootstrap_does_not_publish(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["deploy"]["runnerRouteTableCount"] = 1

    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:deploy.runnerRouteTableCount: the bootstrap publishes 2 (/gpucloud/bootstrap/runner-route-table-ids)"
        " (got 1)"
    ]


def test_a_runner_vpc_range_the_bootstrap_does_not_publish(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["deploy"]["runnerVpcCidr"] = "10.249.0.0/22"

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:deploy.runnerVpcCidr: the bootstrap's runner VPC is 10.250.0.0/22"
        " (/gpucloud/bootstrap/runner-vpc-cidr) (got 10.249.0.0/22)"
    ]


def test_route_tables_that_are_not_a_list(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(project, capsys, "staging", _peering_with_the_data_stack(), _data_stack(tables="rtb-1")) == [
        f"gpu-cloud:peering.peerStack: {DATA} exports privateRouteTableIds that is not a list of ids (got rtb-1)"
    ]


def test_a_vpc_id_that_is_not_text(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(project, capsys, "staging", _peering_with_the_data_stack(), _data_stack(vpc=["vpc-1"])) == [
        f'gpu-cloud:peering.peerStack: {DATA} exports no vpcId id (got ["vpc-1"])'
    ]


READS_REFUSED = "the program reads what the deployment would not give it:"


def test_a_peer_stack_in_no_backend_of_the_sequence_is_refused(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert refused(project, capsys, "staging", _peering_with_the_data_stack(), first_line=READS_REFUSED) == [
        f"gpu-cloud:peering.peerStack: stack reference '{DATA}': organization/gpu-cloud/staging runs in {BACKEND},"
        f" which holds no stack {DATA} (no backend of {project}/offline-answers.yaml holds it); Pulumi resolves a"
        " stack reference only in the running stack's backend (pulumi/pulumi#3395)"
    ]


def test_an_alibaba_environment_whose_bootstrap_published_no_kms_instance(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def answers(a: dict[str, Any]) -> None:
        del a["parameters"]["alicloud:cn-hangzhou"]["/gpucloud/bootstrap/kms-instance-id"]

    assert refused(project, capsys, "prod-cn", lambda c: None, answers, first_line=READS_REFUSED) == [
        "data source alicloud:oos/getParameters:getParameters of '/gpucloud/bootstrap/kms-instance-id' in"
        f" cn-hangzhou: no such parameter there (not in {project}/offline-answers.yaml)"
    ]


def test_a_runner_in_a_region_where_the_bootstrap_published_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["deploy"]["runnerRegion"] = "us-west-2"

    lines = refused(project, capsys, "dev", mutate, first_line=READS_REFUSED)
    assert lines[0] == (
        "data source aws:ssm/getParameter:getParameter of '/gpucloud/bootstrap/runner-vpc-cidr' in us-west-2:"
        " no such parameter there (published only in us-east-1)"
    )


# -- Regions and zones that do not exist for the cloud (cloud_limits.json: botocore's endpoints, Alibaba's list).


def test_a_peer_region_aws_does_not_have(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"]["peerRegion"] = "us-west-9"

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:peering.peerRegion: not a region of aws (got us-west-9)",
        "gpu-cloud:peering.peerPrivateSubnets.0.zone: not a zone of region us-west-9 (got us-west-2a)",
        "gpu-cloud:peering.peerPrivateSubnets.1.zone: not a zone of region us-west-9 (got us-west-2b)",
    ]


def test_a_region_alibaba_cloud_does_not_have(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"]["peerRegion"] = "cn-mars"
        c["peering"]["peerPrivateSubnets"][0]["zone"] = "cn-mars-a"
        c["peering"]["peerPrivateSubnets"][1]["zone"] = "cn-mars-b"

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:peering.peerRegion: not a region of alicloud (got cn-mars)"
    ]


def test_zones_match_exactly_not_by_prefix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["network"]["privateSubnets"][1]["zone"] = "us-east-12a"
        c["network"]["privateSubnets"][2]["zone"] = "us-east-1"

    zones = "us-east-1a, us-east-1b, us-east-1c, us-east-1d, us-east-1e, us-east-1f"
    assert refused(project, capsys, "prod", mutate) == [
        f"gpu-cloud:network.privateSubnets.1.zone: not a zone of region us-east-1 ({zones}) (got us-east-12a)",
        f"gpu-cloud:network.privateSubnets.2.zone: not a zone of region us-east-1 ({zones}) (got us-east-1)",
    ]


def test_an_alibaba_zone_the_region_does_not_have(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["network"]["privateSubnets"][1]["zone"] = "cn-hangzhou-z"
        c["network"]["podSubnets"][1]["zone"] = "cn-hangzhou-z"

    zones = ", ".join(f"cn-hangzhou-{z}" for z in "befghijk")
    assert refused(project, capsys, "prod-cn", mutate) == [
        f"gpu-cloud:network.privateSubnets.1.zone: not a zone of region cn-hangzhou ({zones}) (got cn-hangzhou-z)",
        f"gpu-cloud:network.podSubnets.1.zone: not a zone of region cn-hangzhou ({zones}) (got cn-hangzhou-z)",
    ]


# -- CIDR sizes the clouds refuse (AWS /16 to /28 for VPCs and subnets; Alibaba VPC /8 to /28, vSwitch /16 to /29).


def test_aws_vpc_and_subnet_sizes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["network"]["vpcCidr"] = "10.10.0.0/15"
        c["network"]["natSubnets"][0]["cidr"] = "10.10.255.0/30"

    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:network.vpcCidr: aws takes a VPC of /16 to /28 (got 10.10.0.0/15)",
        "gpu-cloud:network.natSubnets.0.cidr: aws takes a subnet of /16 to /28 (got 10.10.255.0/30)",
    ]


def test_the_whole_internet_as_a_vpc(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["network"]["vpcCidr"] = "0.0.0.0/0"

    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:deploy.runnerVpcCidr: overlaps network.vpcCidr 0.0.0.0/0: the API would be unreachable "
        "(got 10.250.0.0/22)",
        "gpu-cloud:network.vpcCidr: aws takes a VPC of /16 to /28 (got 0.0.0.0/0)",
    ]


def test_an_alibaba_vswitch_too_small(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["network"]["privateSubnets"][1]["cidr"] = "10.30.64.0/30"

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:network.privateSubnets.1.cidr: alicloud takes a subnet of /16 to /29 (got 10.30.64.0/30)"
    ]


# -- Subnets too small for the nodes and pods of their pools (AWS: the VPC CNI gives each pod an address of its node's
# subnet; a node takes up to its interfaces x IPv4 addresses per interface, ec2_facts.json; 5 reserved per subnet).


def test_zones_whose_subnets_cannot_hold_their_nodes_and_pods(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["network"]["privateSubnets"][0]["cidr"] = "10.20.0.0/21"
        c["network"]["privateSubnets"][1]["cidr"] = "10.20.64.0/22"

    # p5.48xlarge: 2 interfaces x 50 addresses; g5.2xlarge and m6i.xlarge: 4 x 15. The EFA training pool runs in
    # us-east-1a only; a spot group's spot and on-demand groups may both be full.
    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:network.privateSubnets.0.cidr: the private subnets of zone us-east-1a hold 2043 addresses, but the "
        "nodes there may take 2720 with their pods (system 4 x 60, training-h100 8 x 100, inference-a10g 16 x 60, "
        "training-spot (spot) 8 x 60, training-spot (on-demand) 4 x 60) (got 10.20.0.0/21)",
        "gpu-cloud:network.privateSubnets.1.cidr: the private subnets of zone us-east-1b hold 1019 addresses, but the "
        "nodes there may take 1920 with their pods (system 4 x 60, inference-a10g 16 x 60, training-spot (spot) "
        "8 x 60, training-spot (on-demand) 4 x 60) (got 10.20.64.0/22)",
    ]


def test_a_zone_counts_every_subnet_it_has(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        subnets = c["network"]["privateSubnets"]
        subnets[0]["cidr"] = "10.10.0.0/25"
        subnets.append({"zone": "us-east-1a", "cidr": "10.10.0.128/25"})
        c["spotGroups"][0]["maxSize"] = 2
        c["spotGroups"][0]["fallbackMaxSize"] = 2
        c["inference"][0]["maxReplicas"] = 2  # what the smaller group holds
        c["cluster"] = {"systemMaxSize": 2}

    # Two /25 subnets in us-east-1a: 2 x (128 - 5) = 246 addresses; the nodes there may take 6 x 60 = 360.
    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:network.privateSubnets.0.cidr: the private subnets of zone us-east-1a hold 246 addresses, but the "
        "nodes there may take 360 with their pods (system 2 x 60, inference-spot (spot) 2 x 60, inference-spot "
        "(on-demand) 2 x 60) (got 10.10.0.0/25)"
    ]


# -- System pool types: EC2's own list (botocore's InstanceType enum, ec2_facts.json), never a GPU or accelerated type.


def test_system_types_ec2_does_not_have_or_with_accelerators(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["cluster"]["systemInstanceTypes"] = ["m6i.huge", "g5.xlarge", "inf2.xlarge", "m7i.2xlarge"]

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:cluster.systemInstanceTypes.0: not an instance type of aws (got m6i.huge)",
        "gpu-cloud:cluster.systemInstanceTypes.1: a GPU or accelerated type; the system pool runs CPU types only "
        "(got g5.xlarge)",
        "gpu-cloud:cluster.systemInstanceTypes.2: a GPU or accelerated type; the system pool runs CPU types only "
        "(got inf2.xlarge)",
    ]


# -- Pools, services and namespaces that make no sense.


def test_a_spot_group_diversified_by_one_type_twice(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["spotGroups"][0]["instanceTypes"] = ["g5.xlarge", "g5.xlarge"]

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:spotGroups.0.instanceTypes.1: an instance type listed twice (got g5.xlarge)"
    ]


def _resnet_only(c: dict[str, Any]) -> None:
    """prod's inference without its llm service, so the pool's capacity at maxReplicas stays out of the case."""
    c["inference"] = [s for s in c["inference"] if s["name"] == "resnet"]


def test_more_gpus_per_replica_than_a_node_has(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        _resnet_only(c)
        c["inference"][0]["gpusPerReplica"] = 2

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:inference.0.gpusPerReplica: more than the 1 GPUs a node of pool inference-a10g offers (got 2)"
    ]


def test_more_replicas_at_minimum_than_the_pool_holds(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        _resnet_only(c)
        c["inference"][0]["minReplicas"] = c["inference"][0]["maxReplicas"] = 17

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:inference.0.maxReplicas: at maxReplicas the services of pool 'inference-a10g' (resnet) need 17 "
        "GPUs; it holds 16 (got 17)",
        "gpu-cloud:inference.0.minReplicas: more replicas than the 16 nodes of pool inference-a10g hold (16) (got 17)",
    ]


def test_two_inference_services_of_one_name(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        _resnet_only(c)
        c["inference"].append(dict(c["inference"][0], minReplicas=1))

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:inference.1.name: already used by another inference service (got resnet)"
    ]


@pytest.mark.parametrize("namespace", ["kube-system", "kube-public", "default", "monitoring"])
def test_a_system_namespace_as_a_gpu_namespace(
    project: Path, capsys: pytest.CaptureFixture[str], namespace: str
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["access"]["gpuNamespaces"] = ["gpu-training", "gpu-inference", namespace]

    assert refused(project, capsys, "prod", mutate) == [
        f"gpu-cloud:access.gpuNamespaces.2: a system namespace, not a GPU namespace (got {namespace})"
    ]


def test_a_gpu_namespace_listed_twice(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["access"]["gpuNamespaces"] = ["gpu-training", "gpu-inference", "gpu-training"]

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:access.gpuNamespaces.2: a namespace listed twice (got gpu-training)"
    ]


# -- Tags, log retention, price caps, stack references.


def test_aws_tags_the_cloud_refuses(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key = "k" * 129

    def mutate(c: dict[str, Any]) -> None:
        c["tags"].update({"team": "", "aws:team": "ml", key: "v", "note": "v" * 257, "origin": "AWS:console"})

    assert refused(project, capsys, "prod", mutate) == [
        "gpu-cloud:tags.aws:team: a tag key may not start with aws: (reserved) (got aws:team)",
        f"gpu-cloud:tags.{key}: a tag key of more than 128 characters (got {key[:77]}...)",
        f"gpu-cloud:tags.note: a tag value of more than 256 characters (got {'v' * 77}...)",
        "gpu-cloud:tags.origin: a tag value may not start with aws: (reserved) (got AWS:console)",
        "gpu-cloud:tags.team: a tag needs a value (got )",
    ]


def test_more_tags_than_aws_allows(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["tags"].update({f"extra-{i}": "x" for i in range(48)})

    assert refused(project, capsys, "dev", mutate) == ["gpu-cloud:tags: more than the 50 tags aws allows (got 51)"]


def test_alibaba_tags_the_cloud_refuses(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["tags"].update({"acs:team": "ml", "aliyun-owner": "x", "docs": "https://wiki/gpu"})

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:tags.acs:team: a tag key may not start with aliyun or acs: (reserved) (got acs:team)",
        "gpu-cloud:tags.aliyun-owner: a tag key may not start with aliyun or acs: (reserved) (got aliyun-owner)",
        "gpu-cloud:tags.docs: a tag value may not contain http:// or https:// (got https://wiki/gpu)",
    ]


def test_more_tags_than_alibaba_allows(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["tags"].update({f"extra-{i}": "x" for i in range(18)})

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:tags: more than the 20 tags alicloud allows (got 21)"
    ]


def test_log_retention_cloudwatch_does_not_accept(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["cluster"]["logRetentionDays"] = 4
        c["network"]["flowLogRetentionDays"] = 100

    accepted = "1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653"
    assert refused(project, capsys, "prod", mutate) == [
        f"gpu-cloud:cluster.logRetentionDays: not a retention period CloudWatch Logs accepts ({accepted}) (got 4)",
        f"gpu-cloud:network.flowLogRetentionDays: not a retention period CloudWatch Logs accepts ({accepted}) "
        "(got 100)",
    ]


@pytest.mark.parametrize("cap", [float("inf"), float("nan")])
def test_an_infinite_or_nan_spot_price_cap(project: Path, capsys: pytest.CaptureFixture[str], cap: float) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["spotGroups"][0]["maxPricePerHour"] = cap

    shown = "Infinity" if cap == float("inf") else "NaN"
    assert refused(project, capsys, "prod-cn", mutate) == [
        f"gpu-cloud:spotGroups.0.maxPricePerHour: input should be a finite number (got {shown})"
    ]


def test_a_stack_reference_pulumi_would_refuse(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["peering"] = {
            "peerRegion": "us-west-2",
            "peerVpcCidr": "10.35.0.0/16",
            "peerStack": "organization/gpu cloud/x",
        }

    message = "not a stack name Pulumi accepts ([<owner>/[<project>/]]<stack>; letters, digits, '_', '.', '-')"
    assert refused(project, capsys, "staging", mutate) == [
        f"gpu-cloud:peering.peerStack: {message} (got organization/gpu cloud/x)"
    ]


def test_a_runner_region_the_cloud_does_not_have_or_another_on_alibaba(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def mutate(c: dict[str, Any]) -> None:
        c["deploy"]["runnerRegion"] = "cn-shanghai"

    assert refused(project, capsys, "prod-cn", mutate) == [
        "gpu-cloud:deploy.runnerRegion: the ACK runner peers within cn-hangzhou (got cn-shanghai)"
    ]

    def unknown(c: dict[str, Any]) -> None:
        c["deploy"]["runnerRegion"] = "us-east-9"

    assert refused(project, capsys, "dev", unknown) == [
        "gpu-cloud:deploy.runnerRegion: not a aws region whose zones are known (components/cloud_limits.json)"
        " (got us-east-9)"
    ]


# -- Price files: a region the cloud does not have, a price no instance has.


def test_a_price_file_with_an_unknown_region_and_an_absurd_price(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "Pulumi.dev.yaml").write_text((STACKS / "Pulumi.dev.yaml").read_text())
    prices = project / "rates.yaml"
    prices.write_text("aws:\n  us-east-9:\n    g5.xlarge: 1.0\n  us-east-1:\n    g5.xlarge: 1.0e+308\n")
    status = main(["cost", "dev", "--dir", str(project), "--prices", str(prices)])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"error: invalid price file {prices}:",
        "  aws.us-east-9: not a region of aws (got 'us-east-9')",
        "  aws.us-east-1.g5.xlarge: must be a price per hour > 0 and at most 10000 (got 1e+308)",
    ]


def test_sizes_are_checked_without_a_region(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def mutate(c: dict[str, Any]) -> None:
        del c["region"]
        c["network"]["vpcCidr"] = "10.10.0.0/15"

    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:region: field required (got null)",
        "gpu-cloud:network.vpcCidr: aws takes a VPC of /16 to /28 (got 10.10.0.0/15)",
    ]


def test_an_eks_environment_without_a_way_to_the_public_registries(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """aws.md W3: endpoints-only egress reaches AWS, never the registries the add-ons' images come from."""

    def mutate(c: dict[str, Any]) -> None:
        c["network"]["egress"] = "endpoints-only"
        del c["network"]["natSubnets"]
        c["network"].pop("natPerZone", None)

    assert refused(project, capsys, "dev", mutate) == [
        "gpu-cloud:network.egress: an EKS cluster's nodes pull the add-ons' images from public registries, which no VPC"
        " endpoint reaches: use nat (got endpoints-only)"
    ]
