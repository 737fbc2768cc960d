"""The deploy runner's credentials for the OSS state backend, as an AWS SDK ``credential_process``.

The Pulumi CLI reaches its OSS backend through OSS's S3 API with the AWS SDK for Go (gocloud.dev s3blob), which cannot
read an Alibaba Cloud instance role. The runner script (alicloud_runner.sh) names this program as the
``credential_process`` of the AWS profile it uses: the SDK runs it whenever it needs credentials and caches them until
their ``Expiration`` ("Sourcing credentials with an external process": the output is JSON with ``Version`` 1,
``AccessKeyId``, ``SecretAccessKey``, ``SessionToken`` and ``Expiration`` in ISO 8601, AWS SDKs and Tools Reference
Guide, https://docs.aws.amazon.com/sdkref/latest/guide/feature-process-credentials.html, read 2026-12-03).

It reads the instance RAM role's STS credentials from the ECS metadata service in hardened mode: a token from ``PUT
/latest/api/token`` with ``X-aliyun-ecs-metadata-token-ttl-seconds``, then ``GET
/latest/meta-data/ram/security-credentials/<role>`` with ``X-aliyun-ecs-metadata-token``, answered with
``AccessKeyId``, ``AccessKeySecret``, ``SecurityToken``, ``Expiration`` and ``Code`` "Success" (ECS, "Instance
metadata", https://www.alibabacloud.com/help/en/ecs/user-guide/manage-instance-metadata, and "Instance RAM roles",
read 2026-12-03; the runner requires tokens: ``http_tokens`` "required"). OSS's S3 API takes a RAM identity's
AccessKey pair (OSS, "Access OSS using an AWS SDK", https://www.alibabacloud.com/help/en/oss/developer-reference/
use-amazon-s3-sdks-to-access-oss, updated Mar 20, 2026); that it takes an STS token as the SDK's session token is not
stated there and is read from practice (flexcompute/Flow360#2019, merged 2026-04-24, points an S3 client with STS
session credentials at OSS): the first ``pulumi login`` on the runner is where this would show.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from collections.abc import Mapping
from typing import Any

METADATA = os.environ.get("GPUCLOUD_METADATA_URL", "http://100.100.100.200")
"""The ECS metadata service (the runner's egress admits TCP 80 to it, bootstrap/alicloud_account.py). Tests point it
at a local server."""

TOKEN_TTL_SECONDS = "300"
"""The metadata token lives five minutes: it is used once, right away ("1 to 21600" seconds)."""


def aws_process_credentials(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The AWS ``credential_process`` document of a metadata credentials answer; ValueError unless it succeeded."""
    if answer.get("Code") != "Success":
        raise ValueError(f"the metadata service did not return credentials (Code {answer.get('Code')!r})")
    return {
        "Version": 1,
        "AccessKeyId": answer["AccessKeyId"],
        "SecretAccessKey": answer["AccessKeySecret"],
        "SessionToken": answer["SecurityToken"],
        "Expiration": answer["Expiration"],
    }


def instance_role_credentials(role: str) -> dict[str, Any]:
    """The metadata service's answer for ``role`` (hardened mode), as JSON; no proxy is ever used."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    token_request = urllib.request.Request(
        f"{METADATA}/latest/api/token",
        method="PUT",
        headers={"X-aliyun-ecs-metadata-token-ttl-seconds": TOKEN_TTL_SECONDS},
    )
    with opener.open(token_request, timeout=5) as response:
        token = response.read().decode()
    request = urllib.request.Request(
        f"{METADATA}/latest/meta-data/ram/security-credentials/{role}",
        headers={"X-aliyun-ecs-metadata-token": token},
    )
    with opener.open(request, timeout=5) as response:
        answer: dict[str, Any] = json.load(response)
    return answer


def main(argv: list[str]) -> int:
    """Print the credentials of the instance role ``argv[1]``; exit 2 with a message on stderr when there are none."""
    if len(argv) != 2:
        print("usage: alicloud_runner_credentials.py <instance RAM role name>", file=sys.stderr)
        return 2
    try:
        document = aws_process_credentials(instance_role_credentials(argv[1]))
    except (OSError, ValueError, KeyError) as err:
        print(f"alicloud_runner_credentials: role {argv[1]}: {err}", file=sys.stderr)
        return 2
    json.dump(document, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
