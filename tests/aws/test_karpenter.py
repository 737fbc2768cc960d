"""Karpenter: the controller's identity against Karpenter's reference policy at the pinned tag, the interruption
queue and its EventBridge rules against the events AWS documents, the node role's access entry, the Helm releases."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import boto3
import pulumi
import pulumi_kubernetes as k8s
import pytest
from moto import mock_aws

from gpu_cloud.components import versions
from gpu_cloud.components.aws.karpenter import (
    ADDED_STATEMENTS,
    INTERRUPTION_EVENTS,
    OMITTED_STATEMENTS,
    Karpenter,
    KarpenterArgs,
    KarpenterNames,
    karpenter_names,
)
from gpu_cloud.components.aws.kms import KmsKey, KmsKeyArgs
from gpu_cloud.components.spec import ConfigError, KmsKeySpec
from gpu_cloud.planner.canned import ACCOUNT_ID
from gpu_cloud.planner.engine import Plan
from tests.aws.helpers import REGION, assert_policies_lint_clean, lint, named, of_type, run, statements, type_counts
from tests.charts import vendored

HERE = Path(__file__).resolve().parent
REFERENCE = json.loads((HERE / "karpenter-reference-v1.14.1.json").read_text())
"""Karpenter's getting-started CloudFormation template at tag v1.14.1 (vendor_karpenter.py)."""
SAMPLES = json.loads((HERE / "eventbridge-samples.json").read_text())["events"]

CLUSTER = "gpu-test"
ALIAS = "alias/gpucloud-test"
KEY_ARN = f"arn:aws:kms:{REGION}:{ACCOUNT_ID}:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _names() -> KarpenterNames:
    """The physical names of component ``karpenter`` in the recorded test stack."""
    found: list[KarpenterNames] = []
    run(lambda: found.append(karpenter_names("karpenter")))
    return found[0]


NAMES = _names()


def _karpenter() -> None:
    cluster = k8s.Provider("cluster", kubeconfig="{}")
    Karpenter(
        "karpenter",
        KarpenterArgs(CLUSTER, "https://example.eks.amazonaws.com", ALIAS, KEY_ARN),
        opts=pulumi.ResourceOptions(providers=[cluster]),
    )


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run(_karpenter)


def test_children_are_the_node_identity_the_queue_its_rules_the_controller_identity_and_two_releases(
    plan: Plan,
) -> None:
    assert type_counts(plan) == {
        "aws:iam/role:Role": 2,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 3,
        "aws:iam/instanceProfile:InstanceProfile": 1,
        "aws:eks/accessEntry:AccessEntry": 1,
        "aws:sqs/queue:Queue": 1,
        "aws:sqs/queuePolicy:QueuePolicy": 1,
        "aws:cloudwatch/eventRule:EventRule": 5,
        "aws:cloudwatch/eventTarget:EventTarget": 5,
        "aws:iam/rolePolicy:RolePolicy": 1,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 1,
        "kubernetes:helm.sh/v3:Release": 2,
        "pulumi:providers:kubernetes": 1,
    }


def test_nodes_join_through_an_ec2_linux_access_entry_of_the_named_node_role(plan: Plan) -> None:
    entry = named(plan, "karpenter-node-access").inputs
    assert (entry["clusterName"], entry["type"]) == (CLUSTER, "EC2_LINUX")
    assert "kubernetesGroups" not in entry
    assert named(plan, "karpenter-node-role").inputs["name"] == NAMES.node_role == "karpenter-node-test"
    profile = named(plan, "karpenter-node-profile").inputs
    assert profile["name"] == NAMES.instance_profile


def _sub(template: str, **values: str) -> str:
    """CloudFormation ``!Sub`` of ``template`` with the pseudo-parameters of the test account."""
    known = {"AWS::Partition": "aws", "AWS::Region": REGION, "AWS::AccountId": ACCOUNT_ID, **values}
    return re.sub(r"\$\{([^}]+)\}", lambda m: known[m.group(1)], template)


def _reference_statements() -> dict[str, dict[str, Any]]:
    """Every statement of the reference controller policies, by Sid, for this cluster, role and queue."""
    found: dict[str, dict[str, Any]] = {}
    for template in REFERENCE["controllerPolicies"].values():
        text = _sub(
            template,
            ClusterName=CLUSTER,
            **{
                "KarpenterNodeRole.Arn": f"arn:aws:iam::{ACCOUNT_ID}:role/{NAMES.node_role}",
                "KarpenterInterruptionQueue.Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:{NAMES.queue}",
            },
        )
        for statement in json.loads(text)["Statement"]:
            found[statement["Sid"]] = statement
    return found


def _normal(value: Any) -> Any:
    """A statement with one-element lists as their element and lists sorted (IAM reads them so)."""
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list):
        items = sorted((_normal(v) for v in value), key=json.dumps)
        return items[0] if len(items) == 1 else items
    return value


def _controller_statements(plan: Plan) -> dict[str, dict[str, Any]]:
    return {s["Sid"]: s for s in statements(named(plan, "karpenter-controller-policy").inputs["policy"])}


def test_the_controller_has_every_reference_statement_at_the_pinned_tag_except_the_documented_omissions(
    plan: Plan,
) -> None:
    ours = _controller_statements(plan)
    reference = _reference_statements()
    assert set(reference) - set(ours) == set(OMITTED_STATEMENTS)
    assert set(ours) - set(reference) == set(ADDED_STATEMENTS)
    assert {sid: _normal(ours[sid]) for sid in set(ours) & set(reference)} == {
        sid: _normal(reference[sid]) for sid in set(ours) & set(reference)
    }


def test_the_reference_is_the_pinned_release() -> None:
    assert f"/blob/v{versions.KARPENTER_CHART.version}/" in REFERENCE["source"]
    assert REFERENCE["commit"] == "bde00654cd316fddb3dccfba3f5ac07039865429"


def test_the_added_statements_use_the_environment_key_only_through_ec2_and_sqs(plan: Plan) -> None:
    ours = _controller_statements(plan)
    added = {sid: ours[sid] for sid in ADDED_STATEMENTS}
    for statement in added.values():
        assert statement["Resource"] == f"arn:aws:kms:{REGION}:{ACCOUNT_ID}:key/*"
        assert statement["Condition"]["ForAnyValue:StringEquals"] == {"kms:ResourceAliases": ALIAS}
    assert added["AllowVolumeGrantsWithTheEnvironmentKey"]["Condition"]["Bool"] == {"kms:GrantIsForAWSResource": "true"}
    assert added["AllowInterruptionQueueDecryption"]["Condition"]["StringEquals"] == {
        "kms:ViaService": f"sqs.{REGION}.amazonaws.com",
        "kms:EncryptionContext:aws:sqs:arn": f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:{NAMES.queue}",
    }
    assert added["AllowInterruptionQueueDecryption"]["Action"] == ["kms:Decrypt"]


def test_only_the_karpenter_service_account_of_this_cluster_assumes_the_controller_role(plan: Plan) -> None:
    association = named(plan, "karpenter-controller-association").inputs
    assert (association["namespace"], association["serviceAccount"]) == ("kube-system", "karpenter")
    (trust,) = statements(named(plan, "karpenter-controller-role").inputs["assumeRolePolicy"])
    assert trust["Condition"]["StringEquals"]["aws:RequestTag/kubernetes-service-account"] == "karpenter"


def _uncovered(document: str, finding: tuple[str, Any]) -> list[dict[str, str]]:
    """Of a RESOURCE_MISMATCH finding, the (action, resource format) pairs no statement of the document grants.

    Parliament checks each statement alone, but IAM allows a request when any statement allows it (IAM User Guide,
    "Policy evaluation logic"): the reference policy grants ec2:RunInstances on the image and subnet in one statement
    and on the instance it creates in another, and names AWS's public SSM parameters with an empty account field,
    which parliament's format check reads as no match for ``*``."""
    allowed = [
        (a, r)
        for st in statements(document)
        if st["Effect"] == "Allow"
        for a in ([st["Action"]] if isinstance(st["Action"], str) else st["Action"])
        for r in ([st["Resource"]] if isinstance(st["Resource"], str) else st["Resource"])
    ]
    return [
        need
        for need in finding[1]
        if not any(a == need["action"] and fnmatchcase(r, need["required_format"]) for a, r in allowed)
    ]


def test_every_policy_document_is_lint_clean_counting_what_the_other_statements_grant(plan: Plan) -> None:
    policy = named(plan, "karpenter-controller-policy").inputs["policy"]
    findings = lint(policy)
    assert findings and {issue for issue, _ in findings} == {"RESOURCE_MISMATCH"}
    assert [_uncovered(policy, f) for f in findings] == [[]] * len(findings)
    for r in plan.resources:
        if r.name != "karpenter-controller-policy" and "policy" in r.inputs and r.type.startswith("aws:iam"):
            assert lint(r.inputs["policy"]) == [], r.name
    assert lint(named(plan, "karpenter-controller-role").inputs["assumeRolePolicy"], "trust") == []


def test_the_queue_keeps_notices_five_minutes_encrypted_with_the_environment_key(plan: Plan) -> None:
    queue = named(plan, "karpenter-queue").inputs
    assert queue["messageRetentionSeconds"] == REFERENCE["queue"]["MessageRetentionPeriod"] == 300
    assert (queue["name"], queue["kmsMasterKeyId"]) == (NAMES.queue, KEY_ARN)
    assert "sqsManagedSseEnabled" not in queue


def test_only_this_clusters_rules_may_send_to_the_queue_and_only_over_tls(plan: Plan) -> None:
    allow, deny = statements(named(plan, "karpenter-queue-policy").inputs["policy"])
    assert allow["Principal"] == {"Service": "events.amazonaws.com"} and allow["Action"] == "sqs:SendMessage"
    assert allow["Condition"]["ArnEquals"]["aws:SourceArn"] == [
        f"arn:aws:events:{REGION}:{ACCOUNT_ID}:rule/{NAMES.rules[kind]}" for kind in INTERRUPTION_EVENTS
    ]
    assert (deny["Effect"], deny["Condition"]) == ("Deny", {"Bool": {"aws:SecureTransport": "false"}})


def test_the_rules_are_the_references_rules_and_each_targets_the_queue(plan: Plan) -> None:
    rules = of_type(plan, "aws:cloudwatch/eventRule:EventRule")
    patterns = sorted((json.loads(r.inputs["eventPattern"]) for r in rules), key=json.dumps)
    assert patterns == sorted(REFERENCE["rules"].values(), key=json.dumps)
    for kind in INTERRUPTION_EVENTS:
        assert named(plan, f"karpenter-{kind}").inputs["name"] == NAMES.rules[kind]
        assert named(plan, f"karpenter-{kind}-target").inputs["rule"] == NAMES.rules[kind]


def _deliver(plan: Plan, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Put ``events`` on the default bus of a moto account holding the plan's rules and a queue as their target;
    return what the queue received."""
    with mock_aws():
        sqs = boto3.client("sqs", region_name=REGION)
        bus = boto3.client("events", region_name=REGION)
        url = sqs.create_queue(QueueName=NAMES.queue)["QueueUrl"]
        arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        for rule in of_type(plan, "aws:cloudwatch/eventRule:EventRule"):
            bus.put_rule(Name=rule.inputs["name"], EventPattern=rule.inputs["eventPattern"])
            bus.put_targets(Rule=rule.inputs["name"], Targets=[{"Id": "KarpenterInterruptionQueueTarget", "Arn": arn}])
        entries = [
            {
                "Source": e["source"],
                "DetailType": e["detail-type"],
                "Detail": json.dumps(e["detail"]),
                "Resources": e["resources"],
            }
            for e in events
        ]
        assert bus.put_events(Entries=entries)["FailedEntryCount"] == 0
        received = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        return [json.loads(m["Body"]) for m in received]


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["event"]["detail-type"] for s in SAMPLES])
def test_each_documented_event_reaches_the_queue_exactly_when_karpenter_handles_it(
    plan: Plan, sample: dict[str, Any]
) -> None:
    received = _deliver(plan, [sample["event"]])
    assert len(received) == (1 if sample["delivered"] else 0)
    for body in received:
        assert (body["source"], body["detail-type"], body["detail"]) == (
            sample["event"]["source"],
            sample["event"]["detail-type"],
            sample["event"]["detail"],
        )


def test_every_handled_event_kind_has_a_documented_sample() -> None:
    documented = {(s["event"]["source"], s["event"]["detail-type"]) for s in SAMPLES if s["delivered"]}
    assert documented == set(INTERRUPTION_EVENTS.values())


def test_a_misspelled_detail_type_would_not_be_delivered(plan: Plan) -> None:
    # The interruptible-reservation page once printed "EC2 Interruptible Capacity Reservation Instance Interruption
    # Warning"; the rule (and Karpenter's parser) use the name EC2 sends, so that variant matches nothing.
    variant = {
        "source": "aws.ec2",
        "detail-type": "EC2 Interruptible Capacity Reservation Instance Interruption Warning",
        "detail": {"instance-id": "i-1"},
        "resources": [],
    }
    assert _deliver(plan, [variant]) == []


def test_the_crd_release_comes_first_and_the_controller_skips_the_crds_it_carries(plan: Plan) -> None:
    crds = named(plan, "karpenter-karpenter-crd")
    controller = named(plan, "karpenter-karpenter")
    repo = "oci://public.ecr.aws/karpenter"
    assert (crds.inputs["chart"], crds.inputs["version"]) == (f"{repo}/karpenter-crd", "1.14.1")
    assert (controller.inputs["chart"], controller.inputs["version"]) == (f"{repo}/karpenter", "1.14.1")
    assert controller.inputs["skipCrds"] is True and crds.inputs.get("skipCrds") is not True
    assert crds.urn in controller.dependencies
    for release in (crds, controller):
        assert release.inputs["namespace"] == "kube-system"
        # The Pod Identity association exists before the controller's pods, which get their credentials through it.
        assert named(plan, "karpenter-controller-association").urn in release.dependencies


def test_the_controller_watches_the_queue_of_this_cluster_on_the_system_nodes(plan: Plan) -> None:
    values = named(plan, "karpenter-karpenter").inputs["values"]
    assert values["settings"]["clusterName"] == CLUSTER
    assert values["settings"]["interruptionQueue"] == NAMES.queue
    assert values["settings"]["featureGates"] == {"reservedCapacity": True, "nodeRepair": True}
    assert values["serviceAccount"] == {"name": "karpenter"}
    assert values["nodeSelector"] == {"kubernetes.io/os": "linux", "gpucloud.io/purpose": "system"}


def test_every_values_key_is_a_key_of_the_pinned_chart(plan: Plan) -> None:
    for release in of_type(plan, "kubernetes:helm.sh/v3:Release"):
        chart = vendored()[(release.inputs["chart"].rsplit("/", 1)[-1], release.inputs["version"])]
        assert chart.undefined(release.inputs.get("values", {})) == [], release.name


def test_the_key_lets_eventbridge_encrypt_messages_for_the_named_queues_only() -> None:
    def program() -> None:
        KmsKey("kms", KmsKeyArgs(spec=KmsKeySpec(), alias="gpucloud", event_queues=(NAMES.queue,)))

    key = run(program)
    policy = named(key, "kms-key").inputs["policy"]
    (events,) = [s for s in statements(policy) if s.get("Principal") == {"Service": "events.amazonaws.com"}]
    assert sorted(events["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey"]
    assert events["Condition"]["StringEquals"] == {
        "aws:SourceAccount": ACCOUNT_ID,
        "kms:EncryptionContext:aws:sqs:arn": [f"arn:aws:sqs:{REGION}:{ACCOUNT_ID}:{NAMES.queue}"],
    }
    assert assert_policies_lint_clean(key) == 1


def test_a_key_alias_that_is_no_alias_is_refused_before_anything_is_created() -> None:
    errors: list[str] = []

    def program() -> None:
        try:
            Karpenter("karpenter", KarpenterArgs(CLUSTER, "https://x", "gpucloud-test", KEY_ARN))
        except ConfigError as err:
            errors.append(str(err))

    plan = run(program)
    assert errors and "kmsKeyAlias" in errors[0] and "gpucloud-test" in errors[0]
    assert type_counts(plan) == {}
