"""AWS components for GPU clusters on EKS: network, peering, KMS, cluster, GPU pools, spot, access, storage."""

from components.aws.cluster import GpuCluster, GpuClusterArgs
from components.aws.identity import PodIdentityRole, PodIdentityRoleArgs
from components.aws.kms import KmsKey, KmsKeyArgs
from components.aws.network import PrivateNetwork, PrivateNetworkArgs
from components.aws.node_pool import GpuNodePool, GpuNodePoolArgs, NodeGroupTarget
from components.aws.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from components.aws.rbac import GpuAdminAccess, GpuAdminAccessArgs
from components.aws.spot import SpotGpuGroup, SpotGpuGroupArgs
from components.aws.storage import CheckpointBucket, CheckpointBucketArgs

__all__ = [
    "CheckpointBucket",
    "CheckpointBucketArgs",
    "GpuAdminAccess",
    "GpuAdminAccessArgs",
    "GpuCluster",
    "GpuClusterArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "KmsKey",
    "KmsKeyArgs",
    "NodeGroupTarget",
    "PodIdentityRole",
    "PodIdentityRoleArgs",
    "PrivateNetwork",
    "PrivateNetworkArgs",
    "PrivateVpcPeering",
    "PrivateVpcPeeringArgs",
    "SpotGpuGroup",
    "SpotGpuGroupArgs",
]
