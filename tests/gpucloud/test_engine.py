"""The offline engine records what the Pulumi engine would receive, exactly."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pytest
from pulumi.runtime import resource as sdk_resource
from pulumi.runtime import stack as sdk_stack
from pulumi.runtime.proto import source_pb2

from gpu_cloud.planner.engine import STACK_TRACE_CAPTURE, Plan, record, run_program
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.project import load_project, load_stack
from tests.gpucloud.conftest import MakeProject

TINY = """
    import pulumi
    import pulumi_aws as aws

    config = pulumi.Config()
    zones = aws.get_availability_zones()
    vpc = aws.ec2.Vpc("main", cidr_block=config.require("cidr"), enable_dns_hostnames=True)
    subnet = aws.ec2.Subnet(
        "private-a",
        vpc_id=vpc.id,
        cidr_block="10.0.1.0/24",
        availability_zone=zones.names[0],
        map_public_ip_on_launch=False,
    )
    key = aws.kms.Key(
        "key",
        enable_key_rotation=True,
        rotation_period_in_days=90,
        opts=pulumi.ResourceOptions(protect=True, retain_on_delete=True, ignore_changes=["description"]),
    )
    group = pulumi.ComponentResource("test:index:Group", "group")
    log = aws.cloudwatch.LogGroup("logs", kms_key_id=key.arn, opts=pulumi.ResourceOptions(parent=group))
    pulumi.export("vpcId", vpc.id)
    pulumi.export("zone", zones.names[0])
    pulumi.export("secret", pulumi.Output.secret("hush"))
"""

STACK = "urn:pulumi:dev::tiny::pulumi:pulumi:Stack::tiny-dev"
VPC = "urn:pulumi:dev::tiny::aws:ec2/vpc:Vpc::main"
SUBNET = "urn:pulumi:dev::tiny::aws:ec2/subnet:Subnet::private-a"
KEY = "urn:pulumi:dev::tiny::aws:kms/key:Key::key"
GROUP = "urn:pulumi:dev::tiny::test:index:Group::group"
LOG = "urn:pulumi:dev::tiny::test:index:Group$aws:cloudwatch/logGroup:LogGroup::logs"


def _plan(make_project: MakeProject) -> Plan:
    root = make_project(TINY, {"dev": "config:\n  tiny:cidr: 10.0.0.0/16\n"})
    project = load_project(root)
    return run_program(project, load_stack(project, "dev"))


def _by_urn(plan: Plan) -> dict[str, object]:
    return {r.urn: r for r in plan.resources}


def test_records_every_resource_with_its_urn_type_and_parent(make_project: MakeProject) -> None:
    plan = _plan(make_project)
    assert sorted((r.urn, r.type, r.name, r.parent, r.custom) for r in plan.resources) == sorted(
        [
            (STACK, "pulumi:pulumi:Stack", "tiny-dev", "", False),
            (VPC, "aws:ec2/vpc:Vpc", "main", STACK, True),
            (SUBNET, "aws:ec2/subnet:Subnet", "private-a", STACK, True),
            (KEY, "aws:kms/key:Key", "key", STACK, True),
            (GROUP, "test:index:Group", "group", STACK, False),
            (LOG, "aws:cloudwatch/logGroup:LogGroup", "logs", GROUP, True),
        ]
    )


def test_inputs_use_the_engines_camel_case_names_and_config_values(make_project: MakeProject) -> None:
    resources = {r.urn: r for r in _plan(make_project).resources}
    assert resources[VPC].inputs == {"cidrBlock": "10.0.0.0/16", "enableDnsHostnames": True}
    assert resources[SUBNET].inputs == {
        "availabilityZone": "us-east-1a",
        "cidrBlock": "10.0.1.0/24",
        "mapPublicIpOnLaunch": False,
        "vpcId": "[unknown]",
    }
    assert resources[KEY].inputs == {"enableKeyRotation": True, "rotationPeriodInDays": 90}


def test_dependencies_and_property_dependencies_follow_the_outputs_used(make_project: MakeProject) -> None:
    resources = {r.urn: r for r in _plan(make_project).resources}
    assert resources[SUBNET].dependencies == (VPC,)
    assert resources[SUBNET].property_dependencies["vpcId"] == (VPC,)
    assert resources[SUBNET].property_dependencies["cidrBlock"] == ()
    assert resources[LOG].property_dependencies["kmsKeyId"] == (KEY,)
    assert resources[VPC].dependencies == ()


def test_resource_options_are_recorded(make_project: MakeProject) -> None:
    resources = {r.urn: r for r in _plan(make_project).resources}
    key = resources[KEY]
    assert (key.protect, key.retain_on_delete, key.ignore_changes) == (True, True, ("description",))
    vpc = resources[VPC]
    assert (vpc.protect, vpc.retain_on_delete, vpc.ignore_changes) == (False, False, ())


def test_outputs_show_unknowns_and_hide_secrets(make_project: MakeProject) -> None:
    assert _plan(make_project).outputs == {"secret": "[secret]", "vpcId": "[unknown]", "zone": "us-east-1a"}


def test_secret_config_values_are_placeholders_marked_secret(make_project: MakeProject) -> None:
    program = """
        import pulumi
        import pulumi_aws as aws
        password = pulumi.Config().require_secret("password")
        aws.ssm.Parameter("p", type="SecureString", value=password)
    """
    root = make_project(program, {"dev": "config:\n  tiny:password:\n    secure: AAABAJ0xZW5jcnlwdGVk\n"})
    project = load_project(root)
    stack = load_stack(project, "dev")
    assert stack.secret_keys == frozenset({"tiny:password"})
    (param,) = [r for r in run_program(project, stack).resources if r.type == "aws:ssm/parameter:Parameter"]
    assert param.inputs["value"] == "[secret]"


def test_data_source_without_canned_answer_is_reported(make_project: MakeProject, tmp_path: Path) -> None:
    program = """
        import pulumi_aws as aws
        aws.ec2.get_vpc(default=True)
    """
    project = load_project(make_project(program))
    plan = run_program(project, load_stack(project, "dev"))
    assert plan.warnings == ("data source aws:ec2/getVpc:getVpc has no canned answer; the plan used an empty result",)


def test_a_project_without_stack_files_runs_with_empty_config(make_project: MakeProject) -> None:
    program = """
        import pulumi
        pulumi.export("value", pulumi.Config().get("missing") or "none")
    """
    project = load_project(make_project(program))
    assert run_program(project, load_stack(project, "anything")).outputs == {"value": "none"}


def test_two_programs_in_one_process_do_not_share_state(make_project: MakeProject) -> None:
    first = _plan(make_project)
    second = _plan(make_project)
    assert [r.urn for r in first.resources].count(STACK) == 1
    assert sorted(r.urn for r in first.resources) == sorted(r.urn for r in second.resources)


REFERENCES = """
    import pulumi
    config = pulumi.Config()
    data = pulumi.StackReference(config.require("dataStack"))
    pulumi.export("vpc", data.get_output("vpcId"))
"""
ANSWERS = """
backends:
  s3://state-bucket:
    organization/tiny/dev: {}
    organization/data/prod: {vpcId: vpc-0abc}
  file://~/.pulumi-bootstrap:
    organization/bootstrap/shared: {vpcId: vpc-0def}
"""


def _referencing(make_project: MakeProject, data_stack: str, answers: str | None = ANSWERS) -> Plan:
    root = make_project(REFERENCES, {"dev": f"config:\n  tiny:dataStack: {data_stack}\n"})
    if answers is not None:
        (root / "offline-answers.yaml").write_text(answers)
    project = load_project(root)
    return run_program(project, load_stack(project, "dev"), load_offline_answers(project.config_dir))


def test_a_stack_reference_reads_the_outputs_of_a_stack_in_the_running_stacks_backend(
    make_project: MakeProject,
) -> None:
    assert _referencing(make_project, "organization/data/prod").outputs == {"vpc": "vpc-0abc"}


def test_a_stack_reference_into_another_backend_is_refused_naming_the_config_field(
    make_project: MakeProject,
) -> None:
    with pytest.raises(PlanError) as refused:
        _referencing(make_project, "organization/bootstrap/shared")
    assert str(refused.value).splitlines() == [
        "the program reads what the deployment would not give it:",
        "  tiny:dataStack: stack reference 'organization/bootstrap/shared': organization/tiny/dev runs in"
        " s3://state-bucket, which holds no stack organization/bootstrap/shared (it is in"
        " file://~/.pulumi-bootstrap); Pulumi resolves a stack reference only in the running stack's backend"
        " (pulumi/pulumi#3395)",
    ]


def test_a_stack_reference_to_a_stack_no_backend_holds_is_refused(make_project: MakeProject) -> None:
    with pytest.raises(PlanError, match=r"tiny:dataStack: .*holds no stack acme/other/prod \(no backend of "):
        _referencing(make_project, "acme/other/prod")


def test_without_offline_answers_no_stack_reference_resolves(make_project: MakeProject) -> None:
    with pytest.raises(PlanError, match=r"tiny:dataStack: .*puts the running stack organization/tiny/dev in no"):
        _referencing(make_project, "organization/data/prod", answers=None)


PARAMETERS = """
    import pulumi
    import pulumi_aws as aws
    value = aws.ssm.get_parameter_output(name="/gpucloud/bootstrap/runner-vpc-id", region="us-east-1")
    pulumi.export("vpc", value.insecure_value)
    ami = aws.ssm.get_parameter_output(name="/aws/service/eks/optimized-ami/1.35/amazon-linux-2023/recommended")
    pulumi.export("ami", ami.insecure_value)
"""


def _reading(make_project: MakeProject, answers: str) -> Plan:
    root = make_project(PARAMETERS)
    (root / "offline-answers.yaml").write_text(answers)
    project = load_project(root)
    return run_program(project, load_stack(project, "dev"), load_offline_answers(project.config_dir))


def test_a_published_parameter_is_read_in_its_region_and_a_public_one_keeps_its_canned_answer(
    make_project: MakeProject,
) -> None:
    plan = _reading(make_project, "parameters:\n  aws:us-east-1:\n    /gpucloud/bootstrap/runner-vpc-id: vpc-0abc\n")
    assert plan.outputs == {"ami": "ami-0123456789abcdef0", "vpc": "vpc-0abc"}


def test_a_parameter_not_published_in_the_region_read_is_refused(make_project: MakeProject) -> None:
    with pytest.raises(PlanError) as refused:
        _reading(make_project, "parameters:\n  aws:us-west-2:\n    /gpucloud/bootstrap/runner-vpc-id: vpc-0abc\n")
    assert str(refused.value).splitlines()[1] == (
        "  data source aws:ssm/getParameter:getParameter of '/gpucloud/bootstrap/runner-vpc-id' in us-east-1:"
        " no such parameter there (published only in us-west-2)"
    )


ECHO = """
    import pulumi
    import pulumi_aws as aws

    key = aws.kms.Key("key", description="k", deletion_window_in_days=7)
    vpc = aws.ec2.Vpc("main", cidr_block="10.0.0.0/16", tags={"owner": pulumi.Output.secret("team")})
    log = aws.cloudwatch.LogGroup("logs", kms_key_id=key.arn, retention_in_days=30)
    pulumi.export("cidr", vpc.cidr_block)
    pulumi.export("window", key.deletion_window_in_days)
    pulumi.export("tags", vpc.tags)
    pulumi.export("logKey", log.kms_key_id)
    pulumi.export("retention", log.retention_in_days)
"""


def test_outputs_of_a_new_resource_echo_its_inputs(make_project: MakeProject) -> None:
    # As a preview of a new stack: what the program gave is known (secrets stay secret), what the cloud computes
    # (an ARN) is unknown.
    project = load_project(make_project(ECHO))
    plan = run_program(project, load_stack(project, "dev"))
    assert plan.outputs == {
        "cidr": "10.0.0.0/16",
        "logKey": "[unknown]",
        "retention": 30,
        "tags": "[secret]",
        "window": 7,
    }


def test_the_sdk_captures_each_registrations_stack_trace_where_the_engine_skips_it() -> None:
    # The layout the engine relies on to skip the capture (engine._without_stack_traces): another SDK version that
    # captures elsewhere would make every plan pay for it again, silently.
    assert STACK_TRACE_CAPTURE in sdk_resource.register_resource.__code__.co_names


def test_a_recorded_run_captures_no_stack_trace_and_restores_the_sdks_capture() -> None:
    capture = getattr(sdk_resource, STACK_TRACE_CAPTURE)
    during: list[source_pb2.StackTrace] = []

    def program() -> None:
        during.append(getattr(sdk_resource, STACK_TRACE_CAPTURE)())
        pulumi.ComponentResource("test:index:Group", "group")

    plan = record(program)
    assert [r.name for r in plan.resources] == ["test-test", "group"]
    assert during == [source_pb2.StackTrace()]
    assert getattr(sdk_resource, STACK_TRACE_CAPTURE) is capture


def test_the_sdk_tracks_the_pending_outputs_the_engine_waits_for_first() -> None:
    # engine._settle waits for SETTINGS.outputs before the SDK's wait_for_rpcs; were they tracked elsewhere, it would
    # wait for nothing and the SDK would wait as slowly as before.
    assert "outputs" in pulumi.Output._track.__code__.co_names
    assert "outputs" in sdk_stack.wait_for_rpcs.__code__.co_names


def test_an_output_that_fails_among_pending_ones_fails_the_run_with_its_error() -> None:
    def fail(value: str) -> str:
        raise ValueError(f"cannot use {value}")

    def program() -> None:
        for i in range(50):
            pulumi.Output.from_input(i).apply(str).apply(lambda v: v * 2)
        pulumi.Output.from_input("x").apply(fail).apply(str)

    with pytest.raises(ValueError, match=r"^cannot use x$"):
        record(program)
