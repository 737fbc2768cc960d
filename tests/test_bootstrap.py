"""The bootstrap program: a protected state bucket and a rotating key for the awskms:// secrets provider, the Auto
Scaling service-linked role, and the deploy runner (CodeBuild in a private VPC)."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from collections import Counter
from pathlib import Path

import botocore.session
import pytest
import yaml

from gpu_cloud.components import bootstrap_facts
from gpu_cloud.components.aws.deploy_runner import BUILD_TIMEOUT_MINUTES, BUILDSPEC, PULUMI_CLI_VERSION, PYTHON_RUNTIME
from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.policy import run_policy_pack
from gpu_cloud.planner.project import load_project, load_stack

BOOTSTRAP = Path(__file__).resolve().parent.parent / "bootstrap"
ENVIRONMENTS = ("dev", "staging", "prod")


@pytest.fixture(scope="module")
def plan() -> Plan:
    project = load_project(BOOTSTRAP)
    return run_program(project, load_stack(project, "shared"))


def test_it_creates_a_key_and_a_private_bucket(plan: Plan) -> None:
    state = [r for r in plan.resources if r.custom and not r.name.startswith(("runner", "autoscaling", "fact-"))]
    assert Counter(r.type for r in state) == {
        "pulumi:providers:aws": 1,
        "aws:kms/key:Key": 1,
        "aws:kms/alias:Alias": 1,
        "aws:s3/bucket:Bucket": 1,
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": 1,
        "aws:s3/bucketOwnershipControls:BucketOwnershipControls": 1,
        "aws:s3/bucketPolicy:BucketPolicy": 1,
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": 1,
        "aws:s3/bucketVersioning:BucketVersioning": 1,
    }


def test_the_key_rotates_every_90_days_and_both_are_protected(plan: Plan) -> None:
    [key] = [r for r in plan.resources if r.type == "aws:kms/key:Key"]
    [bucket] = [r for r in plan.resources if r.type == "aws:s3/bucket:Bucket"]
    assert (key.inputs["enableKeyRotation"], key.inputs["rotationPeriodInDays"]) == (True, 90)
    assert (key.protect, key.retain_on_delete, bucket.protect, bucket.retain_on_delete) == (True, True, True, True)


def test_outputs_name_the_backend_and_the_secrets_provider(plan: Plan) -> None:
    assert plan.outputs["backendUrl"] == "s3://gpucloud-state-shared-123456789012-us-east-1"
    assert plan.outputs["secretsProvider"] == "awskms://alias/gpucloud-pulumi-state-shared?region=us-east-1"


def test_the_policy_pack_finds_nothing(plan: Plan) -> None:
    report = run_policy_pack(POLICY_PACK, plan.resources, project=plan.project, stack=plan.stack)
    assert report.violations == ()


def test_it_creates_the_auto_scaling_service_linked_role_the_key_policies_name(plan: Plan) -> None:
    [role] = [r for r in plan.resources if r.type == "aws:iam/serviceLinkedRole:ServiceLinkedRole"]
    assert role.inputs == {"awsServiceName": "autoscaling.amazonaws.com"}
    assert role.retain_on_delete


def test_each_environment_has_a_deploy_and_a_preview_project_in_private_subnets_with_https_egress_only(
    plan: Plan,
) -> None:
    projects = {r.inputs["name"]: r for r in plan.resources if r.type == "aws:codebuild/project:Project"}
    [group] = [r for r in plan.resources if r.name == "runner-sg"]
    subnets = {r.name: r for r in plan.resources if r.type == "aws:ec2/subnet:Subnet"}
    assert sorted(projects) == sorted(f"gpucloud-{k}-{e}-shared" for k in ("deploy", "preview") for e in ENVIRONMENTS)
    for name, project in projects.items():
        variables = {v["name"]: v["value"] for v in project.inputs["environment"]["environmentVariables"]}
        assert variables == {
            "STACK": name.split("-")[2],
            "PULUMI_COMMAND": "preview",
            "PULUMI_BACKEND_URL": "s3://gpucloud-state-shared-123456789012-us-east-1",
            "POLICY_CONFIG": "stacks/policy-config.json",
        }
        assert project.inputs["buildTimeout"] == BUILD_TIMEOUT_MINUTES
        assert project.inputs["source"]["type"] == "S3"
        assert project.inputs["vpcConfig"]["subnets"] == ["[unknown]", "[unknown]"]
    assert [e["fromPort"] for e in group.inputs["egress"]] == [443]
    assert not any(s.inputs.get("mapPublicIpOnLaunch") for s in subnets.values())


def test_a_build_may_run_longer_than_codebuilds_default_hour(plan: Plan) -> None:
    """aws.md A3: CodeBuild stops a build after 60 minutes unless the project says otherwise, and a first `up` of an
    environment (the EKS cluster, its node groups, 8 Helm releases, awaited workloads) is expected to take longer
    (deploy_runner.BUILD_TIMEOUT_MINUTES; not measured). The bounds are botocore's CreateProject
    ``timeoutInMinutes``."""
    codebuild = botocore.session.get_session().get_service_model("codebuild")
    shape = codebuild.operation_model("CreateProject").input_shape.members["timeoutInMinutes"]
    assert "The default is 60 minutes." in shape.documentation
    timeouts = {
        r.inputs["name"]: r.inputs["buildTimeout"] for r in plan.resources if r.type == "aws:codebuild/project:Project"
    }
    assert len(timeouts) == 2 * len(ENVIRONMENTS)
    assert [name for name, minutes in timeouts.items() if not 60 < minutes <= shape.metadata["max"]] == []


def test_each_project_runs_as_its_own_role_so_no_build_chains_roles(plan: Plan) -> None:
    roles = {r.urn: r for r in plan.resources if r.type == "aws:iam/role:Role"}
    for project in (r for r in plan.resources if r.type == "aws:codebuild/project:Project"):
        [role_urn] = project.property_dependencies["serviceRole"]
        trust = json.loads(roles[role_urn].inputs["assumeRolePolicy"])["Statement"]
        assert [s["Principal"] for s in trust] == [{"Service": "codebuild.amazonaws.com"}]
        assert f"project/{project.inputs['name']}" in json.dumps(trust), project.name
    assert BUILDSPEC.count("assume-role") == 0


def test_the_build_installs_the_cli_of_the_locked_sdk_and_pins_its_python() -> None:
    lock = tomllib.loads((BOOTSTRAP.parent / "uv.lock").read_text())
    [sdk] = [p["version"] for p in lock["package"] if p["name"] == "pulumi"]
    assert sdk == PULUMI_CLI_VERSION
    install = yaml.safe_load(BUILDSPEC)["phases"]["install"]
    assert install["runtime-versions"] == {"python": PYTHON_RUNTIME}
    assert f"sh -s -- --version {sdk}" in install["commands"][0]


def test_the_runner_vpc_has_only_the_free_s3_gateway_endpoint(plan: Plan) -> None:
    # Builds leave through the NAT gateway; interface endpoints would only bill by the hour in each zone (aws.md A11).
    endpoints = [r for r in plan.resources if r.type == "aws:ec2/vpcEndpoint:VpcEndpoint"]
    assert [(r.name, r.inputs["vpcEndpointType"]) for r in endpoints] == [("runner-network-s3", "Gateway")]


FAKE_CLI = """#!/usr/bin/env bash
# Logs its call, then answers as the CLI would for the calls bootstrap/run-aws-build.sh makes.
printf '%s' "$(basename "$0")" >>"$FAKE_LOG"; printf ' %s' "$@" >>"$FAKE_LOG"; printf '\\n' >>"$FAKE_LOG"
case "$(basename "$0") $1 $2" in
  "git rev-parse HEAD") echo "$FAKE_COMMIT";;
  "aws s3api put-object") echo "version-of-$FAKE_COMMIT";;
  "aws codebuild start-build") echo "build-of-$FAKE_COMMIT";;
  "aws codebuild batch-get-builds") echo SUCCEEDED;;
esac
"""


def test_a_build_runs_the_archive_of_its_own_commit_at_the_version_it_uploaded(tmp_path: Path) -> None:
    """aws.md A7: concurrent builds never share a source object. Each run uploads ``deploy/<commit>.zip`` and starts
    its build pinned to the object version that upload created (CodeBuild StartBuild sourceVersion: "the version ID of
    the object that represents the build input ZIP file")."""
    for tool in ("git", "aws"):
        (tmp_path / tool).write_text(FAKE_CLI)
        (tmp_path / tool).chmod(0o755)
    log = tmp_path / "calls.log"
    for commit in ("c0ffee1", "beef002"):
        subprocess.run(
            [BOOTSTRAP / "run-aws-build.sh", "state-bucket", "gpucloud-deploy-prod-shared", "up", "--yes"],
            env=dict(os.environ, PATH=f"{tmp_path}:{os.environ['PATH']}", FAKE_LOG=str(log), FAKE_COMMIT=commit),
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )
    calls = [line for line in log.read_text().splitlines() if line.startswith(("aws s3api", "aws codebuild start"))]
    assert calls == [
        call
        for commit in ("c0ffee1", "beef002")
        for call in (
            f"aws s3api put-object --bucket state-bucket --key deploy/{commit}.zip --body source.zip"
            " --query VersionId --output text",
            "aws codebuild start-build --project-name gpucloud-deploy-prod-shared"
            f" --source-location-override state-bucket/deploy/{commit}.zip --source-version version-of-{commit}"
            " --environment-variables-override name=PULUMI_COMMAND,value=up --yes --query build.id --output text",
        )
    ]


def test_it_publishes_what_the_environments_read_as_parameters_in_its_region(plan: Plan) -> None:
    parameters = {r.inputs["name"]: r for r in plan.resources if r.type == "aws:ssm/parameter:Parameter"}
    assert sorted(parameters) == sorted(
        [
            bootstrap_facts.RUNNER_VPC_ID,
            bootstrap_facts.RUNNER_VPC_CIDR,
            bootstrap_facts.RUNNER_ROUTE_TABLE_IDS,
            *(bootstrap_facts.deployer_role_arn(env) for env in ENVIRONMENTS),
        ]
    )
    assert parameters[bootstrap_facts.RUNNER_VPC_CIDR].inputs["insecureValue"] == "10.250.0.0/22"
    assert parameters[bootstrap_facts.RUNNER_ROUTE_TABLE_IDS].inputs["type"] == "StringList"
    autoscaling_role = next(r.urn for r in plan.resources if r.type == "aws:iam/serviceLinkedRole:ServiceLinkedRole")
    assert all(autoscaling_role in p.dependencies for p in parameters.values())


def test_bad_aws_runner_config_names_every_field_and_value() -> None:
    project = load_project(BOOTSTRAP)
    stack = load_stack(project, "shared")
    bad = dict(
        stack.config,
        **{
            "gpu-cloud-bootstrap:deployerRoleArns": '["arn:aws:iam::123456789012:role/ml-platform-deployer"]',
            "gpu-cloud-bootstrap:environments": '["prod", "Prod_2", "prod"]',
            "gpu-cloud-bootstrap:deployerPolicyArns": '["AdministratorAccess"]',
        },
    )
    with pytest.raises(PlanError) as refused:
        run_program(project, type(stack)(**{**vars(stack), "config": bad}))
    assert [line.strip() for line in str(refused.value).split("ConfigError: ", 1)[1].splitlines()] == [
        "gpu-cloud-bootstrap:deployerRoleArns: aws creates each environment's deployer role: list the stacks in "
        "environments and the deploy permissions in deployerPolicyArns instead "
        '(got ["arn:aws:iam::123456789012:role/ml-platform-deployer"])',
        "gpu-cloud-bootstrap:environments.1: must be a stack name (letters, digits, '-', at most 20) (got Prod_2)",
        'gpu-cloud-bootstrap:environments: names an environment twice (got ["prod", "Prod_2", "prod"])',
        "gpu-cloud-bootstrap:deployerPolicyArns.0: must be an IAM policy ARN "
        "(arn:<partition>:iam::<account>:policy/...) (got AdministratorAccess)",
    ]
