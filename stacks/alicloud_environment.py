"""An environment on Alibaba Cloud: the Alibaba components composed from the stack's config."""

import pulumi
import pulumi_alicloud as alicloud

from components.alicloud import (
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
    PrivateNetwork,
    PrivateNetworkArgs,
    PrivateVpcPeering,
    PrivateVpcPeeringArgs,
    SpotGpuGroup,
    SpotGpuGroupArgs,
)
from components.spec import EgressMode, NetworkSpec, PeeringSpec, StackConfig


def build(config: StackConfig) -> None:
    """Declare the environment's Alibaba Cloud resources and export its outputs."""
    env = config.environment
    tags = dict(config.tags)
    provider = alicloud.Provider("alicloud", region=config.region)
    opts = pulumi.ResourceOptions(provider=provider)
    account_id = alicloud.get_caller_identity(opts=pulumi.InvokeOptions(provider=provider)).account_id

    network = PrivateNetwork(f"{env}-network", PrivateNetworkArgs(spec=config.network, tags=tags), opts)
    key = KmsKey(f"{env}-key", KmsKeyArgs(spec=config.kms, protect=config.protect_stateful, tags=tags), opts)
    cluster = GpuCluster(
        f"{env}-gpu",
        GpuClusterArgs(
            spec=config.cluster,
            network=config.network,
            vswitch_ids=network.vswitch_ids,
            kms_key_id=key.key_id,
            tags=tags,
        ),
        opts,
    )
    where = {
        "cluster_id": cluster.cluster_id,
        "vswitch_ids_by_zone": network.vswitch_ids_by_zone,
        "kms_key_id": key.key_id,
        "tags": tags,
    }
    pools = [GpuNodePool(f"{env}-{p.name}", GpuNodePoolArgs(spec=p, **where), opts) for p in config.node_pools]
    groups = [SpotGpuGroup(f"{env}-{g.name}", SpotGpuGroupArgs(spec=g, **where), opts) for g in config.spot_groups]
    access = GpuAdminAccess(
        f"{env}-access",
        GpuAdminAccessArgs(
            spec=config.access, cluster_id=cluster.cluster_id, cluster_name=cluster.cluster_name, tags=config.tags
        ),
        opts,
    )
    if config.peering is not None:
        _peer(env, config, config.peering, network, account_id, opts)
    if config.checkpoint_bucket is not None:
        bucket = CheckpointBucket(
            f"{env}-checkpoints",
            CheckpointBucketArgs(
                spec=config.checkpoint_bucket,
                bucket_name=f"{env}-gpu-checkpoints-{account_id}",
                kms_key_id=key.key_id,
                protect=config.protect_stateful,
                tags=tags,
            ),
            opts,
        )
        pulumi.export("checkpointBucket", bucket.bucket_name)

    pulumi.export("environment", env)
    pulumi.export("region", config.region)
    pulumi.export("vpcId", network.vpc_id)
    pulumi.export("routeTableId", network.route_table_id)
    pulumi.export("egressIp", network.egress_ip)
    pulumi.export("kmsKeyId", key.key_id)
    pulumi.export("clusterId", cluster.cluster_id)
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("rrsaOidcIssuerUrl", cluster.rrsa_oidc_issuer_url)
    pulumi.export("nodePoolIds", {p.node_pool_name: p.node_pool_id for p in pools})
    pulumi.export("spotNodePoolIds", [g.spot_node_pool_id for g in groups])
    pulumi.export("adminRoleArn", access.admin_role_arn)
    pulumi.export("userRoleArn", access.user_role_arn)


def _peer(
    env: str,
    config: StackConfig,
    peering: PeeringSpec,
    network: PrivateNetwork,
    account_id: str,
    opts: pulumi.ResourceOptions,
) -> None:
    """Peer the environment's VPC with the data VPC in the peer region (created here, or another stack's)."""
    peer_provider = alicloud.Provider("alicloud-peer", region=peering.peer_region)
    if peering.peer_private_subnets:
        # A data VPC with no internet path at all.
        data_spec = NetworkSpec(
            vpc_cidr=peering.peer_vpc_cidr,
            private_subnets=peering.peer_private_subnets,
            egress=EgressMode.ENDPOINTS_ONLY,
        )
        data = PrivateNetwork(
            f"{env}-data-network",
            PrivateNetworkArgs(spec=data_spec, tags=dict(config.tags)),
            pulumi.ResourceOptions(provider=peer_provider),
        )
        peer_vpc_id: pulumi.Input[str] = data.vpc_id
        peer_route_table_id: pulumi.Input[str] = data.route_table_id
    else:
        # The other stack exports the same vpcId and routeTableId as this one.
        other = pulumi.StackReference(str(peering.peer_stack))
        peer_vpc_id = other.require_output("vpcId")
        peer_route_table_id = other.require_output("routeTableId")
    PrivateVpcPeering(
        f"{env}-peering",
        PrivateVpcPeeringArgs(
            spec=peering,
            vpc_cidr=config.network.vpc_cidr,
            vpc_id=network.vpc_id,
            route_table_ids=[network.route_table_id],
            peer_vpc_id=peer_vpc_id,
            peer_route_table_ids=[peer_route_table_id],
            peer_provider=peer_provider,
            account_id=account_id,
            tags=dict(config.tags),
        ),
        opts,
    )
