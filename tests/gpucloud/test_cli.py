"""``gpucloud plan``: output contracts, exit statuses and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gpu_cloud.planner import cli
from gpu_cloud.planner.cli import main
from tests.gpucloud.conftest import MakeProject

PROGRAM = """
    import pulumi
    import pulumi_aws as aws

    vpc = aws.ec2.Vpc("main", cidr_block="10.0.0.0/16")
    aws.ec2.Subnet("b", vpc_id=vpc.id, cidr_block="10.0.2.0/24")
    aws.ec2.Subnet("a", vpc_id=vpc.id, cidr_block="10.0.1.0/24")
"""

GPU_PROGRAM = """
    from gpu_cloud.components.spec import load_stack_config
    load_stack_config()
"""

VALID_CONFIG = """
    config:
      gpu-cloud:cloud: aws
      gpu-cloud:region: us-east-1
      gpu-cloud:environment: dev
      gpu-cloud:tags: {environment: dev, owner: me, cost-center: "1"}
      gpu-cloud:access: {adminPrincipals: ["arn:aws:iam::123456789012:role/admin"]}
      gpu-cloud:deploy: {runnerVpcCidr: 10.250.0.0/22}
      gpu-cloud:network:
        vpcCidr: 10.0.0.0/16
        privateSubnets: [{zone: us-east-1a, cidr: 10.0.0.0/20}, {zone: us-east-1b, cidr: 10.0.16.0/20}]
        natSubnets: [{zone: us-east-1a, cidr: 10.0.255.0/28}]
      gpu-cloud:alerts: {receiver: sns, snsTopicArn: "arn:aws:sns:us-east-1:123456789012:alerts"}
"""


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["plan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_is_byte_identical_across_runs(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM)
    first = _run(capsys, "--dir", str(root), "--json", "--no-policy")
    second = _run(capsys, "--dir", str(root), "--json", "--no-policy")
    assert first[0] == 0
    assert first[1] == second[1]


def test_json_document_has_the_contract_keys_in_tree_order(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "--dir", str(make_project(PROGRAM)), "--json", "--no-policy")
    document = json.loads(out)
    assert status == 0
    assert list(document) == [
        "schemaVersion", "project", "stack", "resources", "violations", "outputs", "warnings", "cannedAnswers", "cost",
    ]  # fmt: skip
    assert (document["project"], document["stack"], document["violations"]) == ("tiny", "dev", [])
    assert [r["name"] for r in document["resources"]] == ["tiny-dev", "a", "b", "main"]
    subnet = document["resources"][1]
    assert list(subnet) == [
        "urn", "type", "name", "parent", "provider", "dependencies", "propertyDependencies",
        "inputs", "protect", "ignoreChanges", "retainOnDelete",
    ]  # fmt: skip
    assert subnet["inputs"] == {"cidrBlock": "10.0.1.0/24", "vpcId": "[unknown]"}
    assert subnet["dependencies"] == ["urn:pulumi:dev::tiny::aws:ec2/vpc:Vpc::main"]
    assert subnet["propertyDependencies"] == {"cidrBlock": [], "vpcId": ["urn:pulumi:dev::tiny::aws:ec2/vpc:Vpc::main"]}


def test_human_report_shows_the_tree_and_counts(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "--dir", str(make_project(PROGRAM)), "--no-policy")
    assert status == 0
    assert "  + pulumi:pulumi:Stack" in out
    assert "Resources: 3 to create\n     2 aws:ec2/subnet:Subnet\n     1 aws:ec2/vpc:Vpc\n" in out


def test_graph_writes_parent_and_dependency_edges(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dot = tmp_path / "plan.dot"
    _run(capsys, "--dir", str(make_project(PROGRAM)), "--no-policy", "--graph", str(dot))
    assert dot.read_text() == (
        "digraph plan {\n"
        "  rankdir=LR;\n"
        "  compound=true;\n"
        '  node [shape=box, fontname="Helvetica", fontsize=10];\n'
        '  label="tiny/dev: solid = parent, dashed = depends on";\n'
        '  r0 [label="pulumi:pulumi:Stack\\ntiny-dev", shape=folder];\n'
        '  r1 [label="aws:ec2/subnet:Subnet\\na", shape=box];\n'
        '  r2 [label="aws:ec2/subnet:Subnet\\nb", shape=box];\n'
        '  r3 [label="aws:ec2/vpc:Vpc\\nmain", shape=box];\n'
        '  r0 -> r1 [style=solid, color="gray40"];\n'
        '  r0 -> r2 [style=solid, color="gray40"];\n'
        '  r0 -> r3 [style=solid, color="gray40"];\n'
        '  r1 -> r3 [style=dashed, color="steelblue"];\n'
        '  r2 -> r3 [style=dashed, color="steelblue"];\n'
        "}\n"
    )


def _invalid(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, out, err = _run(capsys, *argv)
    assert (status, out) == (2, "")
    assert "Traceback" not in err
    return err


def test_unknown_stack_lists_the_stacks(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config: {}\n", "prod": "config: {}\n"})
    err = _invalid(capsys, "staging", "--dir", str(root))
    assert err == f"error: stack 'staging' has no config file in {root}; stacks of project tiny: dev, prod\n"


def test_config_file_that_is_not_yaml(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  tiny:a: [1, 2\n"})
    err = _invalid(capsys, "--dir", str(root))
    assert err.startswith(f"error: {root}/Pulumi.dev.yaml:3:1: not valid YAML: ")


def test_config_that_breaks_the_schema_lists_every_problem(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = VALID_CONFIG.replace("region: us-east-1", "region: us-east-1\n      gpu-cloud:nodepools: []").replace(
        "zone: us-east-1b, cidr: 10.0.16.0/20", "zone: us-east-1b, cidr: 10.1.0.0/20"
    )
    root = make_project(GPU_PROGRAM, {"dev": broken}, pulumi_yaml="name: gpu-cloud\nruntime: python\n")
    monkeypatch.chdir(root)
    err = _invalid(capsys, "--dir", str(root))
    assert err == (
        "error: invalid config in Pulumi.dev.yaml:\n"
        "  gpu-cloud:network.privateSubnets.1.cidr: not inside vpcCidr 10.0.0.0/16 (got 10.1.0.0/20)\n"
        "  gpu-cloud:nodepools: extra inputs are not permitted; did you mean nodePools? (got [])\n"
    )


def test_config_cross_field_problems_are_all_reported(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = VALID_CONFIG.replace("zone: us-east-1b, cidr: 10.0.16.0/20", "zone: us-east-1a, cidr: 10.1.0.0/20")
    broken = broken.replace('cost-center: "1"', "team: x")
    root = make_project(GPU_PROGRAM, {"dev": broken}, pulumi_yaml="name: gpu-cloud\nruntime: python\n")
    monkeypatch.chdir(root)
    err = _invalid(capsys, "--dir", str(root))
    assert err == (
        "error: invalid config in Pulumi.dev.yaml:\n"
        "  gpu-cloud:network.privateSubnets.1.cidr: not inside vpcCidr 10.0.0.0/16 (got 10.1.0.0/20)\n"
        '  gpu-cloud:network.privateSubnets: needs subnets in at least two zones (got ["us-east-1a", "us-east-1a"])\n'
        '  gpu-cloud:tags: missing required tags cost-center (got ["environment", "owner", "team"])\n'
    )


@pytest.mark.parametrize(
    ("deploy", "problem"),
    [
        (None, "gpu-cloud:deploy: field required (got"),
        (
            "{runnerVpcCidr: 10.0.128.0/22}",
            "gpu-cloud:deploy.runnerVpcCidr: overlaps network.vpcCidr 10.0.0.0/16: the API would be unreachable "
            "(got 10.0.128.0/22)\n",
        ),
    ],
)
def test_deploy_config_that_leaves_the_api_unreachable_is_exit_2(
    deploy: str | None,
    problem: str,
    make_project: MakeProject,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    line = "      gpu-cloud:deploy: {runnerVpcCidr: 10.250.0.0/22}\n"
    broken = VALID_CONFIG.replace(line, "" if deploy is None else f"      gpu-cloud:deploy: {deploy}\n")
    root = make_project(GPU_PROGRAM, {"dev": broken}, pulumi_yaml="name: gpu-cloud\nruntime: python\n")
    monkeypatch.chdir(root)
    err = _invalid(capsys, "--dir", str(root))
    assert err.startswith(f"error: invalid config in Pulumi.dev.yaml:\n  {problem}")


def test_dir_that_is_not_a_pulumi_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _invalid(capsys, "--dir", str(tmp_path))
    assert err == f"error: {tmp_path}: not a Pulumi project (no Pulumi.yaml)\n"


def test_program_that_raises_names_its_file_and_line(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project("import pulumi\n\nraise ValueError('no GPUs for you')\n")
    err = _invalid(capsys, "--dir", str(root))
    assert err == "error: __main__.py:3: ValueError: no GPUs for you\n"


def test_program_that_imports_a_missing_package(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project("import pulumi\nimport pulumi_gcp\n")
    err = _invalid(capsys, "--dir", str(root))
    assert err == "error: __main__.py:2: the program imports 'pulumi_gcp', which is not installed\n"


def test_program_that_logs_an_error_fails(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project("import pulumi\npulumi.log.error('quota exceeded')\n")
    err = _invalid(capsys, "--dir", str(root))
    assert err == "error: the program logged an error:\nquota exceeded\n"


PUBLIC_SUBNET = """
    import pulumi_aws as aws

    vpc = aws.ec2.Vpc("main", cidr_block="10.0.0.0/16")
    aws.ec2.Subnet("public", vpc_id=vpc.id, cidr_block="10.0.1.0/24", map_public_ip_on_launch=True)
"""


def test_a_mandatory_violation_exits_1_and_names_resource_and_policy(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(PUBLIC_SUBNET)
    status, out, _ = _run(capsys, "--dir", str(root), "--json")
    assert status == 1
    violations = [v for v in json.loads(out)["violations"] if v["level"] == "mandatory"]
    assert [(v["policy"], v["level"], v["urn"], v["name"], v["type"]) for v in violations] == [
        (
            "no-public-ip",
            "mandatory",
            "urn:pulumi:dev::tiny::aws:ec2/subnet:Subnet::public",
            "public",
            "aws:ec2/subnet:Subnet",
        )
    ]
    status, out, _ = _run(capsys, "--dir", str(root))
    assert status == 1
    assert "Policy violations: 1 mandatory, 2 advisory\n  no-public-ip (mandatory)\n" in out
    assert "    - aws:ec2/subnet:Subnet public: " in out


def test_policy_config_can_lower_a_policy_to_advisory(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "policy.json"
    config.write_text('{"no-public-ip": "advisory"}')
    status, out, _ = _run(capsys, "--dir", str(make_project(PUBLIC_SUBNET)), "--json", "--policy-config", str(config))
    assert status == 0
    levels = {(v["policy"], v["level"]) for v in json.loads(out)["violations"]}
    assert levels == {("no-public-ip", "advisory"), ("required-tags", "advisory")}


def test_a_bad_policy_config_is_invalid_input(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "policy.json"
    config.write_text("{not json")
    err = _invalid(capsys, "--dir", str(make_project(PUBLIC_SUBNET)), "--policy-config", str(config))
    assert err.startswith(f"error: {config}")


def test_graph_draws_each_component_around_its_children(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    program = """
        import pulumi
        import pulumi_aws as aws

        group = pulumi.ComponentResource("test:index:Group", "group")
        aws.ec2.Vpc("inner", cidr_block="10.0.0.0/16", opts=pulumi.ResourceOptions(parent=group))
    """
    dot = tmp_path / "plan.dot"
    _run(capsys, "--dir", str(make_project(program)), "--no-policy", "--graph", str(dot))
    assert (
        "  subgraph cluster_r1 {\n"
        '    label="group"; style=rounded; color="gray60"; fontname="Helvetica";\n'
        '    r1 [label="test:index:Group\\ngroup", shape=folder];\n'
        '    r2 [label="aws:ec2/vpc:Vpc\\ninner", shape=box];\n'
        "  }\n"
        '  r0 -> r1 [style=solid, color="gray40"];\n'
        '  r1 -> r2 [style=solid, color="gray40"];\n'
    ) in dot.read_text()


def test_a_graph_path_in_a_missing_folder_is_invalid_input_before_anything_runs(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "missing" / "plan.dot"
    err = _invalid(capsys, "--dir", str(make_project(PROGRAM)), "--graph", str(target))
    assert err == f"error: --graph {target}: no such directory {target.parent}\n"


UNREADABLE_LIST = """
    import pulumi_aws as aws

    vpc = aws.ec2.Vpc("main", cidr_block="10.0.0.0/16")
    subnet = aws.ec2.Subnet("public", vpc_id=vpc.id, cidr_block="10.0.1.0/24", map_public_ip_on_launch=True)
    aws.ec2.Instance(
        "gpu",
        ami="ami-0123456789abcdef0",
        instance_type="g5.xlarge",
        subnet_id=subnet.id,
        root_block_device=aws.ec2.InstanceRootBlockDeviceArgs(encrypted=True),
        # The whole list is an output: unknown during preview, where encryption-at-rest reads it as a list.
        ebs_block_devices=vpc.id.apply(
            lambda _: [aws.ec2.InstanceEbsBlockDeviceArgs(device_name="/dev/sdf", encrypted=True)]
        ),
    )
    aws.ebs.Volume("scratch", availability_zone="us-east-1a", size=10)
"""


def test_a_list_a_stack_policy_cannot_read_is_a_violation_on_that_resource_and_the_rest_is_checked(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(capsys, "--dir", str(make_project(UNREADABLE_LIST)), "--json")
    assert status == 1
    assert "Traceback" not in err
    mandatory = sorted(
        (v["policy"], v["name"], v["message"].splitlines()[-1])
        for v in json.loads(out)["violations"]
        if v["level"] == "mandatory"
    )
    assert mandatory == [
        ("encryption-at-rest", "gpu", "could not decide: ebsBlockDevices is unknown during preview"),
        ("encryption-at-rest", "scratch", "volume is not encrypted: set encrypted true"),
        ("no-public-ip", "public", "subnet has mapPublicIpOnLaunch true"),
    ]


# A pack whose adapter fails on every resource (as a bug in it would): the policy's name and the error are
# reported, as the pack's own wrapper (`gpucloud_rules.sdk.PolicyFailed`) raises them.
FAILING_PACK = """
from gpucloud_rules import no_public_ip, sdk
from pulumi_policy import PolicyPack

def broken(props):
    raise KeyError("adapter bug")

sdk._plain = broken
PolicyPack(name="broken", policies=[sdk.to_policy(no_public_ip.RULE)])
"""


def test_a_pack_failure_exits_2_naming_the_policy_and_the_error_without_a_traceback(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = tmp_path / "pack"
    shutil.copytree(cli.POLICY_PACK, pack, ignore=shutil.ignore_patterns("__pycache__", "venv"))
    (pack / "__main__.py").write_text(FAILING_PACK)
    monkeypatch.setattr(cli, "POLICY_PACK", pack)
    status, out, err = _run(capsys, "--dir", str(make_project(PUBLIC_SUBNET)))
    assert status == 2
    assert out == ""
    assert "Traceback" not in err
    [line] = err.splitlines()
    assert line == f"error: policy pack {pack} failed: policy no-public-ip failed: KeyError: 'adapter bug'"


WEBHOOK = VALID_CONFIG.replace(
    'gpu-cloud:alerts: {receiver: sns, snsTopicArn: "arn:aws:sns:us-east-1:123456789012:alerts"}',
    "gpu-cloud:alerts: {receiver: webhook}",
)


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        (
            "",
            "gpu-cloud:alertReceiverUrl: required for alerts.receiver webhook: pulumi config set --secret"
            " alertReceiverUrl (got null)",
        ),
        (
            "      gpu-cloud:alertReceiverUrl: https://hooks.example/x\n",
            "gpu-cloud:alertReceiverUrl: must be a Pulumi secret (pulumi config set --secret) (got plain text)",
        ),
    ],
)
def test_a_webhook_receiver_needs_its_url_as_a_secret(
    make_project: MakeProject,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    url: str,
    problem: str,
) -> None:
    root = make_project(GPU_PROGRAM, {"dev": WEBHOOK + url}, pulumi_yaml="name: gpu-cloud\nruntime: python\n")
    monkeypatch.chdir(root)
    err = _invalid(capsys, "--dir", str(root))
    assert err == f"error: invalid config in Pulumi.dev.yaml:\n  {problem}\n"
    assert "hooks.example" not in err


def test_a_webhook_receiver_with_its_secret_url_plans(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = WEBHOOK + "      gpu-cloud:alertReceiverUrl: {secure: v1:abc:def}\n"
    root = make_project(GPU_PROGRAM, {"dev": config}, pulumi_yaml="name: gpu-cloud\nruntime: python\n")
    monkeypatch.chdir(root)
    status, _, err = _run(capsys, "--dir", str(root), "--no-policy")
    assert (status, err) == (0, "")
