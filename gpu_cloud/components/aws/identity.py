"""PodIdentityRole: an IAM role a Kubernetes ServiceAccount assumes through EKS Pod Identity.

EKS Pod Identity rather than IRSA: its trust policy names the service ``pods.eks.amazonaws.com`` and the session
tags EKS sets (cluster, namespace, service account), all known before the cluster exists, where an IRSA trust
policy names the cluster's OIDC issuer, unknown until then. The cluster runs the eks-pod-identity-agent add-on
(GpuCluster), and the ServiceAccount needs no annotation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account, account_of, document, managed_policy_arn
from gpu_cloud.components.aws._node_group import AUTOSCALER_TAG
from gpu_cloud.components.aws.kms import key_use_statement
from gpu_cloud.components.aws.storage import checkpoint_bucket_name
from gpu_cloud.components.spec import ConfigError, Problem

__all__ = [
    "AUTOSCALER_READ_ACTIONS",
    "AUTOSCALER_SCALE_ACTIONS",
    "CHECKPOINT_BUCKET_ACTIONS",
    "CHECKPOINT_KEY_ACTIONS",
    "CHECKPOINT_OBJECT_ACTIONS",
    "POD_IDENTITY_SERVICE",
    "PodIdentityRole",
    "PodIdentityRoleArgs",
    "Statements",
    "checkpoint_statements",
    "cluster_autoscaler_statements",
    "job_checkpoint_statements",
    "model_read_statements",
    "pod_identity_trust",
    "sns_publish_statements",
]

POD_IDENTITY_SERVICE = "pods.eks.amazonaws.com"
"""The service principal of EKS Pod Identity; it needs sts:AssumeRole and sts:TagSession (EKS User Guide, "Create
IAM role with trust policy required by EKS Pod Identity")."""

AUTOSCALER_SCALE_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")
"""What the cluster autoscaler changes, only on this cluster's Auto Scaling groups."""

AUTOSCALER_READ_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "autoscaling:DescribeTags",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
)
"""What the cluster autoscaler reads (kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/README.md, "IAM
Policy", plus DescribeTags and DescribeLaunchTemplateVersions for auto-discovery of launch-template groups; the
README's ``GetInstanceTypesFromInstanceRequirementsPages`` is the SDK paginator, the IAM action is without
``Pages``). These list or describe and take no resource-level scope (Service Authorization Reference); its
``eks:DescribeNodegroup`` (labels and taints of node groups at zero nodes) is scoped to this cluster's node
groups."""

CHECKPOINT_BUCKET_ACTIONS = ("s3:GetBucketLocation", "s3:ListBucket", "s3:ListBucketMultipartUploads")
"""Bucket-level actions of a checkpointing job: list checkpoints and unfinished uploads."""

CHECKPOINT_OBJECT_ACTIONS = (
    "s3:AbortMultipartUpload",
    "s3:DeleteObject",
    "s3:GetObject",
    "s3:ListMultipartUploadParts",
    "s3:PutObject",
)
"""Object-level actions: read, write and prune checkpoints (multipart for large ones)."""

CHECKPOINT_KEY_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey")
"""SSE-KMS with the environment's key: PutObject needs GenerateDataKey, GetObject Decrypt (S3 User Guide,
"Using server-side encryption with AWS KMS keys": permissions)."""

Statements = Callable[[Account, str], Sequence[Mapping[str, Any]]]
"""Builds a role's permission statements from the account and the cluster name (both known at preview)."""


@dataclass(frozen=True)
class PodIdentityRoleArgs:
    """Arguments of a PodIdentityRole."""

    cluster_name: pulumi.Input[str]
    """The EKS cluster (its name output, so that the association waits for the cluster)."""
    namespace: str
    """The ServiceAccount's namespace."""
    service_account: str
    """The ServiceAccount's name."""
    statements: Statements
    """The role's permissions (:func:`cluster_autoscaler_statements`, :func:`checkpoint_statements`)."""
    managed_policies: Sequence[str] = ()
    """AWS managed policies attached besides (names under ``arn:<partition>:iam::aws:policy/``), for a controller
    whose permissions AWS maintains with it (the EBS CSI driver's ``service-role/AmazonEBSCSIDriverPolicy``)."""


class PodIdentityRole(pulumi.ComponentResource):
    """An IAM role only ``namespace/service_account`` of this cluster can assume, with its permissions, and the EKS
    Pod Identity association that hands its credentials to the ServiceAccount's pods.

    Children: ``<name>-role``, ``<name>-policy``, one ``<name>-managed-<n>`` per managed policy,
    ``<name>-association``.
    """

    role_arn: pulumi.Output[str]
    """The role's ARN."""

    def __init__(self, name: str, args: PodIdentityRoleArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        problems = [
            Problem(field, "empty", value)
            for field, value in (("namespace", args.namespace), ("serviceAccount", args.service_account))
            if not value
        ]
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:aws:PodIdentityRole", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        scope = pulumi.Output.all(account_of(self), args.cluster_name)
        role = aws.iam.Role(
            f"{name}-role",
            description=f"EKS Pod Identity role of {args.namespace}/{args.service_account}",
            assume_role_policy=pulumi.Output.from_input(args.cluster_name).apply(
                lambda cluster: pod_identity_trust(cluster, args.namespace, args.service_account)
            ),
            opts=child,
        )
        aws.iam.RolePolicy(
            f"{name}-policy",
            role=role.id,
            policy=scope.apply(lambda v: document(*args.statements(v[0], v[1]))),
            opts=child,
        )
        for i, policy in enumerate(args.managed_policies):
            arn = managed_policy_arn(account_of(self), policy)
            aws.iam.RolePolicyAttachment(f"{name}-managed-{i}", role=role.name, policy_arn=arn, opts=child)
        aws.eks.PodIdentityAssociation(
            f"{name}-association",
            cluster_name=args.cluster_name,
            namespace=args.namespace,
            service_account=args.service_account,
            role_arn=role.arn,
            opts=child,
        )
        self.role_arn = role.arn
        self.register_outputs({"roleArn": self.role_arn})


def pod_identity_trust(cluster_name: str, namespace: str, service_account: str) -> str:
    """Pod Identity may assume the role only for ``namespace/service_account`` of ``cluster_name``: the session tags
    EKS sets (EKS User Guide, "Create IAM role with trust policy required by EKS Pod Identity", Setting Conditions;
    tags eks-cluster-name, kubernetes-namespace, kubernetes-service-account)."""
    return document(
        {
            "Effect": "Allow",
            "Principal": {"Service": POD_IDENTITY_SERVICE},
            "Action": ["sts:AssumeRole", "sts:TagSession"],
            "Condition": {
                "StringEquals": {
                    "aws:RequestTag/eks-cluster-name": cluster_name,
                    "aws:RequestTag/kubernetes-namespace": namespace,
                    "aws:RequestTag/kubernetes-service-account": service_account,
                }
            },
        }
    )


def cluster_autoscaler_statements(account: Account, cluster_name: str) -> list[dict[str, Any]]:
    """Scale and terminate only in Auto Scaling groups tagged ``k8s.io/cluster-autoscaler/<cluster>`` (EKS tags the
    groups of its managed node groups so; the node groups here carry the tag too), read what the autoscaler reads."""
    return [
        {
            "Sid": "ScaleThisClustersGroups",
            "Effect": "Allow",
            "Action": list(AUTOSCALER_SCALE_ACTIONS),
            "Resource": account.arn("autoscaling", "autoScalingGroup:*:autoScalingGroupName/*"),
            "Condition": {"StringEquals": {f"aws:ResourceTag/{AUTOSCALER_TAG}/{cluster_name}": "owned"}},
        },
        {"Sid": "Discover", "Effect": "Allow", "Action": list(AUTOSCALER_READ_ACTIONS), "Resource": "*"},
        {
            "Sid": "ReadThisClustersNodeGroups",
            "Effect": "Allow",
            "Action": ["eks:DescribeNodegroup"],
            "Resource": account.arn("eks", f"nodegroup/{cluster_name}/*/*"),
        },
    ]


def checkpoint_statements(bucket_prefix: str, key_alias: str) -> Statements:
    """Read and write checkpoints in the CheckpointBucket of ``bucket_prefix`` (its name follows from the account),
    encrypted with the key of alias ``key_alias``."""

    def statements(account: Account, _cluster: str) -> list[dict[str, Any]]:
        bucket = account.arn("s3", checkpoint_bucket_name(account, bucket_prefix), region=False, account=False)
        return [
            {"Sid": "Bucket", "Effect": "Allow", "Action": list(CHECKPOINT_BUCKET_ACTIONS), "Resource": bucket},
            {"Sid": "Objects", "Effect": "Allow", "Action": list(CHECKPOINT_OBJECT_ACTIONS), "Resource": f"{bucket}/*"},
            {"Sid": "Key", **key_use_statement(account, key_alias, CHECKPOINT_KEY_ACTIONS)},
        ]

    return statements


def model_read_statements(bucket_prefix: str, key_alias: str, model_source: str) -> Statements:
    """Read only the model under ``model_source`` in the CheckpointBucket of ``bucket_prefix``: list that prefix
    (ListBucket with the s3:prefix condition key, S3 User Guide "Bucket policy examples using condition keys"), get
    its objects, and decrypt them with the key of alias ``key_alias`` (SSE-KMS GetObject needs kms:Decrypt)."""
    return _prefix_statements(bucket_prefix, key_alias, model_source, ("s3:GetObject",), ("kms:Decrypt",), "Model")


def job_checkpoint_statements(bucket_prefix: str, key_alias: str, checkpoint_prefix: str) -> Statements:
    """Read, write and prune only the checkpoints under ``checkpoint_prefix`` in the CheckpointBucket of
    ``bucket_prefix`` (one training job's identity): ListBucket limited by s3:prefix, the object actions on that
    prefix, the key's data-key actions."""
    return _prefix_statements(
        bucket_prefix, key_alias, checkpoint_prefix, CHECKPOINT_OBJECT_ACTIONS, CHECKPOINT_KEY_ACTIONS, "Checkpoints"
    )


def _prefix_statements(
    bucket_prefix: str,
    key_alias: str,
    object_prefix: str,
    object_actions: Sequence[str],
    key_actions: Sequence[str],
    what: str,
) -> Statements:
    prefix = object_prefix.removesuffix("/")

    def statements(account: Account, _cluster: str) -> list[dict[str, Any]]:
        bucket = account.arn("s3", checkpoint_bucket_name(account, bucket_prefix), region=False, account=False)
        return [
            {
                "Sid": f"List{what}",
                "Effect": "Allow",
                "Action": ["s3:ListBucket"],
                "Resource": bucket,
                "Condition": {"StringLike": {"s3:prefix": [f"{prefix}/", f"{prefix}/*"]}},
            },
            {
                "Sid": f"Read{what}",
                "Effect": "Allow",
                "Action": list(object_actions),
                "Resource": f"{bucket}/{prefix}/*",
            },
            {"Sid": "Key", **key_use_statement(account, key_alias, tuple(key_actions))},
        ]

    return statements


def sns_publish_statements(topic_arn: str) -> Statements:
    """Publish to the SNS topic ``topic_arn`` only: what Alertmanager's SNS receiver calls (``sns:Publish``;
    Alertmanager 0.30.1 notify/sns, read 2026-12-02). A topic encrypted with a customer key also needs that key's
    kms:GenerateDataKey and kms:Decrypt in the key policy."""

    def statements(_account: Account, _cluster: str) -> list[dict[str, Any]]:
        return [{"Sid": "PublishAlerts", "Effect": "Allow", "Action": "sns:Publish", "Resource": topic_arn}]

    return statements
