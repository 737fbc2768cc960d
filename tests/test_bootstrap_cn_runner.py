"""The Alibaba Cloud deploy runner's command (bootstrap/alicloud_runner.sh) and its OSS credentials helper
(bootstrap/alicloud_runner_credentials.py), run here for everything but the cloud.

The script runs as Cloud Assistant would run it (its parameters put in place, as root in a fresh directory) with fakes
of the commands that reach the cloud or the Internet on PATH (curl, and the aliyun, uv and pulumi of the archives it
downloads). The fakes log each call with the environment the script gives it; the test checks what the script runs,
in which order, with which files. The helper answers a metadata service on 127.0.0.1 and is read by botocore's own
credential_process provider, the AWS SDK behaviour the Pulumi CLI's Go SDK shares.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import botocore.session
import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = ROOT / "bootstrap"
sys.path.insert(0, str(BOOTSTRAP))

import alicloud_account  # noqa: E402  (the bootstrap program's module, on its own path)

BUCKET = "gpucloud-state-shared-cn-1234567890123456"
SECRET = "gpucloud-pulumi-passphrase-shared-cn"
DEPLOYER = "acs:ram::1234567890123456:role/ml-platform-deployer"
PARAMETERS = {
    "stack": "prod-cn",
    "pulumiCommand": "preview",
    "deployerRoleArn": DEPLOYER,
    "sourceObject": "deploy/0123abc.tar.gz",
}
UV_VERSION = "0.13.9"  # pyproject.toml's dev-group pin, which the script reads from the source
PULUMI_VERSION = "3.272.0"  # uv.lock's pulumi, likewise

LOGGER = """#!/usr/bin/env bash
# Logs its call: name, arguments, and the environment the runner script gave it.
{
  printf '%s' "$(basename "$0")"; printf ' %q' "$@"; printf '\\n'
  printf 'env ALICLOUD_PROFILE=%s AWS_PROFILE=%s AWS_CONFIG_FILE=%s PULUMI_CONFIG_PASSPHRASE_FILE=%s HOME=%s\\n' \\
    "${ALICLOUD_PROFILE:-}" "${AWS_PROFILE:-}" "${AWS_CONFIG_FILE:-}" "${PULUMI_CONFIG_PASSPHRASE_FILE:-}" "$HOME"
} >>"$GPUCLOUD_TEST_LOG"
"""

FAKE_CURL = (
    LOGGER
    + """# Serves every https:// URL from the fixtures directory by its last path segment.
out=""; url=""
while [[ $# -gt 0 ]]; do
  case "$1" in -o) out="$2"; shift 2;; --proto|--retry) shift 2;; https://*) url="$1"; shift;; *) shift;; esac
done
cp "$GPUCLOUD_TEST_FIXTURES/$(basename "$url")" "$out"
"""
)

FAKE_ALIYUN = (
    LOGGER
    + """case "$1 $2" in
  "version "*) echo "@@version@@";;
  "--profile runner")
    case "$3 $4" in
      "oss cp") cp "$GPUCLOUD_TEST_FIXTURES/source.tar.gz" "$6";;
      "kms GetSecretValue") echo '{"SecretName": "x", "SecretData": "pass-phrase", "RequestId": "r"}';;
      *) exit 9;;
    esac;;
  *) exit 9;;
esac
"""
)

FAKE_UV = (
    LOGGER
    + """case "$1" in
  --version) echo "uv @@version@@ (x86_64-unknown-linux-gnu)";;
  sync) mkdir -p "$UV_PROJECT_ENVIRONMENT/bin"; ln -sf "@@python@@" "$UV_PROJECT_ENVIRONMENT/bin/python";;
  *) exit 9;;
esac
"""
)

FAKE_PULUMI = (
    LOGGER
    + """case "$1" in
  version) echo "v@@version@@";;
  login|preview|up) {
      echo "passphrase $(cat "$PULUMI_CONFIG_PASSPHRASE_FILE")"
      echo "aws-config $(tr '\\n' '|' <"$AWS_CONFIG_FILE")"
    } >>"$GPUCLOUD_TEST_LOG";;
  stack)
    if [[ "$2" == select && -n "${GPUCLOUD_TEST_NO_STACK:-}" ]]; then exit 255; fi
    if [[ "$2" == init ]]; then echo "encryptionsalt: v1:salt" >>"stacks/Pulumi.$3.yaml"; fi;;
  *) exit 9;;
esac
"""
)


PACK = "--policy-pack gpu_cloud/policies --policy-pack-config stacks/policy-config.json"
"""The pack and its config (the deployer roles), as docs/deploy.md and make plan-all use them."""


def _archive(path: Path, members: dict[str, str]) -> None:
    """A .tar.gz of executable text files."""
    with tarfile.open(path, "w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))


def _sha256_line(path: Path) -> str:
    return f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n"


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """The fixtures the fake curl serves, the fake curl itself, and an empty GPUCLOUD_HOME."""
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    cli = fixtures / f"aliyun-cli-linux-{alicloud_account.ALIYUN_CLI_VERSION}-amd64.tgz"
    _archive(cli, {"aliyun": FAKE_ALIYUN.replace("@@version@@", alicloud_account.ALIYUN_CLI_VERSION)})
    (fixtures / "SHASUMS256.txt").write_text(f"0000  aliyun-cli-macosx-x.tgz\n{_sha256_line(cli)}")
    uv = fixtures / "uv-x86_64-unknown-linux-gnu.tar.gz"
    fake_uv = FAKE_UV.replace("@@version@@", UV_VERSION).replace("@@python@@", sys.executable)
    _archive(uv, {"uv-x86_64-unknown-linux-gnu/uv": fake_uv, "uv-x86_64-unknown-linux-gnu/uvx": "#!/bin/sh\n"})
    (fixtures / f"{uv.name}.sha256").write_text(_sha256_line(uv).replace("  ", " *"))  # sha256sum binary form
    pulumi = fixtures / f"pulumi-v{PULUMI_VERSION}-linux-x64.tar.gz"
    _archive(pulumi, {"pulumi/pulumi": FAKE_PULUMI.replace("@@version@@", PULUMI_VERSION)})
    (fixtures / f"pulumi-{PULUMI_VERSION}-checksums.txt").write_text(_sha256_line(pulumi))
    # The source archive CI uploads: the repository's own pins, prod-cn's config with its committed salt.
    source = tmp_path / "source"
    for name in ("pyproject.toml", "uv.lock", "stacks/Pulumi.prod-cn.yaml", "bootstrap/alicloud_runner_credentials.py"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    with (source / "stacks/Pulumi.prod-cn.yaml").open("a") as config:
        config.write("encryptionsalt: v1:committed\n")
    with tarfile.open(fixtures / "source.tar.gz", "w:gz") as tar:
        tar.add(source, arcname=".")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "curl").write_text(FAKE_CURL)
    (tools / "curl").chmod(0o755)
    return {"fixtures": fixtures, "tools": tools, "home": tmp_path / "gpucloud", "log": tmp_path / "calls.log"}


def _script(**parameters: str) -> str:
    """The command content the bootstrap registers, with an invocation's parameters put in place."""
    script = alicloud_account.runner_command("cn-hangzhou", BUCKET, SECRET, "gpucloud-deploy-runner")
    for name, value in {**PARAMETERS, **parameters}.items():
        script = script.replace(f"{{{{{name}}}}}", value)
    return script


def _run(
    world: dict[str, Path], env: dict[str, str] | None = None, **parameters: str
) -> subprocess.CompletedProcess[str]:
    workdir = world["home"].parent / "cwd"
    workdir.mkdir(exist_ok=True)
    environment = {
        "PATH": f"{world['tools']}:/usr/bin:/bin",
        "GPUCLOUD_HOME": str(world["home"]),
        "GPUCLOUD_TEST_FIXTURES": str(world["fixtures"]),
        "GPUCLOUD_TEST_LOG": str(world["log"]),
        "TMPDIR": str(world["home"].parent),
        **(env or {}),
    }
    return subprocess.run(
        ["bash", "-c", _script(**parameters)], cwd=workdir, env=environment, capture_output=True, text=True, check=False
    )


def _calls(world: dict[str, Path]) -> list[str]:
    return world["log"].read_text().splitlines() if world["log"].exists() else []


def _commands(world: dict[str, Path]) -> list[str]:
    return [line for line in _calls(world) if not line.startswith(("env ", "passphrase ", "aws-config "))]


def test_shellcheck_finds_nothing() -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck not installed (Debian package shellcheck)")
    result = subprocess.run(
        ["shellcheck", str(BOOTSTRAP / "alicloud_runner.sh")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


def test_a_preview_installs_the_pinned_toolchain_over_https_then_previews_as_the_deployer(
    world: dict[str, Path],
) -> None:
    result = _run(world)
    assert result.returncode == 0, result.stderr
    cli, uv, pulumi = alicloud_account.ALIYUN_CLI_VERSION, UV_VERSION, PULUMI_VERSION
    backend = alicloud_account.state_backend_url(BUCKET, "cn-hangzhou")
    assert [c.split(" -o ")[0] for c in _commands(world)] == [
        "curl --proto =https --tlsv1.2 -fsSL --retry 3",
        "curl --proto =https --tlsv1.2 -fsSL --retry 3",
        f"aliyun --profile runner oss cp oss://{BUCKET}/deploy/0123abc.tar.gz "
        f"{_calls_arg(world, 'oss cp', 6)} --endpoint oss-cn-hangzhou-internal.aliyuncs.com",
        "curl --proto =https --tlsv1.2 -fsSL --retry 3",
        "curl --proto =https --tlsv1.2 -fsSL --retry 3",
        "curl --proto =https --tlsv1.2 -fsSL --retry 3",
        "curl --proto =https --tlsv1.2 -fsSL --retry 3",
        "uv sync --locked --python 3.11 --quiet",
        f"aliyun --profile runner kms GetSecretValue --SecretName {SECRET} --region cn-hangzhou",
        f"pulumi login {_quoted(backend)}",
        "pulumi stack select prod-cn",
        f"pulumi preview --stack prod-cn {PACK}",
    ]
    urls = [c.split()[-1] for c in _commands(world) if c.startswith("curl")]
    assert urls == [
        f"https://aliyuncli.alicdn.com/aliyun-cli-linux-{cli}-amd64.tgz",
        f"https://github.com/aliyun/aliyun-cli/releases/download/v{cli}/SHASUMS256.txt",
        f"https://github.com/astral-sh/uv/releases/download/{uv}/uv-x86_64-unknown-linux-gnu.tar.gz",
        f"https://github.com/astral-sh/uv/releases/download/{uv}/uv-x86_64-unknown-linux-gnu.tar.gz.sha256",
        f"https://get.pulumi.com/releases/sdk/pulumi-v{pulumi}-linux-x64.tar.gz",
        f"https://get.pulumi.com/releases/sdk/pulumi-{pulumi}-checksums.txt",
    ]


def _quoted(text: str) -> str:
    """``text`` as bash's printf %q writes it (how the fakes log their arguments)."""
    return subprocess.run(["bash", "-c", 'printf %q "$1"', "_", text], capture_output=True, text=True).stdout


def _calls_arg(world: dict[str, Path], command: str, index: int) -> str:
    [line] = [line for line in _calls(world) if command in line]
    return line.split()[index]


def test_the_program_acts_as_the_deployer_and_the_backend_as_the_runner_with_the_kms_passphrase(
    world: dict[str, Path],
) -> None:
    assert _run(world).returncode == 0
    calls = _calls(world)
    preview = calls.index(f"pulumi preview --stack prod-cn {PACK}")
    env, passphrase, aws_config = calls[preview + 1 : preview + 4]
    assert "ALICLOUD_PROFILE=deployer AWS_PROFILE=gpucloud-state" in env
    assert passphrase == "passphrase pass-phrase"
    credential_process = aws_config.split("|")[1]
    assert credential_process.startswith("credential_process = ")
    assert credential_process.endswith("/bootstrap/alicloud_runner_credentials.py gpucloud-deploy-runner")
    assert aws_config.split("|")[0] == "aws-config [profile gpucloud-state]"
    # The CLI profiles every tool of the run reads (aliyun-cli's config.json format).
    profiles = json.loads((world["home"] / "home/.aliyun/config.json").read_text())["profiles"]
    assert profiles == [
        {"name": "runner", "mode": "EcsRamRole", "ram_role_name": "gpucloud-deploy-runner", "region_id": "cn-hangzhou"},
        {
            "name": "deployer",
            "mode": "ChainableRamRoleArn",
            "source_profile": "runner",
            "ram_role_arn": DEPLOYER,
            "ram_session_name": "gpucloud-deploy",
            "expired_seconds": 3600,
            "region_id": "cn-hangzhou",
        },
    ]
    assert oct((world["home"] / "home/.aliyun/config.json").stat().st_mode & 0o777) == "0o600"


def test_nothing_of_the_run_is_left_behind_but_the_toolchain(world: dict[str, Path]) -> None:
    assert _run(world).returncode == 0
    # The work directory (source, passphrase, AWS config) is gone; the toolchain stays for the next run.
    leftovers = sorted(p.name for p in world["home"].parent.iterdir())
    assert leftovers == ["calls.log", "cwd", "fixtures", "gpucloud", "source", "tools"]
    assert sorted(p.name for p in (world["home"] / "bin").iterdir()) == ["aliyun", "uv"]
    world["log"].unlink()
    assert _run(world).returncode == 0
    assert not [c for c in _commands(world) if c.startswith("curl")]  # the next run downloads nothing


def test_up_deploys_with_yes(world: dict[str, Path]) -> None:
    assert _run(world, pulumiCommand="up").returncode == 0
    assert _commands(world)[-1] == f"pulumi up --yes --stack prod-cn {PACK}"


@pytest.mark.parametrize("command", ["preview", "up"])
def test_the_rehearsals_model_of_the_command_runs_what_the_script_runs(world: dict[str, Path], command: str) -> None:
    from tests.lifecycle.checks import RUNNER_COMMANDS  # the model docs/deploy.md's rehearsal runs

    assert _run(world, pulumiCommand=command).returncode == 0
    pulumi = [line.format(stack="prod-cn") for line in RUNNER_COMMANDS[command] if line.startswith("pulumi ")]
    assert _commands(world)[-1:] == pulumi


def test_init_creates_the_stack_with_the_passphrase_provider_and_prints_the_salt_to_commit(
    world: dict[str, Path],
) -> None:
    result = _run(world, env={"GPUCLOUD_TEST_NO_STACK": "1"}, pulumiCommand="init")
    assert result.returncode == 0, result.stderr
    assert _commands(world)[-2:] == [
        "pulumi stack select prod-cn",
        "pulumi stack init prod-cn --secrets-provider passphrase",
    ]
    assert "encryptionsalt: v1:committed" in result.stdout


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("stack", "prod-cn; rm -rf /"),
        ("pulumiCommand", "destroy"),
        ("deployerRoleArn", "arn:aws:iam::123456789012:role/x"),
        ("sourceObject", "../../etc/passwd"),
    ],
)
def test_a_bad_parameter_stops_the_run_before_anything_is_fetched(
    world: dict[str, Path], parameter: str, value: str
) -> None:
    result = _run(world, **{parameter: value})
    assert result.returncode == 2
    assert f"gpucloud-runner: {parameter} is not valid" in result.stderr
    assert _calls(world) == []


def test_an_archive_that_does_not_match_its_checksum_is_refused(world: dict[str, Path]) -> None:
    cli = world["fixtures"] / f"aliyun-cli-linux-{alicloud_account.ALIYUN_CLI_VERSION}-amd64.tgz"
    cli.write_bytes(cli.read_bytes() + b"tampered")
    result = _run(world)
    assert result.returncode == 2
    assert f"checksum mismatch: {cli.name}" in result.stderr
    assert not (world["home"] / "bin/aliyun").exists()


def test_a_stack_without_a_committed_salt_is_not_previewed(world: dict[str, Path]) -> None:
    source = world["fixtures"].parent / "source"
    config = source / "stacks/Pulumi.prod-cn.yaml"
    config.write_text(config.read_text().replace("encryptionsalt: v1:committed\n", ""))
    with tarfile.open(world["fixtures"] / "source.tar.gz", "w:gz") as tar:
        tar.add(source, arcname=".")
    result = _run(world)
    assert result.returncode == 2
    assert "has no encryptionsalt: run pulumiCommand=init first" in result.stderr
    assert not [c for c in _commands(world) if c.startswith("pulumi preview")]


class _Metadata(http.server.BaseHTTPRequestHandler):
    """The ECS metadata service in hardened mode: a token first, then credentials only with that token."""

    answer: ClassVar[dict[str, Any]] = {}

    def do_PUT(self) -> None:
        ok = self.path == "/latest/api/token" and self.headers.get("X-aliyun-ecs-metadata-token-ttl-seconds")
        self._reply(200 if ok else 400, b"token-1")

    def do_GET(self) -> None:
        ok = self.headers.get("X-aliyun-ecs-metadata-token") == "token-1"
        path_ok = self.path == "/latest/meta-data/ram/security-credentials/gpucloud-deploy-runner"
        self._reply(200 if ok and path_ok else 401, json.dumps(self.answer).encode())

    def _reply(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def metadata() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Metadata)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


IN_AN_HOUR = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
STS = {
    "AccessKeyId": "STS.id",
    "AccessKeySecret": "secret",
    "SecurityToken": "token",
    "Expiration": IN_AN_HOUR,
    "Code": "Success",
}


def _helper(metadata: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BOOTSTRAP / "alicloud_runner_credentials.py"), *args],
        env={**os.environ, "GPUCLOUD_METADATA_URL": metadata},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_helper_turns_the_instance_roles_sts_credentials_into_aws_process_credentials(metadata: str) -> None:
    _Metadata.answer = STS
    result = _helper(metadata, "gpucloud-deploy-runner")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "Version": 1,
        "AccessKeyId": "STS.id",
        "SecretAccessKey": "secret",
        "SessionToken": "token",
        "Expiration": IN_AN_HOUR,
    }


def _sdk_credentials(metadata: str, tmp_path: Path) -> Any:
    config = tmp_path / "config"
    helper = BOOTSTRAP / "alicloud_runner_credentials.py"
    process = f"{sys.executable} {helper} gpucloud-deploy-runner"
    config.write_text(f"[profile gpucloud-state]\ncredential_process = {process}\n")
    os.environ["GPUCLOUD_METADATA_URL"] = metadata
    try:
        session = botocore.session.Session(profile="gpucloud-state")
        session.set_config_variable("config_file", str(config))
        session.set_config_variable("credentials_file", os.devnull)
        return session.get_credentials().get_frozen_credentials()
    finally:
        del os.environ["GPUCLOUD_METADATA_URL"]


def test_an_aws_sdk_reads_the_helper_as_its_credential_process(metadata: str, tmp_path: Path) -> None:
    _Metadata.answer = STS
    credentials = _sdk_credentials(metadata, tmp_path)
    assert (credentials.access_key, credentials.secret_key, credentials.token) == ("STS.id", "secret", "token")


def test_the_sdk_sees_when_the_credentials_expire(metadata: str, tmp_path: Path) -> None:
    # The Expiration is passed through: an SDK refreshes (re-runs the helper) when it nears, and refuses a past one.
    _Metadata.answer = {**STS, "Expiration": "2020-01-01T00:00:00Z"}
    with pytest.raises(RuntimeError, match="refreshed credentials are still expired"):
        _sdk_credentials(metadata, tmp_path)


def test_a_failed_or_missing_answer_is_an_error_not_empty_credentials(metadata: str) -> None:
    _Metadata.answer = {**STS, "Code": "Failed"}
    failed = _helper(metadata, "gpucloud-deploy-runner")
    assert failed.returncode == 2
    assert "did not return credentials (Code 'Failed')" in failed.stderr
    unknown_role = _helper(metadata, "another-role")
    assert unknown_role.returncode == 2 and unknown_role.stdout == ""
    assert _helper(metadata).returncode == 2
