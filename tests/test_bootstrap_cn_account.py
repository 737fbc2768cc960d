"""The Alibaba Cloud bootstrap (stack shared-cn) prepares a fresh account: ACK activated, the service roles ACK, OOS
and ECS disk encryption assume (trust policy and system policy as Alibaba's Terraform guide gives them), the Auto
Scaling service-linked role; and the runner's security group lets it reach only what a deployment needs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.files import load_yaml
from gpu_cloud.planner.model import PlanError, RecordedResource
from gpu_cloud.planner.project import load_project, load_stack

ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = ROOT / "bootstrap"

CS = "cs.aliyuncs.com"
EXPECTED_ROLES = {
    # role: (trusted service, system policy), from Alibaba's "Use Terraform to activate ACK and assign service roles
    # to ACK" (appendix), the ECS encryption permissions page and the ECS RAM introduction.
    "AliyunCSDefaultRole": (CS, "AliyunCSDefaultRolePolicy"),
    "AliyunCSManagedKubernetesRole": (CS, "AliyunCSManagedKubernetesRolePolicy"),
    "AliyunCSServerlessKubernetesRole": (CS, "AliyunCSServerlessKubernetesRolePolicy"),
    "AliyunCSManagedNetworkRole": (CS, "AliyunCSManagedNetworkRolePolicy"),
    "AliyunCSManagedCsiRole": (CS, "AliyunCSManagedCsiRolePolicy"),
    "AliyunCSManagedCsiPluginRole": (CS, "AliyunCSManagedCsiPluginRolePolicy"),
    "AliyunCSManagedCsiProvisionerRole": (CS, "AliyunCSManagedCsiProvisionerRolePolicy"),
    "AliyunCSKubernetesAuditRole": (CS, "AliyunCSKubernetesAuditRolePolicy"),
    "AliyunCSManagedLogRole": (CS, "AliyunCSManagedLogRolePolicy"),
    "AliyunCSManagedCmsRole": (CS, "AliyunCSManagedCmsRolePolicy"),
    "AliyunCSManagedArmsRole": (CS, "AliyunCSManagedArmsRolePolicy"),
    "AliyunCISDefaultRole": (CS, "AliyunCISDefaultRolePolicy"),
    "AliyunCSManagedSecurityRole": (CS, "AliyunCSManagedSecurityRolePolicy"),
    "AliyunCSManagedNlcRole": (CS, "AliyunCSManagedNlcRolePolicy"),
    "AliyunCSManagedAutoScalerRole": (CS, "AliyunCSManagedAutoScalerRolePolicy"),
    "AliyunOOSLifecycleHook4CSRole": ("oos.aliyuncs.com", "AliyunOOSLifecycleHook4CSRolePolicy"),
    "AliyunECSDiskEncryptDefaultRole": ("ecs.aliyuncs.com", "AliyunECSDiskEncryptRolePolicy"),
}


def _plan(config: dict[str, object] | None = None) -> Plan:
    project = load_project(BOOTSTRAP)
    stack = load_stack(project, "shared-cn")
    if config is not None:
        stack = type(stack)(**{**vars(stack), "config": config})
    return run_program(project, stack)


@pytest.fixture(scope="module")
def plan() -> Plan:
    return _plan()


def _of_type(plan: Plan, type_: str) -> list[RecordedResource]:
    return [r for r in plan.resources if r.type == type_]


def test_every_service_role_trusts_only_its_service_and_carries_its_system_policy(plan: Plan) -> None:
    roles = {r.inputs["roleName"]: r for r in _of_type(plan, "alicloud:ram/role:Role") if r.name != "runner-role"}
    attachments = {
        r.inputs["roleName"]: r
        for r in _of_type(plan, "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment")
        if r.name.startswith("service-role-")
    }
    assert set(roles) == set(attachments) == set(EXPECTED_ROLES)
    for name, (service, policy) in EXPECTED_ROLES.items():
        trust = json.loads(roles[name].inputs["assumeRolePolicyDocument"])
        assert trust == {
            "Statement": [{"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": [service]}}],
            "Version": "1",
        }, name
        attachment = attachments[name].inputs
        assert (attachment["policyName"], attachment["policyType"]) == (policy, "System"), name


def test_account_wide_roles_outlive_the_bootstrap(plan: Plan) -> None:
    kept = [
        r
        for r in plan.resources
        if r.name.startswith(("service-role-", "autoscaling-service-role")) and r.type != "pulumi:providers:alicloud"
    ]
    assert len(kept) == 2 * len(EXPECTED_ROLES) + 1
    assert all(r.retain_on_delete for r in kept)


def test_ack_is_activated_for_pro_managed_clusters(plan: Plan) -> None:
    # The canned answer reads the call as the provider does: "Opened" only when enable is "On".
    assert "alicloud:cs/getAckService:getAckService" in plan.canned_answers
    assert plan.outputs["ackServiceStatus"] == "Opened"


def test_oss_is_activated_before_the_state_bucket_is_declared(plan: Plan) -> None:
    # A plain invoke: the program waits for OpenOssService before it declares anything after it.
    assert "alicloud:oss/getService:getService" in plan.canned_answers
    assert plan.outputs["ossServiceStatus"] == "Opened"


def test_auto_scaling_is_activated_by_its_service_linked_role(plan: Plan) -> None:
    [role] = _of_type(plan, "alicloud:resourcemanager/serviceLinkedRole:ServiceLinkedRole")
    assert role.inputs == {"serviceName": "ess.aliyuncs.com"}


def test_the_runner_egress_is_the_api_dns_metadata_ntp_and_https_and_everything_else_is_dropped(plan: Plan) -> None:
    prod_cn = load_yaml(ROOT / "stacks" / "Pulumi.prod-cn.yaml")["config"]
    rules = _of_type(plan, "alicloud:ecs/securityGroupRule:SecurityGroupRule")
    assert all((r.inputs["type"], r.inputs["nicType"]) == ("egress", "intranet") for r in rules)
    accepted = {
        (r.inputs["ipProtocol"], r.inputs["portRange"], r.inputs["cidrIp"])
        for r in rules
        if r.inputs["policy"] == "accept"
    }
    assert accepted == {
        ("tcp", "6443/6443", prod_cn["gpu-cloud:network"]["vpcCidr"]),
        ("udp", "53/53", "100.100.2.136/32"),
        ("tcp", "53/53", "100.100.2.136/32"),
        ("udp", "53/53", "100.100.2.138/32"),
        ("tcp", "53/53", "100.100.2.138/32"),
        ("tcp", "80/80", "100.100.100.200/32"),
        ("udp", "123/123", "100.100.61.88/32"),
        ("tcp", "443/443", "0.0.0.0/0"),
    }
    [deny] = [r for r in rules if r.inputs["policy"] == "drop"]
    assert (deny.inputs["ipProtocol"], deny.inputs["portRange"], deny.inputs["cidrIp"]) == ("all", "-1/-1", "0.0.0.0/0")
    # Priority 1 is the highest: every accept rule is above the drop rule, which is the lowest (100).
    assert deny.inputs["priority"] == 100
    assert {r.inputs["priority"] for r in rules if r is not deny} == {1}


def test_deploy_md_lists_every_service_role_with_its_import_commands() -> None:
    doc = (ROOT / "docs" / "deploy.md").read_text()
    for name, (_, policy) in EXPECTED_ROLES.items():
        assert f"{name} {policy}" in doc, name
    assert re.search(r"pulumi import alicloud:ram/role:Role \"service-role-\$role\" \"\$role\"", doc)
    assert "pulumi import alicloud:resourcemanager/serviceLinkedRole:ServiceLinkedRole autoscaling-service-role" in doc


@pytest.mark.parametrize(
    ("cidrs", "message"),
    [
        (None, r"gpu-cloud-bootstrap:environmentVpcCidrs: required on alicloud: the runner would reach no"),
        (["10.30.0.0/16", "10.30.0.1/16"], r"gpu-cloud-bootstrap:environmentVpcCidrs\.1: must be an IPv4 CIDR range"),
        ("10.30.0.0/16", r"gpu-cloud-bootstrap:environmentVpcCidrs: must be a list of IPv4 CIDR ranges"),
    ],
)
def test_bad_environment_ranges_name_the_field_and_value(cidrs: object, message: str) -> None:
    config = dict(load_stack(load_project(BOOTSTRAP), "shared-cn").config)
    config.pop("gpu-cloud-bootstrap:environmentVpcCidrs")
    if cidrs is not None:
        config["gpu-cloud-bootstrap:environmentVpcCidrs"] = json.dumps(cidrs)
    with pytest.raises(PlanError, match=message):
        _plan(config)


def test_a_given_range_that_is_not_one_is_reported_once_not_as_missing() -> None:
    config = dict(load_stack(load_project(BOOTSTRAP), "shared-cn").config)
    config["gpu-cloud-bootstrap:environmentVpcCidrs"] = json.dumps(["10.30.0.1/16"])
    with pytest.raises(PlanError) as err:
        _plan(config)
    assert "environmentVpcCidrs.0: must be an IPv4 CIDR range (got 10.30.0.1/16)" in str(err.value)
    assert "required" not in str(err.value)


@pytest.mark.parametrize(
    ("zones", "message"),
    [
        (
            ["cn-hangzhou-b", "cn-hangzhou-j"],
            r"gpu-cloud-bootstrap:runnerNetwork.privateSubnets.0.zone: no KMS software instance there; one of "
            r"cn-hangzhou-e, .*, cn-hangzhou-k \(got cn-hangzhou-b\)",
        ),
        (  # two zones in the network, but the KMS instance takes the first two subnets
            ["cn-hangzhou-k", "cn-hangzhou-k", "cn-hangzhou-j"],
            r"gpu-cloud-bootstrap:runnerNetwork.privateSubnets.1.zone: the KMS instance needs two zones",
        ),
    ],
)
def test_the_kms_instance_zones_must_be_two_that_host_kms_software_instances(zones: list[str], message: str) -> None:
    config = dict(load_stack(load_project(BOOTSTRAP), "shared-cn").config)
    network = json.loads(config["gpu-cloud-bootstrap:runnerNetwork"])
    network["privateSubnets"] = [{"zone": zone, "cidr": f"10.251.0.{64 * i}/26"} for i, zone in enumerate(zones)]
    config["gpu-cloud-bootstrap:runnerNetwork"] = json.dumps(network)
    with pytest.raises(PlanError, match=message):
        _plan(config)


def test_the_shipped_kms_zones_host_kms_software_instances(plan: Plan) -> None:
    [instance] = _of_type(plan, "alicloud:kms/instance:Instance")
    assert set(instance.inputs["zoneIds"]) <= {f"cn-hangzhou-{z}" for z in "efghijk"}  # KMS "Regions and zones"
