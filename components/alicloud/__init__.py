"""The GPU environment's components on Alibaba Cloud (ACK), with the same names and specs as on AWS."""

from components.alicloud.cluster import GpuCluster, GpuClusterArgs
from components.alicloud.identity import RrsaRole, RrsaRoleArgs
from components.alicloud.kms import KmsKey, KmsKeyArgs
from components.alicloud.network import PrivateNetwork, PrivateNetworkArgs
from components.alicloud.node_pool import GpuNodePool, GpuNodePoolArgs
from components.alicloud.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from components.alicloud.rbac import GpuAdminAccess, GpuAdminAccessArgs
from components.alicloud.spot import SpotGpuGroup, SpotGpuGroupArgs
from components.alicloud.storage import CheckpointBucket, CheckpointBucketArgs

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
    "PrivateNetwork",
    "PrivateNetworkArgs",
    "PrivateVpcPeering",
    "PrivateVpcPeeringArgs",
    "RrsaRole",
    "RrsaRoleArgs",
    "SpotGpuGroup",
    "SpotGpuGroupArgs",
]
