"""An environment on AWS: the AWS components composed from the stack's config."""

import pulumi
import pulumi_aws as aws

from components.aws import (
    CheckpointBucket,
    CheckpointBucketArgs,
    GpuAdminAccess,
    GpuAdminAccessArgs,
    GpuCluster,
    GpuClusterArgs,
    GpuNodePool,
    GpuNodePoolArgs,
    KmsKey,
    KmsKeyArgs,
    NodeGroupTarget,
    PrivateNetwork,
    PrivateNetworkArgs,
    PrivateVpcPeering,
    PrivateVpcPeeringArgs,
    SpotGpuGroup,
    SpotGpuGroupArgs,
)
from components.spec import EgressMode, NetworkSpec, StackConfig


def build(config: StackConfig) -> None:
    """Declare the environment's AWS resources and export its outputs."""
    tags = aws.ProviderDefaultTagsArgs(tags=config.tags)
    provider = aws.Provider("aws", region=config.region, default_tags=tags)
    opts = pulumi.ResourceOptions(provider=provider)
    env = config.environment
    key = KmsKey(
        f"{env}-kms",
        KmsKeyArgs(spec=config.kms, alias=f"gpucloud-{env}", protect=config.protect_stateful),
        opts=opts,
    )
    network = PrivateNetwork(
        f"{env}-network", PrivateNetworkArgs(spec=config.network, kms_key_arn=key.key_arn), opts=opts
    )
    cluster = GpuCluster(
        f"{env}-gpu",
        GpuClusterArgs(
            spec=config.cluster,
            subnet_ids=network.private_subnet_ids,
            kms_key_arn=key.key_arn,
            kms_key_alias=key.alias_name,
        ),
        opts=opts,
    )
    target = NodeGroupTarget(
        cluster_name=cluster.cluster_name,
        kubernetes_version=cluster.kubernetes_version,
        cluster_security_group_id=cluster.security_group_id,
        kms_key_arn=key.key_arn,
        subnets=network.subnet_ids_by_zone,
    )
    for pool in config.node_pools:
        GpuNodePool(f"{env}-{pool.name}", GpuNodePoolArgs(spec=pool, target=target), opts=opts)
    for group in config.spot_groups:
        SpotGpuGroup(f"{env}-{group.name}", SpotGpuGroupArgs(spec=group, target=target), opts=opts)
    access = GpuAdminAccess(
        f"{env}-access",
        GpuAdminAccessArgs(spec=config.access, cluster_name=cluster.cluster_name, role_suffix=env),
        opts=opts,
    )
    if config.checkpoint_bucket is not None:
        bucket = CheckpointBucket(
            f"{env}-checkpoints",
            CheckpointBucketArgs(
                spec=config.checkpoint_bucket,
                kms_key_arn=key.key_arn,
                name_prefix=f"gpucloud-{env}-ckpt",
                protect=config.protect_stateful,
            ),
            opts=opts,
        )
        pulumi.export("checkpointBucket", bucket.bucket_name)
    if config.peering is not None and config.peering.peer_private_subnets:
        # A data VPC in the peer region, created here: endpoints only, its own key (keys are regional).
        peer_opts = pulumi.ResourceOptions(
            provider=aws.Provider("aws-peer", region=config.peering.peer_region, default_tags=tags)
        )
        peer_key = KmsKey(
            f"{env}-peer-kms",
            KmsKeyArgs(
                spec=config.kms,
                alias=f"gpucloud-{env}-peer",
                protect=config.protect_stateful,
                autoscaling_volumes=False,
            ),
            opts=peer_opts,
        )
        peer_spec = NetworkSpec(
            vpc_cidr=config.peering.peer_vpc_cidr,
            private_subnets=config.peering.peer_private_subnets,
            egress=EgressMode.ENDPOINTS_ONLY,
        )
        peer = PrivateNetwork(
            f"{env}-data-network", PrivateNetworkArgs(spec=peer_spec, kms_key_arn=peer_key.key_arn), opts=peer_opts
        )
        peering = PrivateVpcPeering(
            f"{env}-peering",
            PrivateVpcPeeringArgs(
                spec=config.peering,
                vpc_id=network.vpc_id,
                vpc_cidr=config.network.vpc_cidr,
                route_table_ids=network.private_route_table_ids,
                peer_vpc_id=peer.vpc_id,
                peer_route_table_ids=peer.private_route_table_ids,
            ),
            opts=opts,
        )
        pulumi.export("peeringConnectionId", peering.connection_id)
        pulumi.export("peerVpcId", peer.vpc_id)

    pulumi.export("environment", env)
    pulumi.export("region", config.region)
    pulumi.export("kmsKeyArn", key.key_arn)
    pulumi.export("vpcId", network.vpc_id)
    pulumi.export("privateSubnetIds", network.private_subnet_ids)
    pulumi.export("privateRouteTableIds", network.private_route_table_ids)
    pulumi.export("clusterName", cluster.cluster_name)
    pulumi.export("clusterEndpoint", cluster.endpoint)
    pulumi.export("oidcProviderArn", cluster.oidc_provider_arn)
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("gpuAdminRoleArn", access.admin_role_arn)
