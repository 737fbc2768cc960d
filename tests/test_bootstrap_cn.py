"""The Alibaba Cloud bootstrap (stack shared-cn): the KMS instance prod-cn's key lives in and the deploy runner
prod-cn peers with (the account's prerequisites and the runner's egress: test_bootstrap_cn_account.py); and the
canned outputs of both bootstrap stacks are what their plans export."""

from __future__ import annotations

import base64
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gpu_cloud.components import bootstrap_facts as facts
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
        "alicloud:kms/key:Key": 1,  # the state key
        "alicloud:kms/alias:Alias": 1,
        "alicloud:kms/secret:Secret": 1,  # the passphrase of the environments' secrets
        "alicloud:oss/bucket:Bucket": 1,  # the state bucket and its settings
        "alicloud:oss/bucketAcl:BucketAcl": 1,
        "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig": 1,
        "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock": 1,
        "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption": 1,
        "alicloud:oss/bucketVersioning:BucketVersioning": 1,
        "alicloud:oos/parameter:Parameter": 6,  # the facts (components.bootstrap_facts)
        "alicloud:ecs/securityGroup:SecurityGroup": 1,
        "alicloud:ecs/securityGroupRule:SecurityGroupRule": 9,  # API, 2 x DNS udp/tcp, metadata, NTP, HTTPS, deny
        "alicloud:ram/role:Role": 1 + 17,  # the runner's and the account's service roles
        "alicloud:ram/policy:Policy": 2,  # the runner's; the facts-read policy of the deployer roles
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": 1 + 17 + 1,  # runner, service roles, deployer
        "alicloud:resourcemanager/serviceLinkedRole:ServiceLinkedRole": 1,
        "alicloud:ecs/instance:Instance": 1,
        "alicloud:ecs/ramRoleAttachment:RamRoleAttachment": 1,
        "alicloud:ecs/command:Command": 1,  # the runner's command (alicloud_runner.sh)
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


ACCOUNT = "1234567890123456"
STATE_BUCKET = f"gpucloud-state-shared-cn-{ACCOUNT}"


def _named(plan: Plan, name: str) -> Any:
    [found] = [r for r in plan.resources if r.name == name]
    return found


def test_the_runner_role_may_assume_the_deployers_and_reach_exactly_the_state_source_key_and_passphrase(
    plan: Plan,
) -> None:
    trust = _named(plan, "runner-role")
    assert json.loads(trust.inputs["assumeRolePolicyDocument"])["Statement"][0]["Principal"] == {
        "Service": ["ecs.aliyuncs.com"]
    }
    bucket = f"acs:oss:*:{ACCOUNT}:{STATE_BUCKET}"
    assert json.loads(_named(plan, "runner-policy").inputs["policyDocument"])["Statement"] == [
        {"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": [f"acs:ram::{ACCOUNT}:role/ml-platform-deployer"]},
        {
            "Effect": "Allow",
            "Action": ["oss:ListObjects"],
            "Resource": [bucket],
            "Condition": {"StringLike": {"oss:Prefix": [".pulumi/*"]}},
        },
        {
            "Effect": "Allow",
            "Action": [
                "oss:GetObject",
                "oss:PutObject",
                "oss:DeleteObject",
                "oss:AbortMultipartUpload",
                "oss:ListParts",
            ],
            "Resource": [f"{bucket}/.pulumi/*"],
        },
        {"Effect": "Allow", "Action": ["oss:GetObject"], "Resource": [f"{bucket}/deploy/*"]},
        {
            "Effect": "Allow",
            "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
            "Resource": [f"acs:kms:cn-hangzhou:{ACCOUNT}:key/*"],
            "Condition": {"StringEquals": {"kms:tag/gpucloud-key": "alias/gpucloud-pulumi-state-shared-cn"}},
        },
        {
            "Effect": "Allow",
            "Action": ["kms:GetSecretValue"],
            "Resource": [f"acs:kms:cn-hangzhou:{ACCOUNT}:secret/gpucloud-pulumi-passphrase-shared-cn"],
        },
    ]
    attachment = _named(plan, "runner-policy-attachment")
    assert attachment.property_dependencies["roleName"] == (trust.urn,)


def test_the_state_bucket_is_private_versioned_tls13_and_encrypted_with_the_state_key_in_the_kms_instance(
    plan: Plan,
) -> None:
    bucket = _named(plan, "state-bucket")
    assert bucket.inputs["bucket"] == STATE_BUCKET == plan.outputs["stateBucket"]
    assert (bucket.protect, bucket.retain_on_delete) == (True, True)
    key = _named(plan, "state-key-key")
    instance = _named(plan, "kms-instance")
    assert key.property_dependencies["dkmsInstanceId"] == (instance.urn,)
    assert key.inputs["tags"]["gpucloud-key"] == "alias/gpucloud-pulumi-state-shared-cn"
    sse = _named(plan, "state-encryption")
    assert (sse.inputs["sseAlgorithm"], sse.property_dependencies["kmsMasterKeyId"]) == ("KMS", (key.urn,))
    assert _named(plan, "state-https").inputs["tlsVersions"] == ["TLSv1.3"]
    assert _named(plan, "state-versioning").inputs["status"] == "Enabled"
    assert _named(plan, "state-acl").inputs["acl"] == "private"


def test_the_passphrase_is_a_kms_secret_under_the_state_key_kept_when_the_bootstrap_goes(plan: Plan) -> None:
    secret = _named(plan, "state-passphrase")
    assert secret.inputs["secretName"] == plan.outputs["passphraseSecretName"]
    assert secret.inputs["secretData"] == "[secret]"
    assert secret.property_dependencies["encryptionKeyId"] == (_named(plan, "state-key-key").urn,)
    assert secret.property_dependencies["dkmsInstanceId"] == (_named(plan, "kms-instance").urn,)
    assert (secret.protect, secret.retain_on_delete) == (True, True)


def test_the_backend_is_the_state_bucket_through_the_oss_s3_api(plan: Plan) -> None:
    assert plan.outputs["backendUrl"] == (
        f"s3://{STATE_BUCKET}?endpoint=https://s3.oss-cn-hangzhou-internal.aliyuncs.com&region=cn-hangzhou"
        "&request_checksum_calculation=when_required&response_checksum_validation=when_required"
    )
    assert plan.outputs["secretsProvider"] == "passphrase"


def test_the_facts_are_published_under_the_bootstrap_facts_names(plan: Plan) -> None:
    parameters = {r.inputs["parameterName"]: r for r in plan.resources if r.type == "alicloud:oos/parameter:Parameter"}
    assert set(parameters) == {
        facts.RUNNER_VPC_ID,
        facts.RUNNER_VPC_CIDR,
        facts.RUNNER_ROUTE_TABLE_IDS,
        facts.RUNNER_SECURITY_GROUP_ID,
        facts.KMS_INSTANCE_ID,
        facts.DEPLOYER_ROLE_ARNS,
    }
    assert {name: p.inputs["type"] for name, p in parameters.items()} == {
        facts.RUNNER_VPC_ID: "String",
        facts.RUNNER_VPC_CIDR: "String",
        facts.RUNNER_ROUTE_TABLE_IDS: "StringList",
        facts.RUNNER_SECURITY_GROUP_ID: "String",
        facts.KMS_INSTANCE_ID: "String",
        facts.DEPLOYER_ROLE_ARNS: "StringList",
    }
    assert parameters[facts.RUNNER_VPC_CIDR].inputs["value"] == "10.251.0.0/24"
    assert parameters[facts.DEPLOYER_ROLE_ARNS].inputs["value"] == f"acs:ram::{ACCOUNT}:role/ml-platform-deployer"
    assert parameters[facts.KMS_INSTANCE_ID].property_dependencies["value"] == (_named(plan, "kms-instance").urn,)
    assert parameters[facts.RUNNER_SECURITY_GROUP_ID].property_dependencies["value"] == (_named(plan, "runner-sg").urn,)


def test_each_deployer_role_may_read_exactly_the_facts(plan: Plan) -> None:
    policy = _named(plan, "facts-read-policy")
    statements = json.loads(policy.inputs["policyDocument"])["Statement"]
    assert statements[0] == {
        "Effect": "Allow",
        "Action": ["oos:ListParameters"],
        "Resource": [f"acs:oos:cn-hangzhou:{ACCOUNT}:parameter/*"],
    }
    assert statements[1]["Action"] == ["oos:GetParameter", "oos:GetParameters"]
    assert f"acs:oos:cn-hangzhou:{ACCOUNT}:parameter/gpucloud/bootstrap/runner-vpc-id" in statements[1]["Resource"]
    assert len(statements[1]["Resource"]) == 2 * 6  # each name with and without its leading "/"
    attachment = _named(plan, "facts-read-ml-platform-deployer")
    assert attachment.inputs["roleName"] == "ml-platform-deployer"
    assert attachment.property_dependencies["policyName"] == (policy.urn,)


def test_the_runner_command_is_the_script_with_the_bootstraps_values_and_four_invocation_parameters(
    plan: Plan,
) -> None:
    command = _named(plan, "runner-command")
    assert (command.inputs["type"], command.inputs["enableParameter"]) == ("RunShellScript", True)
    assert command.inputs["timeout"] == 4 * 3600
    content = command.inputs["commandContent"]
    assert len(content) <= 18 * 1024  # Cloud Assistant: "Base64-encoded ... up to 18 KB"
    script = base64.b64decode(content).decode()
    assert "@@" not in script
    # Cloud Assistant reads every {{...}} of the content as a parameter, comments included.
    assert set(re.findall(r"\{\{(.*?)\}\}", script)) == {"stack", "pulumiCommand", "deployerRoleArn", "sourceObject"}
    assert f"STATE_BUCKET='{STATE_BUCKET}'" in script
    assert "REGION='cn-hangzhou'" in script
    assert "RUNNER_ROLE='gpucloud-deploy-runner'" in script
    assert "PASSPHRASE_SECRET='gpucloud-pulumi-passphrase-shared-cn'" in script
    assert plan.outputs["runnerCommandId"] == UNKNOWN


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        (
            "gpu-cloud-bootstrap:deployerRoleArns",
            json.dumps(["arn:aws:iam::123456789012:role/x"]),
            r"gpu-cloud-bootstrap:deployerRoleArns\.0: not a RAM role ARN \(acs:ram::<account>:role/<name>\) "
            r"\(got arn:aws:iam::123456789012:role/x\)",
        ),
        ("gpu-cloud-bootstrap:deployerRoleArns", "[]", r"gpu-cloud-bootstrap:deployerRoleArns: required on alicloud"),
        ("gpu-cloud-bootstrap:statePassphrase", None, r"gpu-cloud-bootstrap:statePassphrase: required on alicloud"),
    ],
)
def test_bad_deployers_or_a_missing_passphrase_name_the_field(key: str, value: str | None, message: str) -> None:
    project = load_project(BOOTSTRAP)
    stack = load_stack(project, "shared-cn")
    config = {k: v for k, v in stack.config.items() if k != key}
    if value is not None:
        config[key] = value
    with pytest.raises(PlanError, match=message):
        run_program(project, type(stack)(**{**vars(stack), "config": config}))


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
