"""How an environment's GPU pools get nodes: EKS managed node groups with the cluster autoscaler, or Karpenter."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["NodeProvisioner"]


class NodeProvisioner(StrEnum):
    """The provisioner of an environment's GPU pools and spot groups (``gpu-cloud:nodeProvisioner``).

    The system pool is a managed node group either way. docs/provisioners.md says when to choose which.
    """

    NODEGROUPS = "nodegroups"
    """EKS managed node groups (ACK node pools on Alibaba Cloud), scaled by the cluster autoscaler."""
    KARPENTER = "karpenter"
    """EKS only: an EC2NodeClass and Karpenter NodePools per pool (components.aws.karpenter_pool)."""
