"""What the clouds and Pulumi check when the sequence's commands run, modelled on the rehearsal's world."""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from gpu_cloud.planner.canned import ACCOUNT_ID
from gpu_cloud.planner.offline import OfflineAnswers
from tests.lifecycle import iam, quotas, steps
from tests.lifecycle.world import UNKNOWN, World, provider_regions, region_of

PROJECT = "aws:codebuild/project:Project"
SSM_PARAMETER = "aws:ssm/parameter:Parameter"
OOS_PARAMETER = "alicloud:oos/parameter:Parameter"
ACCESS_ENTRY = "aws:eks/accessEntry:AccessEntry"
ACCESS_POLICY = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation"
CLUSTER_ADMIN = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
ID_PREFIXES = {
    "aws:ec2/vpc:Vpc": "vpc-",
    "aws:ec2/routeTable:RouteTable": "rtb-",
    "aws:ec2/securityGroup:SecurityGroup": "sg-",
    "alicloud:vpc/network:Network": "vpc-",
    "alicloud:vpc/routeTable:RouteTable": "vtb-",
    "alicloud:kms/instance:Instance": "kst-",
}
"""How the clouds write the ids a parameter may hold (for the values an `up` makes known)."""


class RecordingAnswers(OfflineAnswers):
    """The world's answers, noting every parameter the program reads (the build's role must be allowed each)."""

    reads: list[tuple[str, str, str]]

    @classmethod
    def of(cls, answers: OfflineAnswers) -> RecordingAnswers:
        recording = cls(answers.source, answers.backends, answers.parameters)
        object.__setattr__(recording, "reads", [])
        return recording

    def parameter(self, cloud: str, region: str, name: str) -> Any | None:
        self.reads.append((cloud, region, name))
        return super().parameter(cloud, region, name)


def runner_account(world: World) -> tuple[iam.Account, list[dict[str, Any]]]:
    """The IAM of the AWS bootstrap that owns the deploy runner (its CodeBuild projects), and its resources."""
    for stacks in world.backends.values():
        for record in stacks.values():
            resources = record.get("resources") or []
            if any(r["type"] == PROJECT for r in resources):
                regions = provider_regions(resources)
                region = next(iter(regions.values()), "us-east-1")
                return iam.account_of(resources, ACCOUNT_ID, region), resources
    raise LookupError("no bootstrap with a deploy runner is up")


def run_checks(
    world: World,
    backend: str,
    project: str,
    stack: str,
    record: dict[str, Any],
    resources: list[dict[str, Any]],
    reads: list[tuple[str, str, str]],
    up: bool,
    principal: str,
) -> list[str]:
    """Why ``pulumi up``/``preview`` of ``stack`` would fail now (nothing when it succeeds)."""
    problems: list[str] = []
    if principal:
        problems += _authorized(world, backend, project, stack, resources, reads, up, principal)
    if up:
        problems += quotas.refusals(world, record, resources)
        problems += unawaitable(world, resources)
    if up and record.get("resources"):
        problems += [
            f"the API refuses the update of {refusal}"
            for refusal in steps.refused_updates(record["resources"], resources)
        ]
    return problems


SKIP_AWAIT = "pulumi.com/skipAwait"
"""The annotation that keeps pulumi-kubernetes from awaiting a Deployment's or Service's readiness
(pulumi/pulumi-kubernetes#417); without it a Deployment must be Ready within 10 minutes ("If the Deployment has not
reached a Ready state after 10 minutes, it will time out and mark the resource update as Failed", pulumi-kubernetes
apps/v1 Deployment docs)."""


@dataclass(frozen=True)
class ModelSource:
    """Where a model server's staging init container looks for its model (components/k8s/stage_model.sh)."""

    store: str
    """``s3`` or ``oss`` (MODEL_STORE)."""
    prefix: str
    """``<bucket>/<prefix>/`` (MODEL_BUCKET, MODEL_PREFIX)."""
    version: str
    """``latest`` or a version number (MODEL_VERSION)."""

    def served_by(self, world: World) -> bool:
        """Whether the bucket holds what the script stages: an object in a numeric version directory directly under the
        prefix (``<prefix>/<version>/...``), the newest one for ``latest``, else the one named."""
        versions = {
            key.removeprefix(self.prefix).split("/", 1)[0]
            for key in world.objects
            if key.startswith(self.prefix) and "/" in key.removeprefix(self.prefix)
        }
        numeric = {v for v in versions if v.isdigit()}
        return bool(numeric) if self.version == "latest" else any(int(v) == int(self.version) for v in numeric)

    def __str__(self) -> str:
        return f"{self.store}://{self.prefix}"


def _model_sources(resources: list[dict[str, Any]]) -> list[tuple[dict[str, Any], ModelSource]]:
    """Each model server Deployment of ``resources`` with where its staging init container waits for the model."""
    found = []
    for r in resources:
        if r["type"] != "kubernetes:apps/v1:Deployment":
            continue
        for init in r["inputs"]["spec"]["template"]["spec"].get("initContainers", []):
            env = {e["name"]: e.get("value") for e in init.get("env", [])}
            if "MODEL_BUCKET" in env:
                prefix = f"{env['MODEL_BUCKET']}/{env['MODEL_PREFIX']}/"
                found.append((r, ModelSource(env["MODEL_STORE"], prefix, env["MODEL_VERSION"])))
    return found


def _awaited(resource: dict[str, Any]) -> bool:
    annotations = resource["inputs"].get("metadata", {}).get("annotations") or {}
    return annotations.get(SKIP_AWAIT) != "true"


def _services_in_front(resources: list[dict[str, Any]], deployment: dict[str, Any]) -> list[dict[str, Any]]:
    """The Services whose selector picks ``deployment``'s pods (same namespace)."""
    namespace = deployment["inputs"].get("metadata", {}).get("namespace")
    pod_labels = deployment["inputs"]["spec"]["template"].get("metadata", {}).get("labels") or {}
    return [
        r
        for r in resources
        if r["type"] == "kubernetes:core/v1:Service"
        and r["inputs"].get("metadata", {}).get("namespace") == namespace
        and (selector := r["inputs"].get("spec", {}).get("selector"))
        and selector.items() <= pod_labels.items()
    ]


def unawaitable(world: World, resources: list[dict[str, Any]]) -> list[str]:
    """Deployments, and the Services in front of them, that an `up` awaits although their pods cannot be Ready: an
    init container waits for a model that is not in the bucket yet (aws.md A5, k8s.md U3). pulumi-kubernetes awaits
    a Service until it has no "not ready" endpoints when it has a selector, for 10 minutes (core/v1 Service docs,
    v4.24.1: "There are no 'not ready' endpoints -- unless ... a Service without a selector")."""
    problems = []
    for r, model in _model_sources(resources):
        if model.served_by(world):
            continue
        if _awaited(r):
            problems.append(
                f"{r['name']} awaits pods whose init container waits for {model}, which is empty: the up "
                "fails after 10 minutes"
            )
        problems += [
            f"{service['name']} awaits endpoints of {r['name']}'s pods, whose init container waits for {model}, "
            "which is empty: the up fails after 10 minutes"
            for service in _services_in_front(resources, r)
            if _awaited(service)
        ]
    return problems


def unserved(world: World) -> list[str]:
    """Model servers of the stacks that are up whose model is still not in the bucket: not awaited by `up`, they
    would wait for it forever, so the sequence must upload every one (docs/deploy.md, "The models")."""
    return [
        f"{stack}: {r['name']} waits for a model version under {model}, which has none"
        for stacks in world.backends.values()
        for stack, record in stacks.items()
        for r, model in _model_sources(record.get("resources") or [])
        if not model.served_by(world)
    ]


def _authorized(
    world: World,
    backend: str,
    project: str,
    stack: str,
    resources: list[dict[str, Any]],
    reads: list[tuple[str, str, str]],
    up: bool,
    principal: str,
) -> list[str]:
    """The build's role against the planned IAM: the stack's state and secrets, the parameters the program reads, and
    (for `up`) the Kubernetes API."""
    account, _ = runner_account(world)
    bucket = backend.removeprefix("s3://").split("?", 1)[0]
    state = f"arn:aws:s3:::{bucket}/.pulumi/stacks/{project}/{stack}.json"
    via_s3 = {"kms:ViaService": f"s3.{account.region}.amazonaws.com"}
    needs = [
        ("s3:GetObject", state, {}),
        ("kms:Decrypt", account.key_arn, via_s3),
        ("kms:Decrypt", account.key_arn, {}),  # the awskms:// secrets provider
    ]
    if up:
        needs += [
            ("s3:PutObject", state, {}),
            ("s3:PutObject", f"arn:aws:s3:::{bucket}/.pulumi/locks/{project}/{stack}/lock.json", {}),
            ("kms:GenerateDataKey", account.key_arn, via_s3),
        ]
    needs += [
        ("ssm:GetParameter", f"arn:aws:ssm:{region}:{ACCOUNT_ID}:parameter{name}", {})
        for cloud, region, name in reads
        if cloud == "aws"
    ]
    problems = [
        f"{principal} may not {action} on {resource}"
        for action, resource, context in needs
        if not account.can(principal, action, resource, **context)
    ]
    if (
        up
        and any(r["type"].startswith("kubernetes:") for r in resources)
        and not _cluster_admin(resources, account.role_arn(principal))
    ):
        problems.append(f"{principal} has no access entry with {CLUSTER_ADMIN}: the Kubernetes layer gets Unauthorized")
    role_arn = account.role_arn(principal)
    if not up and any(r["type"] == ACCESS_ENTRY and r["inputs"].get("principalArn") == role_arn for r in resources):
        # A preview's server-side dry run is authorized as the write itself (kubernetes.io, "API concepts: dry-run
        # authorization"): a preview role that reaches the API either fails its dry runs or may write.
        problems.append(f"{principal} previews but has an access entry on the cluster")
    return problems


def _cluster_admin(resources: list[dict[str, Any]], role_arn: str) -> bool:
    entries = {r["urn"] for r in resources if r["type"] == ACCESS_ENTRY and r["inputs"].get("principalArn") == role_arn}
    return any(
        r["type"] == ACCESS_POLICY
        and r["inputs"].get("policyArn") == CLUSTER_ADMIN
        and (
            r["inputs"].get("principalArn") == role_arn
            or set(r["property_dependencies"].get("principalArn", ())) & entries
        )
        for r in resources
    )


def published_parameters(resources: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, str]]:
    """The parameters an `up` of ``resources`` publishes, by ``(cloud, region)``, with the values the cloud would
    hold once it ran (an id only the cloud knows gets a made-up id of its kind, one per resource it came from)."""
    regions = provider_regions(resources)
    by_urn = {r["urn"]: r for r in resources}
    published: dict[tuple[str, str], dict[str, str]] = {}
    for r in resources:
        if r["type"] == SSM_PARAMETER:
            cloud, name, value = "aws", r["inputs"]["name"], r["inputs"].get("insecureValue", r["inputs"].get("value"))
            deps = r["property_dependencies"].get("insecureValue", ())
        elif r["type"] == OOS_PARAMETER:
            cloud, name, value = "alicloud", r["inputs"]["parameterName"], r["inputs"].get("value")
            deps = r["property_dependencies"].get("value", ())
        else:
            continue
        if not isinstance(value, str) or UNKNOWN in value:
            value = ",".join(_made_up_id(by_urn[d]) for d in deps if d in by_urn)
        published.setdefault((cloud, region_of(r, regions, "")), {})[name] = value
    return published


def _made_up_id(resource: dict[str, Any]) -> str:
    if resource["type"] == "aws:iam/role:Role":
        return f"arn:aws:iam::{ACCOUNT_ID}:role/{resource['inputs'].get('name', resource['name'])}"
    digest = hashlib.sha256(resource["urn"].encode()).hexdigest()[:17]
    return ID_PREFIXES.get(resource["type"], "id-") + digest


def start_build(
    world: World, project_name: str, source_location: str | None, source_version: str | None, overrides: dict[str, str]
) -> str:
    """Run a build of CodeBuild project ``project_name`` as CodeBuild does; returns the build id (its status is in
    the world: SUCCEEDED, or FAILED with the reason)."""
    account, resources = runner_account(world)
    projects = [r for r in resources if r["type"] == PROJECT and r["inputs"]["name"] == project_name]
    if not projects:
        raise SystemExit(
            f"error: Project cannot be found: arn:aws:codebuild:{account.region}:{ACCOUNT_ID}:project/{project_name}"
        )
    [project] = projects
    build_id = f"{project_name}:{len(world.builds) + 1:08d}"
    role = project_role(resources, project)
    reason = download_source_problem(world, account, role, project, source_location, source_version)
    world.builds[build_id] = {"project": project_name, "status": "IN_PROGRESS", "reason": reason}
    if reason:
        world.builds[build_id]["status"] = "FAILED"
        return build_id
    variables = {v["name"]: v["value"] for v in project["inputs"]["environment"]["environmentVariables"]}
    variables.update(overrides)
    buildspec = yaml.safe_load(project["inputs"]["source"]["buildspec"])
    commands = [c for phase in ("install", "build") for c in buildspec["phases"][phase]["commands"]]
    root = Path(os.environ["REHEARSAL_ROOT"])
    variables.update(REHEARSAL_PRINCIPAL=role, CODEBUILD_SRC_DIR=str(root))
    done = run_on(world, build_id, commands, variables)
    world.builds[build_id]["status"] = "SUCCEEDED" if done.returncode == 0 else "FAILED"
    world.builds[build_id]["reason"] = done.stderr.strip()
    world.log.append(f"build {build_id} as {role}: {world.builds[build_id]['status']} {done.stderr.strip()}")
    return build_id


def run_on(
    world: World, machine: str, commands: list[str], variables: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """Run ``commands`` with bash on ``machine`` (a build, a runner invocation) in the checkout, with ``variables``;
    the world goes to its file for the commands' own stubs and comes back with what they changed."""
    world_file = Path(os.environ["REHEARSAL_WORLD"])
    world.save(world_file)
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + "\n".join(commands)],
        env=dict(os.environ, **variables, REHEARSAL_MACHINE=machine),
        cwd=Path(os.environ["REHEARSAL_ROOT"]),
        capture_output=True,
        text=True,
        check=False,
    )
    world.__dict__.update(World.load(world_file).__dict__)
    return done


def project_role(resources: list[dict[str, Any]], project: dict[str, Any]) -> str:
    [role_urn] = project["property_dependencies"]["serviceRole"]
    [role] = [r for r in resources if r["urn"] == role_urn]
    return str(role["inputs"]["name"])


def download_source_problem(
    world: World, account: iam.Account, role: str, project: dict[str, Any], location: str | None, version: str | None
) -> str:
    """Why CodeBuild cannot start the build as ``role`` and download its source (empty when it can)."""
    arn = f"arn:aws:codebuild:{account.region}:{ACCOUNT_ID}:project/{project['inputs']['name']}"
    if not account.service_may_assume(
        role, "codebuild.amazonaws.com", **{"aws:SourceAccount": ACCOUNT_ID, "aws:SourceArn": arn}
    ):
        return f"CodeBuild is not authorized to perform sts:AssumeRole on {role}"
    location = location or project["inputs"]["source"]["location"]
    versions = world.objects.get(location, [])
    if not versions or (version is not None and version not in versions):
        return f"DOWNLOAD_SOURCE: no object s3://{location} of version {version}"
    key = f"arn:aws:s3:::{location}"
    if not account.can(role, "s3:GetObjectVersion" if version else "s3:GetObject", key):
        return f"DOWNLOAD_SOURCE: AccessDenied: {role} may not read s3://{location}"
    if not account.can(
        role, "kms:Decrypt", account.key_arn, **{"kms:ViaService": f"s3.{account.region}.amazonaws.com"}
    ):
        return f"DOWNLOAD_SOURCE: AccessDenied: {role} may not decrypt s3://{location} (SSE-KMS with the state key)"
    return ""


RUNNER_PACK = "--policy-pack gpu_cloud/policies --policy-pack-config stacks/policy-config.json"
_SALTED = (
    "grep -q '^encryptionsalt:' stacks/Pulumi.{stack}.yaml"
    " || {{ echo 'stacks/Pulumi.{stack}.yaml has no encryptionsalt: run pulumiCommand=init first' >&2; exit 1; }}"
)
RUNNER_COMMANDS = {
    "init": [
        "echo 'gpucloud-runner: commit this line to stacks/Pulumi.{stack}.yaml:'",
        "pulumi stack select {stack} || pulumi stack init {stack} --secrets-provider passphrase",
    ],
    "preview": [_SALTED, "pulumi preview --stack {stack} " + RUNNER_PACK],
    "up": [_SALTED, "pulumi up --yes --stack {stack} " + RUNNER_PACK],
}
"""What the Alibaba runner's Cloud Assistant command (bootstrap/alicloud_runner.sh) runs, after it logged in to the
bootstrap's backend, per ``pulumiCommand``: init prints the stack's ``encryptionsalt`` line, which preview and up need
in the committed stack config."""


def invoke_runner(world: World, command_id: str, instance_id: str, parameters: dict[str, str]) -> str:
    """Cloud Assistant runs the bootstrap's runner command on the runner instance; returns the invocation id (its
    status and output are in the world's builds)."""
    bootstrap = next(
        (r for s in world.backends.values() for r in s.values() if "runnerCommandId" in (r.get("outputs") or {})), None
    )
    if bootstrap is None:
        raise SystemExit("error: InvalidCommandId.NotFound: no runner command")
    outputs = bootstrap["outputs"]
    invoke = f"t-{len(world.builds) + 1:08d}"
    reason = ""
    if (command_id, instance_id) != (outputs["runnerCommandId"], outputs["runnerInstanceId"]):
        reason = f"InvalidCommandId.NotFound or InvalidInstance.NotFound: {command_id} on {instance_id}"
    elif f"{outputs['stateBucket']}/{parameters['sourceObject']}" not in world.objects:
        reason = f"no object oss://{outputs['stateBucket']}/{parameters['sourceObject']}"
    world.builds[invoke] = {
        "project": f"runner {parameters['pulumiCommand']} {parameters['stack']}",
        "status": "Failed",
    }
    if reason:
        world.builds[invoke]["reason"] = reason
        return invoke
    script = [f"pulumi login '{outputs['backendUrl']}'"] + [
        line.format(stack=parameters["stack"]) for line in RUNNER_COMMANDS[parameters["pulumiCommand"]]
    ]
    done = run_on(world, invoke, script, {"REHEARSAL_PRINCIPAL": ""})
    world.builds[invoke].update(
        status="Success" if done.returncode == 0 else "Failed",
        reason=done.stderr.strip(),
        output=done.stdout + done.stderr,
        exit_code=done.returncode,
    )
    world.log.append(
        f"runner {invoke} {parameters['pulumiCommand']} {parameters['stack']}: {world.builds[invoke]['status']}"
    )
    return invoke
