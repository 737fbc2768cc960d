"""The Alibaba Cloud bootstrap (stack shared-cn): the KMS instance prod-cn's key lives in and the deploy runner
prod-cn peers with (the account's prerequisites and the runner's egress: test_bootstrap_cn_account.py); and the
canned outputs of both bootstrap stacks are what their plans export."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from gpu_cloud.planner.cli import POLICY_PACK
from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.files import load_yaml
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.policy import run_policy_pack
from gpu_cloud.planner.project import load_project, load_stack

ROOT = Path(__file__).resolve().parent.parent
BOOTSTRAP = ROOT / "bootstrap"
UNKNOWN = "[unknown]"


def _plan(stack: str) -> Plan:
    project = load_project(BOOTSTRAP)
    return run_program(project, load_stack(project, stack))


@pytest.fixture(scope="module")
def plan() -> Plan:
    return _plan("shared-cn")


def test_it_creates_exactly_the_runner_network_kms_instance_and_runner(plan: Plan) -> None:
    assert Counter(r.type for r in plan.resources if r.custom) == {
        "pulumi:providers:alicloud": 1,
        "alicloud:vpc/network:Network": 1,
        "alicloud:vpc/switch:Switch": 2,
        "alicloud:vpc/natGateway:NatGateway": 1,
        "alicloud:ecs/eipAddress:EipAddress": 1,
        "alicloud:ecs/eipAssociation:EipAssociation": 1,
        "alicloud:vpc/snatEntry:SnatEntry": 2,
        "alicloud:kms/instance:Instance": 1,
        "alicloud:ecs/securityGroup:SecurityGroup": 1,
        "alicloud:ecs/securityGroupRule:SecurityGroupRule": 9,  # API, 2 x DNS udp/tcp, metadata, NTP, HTTPS, deny
        "alicloud:ram/role:Role": 1 + 17,  # the runner's and the account's service roles
        "alicloud:ram/policy:Policy": 1,
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": 1 + 17,
        "alicloud:resourcemanager/serviceLinkedRole:ServiceLinkedRole": 1,
        "alicloud:ecs/instance:Instance": 1,
        "alicloud:ecs/ramRoleAttachment:RamRoleAttachment": 1,
    }


def test_the_kms_instance_is_a_protected_software_instance_across_the_runner_zones(plan: Plan) -> None:
    [instance] = [r for r in plan.resources if r.type == "alicloud:kms/instance:Instance"]
    assert (instance.inputs["productVersion"], instance.inputs["paymentType"]) == ("3", "PayAsYouGo")
    assert instance.inputs["zoneIds"] == ["cn-hangzhou-k", "cn-hangzhou-j"]
    assert len(instance.inputs["vswitchIds"]) == 2
    assert (instance.protect, instance.retain_on_delete, instance.inputs["deletionProtection"]) == (True, True, True)


def test_the_runner_has_no_public_ip_and_the_only_eip_is_the_nats(plan: Plan) -> None:
    [runner] = [r for r in plan.resources if r.type == "alicloud:ecs/instance:Instance"]
    [association] = [r for r in plan.resources if r.type == "alicloud:ecs/eipAssociation:EipAssociation"]
    rules = [r for r in plan.resources if r.type == "alicloud:ecs/securityGroupRule:SecurityGroupRule"]
    assert runner.inputs["internetMaxBandwidthOut"] == 0
    assert (runner.inputs["systemDiskEncrypted"], runner.inputs["httpTokens"]) == (True, "required")
    assert association.inputs["instanceType"] == "Nat"
    assert {r.inputs["type"] for r in rules} == {"egress"}  # nothing inbound: Cloud Assistant needs no open port


def test_the_runner_role_may_only_assume_the_deployer_roles(plan: Plan) -> None:
    [trust] = [r for r in plan.resources if r.name == "runner-role"]
    [policy] = [r for r in plan.resources if r.type == "alicloud:ram/policy:Policy"]
    assert json.loads(trust.inputs["assumeRolePolicyDocument"])["Statement"][0]["Principal"] == {
        "Service": ["ecs.aliyuncs.com"]
    }
    assert json.loads(policy.inputs["policyDocument"])["Statement"] == [
        {
            "Effect": "Allow",
            "Action": "sts:AssumeRole",
            "Resource": ["acs:ram::1234567890123456:role/ml-platform-deployer"],
        }
    ]


def test_the_runner_vpc_is_the_range_prod_cn_admits_on_6443(plan: Plan) -> None:
    prod_cn = load_yaml(ROOT / "stacks" / "Pulumi.prod-cn.yaml")["config"]
    [vpc] = [r for r in plan.resources if r.type == "alicloud:vpc/network:Network"]
    assert vpc.inputs["cidrBlock"] == prod_cn["gpu-cloud:deploy"]["runnerVpcCidr"] == "10.251.0.0/24"
    assert plan.outputs["region"] == prod_cn["gpu-cloud:region"]


def test_the_policy_pack_finds_nothing(plan: Plan) -> None:
    report = run_policy_pack(POLICY_PACK, plan.resources, project=plan.project, stack=plan.stack)
    assert report.violations == ()


def test_bad_bootstrap_config_names_the_field_and_value() -> None:
    project = load_project(BOOTSTRAP)
    stack = load_stack(project, "shared-cn")
    bad = dict(stack.config, **{"gpu-cloud-bootstrap:cloud": "gcp"})
    with pytest.raises(PlanError, match=r"gpu-cloud-bootstrap:cloud: must be one of aws, alicloud \(got gcp\)"):
        run_program(project, type(stack)(**{**vars(stack), "config": bad}))
