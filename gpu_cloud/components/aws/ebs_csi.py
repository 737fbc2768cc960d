"""EbsCsiDriver: the Amazon EBS CSI driver EKS add-on with its EKS Pod Identity role, so volume claims bind.

"The Amazon EBS CSI driver isn't installed when you first create a cluster. To use the driver, you must add it as an
Amazon EKS add-on" (EKS User Guide, "Store Kubernetes volumes with Amazon EBS", read 2026-12-03). Its controller runs
as ``kube-system/ebs-csi-controller-sa`` (same guide, the IAM role's service account) with the AWS managed policy
``service-role/AmazonEBSCSIDriverPolicy``; volumes encrypted with the environment's customer managed key need that key
too ("If you use a custom KMS key for encryption", same guide: kms:CreateGrant, kms:ListGrants and kms:RevokeGrant for
AWS resources, and kms:Encrypt, kms:Decrypt, kms:ReEncrypt*, kms:GenerateDataKey*, kms:DescribeKey).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws._iam import Account
from gpu_cloud.components.aws.identity import PodIdentityRole, PodIdentityRoleArgs, Statements
from gpu_cloud.components.aws.kms import key_use_statement
from gpu_cloud.components.versions import EKS_EBS_CSI_DRIVER_ADDON

__all__ = [
    "EBS_CSI_ADDON",
    "EBS_CSI_POLICY",
    "EBS_CSI_SERVICE_ACCOUNT",
    "EbsCsiDriver",
    "EbsCsiDriverArgs",
    "ebs_key_statements",
]

EBS_CSI_ADDON = "aws-ebs-csi-driver"
"""The add-on's name."""

EBS_CSI_SERVICE_ACCOUNT = ("kube-system", "ebs-csi-controller-sa")
"""Namespace and name of the driver controller's ServiceAccount."""

EBS_CSI_POLICY = "service-role/AmazonEBSCSIDriverPolicy"
"""The AWS managed policy of the driver's role."""


def ebs_key_statements(key_alias: str) -> Statements:
    """The driver's use of the environment key (by its alias): grants for the EBS volumes it creates, and the data
    key operations of encrypted volumes."""

    def statements(account: Account, _cluster: str) -> list[dict[str, Any]]:
        grants = key_use_statement(account, key_alias, ("kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"))
        condition = grants["Condition"]
        assert isinstance(condition, dict)
        condition["Bool"] = {"kms:GrantIsForAWSResource": "true"}
        data = key_use_statement(
            account,
            key_alias,
            ("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*"),
        )
        return [grants, data]

    return statements


@dataclass(frozen=True)
class EbsCsiDriverArgs:
    """Inputs of :class:`EbsCsiDriver`.

    Attributes:
        cluster_name: The EKS cluster (its name output).
        kubernetes_version: The cluster's minor version (the add-on build).
        key_alias: The environment key's alias: the StorageClass encrypts volumes with it.
    """

    cluster_name: pulumi.Input[str]
    kubernetes_version: str
    key_alias: str


class EbsCsiDriver(pulumi.ComponentResource):
    """The EBS CSI driver add-on and its role. Children: ``<name>-identity`` (a PodIdentityRole of
    :data:`EBS_CSI_SERVICE_ACCOUNT` with :data:`EBS_CSI_POLICY` and :func:`ebs_key_statements`) and ``<name>-addon``,
    created once the role's association exists (the controller's pods start with its credentials)."""

    addon: aws.eks.Addon
    """The add-on (what volume claims wait for)."""

    def __init__(self, name: str, args: EbsCsiDriverArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:aws:EbsCsiDriver", name, None, opts)
        namespace, account = EBS_CSI_SERVICE_ACCOUNT
        identity = PodIdentityRole(
            f"{name}-identity",
            PodIdentityRoleArgs(
                cluster_name=args.cluster_name,
                namespace=namespace,
                service_account=account,
                statements=ebs_key_statements(args.key_alias),
                managed_policies=(EBS_CSI_POLICY,),
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.addon = aws.eks.Addon(
            f"{name}-addon",
            cluster_name=args.cluster_name,
            addon_name=EBS_CSI_ADDON,
            addon_version=EKS_EBS_CSI_DRIVER_ADDON[args.kubernetes_version],
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="PRESERVE",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[identity]),
        )
        self.register_outputs({"addon": self.addon.id})
