"""Checkpoints in the environment's bucket from a training pod, the same code on EKS and ACK.

``CHECKPOINT_URI`` (set by the gpu-cloud TrainingJob) is the job's prefix: ``s3://<bucket>/<prefix>`` on AWS,
``oss://<bucket>/<prefix>`` on Alibaba Cloud. Both are reached through the S3 API with boto3:

* S3: boto3's default credential chain, which includes the container credentials EKS Pod Identity gives the pod
  (docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html).
* OSS: its S3-compatible endpoint (``CHECKPOINT_S3_ENDPOINT``, ``https://s3.oss-<region>-internal.aliyuncs.com``;
  OSS "Use AWS SDKs to access OSS", read 2026-12-03: virtual-hosted addressing, no chunked encoding) with temporary
  credentials of the job's RAM role. ack-pod-identity-webhook gives an RRSA pod ``ALIBABA_CLOUD_ROLE_ARN``,
  ``ALIBABA_CLOUD_OIDC_PROVIDER_ARN`` and ``ALIBABA_CLOUD_OIDC_TOKEN_FILE`` (ACK "Use RRSA to authorize pods to
  access cloud services"); STS ``AssumeRoleWithOIDC`` exchanges the token for an AccessKey pair and a security token
  without a signature (RAM API reference, AssumeRoleWithOIDC, read 2026-12-03) at ``ALIBABA_CLOUD_STS_ENDPOINT``
  (``sts-vpc.<region>.aliyuncs.com``). The credentials are refreshed before they expire, re-reading the token file
  (the kubelet rotates the projected token).

Needs in the image: boto3. Not a dependency of gpu-cloud.
"""

from __future__ import annotations

import io
import json
import os
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import boto3
import botocore.config
import botocore.credentials
import botocore.session

__all__ = ["CheckpointStore", "assume_role_with_oidc"]

STEP_PREFIX = "step-"
"""Checkpoint objects are ``<prefix>/step-<n>.pt``."""

STS_API_VERSION = "2015-04-01"
"""The STS API version of AssumeRoleWithOIDC."""

REFRESH_SECONDS = 600
"""Credentials are renewed this long before they expire."""

Opener = Callable[[str], Any]


def _open(url: str) -> Any:
    return urllib.request.urlopen(url, timeout=30)


def assume_role_with_oidc(environ: Mapping[str, str] = os.environ, opener: Opener = _open) -> dict[str, Any]:
    """STS credentials for the pod's RRSA role: botocore credential metadata (``access_key``, ``secret_key``,
    ``token``, ``expiry_time``)."""
    with open(environ["ALIBABA_CLOUD_OIDC_TOKEN_FILE"], encoding="utf-8") as f:
        token = f.read().strip()
    endpoint = environ["ALIBABA_CLOUD_STS_ENDPOINT"]
    base = endpoint if "://" in endpoint else f"https://{endpoint}"
    query = urllib.parse.urlencode(
        {
            "Action": "AssumeRoleWithOIDC",
            "Version": STS_API_VERSION,
            "Format": "JSON",
            "Timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "RoleArn": environ["ALIBABA_CLOUD_ROLE_ARN"],
            "OIDCProviderArn": environ["ALIBABA_CLOUD_OIDC_PROVIDER_ARN"],
            "OIDCToken": token,
            "RoleSessionName": environ.get("HOSTNAME", "checkpoint")[:64],
        }
    )
    with opener(f"{base.rstrip('/')}/?{query}") as response:
        credentials = json.load(response)["Credentials"]
    return {
        "access_key": credentials["AccessKeyId"],
        "secret_key": credentials["AccessKeySecret"],
        "token": credentials["SecurityToken"],
        "expiry_time": credentials["Expiration"],
    }


class _RrsaProvider(botocore.credentials.CredentialProvider):  # type: ignore[misc]
    """A botocore credential provider of refreshable RRSA credentials."""

    METHOD = "alibaba-rrsa-oidc"

    def __init__(self, environ: Mapping[str, str], opener: Opener) -> None:
        super().__init__()
        self._fetch = lambda: assume_role_with_oidc(environ, opener)

    def load(self) -> botocore.credentials.RefreshableCredentials:
        return botocore.credentials.RefreshableCredentials.create_from_metadata(
            metadata=self._fetch(), refresh_using=self._fetch, method=self.METHOD
        )


class CheckpointStore:
    """The job's checkpoints under ``uri`` (``s3://`` or ``oss://``)."""

    def __init__(self, uri: str, client: Any) -> None:
        parsed = urllib.parse.urlparse(uri)
        self.bucket = parsed.netloc
        self.prefix = parsed.path.strip("/")
        self.client = client

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ, opener: Opener = _open) -> CheckpointStore:
        """The store of ``CHECKPOINT_URI``, with the pod's own credentials."""
        uri = environ["CHECKPOINT_URI"]
        if not uri.startswith("oss://"):
            return cls(uri, boto3.client("s3"))
        session = botocore.session.get_session()
        resolver = session.get_component("credential_provider")
        resolver.insert_before("env", _RrsaProvider(environ, opener))
        client = boto3.session.Session(botocore_session=session).client(
            "s3",
            endpoint_url=environ["CHECKPOINT_S3_ENDPOINT"],
            region_name=environ["CHECKPOINT_REGION"],
            config=botocore.config.Config(
                signature_version="s3v4",
                s3={"addressing_style": environ.get("CHECKPOINT_S3_ADDRESSING", "virtual")},
                # OSS's S3 API takes no aws-chunked payloads with trailing checksums, which boto3 sends by default
                # since 1.36 ("when_supported"); only when an operation requires one.
                request_checksum_calculation="when_required",
                response_checksum_validation="when_required",
            ),
        )
        return cls(uri, client)

    def _key(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else name

    def latest(self) -> str | None:
        """The name of the newest ``step-<n>.pt``, or None."""
        steps: dict[int, str] = {}
        for page in self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self._key(STEP_PREFIX)
        ):
            for item in page.get("Contents", []):
                name = item["Key"].rsplit("/", 1)[-1]
                number = name.removeprefix(STEP_PREFIX).removesuffix(".pt")
                if number.isdigit():
                    steps[int(number)] = name
        return steps[max(steps)] if steps else None

    def save(self, step: int, data: io.BytesIO) -> str:
        """Write ``data`` as the checkpoint of ``step``; return its name. The bucket is versioned: an overwrite keeps
        the old version."""
        name = f"{STEP_PREFIX}{step}.pt"
        data.seek(0)
        self.client.upload_fileobj(data, self.bucket, self._key(name))
        return name

    def load(self, name: str) -> io.BytesIO:
        """The checkpoint ``name``."""
        data = io.BytesIO()
        self.client.download_fileobj(self.bucket, self._key(name), data)
        data.seek(0)
        return data
