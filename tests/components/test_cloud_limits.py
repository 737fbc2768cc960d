"""The cloud facts in cloud_limits.json agree with the provider data they were read from (installed botocore)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import botocore

from gpu_cloud.components.catalog import Cloud, instance_types
from gpu_cloud.components.cloud_limits import ZONE_SEPARATOR, limits
from gpu_cloud.components.k8s.addons import MONITORING_NAMESPACE, SYSTEM_NAMESPACE
from gpu_cloud.components.k8s.queueing import JOBSET_NAMESPACE, KUEUE_NAMESPACE
from gpu_cloud.components.spec import DEFAULT_SYSTEM_INSTANCE_TYPES
from gpu_cloud.components.spec.refusals import SYSTEM_NAMESPACES
from gpu_cloud.planner import canned

BOTOCORE_DATA = Path(botocore.__file__).parent / "data"


def test_aws_regions_are_botocores_regions_of_the_accepted_partitions() -> None:
    endpoints = json.loads((BOTOCORE_DATA / "endpoints.json").read_text())
    regions = {
        region
        for partition in endpoints["partitions"]
        if partition["partition"] in ("aws", "aws-cn", "aws-us-gov")
        for region in partition["regions"]
    }
    assert limits(Cloud.AWS).regions == regions


def test_aws_log_retention_values_are_the_cloudwatch_logs_models() -> None:
    model = json.loads(gzip.decompress((BOTOCORE_DATA / "logs/2014-03-28/service-2.json.gz").read_bytes()))
    documented = model["shapes"]["Days"]["documentation"].split("Possible values are:")[1].split(".")[0]
    assert limits(Cloud.AWS).log_retention_days == tuple(int(d) for d in re.findall(r"\d+", documented))


def test_zones_are_named_for_their_region() -> None:
    for cloud in Cloud:
        for region, zones in limits(cloud).zones.items():
            assert region in limits(cloud).regions
            assert all(re.fullmatch(re.escape(region + ZONE_SEPARATOR[cloud]) + "[a-z]", z) for z in zones), zones


def test_the_add_on_namespaces_are_system_namespaces() -> None:
    assert {MONITORING_NAMESPACE, KUEUE_NAMESPACE, JOBSET_NAMESPACE} <= SYSTEM_NAMESPACES
    assert SYSTEM_NAMESPACE.startswith("kube-")


def test_the_planners_canned_zones_are_the_zones_the_config_checks_accept() -> None:
    tokens = {
        Cloud.AWS: ("aws:index/getAvailabilityZones:getAvailabilityZones", "names"),
        Cloud.ALICLOUD: ("alicloud:index/getZones:getZones", "ids"),
    }
    for cloud, (token, field) in tokens.items():
        for region in limits(cloud).regions:
            found = canned.answer(token, {}, region)
            assert found is not None
            listed = limits(cloud).zones.get(region)
            if listed is not None:
                assert tuple(found[field]) == listed
            else:
                assert found[field] == [f"{region}{ZONE_SEPARATOR[cloud]}{z}" for z in "abc"]


def test_aws_instance_types_are_the_ec2_models() -> None:
    model = json.loads(gzip.decompress((BOTOCORE_DATA / "ec2/2016-11-15/service-2.json.gz").read_bytes()))
    assert limits(Cloud.AWS).instance_types == frozenset(model["shapes"]["InstanceType"]["enum"])
    assert limits(Cloud.ALICLOUD).instance_types is None


def test_every_aws_type_the_project_runs_has_its_vpc_cni_addresses() -> None:
    """The catalog's GPU types and the default system types: the subnet check counts each node's addresses."""
    running = {t.name for t in instance_types(Cloud.AWS)} | set(DEFAULT_SYSTEM_INSTANCE_TYPES[Cloud.AWS])
    assert running <= set(limits(Cloud.AWS).node_addresses)
    assert running <= limits(Cloud.AWS).instance_types
    assert limits(Cloud.ALICLOUD).node_addresses == {}


def test_subnet_reservations_are_the_documented_counts() -> None:
    """AWS keeps the first four and the last address of a subnet (Amazon VPC User Guide), Alibaba Cloud the first
    and the last three of a vSwitch (VPC API CreateVSwitchCidrReservation), as cloud_limits.json cites."""
    assert {cloud: limits(cloud).cidr.reserved_per_subnet for cloud in Cloud} == {Cloud.AWS: 5, Cloud.ALICLOUD: 4}
