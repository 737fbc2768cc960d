"""AWS components for GPU clusters on EKS: network, peering, KMS, cluster, GPU pools, spot, access, storage."""

from components.aws.kms import KmsKey, KmsKeyArgs
from components.aws.network import PrivateNetwork, PrivateNetworkArgs

__all__ = [
    "KmsKey",
    "KmsKeyArgs",
    "PrivateNetwork",
    "PrivateNetworkArgs",
]
