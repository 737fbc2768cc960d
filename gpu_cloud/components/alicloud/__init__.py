"""The GPU environment's components on Alibaba Cloud (ACK), with the same names and specs as on AWS, and the whole
environment (GpuEnvironment)."""

try:
    import pulumi_alicloud  # noqa: F401  (the provider SDK of the 'alicloud' extra)
except ModuleNotFoundError as err:
    from gpu_cloud.components._extras import missing_extra

    raise missing_extra("alicloud", "pulumi_alicloud", err) from None

from gpu_cloud.components.alicloud.autoscaling import ClusterAutoscaling, ClusterAutoscalingArgs
from gpu_cloud.components.alicloud.cluster import GpuCluster, GpuClusterArgs
from gpu_cloud.components.alicloud.environment import GpuEnvironment, GpuEnvironmentArgs
from gpu_cloud.components.alicloud.gpu_sharing import GpuSharing, GpuSharingArgs
from gpu_cloud.components.alicloud.identity import RrsaRole, RrsaRoleArgs
from gpu_cloud.components.alicloud.kms import KmsKey, KmsKeyArgs
from gpu_cloud.components.alicloud.network import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.alicloud.node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_cloud.components.alicloud.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from gpu_cloud.components.alicloud.rbac import GpuAdminAccess, GpuAdminAccessArgs
from gpu_cloud.components.alicloud.spot import SpotGpuGroup, SpotGpuGroupArgs
from gpu_cloud.components.alicloud.storage import CheckpointBucket, CheckpointBucketArgs
from gpu_cloud.components.alicloud.tls import Tls13ListenerPolicy, Tls13ListenerPolicyArgs

__all__ = [
    "CheckpointBucket",
    "CheckpointBucketArgs",
    "ClusterAutoscaling",
    "ClusterAutoscalingArgs",
    "GpuAdminAccess",
    "GpuAdminAccessArgs",
    "GpuCluster",
    "GpuClusterArgs",
    "GpuEnvironment",
    "GpuEnvironmentArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "GpuSharing",
    "GpuSharingArgs",
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
    "Tls13ListenerPolicy",
    "Tls13ListenerPolicyArgs",
]
