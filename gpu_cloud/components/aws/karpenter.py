"""Karpenter on EKS: the controller, its least-privilege identity, the node role and interruption handling.

Karpenter (aws/karpenter-provider-aws, pinned in ``components.versions``: KARPENTER_CHART) launches GPU nodes for
pending pods from NodePools (``components.aws.karpenter_pool``); it runs on the cluster's system node group, which
stays a managed node group scaled by the cluster autoscaler. Everything here follows the reference installation of
that version, the CloudFormation template of its getting-started guide (website/content/en/v1.14/getting-started/
getting-started-with-karpenter/cloudformation.yaml at 1d927085, the same file as website/content/en/docs/... at tag
v1.14.1; read 2026-12-03), with these deliberate differences:

- The controller's role comes through EKS Pod Identity (components.aws.PodIdentityRole) for ``kube-system/karpenter``
  only, as the guide's own eksctl ``podIdentityAssociations`` does.
- Nodes get an instance profile declared here and named in every EC2NodeClass (``spec.instanceProfile``), so
  Karpenter never creates, tags or deletes instance profiles: with ``spec.role`` unset its instance profile
  reconciler makes no IAM call (pkg/controllers/nodeclass/instanceprofile.go at v1.14.1), and the reference's three
  instance-profile write statements are left out (:data:`OMITTED_STATEMENTS`).
- Zonal shift is not enabled (chart value ``settings.enableZonalShift`` false), so its read statement is left out.
- The interruption queue is encrypted with the environment's KMS key instead of SQS-managed keys, which adds the
  key's use to the controller (:data:`ADDED_STATEMENTS`) and lets EventBridge use the key for this queue only
  (components.aws.kms ``event_queues``); volumes are encrypted with the same key, which EC2 uses on the caller's
  behalf (EBS User Guide, "Requirements for Amazon EBS encryption": CreateGrant, Decrypt, DescribeKey,
  GenerateDataKeyWithoutPlainText, ReEncrypt; an ``instant`` EC2 Fleet, Karpenter's kind, needs no service-linked
  role: EC2 User Guide, "EC2 Fleet prerequisites").
- The queue accepts messages only from this account's EventBridge rules (``aws:SourceArn``), not from any
  ``events``/``sqs`` service caller.
- The node role has the node group path's managed policies (components.aws._node_group NODE_POLICIES), without the
  guide's AmazonSSMManagedInstanceCore (no SSM sessions on GPU nodes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_cloud.components import versions
from gpu_cloud.components.aws._iam import Account, account_of, document
from gpu_cloud.components.aws._node_group import declare_node_role
from gpu_cloud.components.aws.identity import PodIdentityRole, PodIdentityRoleArgs, Statements
from gpu_cloud.components.aws.kms import key_use_statement
from gpu_cloud.components.k8s.addons import SYSTEM_NAMESPACE, SYSTEM_NODES
from gpu_cloud.components.k8s.objects import oci_release
from gpu_cloud.components.naming import IAM_ROLE, NameRule, physical_name
from gpu_cloud.components.spec import ConfigError, Problem

__all__ = [
    "ADDED_STATEMENTS",
    "CLUSTER_SECURITY_GROUP_TAG",
    "DISCOVERY_TAG",
    "INTERRUPTION_EVENTS",
    "KARPENTER_SERVICE_ACCOUNT",
    "OMITTED_STATEMENTS",
    "Karpenter",
    "KarpenterArgs",
    "KarpenterNames",
    "controller_statements",
    "controller_values",
    "event_pattern",
    "karpenter_names",
    "subnet_discovery_tags",
]

KARPENTER_SERVICE_ACCOUNT = "karpenter"
"""The controller's ServiceAccount (chart value ``serviceAccount.name``) in ``kube-system``, the namespace the guide
installs into (``KARPENTER_NAMESPACE=kube-system``)."""

DISCOVERY_TAG = "karpenter.sh/discovery"
"""Tag on the private subnets, value the cluster name, that EC2NodeClasses select subnets by (the guide's
step05-tag-subnets and nodeclasses.md ``subnetSelectorTerms``)."""

CLUSTER_SECURITY_GROUP_TAG = "aws:eks:cluster-name"
"""EKS tags the cluster security group it creates with this key and the cluster name, and puts the tag back if it is
removed (EKS User Guide, "View Amazon EKS security group requirements for clusters", sec-group-reqs.html, read
2026-12-03); EC2NodeClasses select the group by it, the group every managed node group interface carries too."""

INTERRUPTION_EVENTS: Final[Mapping[str, tuple[str, str]]] = {
    "spot-interruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "instance-state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
    "scheduled-change": ("aws.health", "AWS Health Event"),
    "capacity-reservation-interruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}
"""EventBridge rule suffix -> (source, detail-type) of the events Karpenter handles: the guide's five rules
(SpotInterruptionRule, RebalanceRule, InstanceStateChangeRule, ScheduledChangeRule,
CapacityReservationInterruptionRule) and the parsers that read them (pkg/controllers/interruption/messages/*/
parser.go ``Source``/``DetailType`` at v1.14.1)."""

INTERRUPTION_QUEUE_RETENTION_SECONDS = 300
"""The guide's ``MessageRetentionPeriod``: an interruption notice older than five minutes is past acting on."""

SQS_QUEUE = NameRule("aws:sqs/queue:Queue", 80, "A-Za-z0-9_-")
"""SQS CreateQueue ``QueueName``: "up to 80 characters", "alphanumeric characters, hyphens (-), and underscores (_)"
(botocore 1.44.8 sqs service model)."""
EVENT_RULE = NameRule("aws:cloudwatch/eventRule:EventRule", 64, "A-Za-z0-9._-")
"""EventBridge ``RuleName``: 1-64 characters ``[\\.\\-_A-Za-z0-9]+`` (botocore 1.44.8 events service model)."""
INSTANCE_PROFILE = NameRule("aws:iam/instanceProfile:InstanceProfile", 128, "A-Za-z0-9_+=,.@-")
"""IAM ``instanceProfileNameType``: 1-128 characters ``[\\w+=,.@-]+`` (botocore 1.44.8 iam service model)."""

OMITTED_STATEMENTS: Final[Mapping[str, str]] = {
    "AllowScopedInstanceProfileCreationActions": "EC2NodeClasses name the instance profile declared here",
    "AllowScopedInstanceProfileTagActions": "EC2NodeClasses name the instance profile declared here",
    "AllowScopedInstanceProfileActions": "EC2NodeClasses name the instance profile declared here",
    "AllowZonalShiftStatusReadOnly": "settings.enableZonalShift is false",
}
"""Statement ids of the reference policy (KarpenterController*Policy in the guide's template) the controller does not
get, and why."""

ADDED_STATEMENTS: Final[Mapping[str, str]] = {
    "AllowVolumeEncryptionWithTheEnvironmentKey": "node volumes are encrypted with the environment's key",
    "AllowVolumeGrantsWithTheEnvironmentKey": "EC2 attaches those volumes through a grant",
    "AllowInterruptionQueueDecryption": "the interruption queue is encrypted with the environment's key",
}
"""Statement ids the controller gets beyond the reference policy, and why."""

FEATURE_GATES: Final[Mapping[str, bool]] = {"reservedCapacity": True, "nodeRepair": True}
"""Chart value ``settings.featureGates``: ``reservedCapacity`` (beta, on by default at v1.14.1: charts/karpenter/
values.yaml) is what makes the ``reserved`` capacity type and ``capacityReservationSelectorTerms`` work, so it is
stated rather than left to a default; ``nodeRepair`` (alpha) replaces a node whose NVIDIA hardware the EKS node
monitoring agent (installed on every cluster: components.versions EKS_NODE_MONITORING_AGENT_ADDON) reports
``AcceleratedHardwareReady=False`` for 10 minutes, and no node of a NodePool with more than 20 % of its nodes
unhealthy (concepts/disruption.md "Node Auto Repair" at v1.14.1), as node auto repair does for the managed node
groups. It is on although alpha (since v1.1.0, still alpha at v1.14.1, off by default): the gate is only the
controller's flag, no object of this project names a field of it, so an upgrade that changes or drops it changes
repair, not the NodePools. A repair terminates the node at once, without drain and regardless of
``karpenter.sh/do-not-disrupt`` (same page): a training gang on it is lost, as it already is once a GPU of the gang
has failed for 10 minutes."""

CONTROLLER_RESOURCES: Final[Mapping[str, Mapping[str, str]]] = {
    "requests": {"cpu": "1", "memory": "1Gi"},
    "limits": {"cpu": "1", "memory": "1Gi"},
}
"""The controller container's resources, those of the guide's helm install (step08-apply-helm-chart.sh:
``controller.resources.requests.cpu=1``, ``memory=1Gi`` and the same limits)."""


@dataclass(frozen=True)
class KarpenterNames:
    """The physical names a Karpenter component chooses, known before anything exists (policies name them)."""

    node_role: str
    instance_profile: str
    queue: str
    rules: Mapping[str, str]
    """EventBridge rule name per :data:`INTERRUPTION_EVENTS` key."""


def karpenter_names(name: str) -> KarpenterNames:
    """The physical names of the Karpenter component ``name`` in this stack (components.naming)."""
    return KarpenterNames(
        node_role=physical_name(IAM_ROLE, f"{name}-node"),
        instance_profile=physical_name(INSTANCE_PROFILE, f"{name}-node"),
        queue=physical_name(SQS_QUEUE, name),
        rules={key: physical_name(EVENT_RULE, f"{name}-{key}") for key in INTERRUPTION_EVENTS},
    )


def subnet_discovery_tags(cluster_name: str) -> dict[str, str]:
    """The tags the environment puts on its private subnets so that EC2NodeClasses select them."""
    return {DISCOVERY_TAG: cluster_name}


def event_pattern(source: str, detail_type: str) -> str:
    """The EventBridge event pattern of one interruption event kind, as the guide's rules have it."""
    return json.dumps({"source": [source], "detail-type": [detail_type]}, sort_keys=True)


@dataclass(frozen=True)
class KarpenterArgs:
    """Arguments of a Karpenter."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster (its name output, so that everything waits for it)."""
    cluster_endpoint: pulumi.Input[str]
    """The cluster's API endpoint (chart value ``settings.clusterEndpoint``; else discovered with DescribeCluster)."""
    kms_key_alias: str
    """Alias of the environment's key, which encrypts the queue and the node volumes (identity policies select the
    key by it). The key's policy must let EventBridge use it for the queue (KmsKeyArgs.event_queues with
    ``karpenter_names(name).queue``)."""
    kms_key_arn: pulumi.Input[str]
    """That key's ARN (the queue's ``kms_master_key_id``)."""
    depends_on: Sequence[pulumi.Resource] = field(default_factory=list)
    """What the Helm releases wait for besides this component's own resources (the cluster's system nodes, where the
    controller runs; the Kubernetes provider's own waits)."""


class Karpenter(pulumi.ComponentResource):
    """Karpenter's controller and everything it needs, for one EKS cluster.

    Children: the node role ``<name>-node-role`` (physical name :attr:`KarpenterNames.node_role`) and its
    ``<name>-node-<policy>`` attachments, ``<name>-node-profile``, the access entry ``<name>-node-access`` (type
    EC2_LINUX), the queue ``<name>-queue`` and ``<name>-queue-policy``, per interruption event kind the rule
    ``<name>-<kind>`` and its target ``<name>-<kind>-target``, the controller's identity ``<name>-controller``
    (PodIdentityRole), and the Helm releases ``<name>-karpenter-crd`` and ``<name>-karpenter``. Kubernetes children
    use the ``kubernetes`` provider of ``opts.providers``.
    """

    names: KarpenterNames
    """The physical names chosen."""
    node_role_arn: pulumi.Output[str]
    """The nodes' role."""
    instance_profile: str
    """The instance profile EC2NodeClasses name."""
    queue_arn: pulumi.Output[str]
    """The interruption queue."""
    releases: list[k8s.helm.v3.Release]
    """The CRD and controller releases: objects of Karpenter's kinds wait for them."""

    def __init__(self, name: str, args: KarpenterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        if not args.kms_key_alias.startswith("alias/"):
            raise ConfigError([Problem("kmsKeyAlias", "not an alias name (alias/...)", args.kms_key_alias)])
        super().__init__("gpucloud:aws:Karpenter", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        names = karpenter_names(name)
        self.names = names
        account = account_of(self)
        role, attachments = declare_node_role(name, self, role_name=names.node_role)
        profile = aws.iam.InstanceProfile(
            f"{name}-node-profile", name=names.instance_profile, role=role.name, opts=child
        )
        # Nodes join with the EC2_LINUX access entry of their role (EKS User Guide, "Create access entries": type
        # EC2_LINUX for the IAM role of self-managed Linux nodes, which Karpenter's are; no groups may be given).
        access = aws.eks.AccessEntry(
            f"{name}-node-access",
            cluster_name=args.cluster_name,
            principal_arn=role.arn,
            type="EC2_LINUX",
            opts=child,
        )
        queue = aws.sqs.Queue(
            f"{name}-queue",
            name=names.queue,
            message_retention_seconds=INTERRUPTION_QUEUE_RETENTION_SECONDS,
            kms_master_key_id=args.kms_key_arn,
            opts=child,
        )
        queue_policy = aws.sqs.QueuePolicy(
            f"{name}-queue-policy",
            queue_url=queue.url,
            policy=account.apply(lambda a: queue_policy_document(a, names)),
            opts=child,
        )
        targets: list[pulumi.Resource] = []
        for kind, (source, detail_type) in INTERRUPTION_EVENTS.items():
            rule = aws.cloudwatch.EventRule(
                f"{name}-{kind}",
                name=names.rules[kind],
                description=f"{detail_type} events to Karpenter's interruption queue",
                event_pattern=event_pattern(source, detail_type),
                opts=child,
            )
            targets.append(
                aws.cloudwatch.EventTarget(
                    f"{name}-{kind}-target",
                    rule=rule.name,
                    target_id="KarpenterInterruptionQueueTarget",
                    arn=queue.arn,
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[queue_policy]),
                )
            )
        identity = PodIdentityRole(
            f"{name}-controller",
            PodIdentityRoleArgs(
                cluster_name=args.cluster_name,
                namespace=SYSTEM_NAMESPACE,
                service_account=KARPENTER_SERVICE_ACCOUNT,
                statements=controller_statements(names, args.kms_key_alias),
            ),
            opts=child,
        )
        waits = [*args.depends_on, profile, access, *attachments, *targets, identity]
        crds = oci_release(self, name, versions.KARPENTER_CRD_CHART, SYSTEM_NAMESPACE, {}, waits, skip_crds=False)
        values = controller_values(args.cluster_name, args.cluster_endpoint, names.queue)
        chart = versions.KARPENTER_CHART
        controller = oci_release(self, name, chart, SYSTEM_NAMESPACE, values, [*waits, crds], skip_crds=True)
        self.node_role_arn = role.arn
        self.instance_profile = names.instance_profile
        self.queue_arn = queue.arn
        self.releases = [crds, controller]
        self.register_outputs({"nodeRoleArn": self.node_role_arn, "queueArn": self.queue_arn})


def controller_values(
    cluster_name: pulumi.Input[str], cluster_endpoint: pulumi.Input[str], queue_name: str
) -> dict[str, Any]:
    """The controller chart's values: the cluster, the interruption queue, the feature gates, the ServiceAccount the
    Pod Identity association names, the system nodes (charts/karpenter/values.yaml at v1.14.1: ``settings.*``,
    ``serviceAccount.name``, ``nodeSelector``, ``controller.resources``). The chart's default affinity already keeps
    the controller off nodes it launched (``karpenter.sh/nodepool`` DoesNotExist) and its two replicas on two hosts."""
    return {
        "settings": {
            "clusterName": cluster_name,
            "clusterEndpoint": cluster_endpoint,
            "interruptionQueue": queue_name,
            "featureGates": dict(FEATURE_GATES),
        },
        "serviceAccount": {"name": KARPENTER_SERVICE_ACCOUNT},
        "nodeSelector": {"kubernetes.io/os": "linux", **SYSTEM_NODES},
        "controller": {"resources": {k: dict(v) for k, v in CONTROLLER_RESOURCES.items()}},
    }


def queue_policy_document(account: Account, names: KarpenterNames) -> str:
    """The queue's resource policy: EventBridge may send from this component's rules only; no request without TLS
    (the guide's KarpenterInterruptionQueuePolicy, narrowed by ``aws:SourceArn``: SQS Developer Guide, "Amazon SQS
    policy examples"; EventBridge User Guide, "Amazon SQS permissions")."""
    queue = account.arn("sqs", names.queue)
    return document(
        {
            "Sid": "EventBridgeRulesOfThisCluster",
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Action": "sqs:SendMessage",
            "Resource": queue,
            "Condition": {"ArnEquals": {"aws:SourceArn": [_rule_arn(account, r) for r in names.rules.values()]}},
        },
        {
            "Sid": "DenyHTTP",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "sqs:*",
            "Resource": queue,
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        },
    )


def _rule_arn(account: Account, rule: str) -> str:
    return account.arn("events", f"rule/{rule}")


def controller_statements(names: KarpenterNames, key_alias: str) -> Statements:
    """The controller's permissions: Karpenter's reference policy at the pinned version, less
    :data:`OMITTED_STATEMENTS`, plus :data:`ADDED_STATEMENTS`."""

    def statements(account: Account, cluster: str) -> list[dict[str, Any]]:
        return [*_reference_statements(account, cluster, names), *_key_statements(account, names, key_alias)]

    return statements


def _regional(account: Account, resource: str, *, owner: str = "*") -> str:
    """A regional EC2 ARN in the reference policy's form: any account (``*``) where resources may be shared."""
    return f"arn:{account.partition}:ec2:{account.region}:{owner}:{resource}"


def _reference_statements(account: Account, cluster: str, names: KarpenterNames) -> list[dict[str, Any]]:
    """The reference statements kept, in the template's order with its Sids (NodeLifecyclePolicy,
    IAMIntegrationPolicy, EKSIntegrationPolicy, InterruptionPolicy, ResourceDiscoveryPolicy)."""
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster}": "owned"}
    any_nodepool = {"aws:ResourceTag/karpenter.sh/nodepool": "*"}
    request_owned = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster}": "owned",
        "aws:RequestTag/eks:eks-cluster-name": cluster,
    }
    request_nodepool = {"aws:RequestTag/karpenter.sh/nodepool": "*"}
    created = [
        _regional(account, f"{kind}/*")
        for kind in ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
    ]
    return [
        {
            "Sid": "AllowScopedEC2InstanceAccessActions",
            "Effect": "Allow",
            "Resource": [
                _regional(account, "image/*", owner=""),
                _regional(account, "snapshot/*", owner=""),
                *(_regional(account, f"{kind}/*") for kind in ("security-group", "subnet")),
                *(_regional(account, f"{kind}/*") for kind in ("capacity-reservation", "placement-group")),
            ],
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
        },
        {
            "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
            "Effect": "Allow",
            "Resource": _regional(account, "launch-template/*"),
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Condition": {"StringEquals": owned, "StringLike": any_nodepool},
        },
        {
            "Sid": "AllowScopedEC2InstanceActionsWithTags",
            "Effect": "Allow",
            "Resource": created,
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Condition": {"StringEquals": request_owned, "StringLike": request_nodepool},
        },
        {
            "Sid": "AllowScopedResourceCreationTagging",
            "Effect": "Allow",
            "Resource": created,
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": {
                    **request_owned,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": request_nodepool,
            },
        },
        {
            "Sid": "AllowScopedResourceTagging",
            "Effect": "Allow",
            "Resource": _regional(account, "instance/*"),
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": owned,
                "StringLike": any_nodepool,
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster},
                "ForAllValues:StringEquals": {
                    "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                },
            },
        },
        {
            "Sid": "AllowScopedDeletion",
            "Effect": "Allow",
            "Resource": [_regional(account, "instance/*"), _regional(account, "launch-template/*")],
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Condition": {"StringEquals": owned, "StringLike": any_nodepool},
        },
        {
            "Sid": "AllowPassingInstanceRole",
            "Effect": "Allow",
            "Resource": account.arn("iam", f"role/{names.node_role}", region=False),
            "Action": "iam:PassRole",
            "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        },
        {
            "Sid": "AllowAPIServerEndpointDiscovery",
            "Effect": "Allow",
            "Resource": account.arn("eks", f"cluster/{cluster}"),
            "Action": "eks:DescribeCluster",
        },
        {
            "Sid": "AllowInterruptionQueueActions",
            "Effect": "Allow",
            "Resource": account.arn("sqs", names.queue),
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
        },
        {
            "Sid": "AllowRegionalReadActions",
            "Effect": "Allow",
            "Resource": "*",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Condition": {"StringEquals": {"aws:RequestedRegion": account.region}},
        },
        {
            "Sid": "AllowSSMReadActions",
            "Effect": "Allow",
            "Resource": account.arn("ssm", "parameter/aws/service/*", account=False),
            "Action": "ssm:GetParameter",
        },
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
        {
            "Sid": "AllowUnscopedInstanceProfileListAction",
            "Effect": "Allow",
            "Resource": "*",
            "Action": "iam:ListInstanceProfiles",
        },
        {
            "Sid": "AllowInstanceProfileReadActions",
            "Effect": "Allow",
            "Resource": account.arn("iam", "instance-profile/*", region=False),
            "Action": "iam:GetInstanceProfile",
        },
    ]


def _key_statements(account: Account, names: KarpenterNames, key_alias: str) -> list[dict[str, Any]]:
    """The environment key's use by the controller: through EC2 for node volumes, through SQS for the queue."""

    def via(actions: Sequence[str], conditions: Mapping[str, Any]) -> dict[str, Any]:
        statement = dict(key_use_statement(account, key_alias, actions))
        by_alias = statement.pop("Condition")
        assert isinstance(by_alias, dict)
        return {**statement, "Condition": {**by_alias, **conditions}}

    def service(name: str, **values: str) -> dict[str, dict[str, str]]:
        return {"StringEquals": {"kms:ViaService": account.service_principal(name), **values}}

    grants = {**service("ec2"), "Bool": {"kms:GrantIsForAWSResource": "true"}}
    queue_context = {"kms:EncryptionContext:aws:sqs:arn": account.arn("sqs", names.queue)}
    volume_actions = ["kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKeyWithoutPlaintext", "kms:ReEncrypt*"]
    return [
        {"Sid": "AllowVolumeEncryptionWithTheEnvironmentKey", **via(volume_actions, service("ec2"))},
        {"Sid": "AllowVolumeGrantsWithTheEnvironmentKey", **via(["kms:CreateGrant"], grants)},
        {"Sid": "AllowInterruptionQueueDecryption", **via(["kms:Decrypt"], service("sqs", **queue_context))},
    ]
