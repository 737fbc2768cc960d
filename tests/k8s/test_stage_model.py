"""The model-staging script of the inference pod's init container, run for real: the AWS CLI against moto's S3
server on 127.0.0.1 (started and stopped here), with a KMS-encrypted bucket holding SavedModel-shaped versions."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from gpu_cloud.components.k8s.inference import STAGE_MODEL_SCRIPT
from tests.moto_server import moto_server

BUCKET = "gpucloud-dev-ckpt-123456789012-us-east-1"
PREFIX = "models/resnet50"
SAVED_MODEL = ("saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001")
HF_MODEL = ("config.json", "model.safetensors", "tokenizer.json", "generation_config.json")
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with moto_server() as url:
        yield url


def _client(endpoint: str, service: str):  # type: ignore[no-untyped-def]
    return boto3.client(
        service, endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )


@pytest.fixture(scope="module")
def bucket(endpoint: str) -> str:
    """The environment's bucket, SSE-KMS by default: versions 1 and 2 of the model beside a non-numeric prefix, another
    model, and a model whose only version is not a SavedModel."""
    s3, kms = _client(endpoint, "s3"), _client(endpoint, "kms")
    key = kms.create_key()["KeyMetadata"]["Arn"]
    s3.create_bucket(Bucket=BUCKET)
    s3.put_bucket_encryption(
        Bucket=BUCKET,
        ServerSideEncryptionConfiguration={
            "Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": key}}]
        },
    )
    for version in ("1", "2"):
        for name in SAVED_MODEL:
            s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/{version}/{name}", Body=f"{version}:{name}".encode())
    s3.put_object(Bucket=BUCKET, Key="models/broken/3/README", Body=b"not a model")
    s3.put_object(Bucket=BUCKET, Key=f"{PREFIX}/99-export-tmp/saved_model.pb", Body=b"partial")
    s3.put_object(Bucket=BUCKET, Key="models/other/7/saved_model.pb", Body=b"another model")
    for version in ("3", "4"):
        for name in HF_MODEL:
            s3.put_object(Bucket=BUCKET, Key=f"models/qwen/{version}/{name}", Body=f"{version}:{name}".encode())
    return BUCKET


def _stage(
    endpoint: str,
    bucket: str,
    base: Path,
    version: str,
    prefix: str = PREFIX,
    wait: bool = False,
    **extra: str,
) -> Any:
    """Run the script to its end (a CompletedProcess), or with ``wait`` start it (a Popen) polling every second;
    ``extra`` adds to its environment (MODEL_LAYOUT, MODEL_FORMAT)."""
    env = {
        "PATH": f"{BIN}{os.pathsep}/usr/bin:/bin",
        "HOME": str(base),
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "t",
        "AWS_SECRET_ACCESS_KEY": "t",
        "MODEL_STORE": "s3",
        "MODEL_BUCKET": bucket,
        "MODEL_PREFIX": prefix,
        "MODEL_VERSION": version,
        "MODEL_NAME": "resnet",
        "MODEL_BASE_PATH": str(base / "models"),
        "MODEL_WAIT_SECONDS": "1",
        **extra,
    }
    if wait:
        return subprocess.Popen(
            ["sh", "-c", STAGE_MODEL_SCRIPT, "stage-model"], env=env, stderr=subprocess.PIPE, text=True
        )
    return subprocess.run(
        ["sh", "-c", STAGE_MODEL_SCRIPT, "stage-model"], env=env, capture_output=True, text=True, timeout=120
    )


def _layout(base: Path) -> list[str]:
    root = base / "models"
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_latest_stages_the_highest_numbered_savedmodel_version_as_name_version(endpoint, bucket, tmp_path):
    done = _stage(endpoint, bucket, tmp_path, "latest")
    assert done.returncode == 0, done.stderr
    assert _layout(tmp_path) == sorted(f"resnet/2/{n}" for n in SAVED_MODEL)
    assert (tmp_path / "models/resnet/2/variables/variables.index").read_text() == "2:variables/variables.index"


def test_a_pinned_version_stages_exactly_that_version(endpoint, bucket, tmp_path):
    done = _stage(endpoint, bucket, tmp_path, "1")
    assert done.returncode == 0, done.stderr
    assert _layout(tmp_path) == sorted(f"resnet/1/{n}" for n in SAVED_MODEL)
    assert (tmp_path / "models/resnet/1/saved_model.pb").read_text() == "1:saved_model.pb"


def _upload(endpoint: str, bucket: str, prefix: str, version: int) -> None:
    s3 = _client(endpoint, "s3")
    for name in SAVED_MODEL:
        s3.put_object(Bucket=bucket, Key=f"{prefix}/{version}/{name}", Body=f"{version}:{name}".encode())


@pytest.mark.parametrize(
    ("prefix", "version", "found"), [("models/pinned", "5", " 1 2"), ("models/later", "latest", " none")]
)
def test_a_model_not_uploaded_yet_is_waited_for_then_staged(endpoint, bucket, tmp_path, prefix, version, found):
    """The first ``pulumi up`` creates the bucket with no model in it (aws.md A5): the init container waits, saying
    what it waits for, and stages the model as soon as it is uploaded."""
    for existing in (1, 2) if found != " none" else ():
        _upload(endpoint, bucket, prefix, existing)
    waiting = _stage(endpoint, bucket, tmp_path, version, prefix=prefix, wait=True)
    try:
        line = waiting.stderr.readline()  # type: ignore[union-attr]
        assert f"waiting for version {version} under {prefix}/ (found:{found})" in line
        assert waiting.poll() is None
        assert _layout(tmp_path) == []
        _upload(endpoint, bucket, prefix, 5)
        assert waiting.wait(timeout=60) == 0
    finally:
        waiting.kill()
    assert _layout(tmp_path) == sorted(f"resnet/5/{n}" for n in SAVED_MODEL)


def test_a_version_that_is_not_a_savedmodel_fails(endpoint, bucket, tmp_path):
    done = _stage(endpoint, bucket, tmp_path, "latest", prefix="models/broken")
    assert done.returncode == 1
    assert "models/broken/3/ is not a SavedModel" in done.stderr


def test_a_vllm_model_directory_is_staged_flat_as_the_one_directory_the_server_loads(endpoint, bucket, tmp_path):
    done = _stage(endpoint, bucket, tmp_path, "latest", "models/qwen", MODEL_LAYOUT="flat", MODEL_FORMAT="huggingface")
    assert done.returncode == 0, done.stderr
    assert _layout(tmp_path) == sorted(f"resnet/{n}" for n in HF_MODEL)
    assert (tmp_path / "models/resnet/config.json").read_text() == "4:config.json"


def test_a_savedmodel_is_not_a_model_directory_for_vllm(endpoint, bucket, tmp_path):
    done = _stage(endpoint, bucket, tmp_path, "latest", MODEL_LAYOUT="flat", MODEL_FORMAT="huggingface")
    assert done.returncode == 1
    assert f"{PREFIX}/2/ is not a Hugging Face model directory (no config.json)" in done.stderr
