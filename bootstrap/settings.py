"""The bootstrap config both clouds share, validated before anything is declared: every problem is reported as
``gpu-cloud-bootstrap:path.to.field: what is wrong (got VALUE)`` (ConfigError, exit 2 from ``gpucloud plan``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from ipaddress import IPv4Network
from typing import Any

import pulumi
from pydantic import ValidationError

from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import REQUIRED_TAGS, ConfigError, NetworkSpec, Problem, validation_problems

NAMESPACE = "gpu-cloud-bootstrap"

_ENVIRONMENT = re.compile(r"^[a-z0-9][a-z0-9-]{0,19}$")
"""An environment's stack name, as its CodeBuild project and deployer role names carry it (StackConfig.environment
is a Kubernetes name; 20 characters keep ``gpucloud-deployer-<env>-<bootstrap stack>`` within IAM's 64)."""
_POLICY_ARN = re.compile(r"^arn:aws(-cn|-us-gov)?:iam::(\d{12}|aws):policy/[\w+=,.@/-]+$")
"""An IAM managed policy ARN (IAM User Guide, "IAM identifiers": ARNs)."""

KMS_SOFTWARE_ZONES: dict[str, tuple[str, ...]] = {
    "cn-hangzhou": tuple(f"cn-hangzhou-{z}" for z in "efghijk"),
    "cn-shanghai": tuple(f"cn-shanghai-{z}" for z in "abcdefglmn"),
    "cn-shenzhen": tuple(f"cn-shenzhen-{z}" for z in "bcdef"),
    "cn-heyuan": ("cn-heyuan-a", "cn-heyuan-b"),
    "cn-guangzhou": ("cn-guangzhou-a", "cn-guangzhou-b"),
    "cn-beijing": tuple(f"cn-beijing-{z}" for z in "cdefghijkl"),
}
"""Zones where a KMS software key management instance can be deployed, per region (KMS, "Regions and zones", "KMS
software key management instances", https://www.alibabacloud.com/help/en/kms/product-overview/supported-regions,
last updated Aug 02, 2025, read 2026-12-03; the mainland regions the bootstrap may use). The Alibaba bootstrap puts
its KMS instance in the zones of the first two runner subnets."""


@dataclass(frozen=True)
class BootstrapConfig:
    """One account's bootstrap stack."""

    cloud: Cloud
    """aws or alicloud."""
    region: str
    """The account's bootstrap region (the runner's region: environments peer with it there)."""
    tags: dict[str, str]
    """Tags on every taggable resource; must include environment, owner and cost-center."""
    deployer_role_arns: list[str]
    """Alibaba Cloud: the RAM roles the runner may assume to run ``pulumi up``. AWS: none (the bootstrap creates each
    environment's deployer role, ``environments`` and ``deployer_policy_arns``)."""
    runner_network: NetworkSpec
    """The deploy runner's VPC: every environment peers with it (``deploy.runnerVpcCidr``)."""
    environment_vpc_cidrs: list[IPv4Network]
    """The VPC ranges of the environments the runner deploys (their ``network.vpcCidr``). Alibaba: the runner's
    security group lets it reach their Kubernetes API (TCP 6443) there and nowhere else inside the cloud network;
    required, since a runner that reaches no API deploys nothing. AWS: unused (the runner's HTTPS egress covers
    the EKS API)."""
    environments: list[str]
    """AWS: the environment stacks the runner deploys (``dev``, ``prod`` ...): a deploy project run by the
    environment's own deployer role, and a preview project, each."""
    deployer_policy_arns: list[str]
    """AWS: the managed policies attached to every deployer role: what ``pulumi up`` of an environment creates (the
    organization's deploy policy)."""


def _problem(field: str, message: str, value: Any) -> Problem:
    return Problem(f"{NAMESPACE}:{field}", message, value)


def load() -> BootstrapConfig:
    """Read and check the stack's bootstrap config.

    Raises:
        ConfigError: listing every problem, each naming its full config key and the value found.
    """
    config = pulumi.Config()
    problems: list[Problem] = []
    cloud_text = config.get("cloud") or ""
    cloud = next((c for c in Cloud if c.value == cloud_text), None)
    if cloud is None:
        problems.append(_problem("cloud", f"must be one of {', '.join(c.value for c in Cloud)}", cloud_text))
    region = config.get("region") or ""
    if not region:
        problems.append(_problem("region", "required", region))
    tags = config.get_object("tags") or {}
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        problems.append(_problem("tags", "must map tag names to text", tags))
        tags = {}
    missing = [t for t in REQUIRED_TAGS if t not in tags]
    if missing:
        problems.append(_problem("tags", f"missing required tags {', '.join(missing)}", sorted(tags)))
    deployers = _texts(config, "deployerRoleArns", "must be a list of role ARNs", problems)
    environments = _texts(config, "environments", "must be a list of stack names", problems)
    policies = _texts(config, "deployerPolicyArns", "must be a list of IAM policy ARNs", problems)
    if cloud is Cloud.AWS:
        problems += _aws_deployer_problems(deployers, environments, policies)
    given = config.get_object("environmentVpcCidrs")
    cidrs = _cidrs(given or [], problems)
    if cloud is Cloud.ALICLOUD and not given:
        problems.append(
            _problem("environmentVpcCidrs", "required on alicloud: the runner would reach no environment's API", [])
        )
    network: NetworkSpec | None = None
    try:
        network = NetworkSpec.model_validate(config.get_object("runnerNetwork"))
    except ValidationError as err:
        # The spec's own reading of its errors (nested problems of its checks split out, paths from this key).
        problems += validation_problems(err, f"{NAMESPACE}:runnerNetwork")
    if cloud is Cloud.ALICLOUD and region and network is not None:
        problems += _kms_zone_problems(region, network)
    if problems or cloud is None or network is None:
        raise ConfigError(problems)
    return BootstrapConfig(cloud, region, dict(tags), deployers, network, cidrs, environments, policies)


def _texts(config: pulumi.Config, key: str, message: str, problems: list[Problem]) -> list[str]:
    """The list of non-empty strings at ``key`` (none when absent); anything else is a problem."""
    value = config.get_object(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.append(_problem(key, message, value))
        return []
    return list(value)


def _aws_deployer_problems(deployers: list[str], environments: list[str], policies: list[str]) -> list[Problem]:
    """AWS: the bootstrap creates one deployer role per environment, with the deployer policies attached."""
    problems = []
    if deployers:
        problems.append(
            _problem(
                "deployerRoleArns",
                "aws creates each environment's deployer role: list the stacks in environments and the deploy "
                "permissions in deployerPolicyArns instead",
                deployers,
            )
        )
    if not environments:
        problems.append(_problem("environments", "required on aws: the runner would deploy no stack", environments))
    problems += [
        _problem(f"environments.{i}", "must be a stack name (letters, digits, '-', at most 20)", name)
        for i, name in enumerate(environments)
        if not _ENVIRONMENT.match(name)
    ]
    if len(set(environments)) != len(environments):
        problems.append(_problem("environments", "names an environment twice", environments))
    if not policies:
        problems.append(
            _problem("deployerPolicyArns", "required on aws: a deployer role could create nothing", policies)
        )
    problems += [
        _problem(
            f"deployerPolicyArns.{i}", "must be an IAM policy ARN (arn:<partition>:iam::<account>:policy/...)", arn
        )
        for i, arn in enumerate(policies)
        if not _POLICY_ARN.match(arn)
    ]
    return problems


def _kms_zone_problems(region: str, network: NetworkSpec) -> list[Problem]:
    """The KMS instance's two zones (those of the first two runner subnets) must differ and host KMS instances."""
    supported = KMS_SOFTWARE_ZONES.get(region)
    if supported is None:
        return [
            _problem(
                "region",
                f"the KMS software instance zones read so far are those of {', '.join(KMS_SOFTWARE_ZONES)} "
                "(add the region's from KMS 'Regions and zones' to bootstrap/settings.py)",
                region,
            )
        ]
    zones = [subnet.zone for subnet in network.private_subnets[:2]]
    problems = [
        _problem(
            f"runnerNetwork.privateSubnets.{i}.zone",
            f"no KMS software instance there; one of {', '.join(supported)}",
            zone,
        )
        for i, zone in enumerate(zones)
        if zone not in supported
    ]
    if zones[0] == zones[1]:
        problems.append(
            _problem(
                "runnerNetwork.privateSubnets.1.zone",
                "the KMS instance needs two zones: must differ from privateSubnets.0.zone",
                zones[1],
            )
        )
    return problems


def _cidrs(value: Any, problems: list[Problem]) -> list[IPv4Network]:
    """The IPv4 ranges listed in ``environmentVpcCidrs``; each one that is not a range is a problem."""
    if not isinstance(value, list):
        problems.append(_problem("environmentVpcCidrs", "must be a list of IPv4 CIDR ranges", value))
        return []
    cidrs: list[IPv4Network] = []
    for i, item in enumerate(value):
        try:
            cidrs.append(IPv4Network(item))
        except (TypeError, ValueError):
            problems.append(_problem(f"environmentVpcCidrs.{i}", "must be an IPv4 CIDR range", item))
    return cidrs
