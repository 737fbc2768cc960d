"""An environment on Alibaba Cloud: the Alibaba components composed from the stack's config, then the Kubernetes
layer."""

import kubernetes_layer
import outputs
import pulumi
import pulumi_alicloud as alicloud
import references

from gpu_cloud.components.alicloud import (
    CheckpointBucket,
    CheckpointBucketArgs,
    ClusterAutoscaling,
    ClusterAutoscalingArgs,
    GpuAdminAccess,
    GpuAdminAccessArgs,
    GpuCluster,
    GpuClusterArgs,
    GpuNodePool,
    GpuNodePoolArgs,
    GpuSharing,
    GpuSharingArgs,
    KmsKey,
    KmsKeyArgs,
    PrivateNetwork,
    PrivateNetworkArgs,
    PrivateVpcPeering,
    PrivateVpcPeeringArgs,
    RrsaRole,
    RrsaRoleArgs,
    SpotGpuGroup,
    SpotGpuGroupArgs,
    Tls13ListenerPolicy,
    Tls13ListenerPolicyArgs,
)
from gpu_cloud.components.alicloud._pool import PoolArgs
from gpu_cloud.components.alicloud.identity import checkpoint_policy, job_checkpoint_policy, model_read_policy
from gpu_cloud.components.alicloud.storage import checkpoint_bucket_name
from gpu_cloud.components.k8s.training import TRAINING_SERVICE_ACCOUNT
from gpu_cloud.components.spec import PeeringSpec, StackConfig
from gpu_cloud.components.versions import ACK_NVIDIA_DRIVER_VERSION


def build(config: StackConfig) -> None:
    """Declare the environment's Alibaba Cloud resources and its Kubernetes layer, and export its outputs."""
    # ACK GPU pools run the driver the pool builder pins (components.alicloud._pool), not ACK's default.
    kubernetes_layer.check(config, ACK_NVIDIA_DRIVER_VERSION)
    env = config.environment
    tags = dict(config.tags)
    provider = alicloud.Provider("alicloud", region=config.region)
    opts = pulumi.ResourceOptions(provider=provider)
    account_id = alicloud.get_caller_identity(opts=pulumi.InvokeOptions(provider=provider)).account_id

    network = PrivateNetwork(f"{env}-network", PrivateNetworkArgs(spec=config.network, tags=tags), opts)
    # The KMS instance is the account's (its bootstrap stack exports kmsInstanceId), not a copied id.
    instance_stack = config.kms.alicloud_kms_instance_stack
    instance_id = (
        references.text(
            pulumi.StackReference(instance_stack), instance_stack, "kmsInstanceId", "kms.alicloudKmsInstanceStack"
        )
        if instance_stack
        else None
    )
    key = KmsKey(
        f"{env}-key",
        KmsKeyArgs(
            spec=config.kms, protect=config.protect_stateful, tags=tags, instance_id=instance_id, alias="gpucloud"
        ),
        opts,
    )
    cluster = GpuCluster(
        f"{env}-gpu",
        GpuClusterArgs(
            spec=config.cluster,
            network=config.network,
            vswitch_ids=network.vswitch_ids,
            kms_key_id=key.key_id,
            tags=tags,
            protect=config.protect_stateful,
            # Physical names carry the stack (components.naming): the ACK cluster is gpu-<stack>.
            cluster_name="gpu",
        ),
        opts,
    )
    where = PoolArgs(
        cluster_id=cluster.cluster_id, vswitch_ids_by_zone=network.vswitch_ids_by_zone, kms_key_id=key.key_id, tags=tags
    )
    # Pools that share GPUs need ACK's sharing component on the cluster (installed once, whatever shares).
    sharing = None
    if any(p.gpu_time_slicing_replicas is not None for p in config.node_pools):
        sharing = GpuSharing(f"{env}-gpu-sharing", GpuSharingArgs(cluster_id=cluster.cluster_id), opts)
    pools = [
        GpuNodePool(f"{env}-{p.name}", GpuNodePoolArgs(spec=p, gpu_sharing=sharing, **vars(where)), opts)
        for p in config.node_pools
    ]
    groups = [
        SpotGpuGroup(f"{env}-{g.name}", SpotGpuGroupArgs(spec=g, **vars(where)), opts) for g in config.spot_groups
    ]
    # Without the cluster-level setting the pools' own autoscaling adds no node; spot pools first.
    autoscaling = ClusterAutoscaling(
        f"{env}-autoscaling",
        ClusterAutoscalingArgs(
            cluster_id=cluster.cluster_id,
            spot_groups=[(g.spot_scaling_group_id, g.fallback_scaling_group_id) for g in groups],
            other_pools=[p.scaling_group_id for p in pools],
        ),
        opts,
    )
    components: dict[str, pulumi.Resource] = {p.name: c for p, c in zip(config.node_pools, pools, strict=True)}
    components |= {g.name: c for g, c in zip(config.spot_groups, groups, strict=True)}
    if config.peering is not None:
        _peer(env, config, config.peering, network, account_id, opts)
    deploy_path = _deploy_path(config, network, cluster, provider, account_id, opts)
    training_role: RrsaRole | None = None
    inference_roles: dict[str, RrsaRole] = {}
    job_roles: dict[str, RrsaRole] = {}
    model_bucket: pulumi.Output[str] | None = None
    if config.checkpoint_bucket is not None:
        prefix = "gpucloud-ckpt"
        bucket_name = checkpoint_bucket_name(prefix, account_id)
        bucket = CheckpointBucket(
            f"{env}-checkpoints",
            CheckpointBucketArgs(
                spec=config.checkpoint_bucket,
                name_prefix=prefix,
                account_id=account_id,
                kms_key_id=key.key_id,
                protect=config.protect_stateful,
                tags=tags,
            ),
            opts,
        )
        pulumi.export("checkpointBucket", bucket.bucket_name)
        model_bucket = bucket.bucket_name
        # Each inference service's pods read only their model, through their own ServiceAccount.
        for service in config.inference:
            inference_roles[service.name] = RrsaRole(
                f"{env}-{service.name}-identity",
                RrsaRoleArgs(
                    role_name=f"{service.name}-inference",
                    namespace=kubernetes_layer.INFERENCE_NAMESPACE,
                    service_account=service.name,
                    oidc_provider_arn=cluster.rrsa_oidc_provider_arn,
                    oidc_issuer_url=cluster.rrsa_oidc_issuer_url,
                    policy_document=model_read_policy(account_id, config.region, bucket_name, service.model_source),
                    tags=tags,
                ),
                opts,
            )
        if config.training is not None:
            training_role = RrsaRole(
                f"{env}-training-identity",
                RrsaRoleArgs(
                    role_name="gpu-training",
                    namespace=config.training.namespace,
                    service_account=TRAINING_SERVICE_ACCOUNT,
                    oidc_provider_arn=cluster.rrsa_oidc_provider_arn,
                    oidc_issuer_url=cluster.rrsa_oidc_issuer_url,
                    policy_document=checkpoint_policy(account_id, config.region, bucket_name),
                    tags=tags,
                ),
                opts,
            )
            # Each training job reaches only its own checkpoint prefix, through its own ServiceAccount.
            for job in config.training.jobs:
                job_roles[job.name] = RrsaRole(
                    f"{env}-{job.name}-identity",
                    RrsaRoleArgs(
                        role_name=f"{job.name}-checkpoints",
                        namespace=config.training.namespace,
                        service_account=job.name,
                        oidc_provider_arn=cluster.rrsa_oidc_provider_arn,
                        oidc_issuer_url=cluster.rrsa_oidc_issuer_url,
                        policy_document=job_checkpoint_policy(
                            account_id, config.region, bucket_name, job.checkpoint_prefix
                        ),
                        tags=tags,
                    ),
                    opts,
                )

    tls_policy: pulumi.Output[str] | None = None
    if any(service.internal_load_balancer for service in config.inference):
        tls_policy = Tls13ListenerPolicy(f"{env}-inference-tls13", Tls13ListenerPolicyArgs(tags=tags), opts).policy_id
    # One vswitch per zone for the inference NLBs (ACK's zone-maps annotation: <zone>:<vswitch>,...).
    zone_maps = pulumi.Output.all(
        *[pulumi.Output.concat(zone, ":", ids[0]) for zone, ids in network.vswitch_ids_by_zone.items()]
    ).apply(",".join)

    rbac = kubernetes_layer.build(
        config,
        kubernetes_layer.ClusterHandle(
            kubeconfig=cluster.kubeconfig,
            ready=[cluster, autoscaling, *deploy_path, *([sharing.addon] if sharing is not None else [])],
            pools=components,
            training_identities=[training_role] if training_role is not None else [],
            checkpoint_role=training_role.role_name if training_role is not None else None,
            driver_version=ACK_NVIDIA_DRIVER_VERSION,
            model_bucket=model_bucket,
            inference_identities=dict(inference_roles),
            inference_roles={name: role.role_name for name, role in inference_roles.items()},
            inference_tls_policy=tls_policy,
            checkpoint_uri=pulumi.Output.concat("oss://", model_bucket) if model_bucket is not None else None,
            job_identities=dict(job_roles),
            job_roles={name: role.role_name for name, role in job_roles.items()},
            load_balancer_zone_maps=zone_maps,
        ),
    )
    # ACK grants bind the Kubernetes layer's ClusterRoles, so they come after them.
    access = GpuAdminAccess(
        f"{env}-access",
        GpuAdminAccessArgs(
            spec=config.access,
            cluster_id=cluster.cluster_id,
            cluster_name=cluster.cluster_name,
            tags=config.tags,
            cluster_roles=list(rbac.cluster_roles.values()),
        ),
        opts,
    )

    outputs.export_common(
        config,
        kms_key_id=key.key_id,
        kms_key_arn=key.key_arn,
        vpc_id=network.vpc_id,
        private_subnet_ids=network.vswitch_ids,
        private_route_table_ids=[network.route_table_id],
        cluster_name=cluster.cluster_name,
        cluster_endpoint=cluster.endpoint,
        kubeconfig=cluster.kubeconfig,
        node_pool_names=outputs.node_pool_names(config, cluster.system_node_pool_name),
        gpu_admin_role_arn=access.admin_role_arn,
        gpu_user_role_arn=access.user_role_arn,
    )
    pulumi.export("egressIp", network.egress_ip)
    pulumi.export("clusterId", cluster.cluster_id)
    pulumi.export("rrsaOidcIssuerUrl", cluster.rrsa_oidc_issuer_url)
    pulumi.export("nodePoolIds", {p.node_pool_name: p.node_pool_id for p in pools})
    pulumi.export("spotNodePoolIds", [g.spot_node_pool_id for g in groups])


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
    data_spec = peering.peer_network
    if data_spec is not None:
        # A data VPC with no internet path at all.
        data = PrivateNetwork(
            f"{env}-data-network",
            PrivateNetworkArgs(spec=data_spec, tags=dict(config.tags)),
            pulumi.ResourceOptions(provider=peer_provider),
        )
        peer_vpc_id: pulumi.Input[str] = data.vpc_id
        peer_route_table_id: pulumi.Input[str] = data.route_table_id
    else:
        # The other stack exports vpcId and privateRouteTableIds, as this one does (one VPC route table on ACK).
        peer_vpc_id, peer_route_table_id = _referenced_vpc(
            str(peering.peer_stack), "vpcId", "privateRouteTableIds", "peering.peer"
        )
    peering_component = _peering(
        f"{env}-peering", config, network, peering, (peer_vpc_id, peer_route_table_id), peer_provider, account_id, opts
    )
    pulumi.export("peeringConnectionId", peering_component.connection_id)
    pulumi.export("peerVpcId", peer_vpc_id)


def _referenced_vpc(
    stack: str, vpc_key: str, tables_key: str, field: str
) -> tuple[pulumi.Output[str], pulumi.Output[str]]:
    """Another stack's VPC id and the one route table id of its VPC, read through a StackReference (config
    ``<field>Stack``)."""
    other = pulumi.StackReference(stack)
    (table,) = references.ids(other, stack, tables_key, 1, f"{field}RouteTableCount")
    return references.text(other, stack, vpc_key, f"{field}Stack"), table


def _peering(
    name: str,
    config: StackConfig,
    network: PrivateNetwork,
    spec: PeeringSpec,
    peer: tuple[pulumi.Input[str], pulumi.Input[str]],
    peer_provider: alicloud.Provider,
    account_id: str,
    opts: pulumi.ResourceOptions,
) -> PrivateVpcPeering:
    """A peering of the environment's VPC with ``peer`` (VPC id, route table id), routes on both sides."""
    return PrivateVpcPeering(
        name,
        PrivateVpcPeeringArgs(
            spec=spec,
            vpc_cidr=config.network.vpc_cidr,
            vpc_id=network.vpc_id,
            route_table_ids=[network.route_table_id],
            peer_vpc_id=peer[0],
            peer_route_table_ids=[peer[1]],
            peer_provider=peer_provider,
            account_id=account_id,
            tags=dict(config.tags),
        ),
        opts,
    )


def _deploy_path(
    config: StackConfig,
    network: PrivateNetwork,
    cluster: GpuCluster,
    provider: alicloud.Provider,
    account_id: str,
    opts: pulumi.ResourceOptions,
) -> list[pulumi.Resource]:
    """The path from the deploy runner to the private API: a peering with the runner VPC (same region, routes both
    ways) and a rule of the cluster security group admitting the runner VPC on the API server port 6443."""
    deploy = config.deploy
    spec = PeeringSpec(
        peer_region=config.region,
        peer_vpc_cidr=deploy.runner_vpc_cidr,
        peer_stack=deploy.runner_stack,
    )
    runner = _referenced_vpc(deploy.runner_stack, "runnerVpcId", "runnerRouteTableIds", "deploy.runner")
    name = f"{config.environment}-deploy-peering"
    peering = _peering(name, config, network, spec, runner, provider, account_id, opts)
    rule = alicloud.ecs.SecurityGroupRule(
        f"{config.environment}-deploy-api",
        type="ingress",
        ip_protocol="tcp",
        port_range="6443/6443",
        cidr_ip=str(deploy.runner_vpc_cidr),
        policy="accept",
        description="Kubernetes API from the deploy runner VPC",
        security_group_id=cluster.security_group_id,
        opts=opts,
    )
    pulumi.export("deployRunnerVpcId", runner[0])
    return [peering, rule]
