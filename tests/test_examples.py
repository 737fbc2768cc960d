"""The examples: the DDP script follows the checkpoint pattern the docs describe (torch is not installed here, so it is
compiled and read), and its checkpoint store runs for real against moto's S3 server on 127.0.0.1 on both paths:
EKS's default credential chain, and ACK's, where STS (a stub on 127.0.0.1 answering AssumeRoleWithOIDC as the RAM API
reference documents it) exchanges the pod's RRSA token for credentials the S3 client signs with."""

from __future__ import annotations

import ast
import io
import json
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import boto3
import pytest

from tests.moto_server import moto_server

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXAMPLE = EXAMPLES / "ddp_checkpoint.py"
sys.path.insert(0, str(EXAMPLES))

from checkpoint_store import CheckpointStore, assume_role_with_oidc  # noqa: E402

BUCKET = "gpucloud-prod-cn-ckpt"
ROLE = "acs:ram::1234567890123456:role/prod-cn-llm-pretrain"
PROVIDER = "acs:ram::1234567890123456:oidc-provider/ack-rrsa-c1"


def _names(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Name):
            found.add(node.id)
    return found


def test_the_ddp_example_compiles_and_uses_ddp_torch_amp_rank_0_saves_sigterm_and_resume() -> None:
    tree = ast.parse(EXAMPLE.read_text(), filename=str(EXAMPLE))
    compile(tree, str(EXAMPLE), "exec")
    names = _names(tree)
    assert {"DistributedDataParallel", "autocast", "GradScaler", "save", "load", "SIGTERM", "get_rank"} <= names
    assert {"CheckpointStore", "from_environment", "latest"} <= names
    assert "apex" not in EXAMPLE.read_text().split('"""', 2)[2]
    assert "fsspec" not in EXAMPLE.read_text()


class _Sts(BaseHTTPRequestHandler):
    """AssumeRoleWithOIDC as the RAM API reference documents it: anonymous, parameters in the query, JSON out."""

    requests: ClassVar[list[dict[str, str]]] = []
    issued: ClassVar[int] = 0

    def do_GET(self) -> None:
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(self.path).query))
        type(self).requests.append(query)
        type(self).issued += 1
        body = {
            "RequestId": "r",
            "Credentials": {
                "AccessKeyId": f"STS.key{type(self).issued}",
                "AccessKeySecret": "secret",
                "SecurityToken": f"token{type(self).issued}",
                "Expiration": "2099-01-01T00:00:00Z",
            },
        }
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


@pytest.fixture
def sts() -> Iterator[str]:
    _Sts.requests, _Sts.issued = [], 0
    server = HTTPServer(("127.0.0.1", 0), _Sts)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _bucket(endpoint: str) -> None:
    s3 = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )
    s3.create_bucket(Bucket=BUCKET)


def _round_trip(store: CheckpointStore) -> None:
    assert store.latest() is None
    for step in (50, 100, 9):
        store.save(step, io.BytesIO(f"state {step}".encode()))
    assert store.latest() == "step-100.pt"
    assert store.load("step-100.pt").read() == b"state 100"


def test_on_ack_the_store_signs_with_the_credentials_sts_issues_for_the_rrsa_token(
    endpoint: str,
    sts: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _bucket(endpoint)
    token = tmp_path / "token"
    token.write_text("eyJhbGciOiJSUzI1NiJ9.rrsa.token\n")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    environ = {
        # What the TrainingJob sets (components.k8s.training_job.checkpoint_env) and ack-pod-identity-webhook injects.
        "CHECKPOINT_URI": f"oss://{BUCKET}/jobs/llm-pretrain/",
        "CHECKPOINT_S3_ENDPOINT": endpoint,
        "CHECKPOINT_REGION": "cn-hangzhou",
        "CHECKPOINT_S3_ADDRESSING": "path",  # moto on 127.0.0.1 has no virtual hosts; OSS uses the default
        "ALIBABA_CLOUD_STS_ENDPOINT": sts,
        "ALIBABA_CLOUD_ROLE_ARN": ROLE,
        "ALIBABA_CLOUD_OIDC_PROVIDER_ARN": PROVIDER,
        "ALIBABA_CLOUD_OIDC_TOKEN_FILE": str(token),
    }
    store = CheckpointStore.from_environment(environ)
    _round_trip(store)
    [request] = _Sts.requests
    assert {k: request[k] for k in ("Action", "Version", "Format", "RoleArn", "OIDCProviderArn", "OIDCToken")} == {
        "Action": "AssumeRoleWithOIDC",
        "Version": "2015-04-01",
        "Format": "JSON",
        "RoleArn": ROLE,
        "OIDCProviderArn": PROVIDER,
        "OIDCToken": "eyJhbGciOiJSUzI1NiJ9.rrsa.token",
    }
    credentials = store.client._request_signer._credentials.get_frozen_credentials()
    assert (credentials.access_key, credentials.token) == ("STS.key1", "token1")
    listed = boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    ).list_objects_v2(Bucket=BUCKET)
    assert sorted(o["Key"] for o in listed["Contents"]) == [
        "jobs/llm-pretrain/step-100.pt",
        "jobs/llm-pretrain/step-50.pt",
        "jobs/llm-pretrain/step-9.pt",
    ]


def test_expiring_credentials_are_renewed_from_a_fresh_read_of_the_token(sts: str, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("first")
    environ = {
        "ALIBABA_CLOUD_STS_ENDPOINT": sts,
        "ALIBABA_CLOUD_ROLE_ARN": ROLE,
        "ALIBABA_CLOUD_OIDC_PROVIDER_ARN": PROVIDER,
        "ALIBABA_CLOUD_OIDC_TOKEN_FILE": str(token),
    }
    assert assume_role_with_oidc(environ)["token"] == "token1"
    token.write_text("rotated")
    assert assume_role_with_oidc(environ)["token"] == "token2"
    assert [r["OIDCToken"] for r in _Sts.requests] == ["first", "rotated"]


def test_on_aws_the_store_uses_the_default_credential_chain(
    endpoint: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _bucket(endpoint)
    # The default chain, here from the environment (in the pod: EKS Pod Identity's container credentials).
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "pod")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "pod")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", endpoint)
    _round_trip(CheckpointStore.from_environment({"CHECKPOINT_URI": f"s3://{BUCKET}/jobs/llm/"}))
