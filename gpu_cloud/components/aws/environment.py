"""A whole GPU environment on AWS, from one validated :class:`~gpu_cloud.components.spec.StackConfig`: KMS key,
private network, EKS cluster, GPU node pools and spot groups, access, workload identities, checkpoint bucket,
peering, the deploy runner's path to the private API, and the Kubernetes layer.

A program builds one in a few lines::

    config = load_stack_config()
    provider = aws.Provider("aws", region=config.region, default_tags=aws.ProviderDefaultTagsArgs(tags=config.tags))
    env = GpuEnvironment(
        config.environment,
        GpuEnvironmentArgs(config=config, runner_vpc_id=..., runner_route_table_ids=[...]),
        opts=pulumi.ResourceOptions(provider=provider),
    )
    for key, value in env.stack_outputs.items():
        pulumi.export(key, value)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_cloud.components.aws.checks import eks_network_problems, eks_node_group_problems
from gpu_cloud.components.aws.cluster import GpuCluster, GpuClusterArgs
from gpu_cloud.components.aws.expander import expander_priorities
from gpu_cloud.components.aws.identity import (
    PodIdentityRole,
    PodIdentityRoleArgs,
    checkpoint_statements,
    cluster_autoscaler_statements,
    job_checkpoint_statements,
    model_read_statements,
    sns_publish_statements,
)
from gpu_cloud.components.aws.karpenter import Karpenter, KarpenterArgs, karpenter_names, subnet_discovery_tags
from gpu_cloud.components.aws.karpenter_pool import (
    KarpenterGpuPool,
    KarpenterGpuPoolArgs,
    KarpenterTarget,
    karpenter_config_problems,
)
from gpu_cloud.components.aws.kms import KmsKey, KmsKeyArgs
from gpu_cloud.components.aws.network import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.aws.node_pool import GpuNodePool, GpuNodePoolArgs, NodeGroupTarget
from gpu_cloud.components.aws.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from gpu_cloud.components.aws.rbac import GpuAdminAccess, GpuAdminAccessArgs
from gpu_cloud.components.aws.spot import SpotGpuGroup, SpotGpuGroupArgs
from gpu_cloud.components.aws.storage import CheckpointBucket, CheckpointBucketArgs
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.k8s.addons import (
    ALERTMANAGER_SERVICE_ACCOUNT,
    AUTOSCALER_SERVICE_ACCOUNT,
    MONITORING_NAMESPACE,
    SYSTEM_NAMESPACE,
)
from gpu_cloud.components.k8s.layer import (
    INFERENCE_NAMESPACE,
    ClusterHandle,
    KubernetesLayer,
    KubernetesLayerArgs,
    layer_problems,
)
from gpu_cloud.components.k8s.training import TRAINING_SERVICE_ACCOUNT
from gpu_cloud.components.moved import was_top_level
from gpu_cloud.components.naming import EKS_CLUSTER, physical_name
from gpu_cloud.components.outputs import common_outputs
from gpu_cloud.components.spec import (
    ConfigError,
    GpuNodePoolSpec,
    NodeProvisioner,
    PeeringSpec,
    Problem,
    SpotGroupSpec,
    StackConfig,
    config_error,
)

__all__ = ["CHECKPOINT_PREFIX", "GpuEnvironment", "GpuEnvironmentArgs"]

CHECKPOINT_PREFIX = "gpucloud-ckpt"
"""The name prefix of the environment's checkpoint bucket (``components.aws.storage``)."""

CLUSTER_BASE = "gpu"
"""The base of the EKS cluster's physical name: the cluster is ``gpu-<stack>`` (components.naming)."""


@dataclass(frozen=True)
class GpuEnvironmentArgs:
    """What an AWS GPU environment is built from: its validated config, and the facts that come from outside the
    program (the deploy runner's network, another stack's VPC), as inputs."""

    config: StackConfig
    """The environment's validated config (``cloud: aws``)."""
    runner_vpc_id: pulumi.Input[str]
    """The deploy runner's VPC (in ``config.deploy.runnerRegion``, default ``config.region``; range
    ``config.deploy.runnerVpcCidr``): peered with the environment's VPC, so the runner reaches the private API."""
    runner_route_table_ids: Sequence[pulumi.Input[str]]
    """The runner VPC's route tables (``config.deploy.runnerRouteTableCount`` of them): each gets a route to the
    environment's VPC."""
    peer_vpc_id: pulumi.Input[str] | None = None
    """With ``config.peering.peerStack``: the peer VPC (in ``config.peering.peerRegion``)."""
    peer_route_table_ids: Sequence[pulumi.Input[str]] = ()
    """With ``config.peering.peerStack``: the peer VPC's private route tables (``peerRouteTableCount`` of them)."""
    peer_provider: pulumi.ProviderResource | None = None
    """With ``config.peering.peerPrivateSubnets``: an AWS provider of ``config.peering.peerRegion``, where the data
    VPC and its key are created (providers come from the program, never from a component)."""
    admin_role_arns: Sequence[pulumi.Input[str]] = ()
    """The roles that run ``pulumi up`` of this environment (its deployer role on the deploy runner): each is cluster
    admin by its own EKS access entry, and the Kubernetes layer waits for them (GpuClusterArgs.admin_role_arns)."""


class GpuEnvironment(pulumi.ComponentResource):
    """An AWS GPU environment (see the module). The AWS provider of ``config.region`` comes through ``opts``
    (``provider=`` or ``providers=``); the Kubernetes provider is the :class:`KubernetesLayer`'s.

    Children are named ``<name>-<part>`` (``name`` is the environment's name in ``gpucloud plan`` and ``stacks/``).
    Resources that were at the top of the stack before 0.2 keep their URNs through aliases (components.moved).
    """

    kms_key: KmsKey
    """The environment's KMS key."""
    network: PrivateNetwork
    """The private VPC."""
    cluster: GpuCluster
    """The EKS cluster."""
    node_pools: dict[str, GpuNodePool]
    """The on-demand GPU pools by spec name."""
    spot_groups: dict[str, SpotGpuGroup]
    """The spot groups by spec name."""
    karpenter: Karpenter | None
    """Karpenter, with ``nodeProvisioner: karpenter`` (then the pools and spot groups are :attr:`karpenter_pools`)."""
    karpenter_pools: dict[str, KarpenterGpuPool]
    """With Karpenter: the GPU pools and spot groups by spec name."""
    access: GpuAdminAccess
    """The gpu-admin and gpu-user roles."""
    checkpoint_bucket: CheckpointBucket | None
    """The checkpoint (and model) bucket, with ``config.checkpointBucket``."""
    kubernetes: KubernetesLayer
    """The Kubernetes layer; its ``provider`` is the cluster's Kubernetes provider."""
    stack_outputs: dict[str, Any]
    """The environment's stack outputs by name (the names of every environment, ``components.outputs``, and
    ``checkpointBucket``, ``peeringConnectionId``, ``peerVpcId``, ``deployRunnerVpcId``, ``oidcProviderArn``)."""

    def __init__(self, name: str, args: GpuEnvironmentArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        config = args.config
        _check(args)
        super().__init__("gpucloud:aws:GpuEnvironment", name, None, opts)
        outputs: dict[str, Any] = {}
        on_karpenter = config.node_provisioner is NodeProvisioner.KARPENTER
        cluster_name = physical_name(EKS_CLUSTER, CLUSTER_BASE)
        key = KmsKey(
            f"{name}-kms",
            KmsKeyArgs(
                spec=config.kms,
                alias="gpucloud",
                protect=config.protect_stateful,
                event_queues=(karpenter_names(f"{name}-karpenter").queue,) if on_karpenter else (),
            ),
            opts=was_top_level(self),
        )
        network = PrivateNetwork(
            f"{name}-network",
            PrivateNetworkArgs(
                spec=config.network,
                kms_key_arn=key.key_arn,
                private_subnet_tags=subnet_discovery_tags(cluster_name) if on_karpenter else {},
            ),
            opts=was_top_level(self),
        )
        cluster = GpuCluster(
            f"{name}-gpu",
            GpuClusterArgs(
                spec=config.cluster,
                subnet_ids=network.private_subnet_ids,
                kms_key_arn=key.key_arn,
                kms_key_alias=key.alias_name,
                protect=config.protect_stateful,
                tags=dict(config.tags),
                # Physical names carry the stack (components.naming): the EKS cluster is gpu-<stack>.
                cluster_name=CLUSTER_BASE,
                admin_role_arns=list(args.admin_role_arns),
            ),
            opts=was_top_level(self),
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
            pool.name: GpuNodePool(
                f"{name}-{pool.name}", GpuNodePoolArgs(spec=pool, target=target), opts=was_top_level(self)
            )
            for pool in ([] if on_karpenter else config.node_pools)
        }
        spot_groups = {
            group.name: SpotGpuGroup(
                f"{name}-{group.name}", SpotGpuGroupArgs(spec=group, target=target), opts=was_top_level(self)
            )
            for group in ([] if on_karpenter else config.spot_groups)
        }
        # The node groups' EKS names, as EKS generated them (components.aws.expander node_group_name_prefix).
        eks_names = [cluster.system_node_group_name, *(pool.node_group_name for pool in node_pools.values())]
        for group in spot_groups.values():
            eks_names.append(group.spot_node_group_name)
            if group.fallback_node_group_name is not None:
                eks_names.append(group.fallback_node_group_name)
        access = GpuAdminAccess(
            f"{name}-access",
            GpuAdminAccessArgs(spec=config.access, cluster_name=cluster.cluster_name),
            opts=was_top_level(self),
        )

        def identity(part: str, namespace: str, account: str, statements: Any) -> PodIdentityRole:
            return PodIdentityRole(
                f"{name}-{part}-identity",
                PodIdentityRoleArgs(
                    cluster_name=cluster.cluster_name,
                    namespace=namespace,
                    service_account=account,
                    statements=statements,
                ),
                opts=was_top_level(self),
            )

        addon_identities: list[pulumi.Resource] = []
        if config.addons.cluster_autoscaler:
            addon_identities.append(
                identity("autoscaler", SYSTEM_NAMESPACE, AUTOSCALER_SERVICE_ACCOUNT, cluster_autoscaler_statements)
            )
        if config.alerts is not None and config.alerts.sns_topic_arn is not None:
            statements = sns_publish_statements(config.alerts.sns_topic_arn)
            addon_identities.append(
                identity("alertmanager", MONITORING_NAMESPACE, ALERTMANAGER_SERVICE_ACCOUNT, statements)
            )
        training_identities: list[pulumi.Resource] = []
        job_identities: dict[str, pulumi.Resource] = {}
        inference_identities: dict[str, pulumi.Resource] = {}
        bucket: CheckpointBucket | None = None
        if config.checkpoint_bucket is not None:
            bucket = CheckpointBucket(
                f"{name}-checkpoints",
                CheckpointBucketArgs(
                    spec=config.checkpoint_bucket,
                    kms_key_arn=key.key_arn,
                    name_prefix=CHECKPOINT_PREFIX,
                    protect=config.protect_stateful,
                ),
                opts=was_top_level(self),
            )
            outputs["checkpointBucket"] = bucket.bucket_name
            # Each inference service's pods read only their model, through their own ServiceAccount.
            for service in config.inference:
                statements = model_read_statements(CHECKPOINT_PREFIX, key.alias_name, service.model_source)
                inference_identities[service.name] = identity(
                    service.name, INFERENCE_NAMESPACE, service.name, statements
                )
            if config.training is not None:
                namespace = config.training.namespace
                statements = checkpoint_statements(CHECKPOINT_PREFIX, key.alias_name)
                training_identities.append(identity("training", namespace, TRAINING_SERVICE_ACCOUNT, statements))
                # Each training job reaches only its own checkpoint prefix, through its own ServiceAccount.
                for job in config.training.jobs:
                    statements = job_checkpoint_statements(CHECKPOINT_PREFIX, key.alias_name, job.checkpoint_prefix)
                    job_identities[job.name] = identity(job.name, namespace, job.name, statements)
        if config.peering is not None:
            outputs |= self._peer(name, args, config.peering, network)
        deploy_path = self._deploy_path(name, args, network, cluster)
        outputs["deployRunnerVpcId"] = args.runner_vpc_id
        self.karpenter, self.karpenter_pools = None, {}
        if on_karpenter:
            self.karpenter, self.karpenter_pools = self._karpenter(name, config, key, network, cluster, deploy_path)
            eks_names += [
                pulumi.Output.from_input(pool_name)
                for pool in self.karpenter_pools.values()
                for pool_name in pool.node_pool_names
            ]
        model_bucket = bucket.bucket_name if bucket is not None else None
        self.kubernetes = KubernetesLayer(
            name,
            KubernetesLayerArgs(
                config=config,
                cluster=ClusterHandle(
                    kubeconfig=cluster.kubeconfig,
                    ready=[
                        cluster,
                        *cluster.admin_access,
                        *deploy_path,
                        *([self.karpenter] if self.karpenter is not None else []),
                    ],
                    pools={**node_pools, **spot_groups, **self.karpenter_pools},
                    cluster_name=cluster.cluster_name,
                    expander_priorities=expander_priorities(() if on_karpenter else config.spot_groups),
                    addon_identities=addon_identities,
                    training_identities=training_identities,
                    model_bucket=model_bucket,
                    inference_identities=inference_identities,
                    checkpoint_uri=pulumi.Output.concat("s3://", model_bucket) if model_bucket is not None else None,
                    job_identities=job_identities,
                ),
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.kms_key, self.network, self.cluster, self.access = key, network, cluster, access
        self.node_pools, self.spot_groups, self.checkpoint_bucket = node_pools, spot_groups, bucket
        self.stack_outputs = outputs | common_outputs(
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
        self.stack_outputs["oidcProviderArn"] = cluster.oidc_provider_arn
        self.register_outputs(self.stack_outputs)

    def _peer(
        self, name: str, args: GpuEnvironmentArgs, peering: PeeringSpec, network: PrivateNetwork
    ) -> dict[str, Any]:
        """Peer the environment's VPC with the data VPC in the peer region: created here, or another stack's."""
        config = args.config
        peer_spec = peering.peer_network
        if peer_spec is not None:
            # A data VPC in the peer region, created here: endpoints only, its own key (keys are regional).
            peer_opts = was_top_level(self, provider=args.peer_provider)
            peer_key = KmsKey(
                f"{name}-peer-kms",
                KmsKeyArgs(
                    spec=config.kms,
                    alias="gpucloud-peer",
                    protect=config.protect_stateful,
                    autoscaling_volumes=False,
                ),
                opts=peer_opts,
            )
            peer = PrivateNetwork(
                f"{name}-data-network",
                # No nodes run there: no interface endpoints (aws.md A11), the S3 gateway endpoint only.
                PrivateNetworkArgs(spec=peer_spec, kms_key_arn=peer_key.key_arn, interface_endpoints=False),
                opts=peer_opts,
            )
            peer_vpc_id: pulumi.Input[str] = peer.vpc_id
            peer_tables: list[pulumi.Input[str]] = list(peer.private_route_table_ids)
        else:
            # Another stack's VPC (it exports vpcId and privateRouteTableIds, as this one does): _check saw both.
            assert args.peer_vpc_id is not None
            peer_vpc_id, peer_tables = args.peer_vpc_id, list(args.peer_route_table_ids)
        peering_component = self._peering(f"{name}-peering", config, network, peering, peer_vpc_id, peer_tables)
        return {"peeringConnectionId": peering_component.connection_id, "peerVpcId": peer_vpc_id}

    def _peering(
        self,
        name: str,
        config: StackConfig,
        network: PrivateNetwork,
        spec: PeeringSpec,
        peer_vpc_id: pulumi.Input[str],
        peer_tables: Sequence[pulumi.Input[str]],
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
            opts=was_top_level(self),
        )

    def _karpenter(
        self,
        name: str,
        config: StackConfig,
        key: KmsKey,
        network: PrivateNetwork,
        cluster: GpuCluster,
        deploy_path: Sequence[pulumi.Resource],
    ) -> tuple[Karpenter, dict[str, KarpenterGpuPool]]:
        """Karpenter and a KarpenterGpuPool per GPU pool and spot group, on a Kubernetes provider of their own that
        waits only for the cluster and the deploy path: the Kubernetes layer's provider waits for these pools (its
        objects need their NodePools), so they cannot use it."""
        kube = k8s.Provider(
            f"{name}-karpenter-kubernetes",
            kubeconfig=cluster.kubeconfig,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[cluster, *deploy_path]),
        )
        child = pulumi.ResourceOptions(parent=self, providers=[kube])
        karpenter = Karpenter(
            f"{name}-karpenter",
            KarpenterArgs(cluster.cluster_name, cluster.endpoint, key.alias_name, key.key_arn),
            opts=child,
        )
        target = KarpenterTarget(
            cluster_name=cluster.cluster_name,
            kubernetes_version=cluster.kubernetes_version,
            instance_profile=karpenter.instance_profile,
            kms_key_arn=key.key_arn,
            zones=tuple(network.subnet_ids_by_zone),
            tags=dict(config.tags),
            ready=karpenter.releases,
        )
        specs: list[GpuNodePoolSpec | SpotGroupSpec] = [*config.node_pools, *config.spot_groups]
        pools = {
            spec.name: KarpenterGpuPool(f"{name}-{spec.name}", KarpenterGpuPoolArgs(spec, target), opts=child)
            for spec in specs
        }
        return karpenter, pools

    def _deploy_path(
        self, name: str, args: GpuEnvironmentArgs, network: PrivateNetwork, cluster: GpuCluster
    ) -> list[pulumi.Resource]:
        """The path from the deploy runner to the private API: a peering with the runner VPC (routes both ways) and
        the cluster security group's rule admitting the runner VPC on 443. The Kubernetes layer waits for both."""
        config = args.config
        deploy = config.deploy
        # The runner's VPC is no config of this stack's (its ids come from the bootstrap's parameters, as inputs):
        # a spec of the peer's region and range only, which the peering reads, built without the one-source
        # validation a config's peering gets.
        spec = PeeringSpec.model_construct(
            peer_region=deploy.runner_region or config.region,
            peer_vpc_cidr=deploy.runner_vpc_cidr,
            peer_private_subnets=(),
            peer_stack=None,
            peer_route_table_count=deploy.runner_route_table_count,
        )
        peering = self._peering(
            f"{name}-deploy-peering", config, network, spec, args.runner_vpc_id, args.runner_route_table_ids
        )
        # EKS's cluster security group admits only itself (EKS User Guide, "View Amazon EKS security group
        # requirements for clusters"); the API server listens on 443 on its private endpoint.
        rule = aws.ec2.SecurityGroupRule(
            f"{name}-deploy-api",
            type="ingress",
            description="Kubernetes API from the deploy runner VPC",
            protocol="tcp",
            from_port=443,
            to_port=443,
            cidr_blocks=[str(deploy.runner_vpc_cidr)],
            security_group_id=cluster.security_group_id,
            opts=was_top_level(self),
        )
        return [peering, rule]


def _check(args: GpuEnvironmentArgs) -> None:
    """The config's problems on EKS (its own checks, which ran with the config only if this package was imported
    first, and the Kubernetes layer's), then the arguments' problems, before anything is declared."""
    config = args.config
    if config.cloud is not Cloud.AWS:
        raise ConfigError([Problem("config.cloud", "an AWS environment needs an aws config", config.cloud.value)])
    found = (
        eks_node_group_problems(config)
        + eks_network_problems(config)
        + karpenter_config_problems(config)
        + layer_problems(config)
    )
    if found:
        raise config_error(found)
    problems = []
    count = config.deploy.runner_route_table_count
    if len(args.runner_route_table_ids) != count:
        message = f"config.deploy.runnerRouteTableCount is {count}"
        problems.append(Problem("runner_route_table_ids", message, len(args.runner_route_table_ids)))
    peering = config.peering
    if peering is not None and peering.peer_network is not None and args.peer_provider is None:
        message = f"required with peering.peerPrivateSubnets: an AWS provider of {peering.peer_region}"
        problems.append(Problem("peer_provider", message, None))
    if peering is not None and peering.peer_stack is not None:
        if args.peer_vpc_id is None:
            problems.append(Problem("peer_vpc_id", f"required with peering.peerStack ({peering.peer_stack})", None))
        if len(args.peer_route_table_ids) != peering.peer_route_table_count:
            message = f"config.peering.peerRouteTableCount is {peering.peer_route_table_count}"
            problems.append(Problem("peer_route_table_ids", message, len(args.peer_route_table_ids)))
    if problems:
        raise ConfigError(problems)
