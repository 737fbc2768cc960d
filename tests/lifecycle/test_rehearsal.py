"""The rehearsal: docs/deploy.md's command sequence, run from the page itself (tests/lifecycle/sequence.py) against
models of the Pulumi CLI and the clouds (tests/lifecycle/stub.py), with the real programs planned offline, the planned
IAM evaluated by principalmapper, the second `up`'s step plan checked against what the APIs accept, and the quotas the
stacks use together counted.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import botocore.session
import pytest
import yaml

from gpu_cloud.components import bootstrap_facts
from gpu_cloud.components.aws import deploy_runner
from gpu_cloud.components.k8s import inference, training_job
from gpu_cloud.planner.engine import run_program
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.project import load_project, load_stack
from tests.lifecycle import checks, iam, quotas, steps
from tests.lifecycle.checks import project_role
from tests.lifecycle.sequence import ROOT, Rehearsal, blocks, rehearse
from tests.lifecycle.world import World, to_record

ENVIRONMENTS = ("dev", "staging", "prod")
BACKEND = "s3://gpucloud-state-shared-123456789012-us-east-1"
BOOTSTRAP_BACKEND = "file://~/.pulumi-bootstrap"


@pytest.fixture(scope="module")
def aws(tmp_path_factory: pytest.TempPathFactory) -> Rehearsal:
    return rehearse("aws", tmp_path_factory.mktemp("aws"))


@pytest.fixture(scope="module")
def alicloud(tmp_path_factory: pytest.TempPathFactory) -> Rehearsal:
    return rehearse("alicloud", tmp_path_factory.mktemp("alicloud"))


def test_the_alibaba_sequence_of_the_page_runs_to_its_end(alicloud: Rehearsal) -> None:
    assert alicloud.returncode == 0, alicloud.explain()


def test_prod_cn_lives_in_the_oss_backend_and_reads_what_shared_cn_published(alicloud: Rehearsal) -> None:
    [backend] = [url for url in alicloud.world.backends if not url.startswith("file:")]
    assert list(alicloud.world.backends[backend]) == ["organization/gpu-cloud/prod-cn"]
    assert alicloud.world.backends[backend]["organization/gpu-cloud/prod-cn"]["resources"]
    assert list(alicloud.world.backends["file://~/.pulumi-bootstrap-cn"]) == [
        "organization/gpu-cloud-bootstrap/shared-cn"
    ]
    published = alicloud.world.parameters["alicloud:cn-hangzhou"]
    shipped = load_offline_answers(ROOT / "stacks").parameters[("alicloud", "cn-hangzhou")]
    assert sorted(shipped) == sorted(name for name in published if name in shipped)
    assert [b["project"] for b in alicloud.world.builds.values()] == [
        "runner init prod-cn",
        "runner preview prod-cn",
        "runner up prod-cn",
        "runner up prod-cn",  # the day-2 change
    ]
    assert [b["status"] for b in alicloud.world.builds.values()] == ["Success"] * 4


def test_the_aws_sequence_of_the_page_runs_to_its_end(aws: Rehearsal) -> None:
    assert aws.returncode == 0, aws.explain()


def test_the_sequence_leaves_a_model_under_every_model_servers_prefix(aws: Rehearsal) -> None:
    """The model servers are not awaited by `up` (A5), so only the upload step makes them serve: it must cover every
    service of every environment (prod's vLLM service included)."""
    assert checks.unserved(aws.world) == []


PROD_CN_MODELS = "gpucloud-ckpt-prod-cn-1234567890123456/models/"


def test_the_alibaba_sequence_leaves_a_model_version_under_each_of_prod_cns_model_servers(alicloud: Rehearsal) -> None:
    """docs/deploy.md (Alibaba step 4): both of prod-cn's services, each in a numeric version directory under its
    modelSource, in the bucket the pods stage from."""
    assert checks.unserved(alicloud.world) == []
    served = sorted(key for key in alicloud.world.objects if key.startswith(PROD_CN_MODELS))
    assert served == [
        f"{PROD_CN_MODELS}qwen2.5-1.5b-instruct/1/saved_model.pb",
        f"{PROD_CN_MODELS}resnet50/1/saved_model.pb",
    ]


def _models_block() -> str:
    [models] = [block for block in blocks("alicloud") if "ossutil cp" in block]
    return models


def test_without_the_alibaba_model_step_both_of_prod_cns_model_servers_wait_forever(alicloud: Rehearsal) -> None:
    world = copy.deepcopy(alicloud.world)
    world.objects = {key: v for key, v in world.objects.items() if not key.startswith(PROD_CN_MODELS)}
    assert checks.unserved(world) == [
        f"organization/gpu-cloud/prod-cn: prod-cn-{name}-deployment waits for a model version under "
        f"oss://{PROD_CN_MODELS}{prefix}/, which has none"
        for name, prefix in (("llm", "qwen2.5-1.5b-instruct"), ("resnet", "resnet50"))
    ]


def test_a_model_uploaded_without_its_version_directory_is_not_served(alicloud: Rehearsal, tmp_path: Path) -> None:
    """stage_model.sh serves a numeric version directory directly under the prefix: an upload to the prefix itself
    leaves the server waiting."""
    world = copy.deepcopy(alicloud.world)
    world.objects = {key: v for key, v in world.objects.items() if not key.startswith(PROD_CN_MODELS)}
    script = _models_block().replace('"oss://$models/models/resnet50/1/"', '"oss://$models/models/resnet50/"')
    assert script != _models_block()
    run = rehearse("alicloud", tmp_path, script=script, world=world)
    assert run.returncode == 0, run.explain()
    assert checks.unserved(run.world) == [
        "organization/gpu-cloud/prod-cn: prod-cn-resnet-deployment waits for a model version under "
        f"oss://{PROD_CN_MODELS}resnet50/, which has none"
    ]


def _jobset_images(world: World, stack: str) -> list[str]:
    record = world.stack(f"organization/gpu-cloud/{stack}")
    assert record is not None
    return [
        container["image"]
        for r in record[1]["resources"]
        if r["type"] == steps.JOBSET
        for replicated in r["inputs"]["spec"]["replicatedJobs"]
        for container in replicated["template"]["spec"]["template"]["spec"]["containers"]
    ]


def test_the_alibaba_day_2_step_gives_prod_cns_training_job_its_new_image(alicloud: Rehearsal) -> None:
    """docs/deploy.md (Alibaba step 5): the edit reaches the program; the later `up` replaces the JobSet (k8s U1)."""
    images = _jobset_images(alicloud.world, "prod-cn")
    assert "registry-vpc.cn-hangzhou.aliyuncs.com/research/llm-train:2026-12-15" in images
    assert not [image for image in images if image.endswith("llm-train:2026-12-01")]


def test_the_environments_live_in_the_state_bucket_and_the_bootstrap_stays_local(aws: Rehearsal) -> None:
    assert sorted(aws.world.backends) == sorted([BOOTSTRAP_BACKEND, BACKEND])
    assert sorted(aws.world.backends[BACKEND]) == sorted(f"organization/gpu-cloud/{e}" for e in ENVIRONMENTS)
    assert all(record["resources"] for record in aws.world.backends[BACKEND].values())
    assert list(aws.world.backends[BOOTSTRAP_BACKEND]) == ["organization/gpu-cloud-bootstrap/shared"]


def test_every_build_ran_as_its_projects_role_and_succeeded(aws: Rehearsal) -> None:
    builds = {b["project"]: b["status"] for b in aws.world.builds.values()}
    assert builds == {f"gpucloud-{k}-{e}-shared": "SUCCEEDED" for k in ("preview", "deploy") for e in ENVIRONMENTS}
    ran = [line for line in aws.world.log if " pulumi up " in line or " pulumi preview " in line]
    assert [line.split(": ", 1)[1] for line in ran if "gpucloud-" in line.split(": ", 1)[0]] == [
        *(
            step
            for env in ENVIRONMENTS
            for step in (
                f"pulumi preview {env} as gpucloud-preview-shared",
                f"pulumi up {env} as gpucloud-deployer-{env}-shared",
            )
        ),
        "pulumi up prod as gpucloud-deployer-prod-shared",
    ]


def test_the_quotas_the_stacks_use_together_are_requested_before_the_first_up(aws: Rehearsal) -> None:
    used = {(q.code, where): n for (q, where), n in quotas.usage(aws.world).items()}
    assert used[("L-0263D0A3", "us-east-1")] == 6  # NAT addresses: runner 1, dev 1, staging 1, prod 3
    assert used[("L-F678F1CE", "us-east-1")] == 5  # runner, dev, staging, prod and the default VPC
    assert quotas.shortfalls(aws.world) == []


def test_without_the_quota_requests_the_plan_says_which_quota_to_raise(aws: Rehearsal) -> None:
    world = World(**{**aws.world.__dict__, "quota_requests": {}})
    assert quotas.shortfalls(world) == [
        "EC2-VPC Elastic IPs per region in us-east-1: the stacks use 6, the quota is 5: request ec2/L-0263D0A3 of at "
        "least 6 in us-east-1 before the first up"
    ]


def test_without_the_quota_requests_prods_first_up_is_refused_an_address(aws: Rehearsal) -> None:
    """aws.md A4: dev, staging and the runner hold 3 of the 5 default Elastic IPs; prod's first `up` wants 3 more."""
    world = copy.deepcopy(aws.world)
    prod = world.backends[BACKEND]["organization/gpu-cloud/prod"]
    resources, prod["resources"] = prod["resources"], None
    assert quotas.refusals(world, prod, resources) == []  # with the page's requests (step 2)
    world.quota_requests = {}
    assert quotas.refusals(world, prod, resources) == [
        "AddressLimitExceeded: EC2-VPC Elastic IPs per region in us-east-1: the stacks use 6, the quota is 5: request "
        "ec2/L-0263D0A3 of at least 6 in us-east-1 before the first up"
    ]


def test_the_shipped_offline_answers_are_what_the_sequence_leaves(aws: Rehearsal) -> None:
    shipped = load_offline_answers(ROOT / "stacks")
    left = aws.world.answers()
    aws_backends = {url: sorted(stacks) for url, stacks in left.backends.items() if not url.startswith("file:")}
    assert {url: sorted(s) for url, s in shipped.backends.items() if url in aws_backends} == aws_backends
    published = left.parameters[("aws", "us-east-1")]
    assert sorted(shipped.parameters[("aws", "us-east-1")]) == sorted(published)


# --- the runner's permissions, evaluated on the bootstrap's planned IAM ---------------------------------------------


@pytest.fixture(scope="module")
def runner() -> iam.Account:
    """The IAM the AWS bootstrap plans for the deploy runner (its roles, the state key, the state bucket)."""
    return checks.runner_account(_bootstrap_world())[0]


_READ_ONLY_PREFIXES = ("Describe", "Get", "List", "BatchGet", "Head", "Search", "Lookup", "Select", "Scan", "Query")
_READS = {"kms:Decrypt"}
"""Operations that change nothing although their names do not say so: decrypting (a preview reads the state's
secrets). Encrypting and generating data keys count as changes here: they are what writing encrypted data takes."""
_BUILD_PLUMBING = {
    "logs:CreateLogStream",
    "logs:PutLogEvents",
    "ec2:CreateNetworkInterface",
    "ec2:DeleteNetworkInterface",
    "ec2:CreateNetworkInterfacePermission",
}
"""What CodeBuild does as a build's role for its own logs and network interfaces (CodeBuild User Guide, the service
role policy for VPC access): the only changes the preview role may make."""


def _mutating_actions() -> list[str]:
    """Every operation of the services an environment uses that is not a read (botocore's service models)."""
    session = botocore.session.get_session()
    actions = []
    for service in ("ec2", "eks", "iam", "kms", "s3", "ssm", "logs", "codebuild", "sts", "autoscaling", "sns"):
        model = session.get_service_model(service)
        prefix = model.signing_name if service != "s3" else "s3"
        actions += [f"{prefix}:{op}" for op in model.operation_names if not op.startswith(_READ_ONLY_PREFIXES)]
    return sorted(set(actions) - _BUILD_PLUMBING - _READS)


def test_the_preview_role_can_change_nothing(runner: iam.Account) -> None:
    resources = [
        "*",
        f"arn:aws:s3:::{runner.bucket}/.pulumi/stacks/gpu-cloud/prod.json",
        f"arn:aws:s3:::{runner.bucket}",
        runner.key_arn,
        f"arn:aws:ssm:us-east-1:123456789012:parameter{bootstrap_facts.RUNNER_VPC_ID}",
        "arn:aws:iam::123456789012:role/gpucloud-deployer-prod-shared",
    ]
    allowed = [
        (action, resource)
        for action in _mutating_actions()
        for resource in resources
        if runner.can("gpucloud-preview-shared", action, resource, **{"kms:ViaService": "s3.us-east-1.amazonaws.com"})
        or runner.can("gpucloud-preview-shared", action, resource)
    ]
    assert allowed == []


def test_the_preview_role_reads_the_state_the_secrets_and_the_parameters(runner: iam.Account) -> None:
    state = f"arn:aws:s3:::{runner.bucket}/.pulumi/stacks/gpu-cloud/prod.json"
    parameter = f"arn:aws:ssm:us-east-1:123456789012:parameter{bootstrap_facts.RUNNER_VPC_ID}"
    preview = "gpucloud-preview-shared"
    assert runner.can(preview, "s3:GetObject", state)
    assert runner.can(preview, "kms:Decrypt", runner.key_arn, **{"kms:ViaService": "s3.us-east-1.amazonaws.com"})
    assert runner.can(preview, "kms:Decrypt", runner.key_arn)
    assert runner.can(preview, "ssm:GetParameter", parameter)


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_codebuild_assumes_a_deployer_role_only_for_its_own_project(runner: iam.Account, env: str) -> None:

    def source(project: str) -> dict[str, Any]:
        return {
            "aws:SourceAccount": "123456789012",
            "aws:SourceArn": f"arn:aws:codebuild:us-east-1:123456789012:project/{project}",
        }

    role = f"gpucloud-deployer-{env}-shared"
    assert runner.service_may_assume(role, "codebuild.amazonaws.com", **source(f"gpucloud-deploy-{env}-shared"))
    others = [f"gpucloud-{k}-{e}-shared" for k in ("deploy", "preview") for e in ENVIRONMENTS]
    assert [p for p in others if runner.service_may_assume(role, "codebuild.amazonaws.com", **source(p))] == [
        f"gpucloud-deploy-{env}-shared"
    ]
    assert not runner.service_may_assume(
        role,
        "codebuild.amazonaws.com",
        **{**source(f"gpucloud-deploy-{env}-shared"), "aws:SourceAccount": "210987654321"},
    )


# --- each finding put back makes the rehearsal fail ----------------------------------------------------------------


def _bootstrap_world() -> World:
    """A world where only the AWS bootstrap is up and this commit's source is uploaded."""
    project = load_project(ROOT / "bootstrap")
    plan = run_program(project, load_stack(project, "shared"))
    world = World(backends={BOOTSTRAP_BACKEND: {"organization/gpu-cloud-bootstrap/shared": {}}})
    world.backends[BOOTSTRAP_BACKEND]["organization/gpu-cloud-bootstrap/shared"] = {
        "outputs": plan.outputs,
        "resources": [to_record(r) for r in plan.resources],
    }
    world.objects[SOURCE] = ["v1"]
    return world


SOURCE = "gpucloud-state-shared-123456789012-us-east-1/deploy/0123456789abcdef0123456789abcdef01234567.zip"


def _download(world: World, env: str) -> str:
    account, resources = checks.runner_account(world)
    [project] = [
        r for r in resources if r["type"] == checks.PROJECT and r["inputs"]["name"] == f"gpucloud-deploy-{env}-shared"
    ]
    role = project_role(resources, project)
    return checks.download_source_problem(world, account, role, project, SOURCE, "v1")


def test_a2_every_deploy_build_downloads_its_sse_kms_source() -> None:
    world = _bootstrap_world()
    assert {env: _download(world, env) for env in ENVIRONMENTS} == dict.fromkeys(ENVIRONMENTS, "")


def test_a2_put_back_without_the_state_key_no_build_can_download_its_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """aws.md A2: the runner's role could read the object but had no kms:* on the state key."""
    monkeypatch.setattr(
        deploy_runner,
        "key_use_statement",
        lambda account, alias, actions: {"Effect": "Allow", "Action": "kms:ListAliases", "Resource": "*"},
    )
    world = _bootstrap_world()
    assert _download(world, "prod") == (
        "DOWNLOAD_SOURCE: AccessDenied: gpucloud-deployer-prod-shared may not decrypt "
        f"s3://{SOURCE} (SSE-KMS with the state key)"
    )


def _environments_world() -> World:
    """The bootstrap up (local backend) and the environments' stacks made in the state bucket, as after step 3."""
    world = _bootstrap_world()
    published = checks.published_parameters(
        world.backends[BOOTSTRAP_BACKEND]["organization/gpu-cloud-bootstrap/shared"]["resources"]
    )
    world.parameters = {f"{cloud}:{region}": values for (cloud, region), values in published.items()}
    world.backends[BACKEND] = {f"organization/gpu-cloud/{e}": {"outputs": {}, "resources": None} for e in ENVIRONMENTS}
    return world


def _checkout(tmp_path: Path) -> Path:
    """A copy of the project (its program and stack configs) to change."""
    for name in ("Pulumi.yaml", "stacks"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tmp_path / name)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return tmp_path


def test_a1_put_back_the_runner_read_through_a_stack_reference_into_the_bootstrap_fails_the_first_preview(
    tmp_path: Path,
) -> None:
    """aws.md A1: the environments read the runner from the bootstrap stack, which lives in the local backend."""
    checkout = _checkout(tmp_path)
    glue = checkout / "stacks" / "references.py"
    text = glue.read_text()
    start = text.index("    def runner(self)")
    end = text.index("    def deployer_role(self)")
    glue.write_text(
        text[:start]
        + """    def runner(self) -> tuple[pulumi.Output[str], list[pulumi.Output[str]]]:
        bootstrap = pulumi.StackReference("organization/gpu-cloud-bootstrap/shared")
        tables = bootstrap.get_output("runnerRouteTableIds")
        count = self._config.deploy.runner_route_table_count
        return bootstrap.get_output("runnerVpcId"), [tables.apply(lambda t, i=i: t[i]) for i in range(count)]

"""
        + text[end:]
    )
    world = _environments_world()
    project = load_project(checkout)
    with pytest.raises(PlanError) as refused:
        run_program(project, load_stack(project, "dev"), world.answers())
    assert str(refused.value).splitlines()[1] == (
        "  stack reference 'organization/gpu-cloud-bootstrap/shared': organization/gpu-cloud/dev runs in "
        f"{BACKEND}, which holds no stack organization/gpu-cloud-bootstrap/shared (it is in {BOOTSTRAP_BACKEND}); "
        "Pulumi resolves a stack reference only in the running stack's backend (pulumi/pulumi#3395)"
    )
    # As shipped, the same world answers everything dev reads.
    shipped = load_project(ROOT)
    assert run_program(shipped, load_stack(shipped, "dev"), world.answers()).warnings == ()


def test_a5_put_back_a_model_server_awaited_on_the_first_up_of_an_empty_bucket(monkeypatch: pytest.MonkeyPatch) -> None:
    """aws.md A5: the inference Deployment awaited by the `up` that creates the bucket its model must be in."""
    world = _environments_world()
    shipped = load_project(ROOT)
    resources = [to_record(r) for r in run_program(shipped, load_stack(shipped, "dev"), world.answers()).resources]
    assert checks.unawaitable(world, resources) == []
    monkeypatch.setattr(inference, "SKIP_AWAIT", {})
    resources = [to_record(r) for r in run_program(shipped, load_stack(shipped, "dev"), world.answers()).resources]
    model = "s3://gpucloud-ckpt-dev-123456789012-us-east-1/models/resnet50/"
    assert checks.unawaitable(world, resources) == [
        f"dev-resnet-deployment awaits pods whose init container waits for {model}, which is empty: the up fails "
        "after 10 minutes",
        f"dev-resnet-service awaits endpoints of dev-resnet-deployment's pods, whose init container waits for {model}, "
        "which is empty: the up fails after 10 minutes",
    ]


def test_u3_put_back_a_model_servers_service_awaited_on_the_first_up_of_an_empty_bucket() -> None:
    """k8s.md U3: the Service in front of the model server, awaited until its endpoints are ready."""
    world = _environments_world()
    shipped = load_project(ROOT)
    resources = [to_record(r) for r in run_program(shipped, load_stack(shipped, "dev"), world.answers()).resources]
    [service] = [r for r in resources if r["name"] == "dev-resnet-service"]
    del service["inputs"]["metadata"]["annotations"][checks.SKIP_AWAIT]
    assert checks.unawaitable(world, resources) == [
        "dev-resnet-service awaits endpoints of dev-resnet-deployment's pods, whose init container waits for "
        "s3://gpucloud-ckpt-dev-123456789012-us-east-1/models/resnet50/, which is empty: the up fails after 10 minutes"
    ]


def test_u1_put_back_a_jobset_updated_in_place_fails_the_day_2_up(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """k8s.md U1: a declared JobSet with a new image, updated rather than replaced, is refused by the JobSet API."""
    monkeypatch.setattr(training_job, "JOBSET_REPLACED_ON_CHANGES", ())
    world = _environments_world()
    checkout = _checkout(tmp_path)
    project = load_project(checkout)
    first = [to_record(r) for r in run_program(project, load_stack(project, "prod"), world.answers()).resources]
    config = checkout / "stacks" / "Pulumi.prod.yaml"
    document = yaml.safe_load(config.read_text())
    document["config"]["gpu-cloud:training"]["jobs"][0]["image"] += "-day2"
    config.write_text(yaml.safe_dump(document))
    second = [to_record(r) for r in run_program(project, load_stack(project, "prod"), world.answers()).resources]
    assert steps.refused_updates(first, second) == [
        "prod-llm-pretrain-jobset (kubernetes:jobset.x-k8s.io/v1alpha2:JobSet): "
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"
    ]


def test_u1_put_back_the_alibaba_day_2_change_is_an_update_the_jobset_api_refuses(
    alicloud: Rehearsal, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """k8s.md U1 on prod-cn: the page's day-2 edit (Alibaba step 5), with the JobSet updated rather than replaced."""
    monkeypatch.setattr(training_job, "JOBSET_REPLACED_ON_CHANGES", ())
    checkout = _checkout(tmp_path)
    project = load_project(checkout)
    answers = alicloud.world.answers()
    first = [to_record(r) for r in run_program(project, load_stack(project, "prod-cn"), answers).resources]
    [day_2] = [block for block in blocks("alicloud") if "sed -i" in block]
    [edit] = [line for line in day_2.splitlines() if line.startswith("sed ")]
    subprocess.run(["bash", "-c", edit], cwd=checkout, check=True)
    second = [to_record(r) for r in run_program(project, load_stack(project, "prod-cn"), answers).resources]
    assert steps.refused_updates(first, second) == [
        "prod-cn-llm-pretrain-jobset (kubernetes:jobset.x-k8s.io/v1alpha2:JobSet): "
        "spec.replicatedJobs[0].template.spec.template.spec.containers[0].image"
    ]


def test_f2_a_ci_step_waits_for_its_build_and_fails_with_it(tmp_path: Path) -> None:
    """ecosystem.md F2: StartBuild returns at once; the job must wait and fail when the build fails."""
    world = _environments_world()
    del world.backends[BACKEND]["organization/gpu-cloud/staging"]
    script = "\n".join(
        f"bootstrap/run-aws-build.sh gpucloud-state-shared-123456789012-us-east-1 gpucloud-preview-{env}-shared"
        for env in ("dev", "staging")
    )
    run = rehearse("aws", tmp_path, script=script, world=world)
    assert run.returncode == 1, run.explain()
    assert [b["status"] for b in run.world.builds.values()] == ["SUCCEEDED", "FAILED"]
    assert run.stdout.splitlines()[-1] == "build gpucloud-preview-staging-shared:00000002: FAILED"
    assert (
        "no stack named 'organization/gpu-cloud/staging' found"
        in run.world.builds["gpucloud-preview-staging-shared:00000002"]["reason"]
    )


_NO_DEPLOYERS = """printf '{"rbac-least-privilege": {"deployerRoles": []}}' > stacks/policy-config.json
git commit -m "no deployer roles" stacks/policy-config.json"""
"""docs/deploy.md step 1 left out: the pack config names no deployer role."""


def test_a_build_fails_its_policy_pack_when_the_pack_config_lacks_the_deployer_roles(tmp_path: Path) -> None:
    """docs/deploy.md (AWS step 1): every build runs the pack with stacks/policy-config.json, whose deployerRoles are
    the only cluster administrators rbac-least-privilege accepts; the deployer role's EKS admin association is refused
    without them."""
    world = _environments_world()
    script = f"{_NO_DEPLOYERS}\nbootstrap/run-aws-build.sh {BACKEND.removeprefix('s3://')} gpucloud-preview-dev-shared"
    run = rehearse("aws", tmp_path, script=script, world=world)
    assert run.returncode == 1, run.explain()
    [build] = run.world.builds.values()
    assert build["status"] == "FAILED"
    assert "mandatory policy violation rbac-least-privilege on " in build["reason"], build["reason"]


def _on_runner(*commands: str) -> str:
    """A script that runs ``commands`` on the workstation after reading the bootstrap's outputs and defining the page's
    ``on_runner`` (Alibaba steps 2 and 3)."""
    [runs] = [block for block in blocks("alicloud") if "on_runner() {" in block]
    define = "\n".join(line for line in runs.splitlines() if not line.startswith(("on_runner prod-cn ", "git commit ")))
    outputs = [f"{name}=$(pulumi stack output {output} --stack shared-cn)" for name, output in _RUNNER_OUTPUTS]
    return "\n".join(["cd bootstrap", *outputs, "cd ..", define, *commands])


_RUNNER_OUTPUTS = (("bucket", "stateBucket"), ("command", "runnerCommandId"), ("instance", "runnerInstanceId"))


def test_a_runner_preview_of_prod_cn_fails_its_policy_pack_without_the_deployer_roles_id(
    alicloud: Rehearsal, tmp_path: Path
) -> None:
    """docs/deploy.md (Alibaba step 1): an ACK grant names its principal by RoleId, which must be in deployerRoles next
    to the ARN; the runner runs the pack with stacks/policy-config.json."""
    world = copy.deepcopy(alicloud.world)
    config = json.loads((ROOT / "stacks" / "policy-config.json").read_text())
    arns = [r for r in config["rbac-least-privilege"]["deployerRoles"] if r.startswith("acs:ram::")]
    without_id = json.dumps({"rbac-least-privilege": {"deployerRoles": arns}})
    script = _on_runner(
        f"printf '%s' '{without_id}' > stacks/policy-config.json",
        "git commit -m 'no RoleId' stacks/policy-config.json",
        "on_runner prod-cn preview",
    )
    checkout = shutil.copytree(alicloud.checkout, tmp_path / "checkout")  # prod-cn's salt committed by the sequence
    run = rehearse("alicloud", tmp_path, script=script, checkout=checkout, world=world)
    assert run.returncode == 1, run.explain()
    last = list(run.world.builds.values())[-1]
    assert last["status"] == "Failed"
    assert "mandatory policy violation rbac-least-privilege on prod-cn-admins-" in last["reason"], last["reason"]


def test_the_runner_refuses_prod_cn_until_the_salt_init_printed_is_committed(
    alicloud: Rehearsal, tmp_path: Path
) -> None:
    """Alibaba step 3: init writes the stack's encryptionsalt into the runner's throwaway copy of the source and
    prints it; the page commits it, and without that commit the runner (bootstrap/alicloud_runner.sh) refuses."""
    [init] = [b for b in alicloud.world.builds.values() if b["project"] == "runner init prod-cn"]
    [salt] = [line for line in init["output"].splitlines() if line.startswith("encryptionsalt: ")]
    assert (alicloud.checkout / "stacks" / "Pulumi.prod-cn.yaml").read_text().splitlines()[-1] == salt
    run = rehearse("alicloud", tmp_path, script=_on_runner("on_runner prod-cn preview"), world=alicloud.world)
    assert run.returncode == 1, run.explain()
    last = list(run.world.builds.values())[-1]
    assert (last["status"], last["reason"]) == (
        "Failed",
        "stacks/Pulumi.prod-cn.yaml has no encryptionsalt: run pulumiCommand=init first",
    )


def test_a_day_2_change_left_uncommitted_is_not_what_the_build_would_deploy(aws: Rehearsal, tmp_path: Path) -> None:
    """AWS step 6 without its commit: the build's archive is HEAD, which holds the old image; the archive fails."""
    [day_2] = [block for block in blocks("aws") if "training.jobs[0].image" in block]
    uncommitted = "\n".join(line for line in day_2.splitlines() if not line.startswith("git commit "))
    script = f"bucket={BACKEND.removeprefix('s3://')}\n{uncommitted}"
    run = rehearse("aws", tmp_path, script=script, world=aws.world)
    assert run.returncode == 1, run.explain()
    assert run.stderr.strip().splitlines()[-1] == (
        "error: HEAD does not hold the changes to stacks/Pulumi.prod.yaml: its archive would deploy what was committed"
    )
