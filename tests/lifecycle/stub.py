"""The commands docs/deploy.md runs (``pulumi``, ``aws``, ``aliyun``, ``ossutil``, ``git``, ``make``, ``curl``),
modelled against the rehearsal's world (tests/lifecycle/world.py), for ``python -m tests.lifecycle.stub <command>
<args>``.

Each behaves as its receiver does where the sequence depends on it, and fails as it would:

- ``pulumi login/stack init/stack select/up/preview/stack output/config set``: one login per machine (the
  workstation, each build); a stack lives in the backend it was created in; ``up``/``preview`` run the real program
  offline (gpucloud's engine) with stack references answered by that backend alone and parameter reads by what the
  bootstrap's ``up`` published (gpu_cloud.planner.offline); inside a build the principal is the project's service
  role and every state, key and parameter access is authorized by the planned IAM (tests/lifecycle/iam.py); a
  second ``up`` whose step plan updates an immutable field fails as the API refuses it (tests/lifecycle/steps.py).
- ``aws s3api put-object``, ``aws codebuild start-build / batch-get-builds``, ``aws service-quotas
  request-service-quota-increase``: objects get versions; a build runs its project's buildspec with bash, as the
  project's service role, after CodeBuild assumes it (trust policy) and downloads the source (S3 + KMS).
- ``aliyun ecs InvokeCommand / DescribeInvocationResults``: the runner's Cloud Assistant command (Pulumi in the OSS
  backend); ``aliyun sts GetCallerIdentity``: the account; ``aliyun oss cp`` and ``ossutil cp -r``: uploads.
- ``git archive HEAD`` and ``git commit -m MESSAGE PATH...``: an archive packs what was committed of the project and
  its stacks' config; an uncommitted change to them fails the archive.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import pickle
import shlex
import sys
from pathlib import Path
from typing import Any, NoReturn

import yaml

from tests.lifecycle.world import World, deployed_files, qualified

WORLD = Path(os.environ.get("REHEARSAL_WORLD", "world.json"))
MACHINE = os.environ.get("REHEARSAL_MACHINE", "workstation")
PRINCIPAL = os.environ.get("REHEARSAL_PRINCIPAL", "")
"""Inside a build: the name of the role the build runs as (its project's service role)."""
SOURCE_COMMIT = "0123456789abcdef0123456789abcdef01234567"
"""What ``git rev-parse HEAD`` answers."""


def fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(1)


# --- pulumi -------------------------------------------------------------------------------------------------------


def pulumi(world: World, argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="pulumi", add_help=False)
    parser.add_argument("words", nargs="*")
    parser.add_argument("--stack", "-s")
    parser.add_argument("--secrets-provider")
    parser.add_argument("--yes", "-y", action="store_true")
    parser.add_argument("--policy-pack")
    parser.add_argument("--policy-pack-config")
    parser.add_argument("--path", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--secret", action="store_true")
    parser.add_argument("--target", action="append", default=[])
    args = parser.parse_intermixed_args(argv)
    words = args.words
    if words[:1] == ["login"]:
        world.logins[MACHINE] = words[1]
        world.log.append(f"{MACHINE}: pulumi login {words[1]}")
        return
    backend = world.logins.get(MACHINE)
    if backend is None:
        fail("not logged in: run `pulumi login` first")
    project_name = yaml.safe_load((Path.cwd() / "Pulumi.yaml").read_text())["name"]
    key = f"{MACHINE}:{Path.cwd()}"
    if words[:2] == ["stack", "init"]:
        name = qualified(project_name, words[2])
        if world.stack(name) is not None and name in world.backends.get(backend, {}):
            fail(f"stack '{words[2]}' already exists")
        world.backends.setdefault(backend, {})[name] = {"outputs": {}, "resources": None}
        world.selected[key] = words[2]
        world.log.append(f"{MACHINE}: pulumi stack init {name} in {backend}")
        if args.secrets_provider is not None:
            _init_secrets(_config_dir() / f"Pulumi.{words[2]}.yaml", args.secrets_provider)
        return
    if words[:2] == ["stack", "select"]:
        if qualified(project_name, words[2]) not in world.backends.get(backend, {}):
            fail(f"no stack named '{words[2]}' found")
        world.selected[key] = words[2]
        return
    stack = args.stack or world.selected.get(key)
    if stack is None:
        fail("no stack selected: pass --stack or run `pulumi stack select`")
    name = qualified(project_name, stack)
    record = world.backends.get(backend, {}).get(name)
    if record is None:
        fail(f"no stack named '{name}' found in {backend}")
    if words[:2] == ["stack", "output"]:
        outputs = record.get("outputs", {})
        if words[2] not in outputs:
            fail(f"current stack does not have output property '{words[2]}'")
        value = outputs[words[2]]
        print(json.dumps(value) if args.json or not isinstance(value, str) else value)
        return
    config_dir = _config_dir()
    if words[:2] == ["config", "set"] and (args.path or args.secret):
        value: Any = {"secure": "v1:rehearsal"} if args.secret else words[3]
        _config_set(config_dir / f"Pulumi.{stack}.yaml", project_name, words[2], value)
        return
    if words[:1] == ["up"] and args.target:
        world.log.append(f"{MACHINE}: pulumi up {stack} of {', '.join(args.target)} only")
        return
    if words[:1] in (["up"], ["preview"]):
        _run(
            world,
            backend,
            stack,
            record,
            up=words[0] == "up",
            pack=args.policy_pack,
            pack_config=args.policy_pack_config,
        )
        return
    fail(f"the rehearsal does not model `pulumi {' '.join(argv)}`")


def _config_dir() -> Path:
    return Path.cwd() / str(yaml.safe_load((Path.cwd() / "Pulumi.yaml").read_text()).get("stackConfigDir", "."))


def _init_secrets(path: Path, provider: str) -> None:
    """What ``pulumi stack init --secrets-provider`` saves in the stack's config file, ahead of its config: the
    passphrase provider's ``encryptionsalt``, or a cloud provider's URL and the data key it encrypted."""
    digest = hashlib.sha256(f"{path.name}:{provider}".encode()).digest()
    encoded = base64.b64encode(digest).decode()
    lines = (
        f"encryptionsalt: v1:{encoded[:16]}:v1:{encoded[16:]}\n"
        if provider == "passphrase"
        else f"secretsprovider: {provider}\nencryptedkey: {encoded}\n"
    )
    if MACHINE == "workstation":
        path.write_text(lines + (path.read_text() if path.is_file() else ""))
    else:  # a build's or the runner's source is a throwaway copy of the archive: the runner prints what init wrote
        print(lines, end="")


def _config_set(path: Path, project: str, key: str, value: Any) -> None:
    """``pulumi config set --path``: dotted keys, ``[i]`` list indexes, the project's namespace by default."""
    document = yaml.safe_load(path.read_text())
    head, _, rest = key.partition(".")
    head, index = ([*head.split("[", 1), ""])[:2]
    full = head if ":" in head else f"{project}:{head}"
    node: Any = document.setdefault("config", {})
    parts: list[Any] = [full]
    if index:
        parts.append(int(index.rstrip("]")))
    for part in rest.split(".") if rest else []:
        field, *indexes = part.replace("]", "").split("[")
        parts += [field, *(int(i) for i in indexes)]
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def _run(
    world: World,
    backend: str,
    stack: str,
    record: dict[str, Any],
    *,
    up: bool,
    pack: str | None = None,
    pack_config: str | None = None,
) -> None:
    """``pulumi up``/``preview``: the program, run offline on what the world answers, then what would fail it: the
    policy pack's mandatory violations (``--policy-pack``, with ``--policy-pack-config``), the clouds' refusals."""
    from gpu_cloud.planner.policy import load_policy_config, run_policy_pack
    from gpu_cloud.planner.project import load_project, load_stack
    from tests.lifecycle import checks
    from tests.lifecycle.world import to_record

    answers = checks.RecordingAnswers.of(world.answers())
    project = load_project(Path.cwd())
    settings = load_stack(project, stack)
    # The program is deterministic: the same checkout, stack and answers plan the same resources and read the same
    # parameters. A build's `preview` and the `up` after it (nothing changed in between) are planned once per
    # rehearsal; what follows reads the plan back whether it was just planned or not.
    outputs = {url: {name: r.get("outputs", {}) for name, r in s.items()} for url, s in world.backends.items()}
    inputs = [_checkout_digest(), str(Path.cwd()), stack, outputs, world.parameters]  # what world.answers() holds
    key = hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()
    cached = WORLD.parent / "plans" / f"{key}.pickle"
    if not cached.is_file():
        from gpu_cloud.planner.engine import run_program
        from gpu_cloud.planner.model import PlanError

        try:
            plan = run_program(project, settings, answers)
        except PlanError as err:
            fail(f"pulumi {'up' if up else 'preview'} of {stack}: {err}")
        cached.parent.mkdir(exist_ok=True)
        cached.write_bytes(pickle.dumps((plan, answers.reads)))
    plan, reads = pickle.loads(cached.read_bytes())
    problems = []
    if pack is not None:
        config = load_policy_config(Path.cwd() / pack_config) if pack_config is not None else None
        report = run_policy_pack(
            _pack_dir(pack),
            plan.resources,
            project=project.name,
            stack=stack,
            config=config,
            dry_run=not up,
            stack_config=settings.config,
        )
        problems += [
            f"mandatory policy violation {v.policy} on {v.name}: {v.message}"
            for v in report.violations
            if v.level == "mandatory"
        ]
    resources = [to_record(r) for r in plan.resources]
    problems += checks.run_checks(world, backend, project.name, stack, record, resources, reads, up, PRINCIPAL)
    if problems:
        fail(f"pulumi {'up' if up else 'preview'} of {stack} fails:\n  " + "\n  ".join(problems))
    if up:
        record["outputs"] = plan.outputs
        record["resources"] = resources
        for (cloud, region), values in checks.published_parameters(resources).items():
            world.parameters.setdefault(f"{cloud}:{region}", {}).update(values)
    world.log.append(f"{MACHINE}: pulumi {'up' if up else 'preview'} {stack} as {PRINCIPAL or 'administrator'}")


def _pack_dir(pack: str) -> Path:
    """The policy pack folder ``--policy-pack`` names in the source tree: the rehearsal's checkout holds the program and
    its configs, the library (its policy pack included) is the installed package's source (sequence.COPIED)."""
    import gpu_cloud

    in_checkout = Path.cwd() / pack
    return in_checkout if in_checkout.is_dir() else Path(gpu_cloud.__file__).resolve().parent.parent / pack


def _checkout_digest() -> str:
    """The content of every file of the checkout (the programs, their stacks' config, the pages)."""
    digest = hashlib.sha256()
    for path in sorted(Path(os.environ.get("REHEARSAL_ROOT", ".")).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(f"{path}\0".encode() + path.read_bytes())
    return digest.hexdigest()


# --- aws ----------------------------------------------------------------------------------------------------------


def aws(world: World, argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="aws", add_help=False)
    parser.add_argument("service")
    parser.add_argument("operation")
    for option in (
        "--bucket",
        "--key",
        "--body",
        "--query",
        "--output",
        "--project-name",
        "--source-location-override",
        "--source-version",
        "--ids",
        "--service-code",
        "--quota-code",
        "--desired-value",
        "--region",
    ):
        parser.add_argument(option)
    parser.add_argument("--environment-variables-override", nargs="*", default=[])
    parser.add_argument("--recursive", action="store_true")
    parser.add_argument("source", nargs="?")
    parser.add_argument("destination", nargs="?")
    args = parser.parse_intermixed_args(argv)
    operation = f"{args.service} {args.operation}"
    if operation == "s3 cp" and args.recursive:
        bucket_key = args.destination.removeprefix("s3://")
        world.objects.setdefault(f"{bucket_key.rstrip('/')}/saved_model.pb", []).append("v1")
        world.log.append(f"{MACHINE}: uploaded {args.source} to {args.destination}")
    elif operation == "s3api put-object":
        versions = world.objects.setdefault(f"{args.bucket}/{args.key}", [])
        versions.append(f"v{len(versions) + 1}-{args.key.rsplit('/', 1)[-1]}")
        _answer({"VersionId": versions[-1]}, args.query, "VersionId")
    elif operation == "codebuild start-build":
        from tests.lifecycle import checks

        build_id = checks.start_build(
            world,
            args.project_name,
            args.source_location_override,
            args.source_version,
            dict(_override(o) for o in args.environment_variables_override),
        )
        _answer({"build": {"id": build_id}}, args.query, "build.id")
    elif operation == "codebuild batch-get-builds":
        build = world.builds[args.ids]
        _answer({"builds": [{"buildStatus": build["status"]}]}, args.query, "builds[0].buildStatus")
    elif operation == "service-quotas request-service-quota-increase":
        world.quota_requests[f"{args.service_code}/{args.quota_code}/{args.region}"] = int(float(args.desired_value))
    else:
        fail(f"the rehearsal does not model `aws {' '.join(argv)}`")


def _override(text: str) -> tuple[str, str]:
    """An ``--environment-variables-override`` item, ``name=N,value=V`` (the AWS CLI's shorthand)."""
    fields = dict(part.split("=", 1) for part in text.split(",", 1))
    return fields["name"], fields["value"]


def _answer(response: dict[str, Any], query: str | None, supported: str) -> None:
    """Print ``response`` as the AWS CLI does: JSON, or the one value ``--query ... --output text`` selects."""
    if query is None:
        print(json.dumps(response))
        return
    if query != supported:
        fail(f"the rehearsal models --query {supported} here, not {query}")
    value: Any = response
    for part in supported.replace("[0]", ".0").split("."):
        value = value[int(part)] if part.isdigit() else value[part]
    print(value)


# --- the rest -----------------------------------------------------------------------------------------------------


def aliyun(world: World, argv: list[str]) -> None:
    """The Alibaba Cloud CLI calls of the sequence (``aliyun <product> <Operation> --Key value ...``)."""
    product, operation, *rest = argv
    options: dict[str, str] = {}
    positional: list[str] = []
    items = iter(rest)
    for item in items:
        if item.startswith("--"):
            options[item[2:]] = "" if item[2:] in ("force",) else next(items, "")
        else:
            positional.append(item)
    call = f"{product} {operation}"
    if call == "sts GetCallerIdentity":
        from gpu_cloud.planner.canned import ALICLOUD_ACCOUNT_ID

        arn = f"acs:ram::{ALICLOUD_ACCOUNT_ID}:user/admin"
        print(json.dumps({"AccountId": ALICLOUD_ACCOUNT_ID, "IdentityType": "RAMUser", "Arn": arn}))
    elif call == "ram GetRole":
        fail(f"EntityNotExist.Role: The role not exists: {options['RoleName']}")  # a fresh account
    elif call == "cdt GetCdtServiceStatus":
        print(json.dumps({"Enabled": False}))
    elif call == "cdt OpenCdtService":
        print(json.dumps({"RequestId": "rehearsal"}))
    elif call == "oss cp" and positional[1].startswith("oss://"):
        world.objects.setdefault(positional[1].removeprefix("oss://"), []).append("v1")
    elif call == "ecs InvokeCommand":
        from tests.lifecycle import checks

        invoke = checks.invoke_runner(
            world, options["CommandId"], options["InstanceId.1"], json.loads(options["Parameters"])
        )
        print(json.dumps({"InvokeId": invoke}))
    elif call == "ecs DescribeInvocationResults":
        run = world.builds[options["InvokeId"]]
        output = base64.b64encode(run.get("output", run.get("reason", "")).encode()).decode()
        result = {"InvocationStatus": run["status"], "ExitCode": run.get("exit_code", 1), "Output": output}
        print(json.dumps({"Invocation": {"InvocationResults": {"InvocationResult": [result]}}}))
    else:
        fail(f"the rehearsal does not model `aliyun {' '.join(argv)}`")


def ossutil(world: World, argv: list[str]) -> None:
    """``ossutil cp -r DIR oss://bucket/prefix/``: an upload of a directory's files under the prefix (the models)."""
    if argv[:2] != ["cp", "-r"] or len(argv) != 4 or not argv[3].startswith("oss://"):
        fail(f"the rehearsal does not model `ossutil {' '.join(argv)}`")
    world.objects.setdefault(f"{argv[3].removeprefix('oss://').rstrip('/')}/saved_model.pb", []).append("v1")
    world.log.append(f"{MACHINE}: uploaded {argv[2]} to {argv[3]}")


def git(world: World, argv: list[str]) -> None:
    """``git rev-parse``, ``git archive ... HEAD`` and ``git commit -m MESSAGE PATH...`` over the files a build of an
    environment reads (world.DEPLOYED): the build runs what HEAD holds, so an archive of a checkout whose changes to
    them are not committed would deploy the old config, and fails here, naming them."""
    checkout = Path(os.environ.get("REHEARSAL_ROOT", "."))
    if argv[:1] == ["rev-parse"]:
        print(SOURCE_COMMIT[:12] if "--short=12" in argv else SOURCE_COMMIT)
    elif argv[:1] == ["archive"] and argv[-1] == "HEAD":
        now = deployed_files(checkout)
        changed = sorted(path for path, digest in world.committed.items() if now.get(path) != digest)
        if changed:
            fail(f"HEAD does not hold the changes to {', '.join(changed)}: its archive would deploy what was committed")
        Path(argv[argv.index("-o") + 1]).write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    elif argv[:2] == ["commit", "-m"] and argv[3:]:
        now = deployed_files(checkout)
        paths = [str((Path.cwd() / path).resolve().relative_to(checkout.resolve())) for path in argv[3:]]
        unknown = [path for path in paths if path not in world.committed]
        if unknown:
            fail(f"pathspec '{unknown[0]}' did not match any file(s) known to git")
        if all(now[path] == world.committed[path] for path in paths):
            fail("nothing to commit: no changes to " + ", ".join(paths))
        world.committed.update({path: now[path] for path in paths})
        world.log.append(f"{MACHINE}: git commit {' '.join(paths)}: {argv[2]}")
    else:
        fail(f"the rehearsal does not model `git {' '.join(argv)}`")


def main(argv: list[str]) -> int:
    command, *rest = argv
    world = World.load(WORLD)
    try:
        if command == "pulumi":
            pulumi(world, rest)
        elif command == "aws":
            aws(world, rest)
        elif command == "git":
            git(world, rest)
        elif command == "aliyun":
            aliyun(world, rest)
        elif command == "ossutil":
            ossutil(world, rest)
        elif command in ("make", "sleep"):
            pass  # the virtualenv exists already; builds finish before they are polled
        elif command == "curl":
            print("exit 0")  # the Pulumi CLI's installer: the stub is the CLI
        else:
            fail(f"the rehearsal does not model `{shlex.join(argv)}`")
    finally:
        world.save(WORLD)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
