"""AWS components for GPU clusters on EKS: network, peering, KMS, cluster, GPU pools, spot, Karpenter, access,
storage, and the whole environment (GpuEnvironment)."""

try:
    import pulumi_aws  # noqa: F401  (the provider SDK of the 'aws' extra)
except ModuleNotFoundError as err:
    from gpu_cloud.components._extras import missing_extra

    raise missing_extra("aws", "pulumi_aws", err) from None

from gpu_cloud.components.aws import checks as checks  # registers the EKS checks in spec's validation model
from gpu_cloud.components.aws.cluster import GpuCluster, GpuClusterArgs
from gpu_cloud.components.aws.deploy_runner import DeployRunner, DeployRunnerArgs
from gpu_cloud.components.aws.environment import GpuEnvironment, GpuEnvironmentArgs
from gpu_cloud.components.aws.identity import PodIdentityRole, PodIdentityRoleArgs
from gpu_cloud.components.aws.karpenter import Karpenter, KarpenterArgs
from gpu_cloud.components.aws.karpenter_pool import KarpenterGpuPool, KarpenterGpuPoolArgs, KarpenterTarget
from gpu_cloud.components.aws.kms import KmsKey, KmsKeyArgs
from gpu_cloud.components.aws.network import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.aws.node_pool import GpuNodePool, GpuNodePoolArgs, NodeGroupTarget
from gpu_cloud.components.aws.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from gpu_cloud.components.aws.rbac import GpuAdminAccess, GpuAdminAccessArgs
from gpu_cloud.components.aws.spot import SpotGpuGroup, SpotGpuGroupArgs
from gpu_cloud.components.aws.storage import CheckpointBucket, CheckpointBucketArgs

__all__ = [
    "CheckpointBucket",
    "CheckpointBucketArgs",
    "DeployRunner",
    "DeployRunnerArgs",
    "GpuAdminAccess",
    "GpuAdminAccessArgs",
    "GpuCluster",
    "GpuClusterArgs",
    "GpuEnvironment",
    "GpuEnvironmentArgs",
    "GpuNodePool",
    "GpuNodePoolArgs",
    "Karpenter",
    "KarpenterArgs",
    "KarpenterGpuPool",
    "KarpenterGpuPoolArgs",
    "KarpenterTarget",
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
