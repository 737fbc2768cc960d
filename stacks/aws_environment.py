"""An environment on AWS: the AWS components composed from the stack's config, then the Kubernetes layer."""

import kubernetes_layer
import outputs
import pulumi
import pulumi_aws as aws
import references

from gpu_cloud.components.aws import (
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
    PodIdentityRole,
    PodIdentityRoleArgs,
    PrivateNetwork,
    PrivateNetworkArgs,
    PrivateVpcPeering,
    PrivateVpcPeeringArgs,
    SpotGpuGroup,
    SpotGpuGroupArgs,
)
from gpu_cloud.components.aws.expander import expander_priorities
from gpu_cloud.components.aws.identity import (
    checkpoint_statements,
    cluster_autoscaler_statements,
    job_checkpoint_statements,
    model_read_statements,
    sns_publish_statements,
)
from gpu_cloud.components.k8s.addons import (
    ALERTMANAGER_SERVICE_ACCOUNT,
    AUTOSCALER_SERVICE_ACCOUNT,
    MONITORING_NAMESPACE,
    SYSTEM_NAMESPACE,
)
from gpu_cloud.components.k8s.training import TRAINING_SERVICE_ACCOUNT
from gpu_cloud.components.spec import PeeringSpec, StackConfig


def build(config: StackConfig) -> None:
    """Declare the environment's AWS resources and its Kubernetes layer, and export its outputs."""
    kubernetes_layer.check(config)
    priorities = expander_priorities(config.spot_groups)  # checked with the config (spec._eks_node_groups)
    tags = aws.ProviderDefaultTagsArgs(tags=config.tags)
    provider = aws.Provider("aws", region=config.region, default_tags=tags)
    opts = pulumi.ResourceOptions(provider=provider)
    env = config.environment
    key = KmsKey(
        f"{env}-kms",
        KmsKeyArgs(spec=config.kms, alias="gpucloud", protect=config.protect_stateful),
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
            protect=config.protect_stateful,
            tags=dict(config.tags),
            # Physical names carry the stack (components.naming): the EKS cluster is gpu-<stack>.
            cluster_name="gpu",
        ),
        opts=opts,
    )
    target = NodeGroupTarget(
        cluster_name=cluster.cluster_name,
        kubernetes_version=cluster.kubernetes_version,
        cluster_security_group_id=cluster.security_group_id,
        kms_key_arn=key.key_arn,
        subnets=network.subnet_ids_by_zone,
        tags=dict(config.tags),
    )
    node_pools = {
        pool.name: GpuNodePool(f"{env}-{pool.name}", GpuNodePoolArgs(spec=pool, target=target), opts=opts)
        for pool in config.node_pools
    }
    spot_groups = {
        group.name: SpotGpuGroup(f"{env}-{group.name}", SpotGpuGroupArgs(spec=group, target=target), opts=opts)
        for group in config.spot_groups
    }
    pools: dict[str, pulumi.Resource] = {**node_pools, **spot_groups}
    # The node groups' EKS names, as EKS generated them (components.aws.expander node_group_name_prefix).
    eks_names = [cluster.system_node_group_name, *(pool.node_group_name for pool in node_pools.values())]
    for group in spot_groups.values():
        eks_names.append(group.spot_node_group_name)
        if group.fallback_node_group_name is not None:
            eks_names.append(group.fallback_node_group_name)
    access = GpuAdminAccess(
        f"{env}-access",
        GpuAdminAccessArgs(spec=config.access, cluster_name=cluster.cluster_name),
        opts=opts,
    )
    addon_identities: list[pulumi.Resource] = []
    if config.addons.cluster_autoscaler:
        addon_identities.append(
            PodIdentityRole(
                f"{env}-autoscaler-identity",
                PodIdentityRoleArgs(
                    cluster_name=cluster.cluster_name,
                    namespace=SYSTEM_NAMESPACE,
                    service_account=AUTOSCALER_SERVICE_ACCOUNT,
                    statements=cluster_autoscaler_statements,
                ),
                opts=opts,
            )
        )
    if config.alerts is not None and config.alerts.sns_topic_arn is not None:
        addon_identities.append(
            PodIdentityRole(
                f"{env}-alertmanager-identity",
                PodIdentityRoleArgs(
                    cluster_name=cluster.cluster_name,
                    namespace=MONITORING_NAMESPACE,
                    service_account=ALERTMANAGER_SERVICE_ACCOUNT,
                    statements=sns_publish_statements(config.alerts.sns_topic_arn),
                ),
                opts=opts,
            )
        )
    training_identities: list[pulumi.Resource] = []
    job_identities: dict[str, pulumi.Resource] = {}
    inference_identities: dict[str, pulumi.Resource] = {}
    model_bucket: pulumi.Output[str] | None = None
    if config.checkpoint_bucket is not None:
        prefix = "gpucloud-ckpt"
        bucket = CheckpointBucket(
            f"{env}-checkpoints",
            CheckpointBucketArgs(
                spec=config.checkpoint_bucket,
                kms_key_arn=key.key_arn,
                name_prefix=prefix,
                protect=config.protect_stateful,
            ),
            opts=opts,
        )
        pulumi.export("checkpointBucket", bucket.bucket_name)
        model_bucket = bucket.bucket_name
        # Each inference service's pods read only their model, through their own ServiceAccount.
        for service in config.inference:
            inference_identities[service.name] = PodIdentityRole(
                f"{env}-{service.name}-identity",
                PodIdentityRoleArgs(
                    cluster_name=cluster.cluster_name,
                    namespace=kubernetes_layer.INFERENCE_NAMESPACE,
                    service_account=service.name,
                    statements=model_read_statements(prefix, key.alias_name, service.model_source),
                ),
                opts=opts,
            )
        if config.training is not None:
            training_identities.append(
                PodIdentityRole(
                    f"{env}-training-identity",
                    PodIdentityRoleArgs(
                        cluster_name=cluster.cluster_name,
                        namespace=config.training.namespace,
                        service_account=TRAINING_SERVICE_ACCOUNT,
                        statements=checkpoint_statements(prefix, key.alias_name),
                    ),
                    opts=opts,
                )
            )
            # Each training job reaches only its own checkpoint prefix, through its own ServiceAccount.
            for job in config.training.jobs:
                job_identities[job.name] = PodIdentityRole(
                    f"{env}-{job.name}-identity",
                    PodIdentityRoleArgs(
                        cluster_name=cluster.cluster_name,
                        namespace=config.training.namespace,
                        service_account=job.name,
                        statements=job_checkpoint_statements(prefix, key.alias_name, job.checkpoint_prefix),
                    ),
                    opts=opts,
                )
    if config.peering is not None:
        _peer(env, config, config.peering, network, tags, opts)
    deploy_path = _deploy_path(config, network, cluster, opts)

    kubernetes_layer.build(
        config,
        kubernetes_layer.ClusterHandle(
            kubeconfig=cluster.kubeconfig,
            ready=[cluster, *deploy_path],
            pools=pools,
            cluster_name=cluster.cluster_name,
            expander_priorities=priorities,
            addon_identities=addon_identities,
            training_identities=training_identities,
            model_bucket=model_bucket,
            inference_identities=inference_identities,
            checkpoint_uri=pulumi.Output.concat("s3://", model_bucket) if model_bucket is not None else None,
            job_identities=job_identities,
        ),
    )

    outputs.export_common(
        config,
        kms_key_id=key.key_id,
        kms_key_arn=key.key_arn,
        vpc_id=network.vpc_id,
        private_subnet_ids=network.private_subnet_ids,
        private_route_table_ids=network.private_route_table_ids,
        cluster_name=cluster.cluster_name,
        cluster_endpoint=cluster.endpoint,
        kubeconfig=cluster.kubeconfig,
        node_pool_names=eks_names,
        gpu_admin_role_arn=access.admin_role_arn,
        gpu_user_role_arn=access.user_role_arn,
    )
    pulumi.export("oidcProviderArn", cluster.oidc_provider_arn)


def _peer(
    env: str,
    config: StackConfig,
    peering: PeeringSpec,
    network: PrivateNetwork,
    tags: aws.ProviderDefaultTagsArgs,
    opts: pulumi.ResourceOptions,
) -> None:
    """Peer the environment's VPC with the data VPC in the peer region: created here, or another stack's."""
    peer_spec = peering.peer_network
    if peer_spec is not None:
        # A data VPC in the peer region, created here: endpoints only, its own key (keys are regional).
        peer_opts = pulumi.ResourceOptions(
            provider=aws.Provider("aws-peer", region=peering.peer_region, default_tags=tags)
        )
        peer_key = KmsKey(
            f"{env}-peer-kms",
            KmsKeyArgs(
                spec=config.kms,
                alias="gpucloud-peer",
                protect=config.protect_stateful,
                autoscaling_volumes=False,
            ),
            opts=peer_opts,
        )
        peer = PrivateNetwork(
            f"{env}-data-network", PrivateNetworkArgs(spec=peer_spec, kms_key_arn=peer_key.key_arn), opts=peer_opts
        )
        peer_vpc_id: pulumi.Input[str] = peer.vpc_id
        peer_tables: list[pulumi.Input[str]] = list(peer.private_route_table_ids)
    else:
        # The other stack exports vpcId and privateRouteTableIds, as this one does.
        peer_vpc_id, peer_tables = _referenced_vpc(
            str(peering.peer_stack), "vpcId", "privateRouteTableIds", peering.peer_route_table_count, "peering.peer"
        )
    peering_component = _peering(f"{env}-peering", config, network, peering, peer_vpc_id, peer_tables, opts)
    pulumi.export("peeringConnectionId", peering_component.connection_id)
    pulumi.export("peerVpcId", peer_vpc_id)


def _referenced_vpc(
    stack: str, vpc_key: str, tables_key: str, count: int, field: str
) -> tuple[pulumi.Output[str], list[pulumi.Input[str]]]:
    """Another stack's VPC id and its ``count`` route table ids (config ``<field>RouteTableCount``), read through a
    StackReference."""
    other = pulumi.StackReference(stack)
    vpc_id = references.text(other, stack, vpc_key, f"{field}Stack")
    return vpc_id, list(references.ids(other, stack, tables_key, count, f"{field}RouteTableCount"))


def _peering(
    name: str,
    config: StackConfig,
    network: PrivateNetwork,
    spec: PeeringSpec,
    peer_vpc_id: pulumi.Input[str],
    peer_tables: list[pulumi.Input[str]],
    opts: pulumi.ResourceOptions,
) -> PrivateVpcPeering:
    return PrivateVpcPeering(
        name,
        PrivateVpcPeeringArgs(
            spec=spec,
            vpc_id=network.vpc_id,
            vpc_cidr=config.network.vpc_cidr,
            route_table_ids=network.private_route_table_ids,
            peer_vpc_id=peer_vpc_id,
            peer_route_table_ids=peer_tables,
        ),
        opts=opts,
    )


def _deploy_path(
    config: StackConfig, network: PrivateNetwork, cluster: GpuCluster, opts: pulumi.ResourceOptions
) -> list[pulumi.Resource]:
    """The path from the deploy runner to the private API: a peering with the runner VPC (routes both ways) and the
    cluster security group's rule admitting the runner VPC on 443. The Kubernetes layer waits for both."""
    deploy = config.deploy
    spec = PeeringSpec(
        peer_region=config.region,
        peer_vpc_cidr=deploy.runner_vpc_cidr,
        peer_stack=deploy.runner_stack,
        peer_route_table_count=deploy.runner_route_table_count,
    )
    vpc_id, tables = _referenced_vpc(
        deploy.runner_stack, "runnerVpcId", "runnerRouteTableIds", deploy.runner_route_table_count, "deploy.runner"
    )
    peering = _peering(f"{config.environment}-deploy-peering", config, network, spec, vpc_id, tables, opts)
    # EKS's cluster security group admits only itself (EKS User Guide, "View Amazon EKS security group
    # requirements for clusters"); the API server listens on 443 on its private endpoint.
    rule = aws.ec2.SecurityGroupRule(
        f"{config.environment}-deploy-api",
        type="ingress",
        description="Kubernetes API from the deploy runner VPC",
        protocol="tcp",
        from_port=443,
        to_port=443,
        cidr_blocks=[str(deploy.runner_vpc_cidr)],
        security_group_id=cluster.security_group_id,
        opts=opts,
    )
    pulumi.export("deployRunnerVpcId", vpc_id)
    return [peering, rule]
