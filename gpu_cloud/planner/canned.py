"""Canned answers for data-source calls (invokes), so that a plan needs no cloud account.

Each answer is what the provider would return for a plausible account; values that depend on the region
are derived from the region the call runs in. A data source without a canned answer returns an empty
result and the plan reports it, so a program that depends on it is never silently wrong.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.cloud_limits import ZONE_SEPARATOR, limits

__all__ = ["ACCOUNT_ID", "ALICLOUD_ACCOUNT_ID", "answer"]

ACCOUNT_ID = "123456789012"
"""The AWS account id the plan pretends to run in."""

ALICLOUD_ACCOUNT_ID = "1234567890123456"
"""The Alibaba Cloud account id the plan pretends to run in."""

Answer = Callable[[Mapping[str, Any], str], dict[str, Any]]


def _aws_partition(region: str) -> str:
    return "aws-cn" if region.startswith("cn-") else "aws"


def _zones(cloud: Cloud, region: str) -> list[str]:
    """The zones of ``region``: those the stack config checks accept (components.cloud_limits), or zones a, b and c
    where no zone list was sourced."""
    return list(limits(cloud).zones.get(region, tuple(f"{region}{ZONE_SEPARATOR[cloud]}{z}" for z in "abc")))


def _aws_zones(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    names = _zones(Cloud.AWS, region)
    return {
        "id": region,
        "names": names,
        "zoneIds": [f"{region[:2]}{region.split('-')[1][0]}{region[-1]}-az{i}" for i in range(1, len(names) + 1)],
        "groupNames": [region] * len(names),
        "state": args.get("state", "available"),
    }


def _aws_caller(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    return {
        "id": ACCOUNT_ID,
        "accountId": ACCOUNT_ID,
        "arn": f"arn:{_aws_partition(region)}:iam::{ACCOUNT_ID}:role/gpucloud-plan",
        "userId": "AROAPLANPLANPLANPLAN:gpucloud-plan",
    }


def _aws_partition_answer(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    partition = _aws_partition(region)
    suffix = "amazonaws.com.cn" if partition == "aws-cn" else "amazonaws.com"
    return {"id": partition, "partition": partition, "dnsSuffix": suffix, "reverseDnsPrefix": "com.amazonaws"}


def _aws_region(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    name = args.get("region") or args.get("name") or region
    return {"id": name, "name": name, "region": name, "endpoint": f"ec2.{name}.amazonaws.com", "description": name}


def _aws_ssm_parameter(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    name = str(args.get("name", ""))
    return {
        "id": name,
        "name": name,
        "arn": f"arn:aws:ssm:{region}:{ACCOUNT_ID}:parameter{name}",
        "type": "String",
        "value": "ami-0123456789abcdef0",
        "insecureValue": "ami-0123456789abcdef0",
        "version": 1,
    }


def _aws_ami(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    return {
        "id": "ami-0123456789abcdef0",
        "imageId": "ami-0123456789abcdef0",
        "architecture": "x86_64",
        "rootDeviceName": "/dev/xvda",
    }


def _alicloud_zones(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    ids = _zones(Cloud.ALICLOUD, region)
    return {"id": region, "ids": ids, "zones": [{"id": zone, "localName": zone} for zone in ids]}


def _alicloud_account(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    return {"id": ALICLOUD_ACCOUNT_ID}


def _alicloud_caller(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    return {
        "id": ALICLOUD_ACCOUNT_ID,
        "accountId": ALICLOUD_ACCOUNT_ID,
        "arn": f"acs:ram::{ALICLOUD_ACCOUNT_ID}:role/gpucloud-plan",
        "identityType": "AssumedRoleUser",
    }


def _alicloud_roles(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    # The role a ``^<name>$`` name_regex asks for, as if it exists, with a fixed id derived from its name (RAM role ids
    # are digits); any other filter finds nothing.
    match = re.fullmatch(r"\^([A-Za-z0-9.\\-]+)\$", str(args.get("nameRegex", "")))
    if match is None:
        return {"id": "0", "ids": [], "names": [], "roles": []}
    name = match.group(1).replace("\\", "")
    role_id = str(int(hashlib.sha256(name.encode()).hexdigest()[:15], 16))
    arn = f"acs:ram::{ALICLOUD_ACCOUNT_ID}:role/{name.lower()}"
    role = {"id": role_id, "name": name, "arn": arn, "description": "", "createDate": "", "updateDate": ""}
    return {"id": role_id, "ids": [role_id], "names": [name], "roles": [role], "nameRegex": args["nameRegex"]}


def _alicloud_images(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    image = "aliyun_3_x64_20G_alibase_20260901.vhd"
    return {"id": region, "ids": [image], "images": [{"id": image, "imageId": image, "osType": "linux"}]}


def _alicloud_regions(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    return {"id": region, "ids": [region], "regions": [{"id": region, "regionId": region, "localName": region}]}


def _alicloud_ack_service(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    # As the provider reads it: with enable "On" it opens ACK (or finds it opened), otherwise it opens nothing
    # (aliyun/terraform-provider-alicloud alicloud/data_source_alicloud_ack_service.go, read 2026-12-03).
    opened = args.get("enable") == "On"
    result = (
        {"id": "AckServiceHasBeenOpened", "status": "Opened"}
        if opened
        else {"id": "AckServiceHasNotBeenOpened", "status": ""}
    )
    return {**result, "enable": args.get("enable", "Off"), "type": args.get("type", "")}


def _alicloud_oss_service(args: Mapping[str, Any], region: str) -> dict[str, Any]:
    # As the provider reads it: with enable "On" it calls OpenOssService and reads ORDER.OPEND as "Opened"; otherwise
    # it opens nothing (aliyun/terraform-provider-alicloud@81c43b67 alicloud/data_source_alicloud_oss_service.go:31-54).
    opened = args.get("enable") == "On"
    result = {"id": "OssServicHasBeenOpened", "status": "Opened"} if opened else {"id": "OssServiceHasNotBeenOpened"}
    return {"status": "", **result, "enable": args.get("enable", "Off")}


_ANSWERS: Mapping[str, Answer] = {
    "aws:index/getAvailabilityZones:getAvailabilityZones": _aws_zones,
    "aws:index/getCallerIdentity:getCallerIdentity": _aws_caller,
    "aws:index/getPartition:getPartition": _aws_partition_answer,
    "aws:index/getRegion:getRegion": _aws_region,
    "aws:ssm/getParameter:getParameter": _aws_ssm_parameter,
    "aws:ec2/getAmi:getAmi": _aws_ami,
    "alicloud:index/getZones:getZones": _alicloud_zones,
    "alicloud:index/getAccount:getAccount": _alicloud_account,
    "alicloud:index/getCallerIdentity:getCallerIdentity": _alicloud_caller,
    "alicloud:index/getRegions:getRegions": _alicloud_regions,
    "alicloud:ecs/getImages:getImages": _alicloud_images,
    "alicloud:cs/getAckService:getAckService": _alicloud_ack_service,
    "alicloud:oss/getService:getService": _alicloud_oss_service,
    "alicloud:ram/getRoles:getRoles": _alicloud_roles,
}


def answer(token: str, args: Mapping[str, Any], region: str) -> dict[str, Any] | None:
    """Return the canned result of data source ``token`` called with ``args`` in ``region``.

    Returns None when there is no canned answer for the data source.
    """
    fn = _ANSWERS.get(token)
    return None if fn is None else fn(args, region)
