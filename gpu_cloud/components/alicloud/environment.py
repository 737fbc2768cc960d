"""A whole GPU environment on Alibaba Cloud, from one validated :class:`~gpu_cloud.components.spec.StackConfig`:
private network, KMS key, ACK cluster, GPU node pools and spot groups, cluster autoscaling, RRSA identities,
checkpoint bucket, peering, the deploy runner's path to the private API, the Kubernetes layer, and access.

A program builds one in a few lines::

    config = load_stack_config()
    provider = alicloud.Provider("alicloud", region=config.region)
    env = GpuEnvironment(
        config.environment,
        GpuEnvironmentArgs(config=config, runner_vpc_id=..., runner_route_table_id=..., kms_instance_id=...),
        opts=pulumi.ResourceOptions(provider=provider),
    )
    for key, value in env.stack_outputs.items():
        pulumi.export(key, value)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._pool import PoolArgs
from gpu_cloud.components.alicloud.autoscaling import ClusterAutoscaling, ClusterAutoscalingArgs
from gpu_cloud.components.alicloud.cluster import GpuCluster, GpuClusterArgs
from gpu_cloud.components.alicloud.gpu_sharing import GpuSharing, GpuSharingArgs
from gpu_cloud.components.alicloud.identity import (
    KeyScope,
    RrsaRole,
    RrsaRoleArgs,
    checkpoint_policy,
    job_checkpoint_policy,
    model_read_policy,
)
from gpu_cloud.components.alicloud.kms import KmsKey, KmsKeyArgs
from gpu_cloud.components.alicloud.network import PrivateNetwork, PrivateNetworkArgs
from gpu_cloud.components.alicloud.node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_cloud.components.alicloud.peering import PrivateVpcPeering, PrivateVpcPeeringArgs
from gpu_cloud.components.alicloud.rbac import ClusterAdmins, ClusterAdminsArgs, GpuAdminAccess, GpuAdminAccessArgs
from gpu_cloud.components.alicloud.spot import SpotGpuGroup, SpotGpuGroupArgs
from gpu_cloud.components.alicloud.storage import CheckpointBucket, CheckpointBucketArgs, checkpoint_bucket_name
from gpu_cloud.components.alicloud.tls import Tls13ListenerPolicy, Tls13ListenerPolicyArgs
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.k8s.bucket_access import AccessKind, BucketAccess, bucket_accesses, handle_fields
from gpu_cloud.components.k8s.layer import (
    ClusterHandle,
    KubernetesLayer,
    KubernetesLayerArgs,
    layer_problems,
)
from gpu_cloud.components.moved import was_top_level
from gpu_cloud.components.naming import owned_base
from gpu_cloud.components.outputs import common_outputs, node_pool_names
from gpu_cloud.components.spec import ConfigError, PeeringSpec, Problem, StackConfig, config_error
from gpu_cloud.components.spec.cluster import ALICLOUD_KMS_INSTANCE_REQUIRED
from gpu_cloud.components.versions import ACK_NVIDIA_DRIVER_VERSION

__all__ = ["CHECKPOINT_PREFIX", "GpuEnvironment", "GpuEnvironmentArgs"]

CHECKPOINT_PREFIX = "gpucloud-ckpt"
"""The name prefix of the checkpoint bucket of an environment named after its stack (``components.alicloud.storage``;
another environment's is ``<name>-gpucloud-ckpt``)."""


@dataclass(frozen=True)
class GpuEnvironmentArgs:
    """What an Alibaba Cloud GPU environment is built from: its validated config, and the facts that come from
    outside the program (the deploy runner's network, another stack's VPC, the account's KMS instance), as inputs."""

    config: StackConfig
    """The environment's validated config (``cloud: alicloud``)."""
    runner_vpc_id: pulumi.Input[str]
    """The deploy runner's VPC (in ``config.region``, range ``config.deploy.runnerVpcCidr``): peered with the
    environment's VPC, so the runner reaches the private Kubernetes API."""
    runner_route_table_id: pulumi.Input[str]
    """The runner VPC's route table (an Alibaba Cloud VPC has one): it gets a route to the environment's VPC."""
    peer_provider: pulumi.ProviderResource | None = None
    """With ``config.peering``: an Alibaba Cloud provider of ``config.peering.peerRegion`` (the peer side of the
    peering, and the data VPC with ``peerPrivateSubnets``)."""
    peer_vpc_id: pulumi.Input[str] | None = None
    """With ``config.peering.peerStack``: the peer VPC."""
    peer_route_table_id: pulumi.Input[str] | None = None
    """With ``config.peering.peerStack``: the peer VPC's route table."""
    kms_instance_id: pulumi.Input[str] | None = None
    """The software KMS instance that holds the key, when the config names none (``kms.alicloudKmsInstanceId``): the
    one the account's bootstrap publishes (``bootstrap_facts.KMS_INSTANCE_ID``)."""
    deployer_role_arns: Sequence[str] = ()
    """The RAM roles that run ``pulumi up`` for the environment (the bootstrap's fact
    ``bootstrap_facts.DEPLOYER_ROLE_ARNS``): each is made an ACK cluster administrator (ClusterAdmins). Plain text:
    one grant per role."""


class GpuEnvironment(pulumi.ComponentResource):
    """An Alibaba Cloud GPU environment (see the module). The Alibaba Cloud provider of ``config.region`` comes
    through ``opts`` (required: the deploy runner's peering names it); the Kubernetes provider is the
    :class:`KubernetesLayer`'s.

    Children are named ``<name>-<part>`` (``name`` is the environment's name in ``gpucloud plan`` and ``stacks/``).
    Resources that were at the top of the stack before 0.2 keep their URNs through aliases (components.moved).
    Account-unique physical names are ``<name>-<part>-<stack>`` (``<part>-<stack>`` for an environment named after its
    stack, the names before 0.2): components.naming.owned_base.
    """

    network: PrivateNetwork
    """The private VPC."""
    kms_key: KmsKey
    """The environment's KMS key."""
    cluster: GpuCluster
    """The ACK cluster."""
    node_pools: dict[str, GpuNodePool]
    """The on-demand GPU pools by spec name."""
    spot_groups: dict[str, SpotGpuGroup]
    """The spot groups by spec name."""
    checkpoint_bucket: CheckpointBucket | None
    """The checkpoint (and model) bucket, with ``config.checkpointBucket``."""
    kubernetes: KubernetesLayer
    """The Kubernetes layer; its ``provider`` is the cluster's Kubernetes provider."""
    access: GpuAdminAccess
    """The gpu-admin and gpu-user RAM roles and their grants."""
    stack_outputs: dict[str, Any]
    """The environment's stack outputs by name (the names of every environment, ``components.outputs``, and
    ``checkpointBucket``, ``peeringConnectionId``, ``peerVpcId``, ``deployRunnerVpcId``, ``egressIp``, ``clusterId``,
    ``rrsaOidcIssuerUrl``, ``nodePoolIds``, ``spotNodePoolIds``)."""

    def __init__(self, name: str, args: GpuEnvironmentArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        config = args.config
        provider = _region_provider(opts)
        _check(args, provider)
        assert provider is not None  # _check saw it
        super().__init__("gpucloud:alicloud:GpuEnvironment", name, None, opts)
        outputs: dict[str, Any] = {}
        tags = dict(config.tags)
        account_id = alicloud.get_caller_identity(opts=pulumi.InvokeOptions(provider=provider)).account_id

        network = PrivateNetwork(
            f"{name}-network",
            PrivateNetworkArgs(spec=config.network, tags=tags, protect=config.protect_stateful),
            was_top_level(self),
        )
        key = KmsKey(
            f"{name}-key",
            KmsKeyArgs(
                spec=config.kms,
                protect=config.protect_stateful,
                tags=tags,
                instance_id=args.kms_instance_id,
                alias=owned_base(name, "gpucloud"),
            ),
            was_top_level(self),
        )
        cluster = GpuCluster(
            f"{name}-gpu",
            GpuClusterArgs(
                spec=config.cluster,
                network=config.network,
                vswitch_ids=network.vswitch_ids,
                pod_vswitch_ids=network.pod_vswitch_ids,
                kms_key_id=key.key_id,
                tags=tags,
                protect=config.protect_stateful,
                cluster_name=owned_base(name, "gpu"),
                # The API server's allow list: the deploy runner's VPC besides the cluster's own and ACK's.
                api_clients=[config.deploy.runner_vpc_cidr],
                egress=network.egress,
            ),
            was_top_level(self),
        )
        where = PoolArgs(
            cluster_id=cluster.cluster_id,
            vswitch_ids_by_zone=network.vswitch_ids_by_zone,
            kms_key_id=key.key_id,
            tags=tags,
        )
        # Pools that share GPUs need ACK's sharing component on the cluster (installed once, whatever shares).
        sharing = None
        if any(p.gpu_time_slicing_replicas is not None for p in config.node_pools):
            sharing = GpuSharing(
                f"{name}-gpu-sharing",
                GpuSharingArgs(cluster_id=cluster.cluster_id, nodes=[cluster.system_pool]),
                was_top_level(self),
            )
        node_pools = {
            p.name: GpuNodePool(
                f"{name}-{p.name}", GpuNodePoolArgs(spec=p, gpu_sharing=sharing, **vars(where)), was_top_level(self)
            )
            for p in config.node_pools
        }
        spot_groups = {
            g.name: SpotGpuGroup(f"{name}-{g.name}", SpotGpuGroupArgs(spec=g, **vars(where)), was_top_level(self))
            for g in config.spot_groups
        }
        # Without the cluster-level setting the pools' own autoscaling adds no node; spot pools first.
        autoscaling = ClusterAutoscaling(
            f"{name}-autoscaling",
            ClusterAutoscalingArgs(
                cluster_id=cluster.cluster_id,
                spot_groups=[(g.spot_scaling_group_id, g.fallback_scaling_group_id) for g in spot_groups.values()],
                other_pools=[p.scaling_group_id for p in node_pools.values()],
            ),
            was_top_level(self),
        )
        if config.peering is not None:
            outputs |= self._peer(name, args, config.peering, network, account_id)
        deploy_path = self._deploy_path(name, args, network, provider, account_id)
        outputs["deployRunnerVpcId"] = args.runner_vpc_id
        bucket: CheckpointBucket | None = None
        bucket_roles: dict[BucketAccess, RrsaRole] = {}

        def identity(part: str, role: str, namespace: str, account: str, policy: str) -> RrsaRole:
            return RrsaRole(
                f"{name}-{part}-identity",
                RrsaRoleArgs(
                    role_name=owned_base(name, role),
                    namespace=namespace,
                    service_account=account,
                    oidc_provider_arn=cluster.rrsa_oidc_provider_arn,
                    oidc_issuer_url=cluster.rrsa_oidc_issuer_url,
                    policy_document=policy,
                    tags=tags,
                ),
                was_top_level(self),
            )

        if config.checkpoint_bucket is not None:
            prefix = owned_base(name, CHECKPOINT_PREFIX)
            bucket_name = checkpoint_bucket_name(prefix, account_id)
            # The RRSA roles use exactly the environment's key, named by its tag (review alicloud.md F8).
            key_scope = KeyScope(config.region, account_id, key.alias_name)
            bucket = CheckpointBucket(
                f"{name}-checkpoints",
                CheckpointBucketArgs(
                    spec=config.checkpoint_bucket,
                    name_prefix=prefix,
                    account_id=account_id,
                    kms_key_id=key.key_id,
                    protect=config.protect_stateful,
                    tags=tags,
                ),
                was_top_level(self),
            )
            outputs["checkpointBucket"] = bucket.bucket_name
            # Each ServiceAccount that reaches the bucket reaches only its part, through its own role.
            for reach in bucket_accesses(config):
                policy = _bucket_policy(reach, key_scope, bucket_name)
                role = _ROLE_BASES[reach.kind].format(reach.name)
                bucket_roles[reach] = identity(reach.name, role, reach.namespace, reach.service_account, policy)

        tls_policy: pulumi.Output[str] | None = None
        if any(service.internal_load_balancer for service in config.inference):
            tls_policy = Tls13ListenerPolicy(
                f"{name}-inference-tls13", Tls13ListenerPolicyArgs(tags=tags), was_top_level(self)
            ).policy_id
        # One vswitch per zone for the inference NLBs (ACK's zone-maps annotation: <zone>:<vswitch>,...).
        zone_maps = pulumi.Output.all(
            *[pulumi.Output.concat(zone, ":", ids[0]) for zone, ids in network.vswitch_ids_by_zone.items()]
        ).apply(",".join)
        model_bucket = bucket.bucket_name if bucket is not None else None
        # Every deployer role administers the cluster (not only the creator); the Kubernetes layer waits for it, and
        # a destroy removes the layer before the grants.
        admins = ClusterAdmins(
            f"{name}-admins",
            ClusterAdminsArgs(cluster_id=cluster.cluster_id, role_arns=args.deployer_role_arns),
            pulumi.ResourceOptions(parent=self),
        )
        self.kubernetes = KubernetesLayer(
            name,
            KubernetesLayerArgs(
                config=config,
                cluster=ClusterHandle(
                    kubeconfig=cluster.kubeconfig,
                    ready=[
                        cluster,
                        autoscaling,
                        admins,
                        *deploy_path,
                        *([sharing.addon] if sharing is not None else []),
                    ],
                    pools={**node_pools, **spot_groups},
                    driver_version=ACK_NVIDIA_DRIVER_VERSION,
                    model_bucket=model_bucket,
                    inference_tls_policy=tls_policy,
                    checkpoint_uri=pulumi.Output.concat("oss://", model_bucket) if model_bucket is not None else None,
                    load_balancer_zone_maps=zone_maps,
                    volume_key=key.key_id,
                    **handle_fields(bucket_roles, {reach: r.role_name for reach, r in bucket_roles.items()}),
                ),
            ),
            opts=pulumi.ResourceOptions(parent=self),
        )
        # ACK grants bind the Kubernetes layer's ClusterRoles, so they come after them.
        access = GpuAdminAccess(
            f"{name}-access",
            GpuAdminAccessArgs(
                spec=config.access,
                cluster_id=cluster.cluster_id,
                cluster_name=cluster.cluster_name,
                tags=config.tags,
                cluster_roles=list(self.kubernetes.rbac.cluster_roles.values()),
            ),
            was_top_level(self),
        )
        self.network, self.kms_key, self.cluster, self.access = network, key, cluster, access
        self.node_pools, self.spot_groups, self.checkpoint_bucket = node_pools, spot_groups, bucket
        self.stack_outputs = outputs | common_outputs(
            config,
            kms_key_id=key.key_id,
            kms_key_arn=key.key_arn,
            vpc_id=network.vpc_id,
            private_subnet_ids=network.vswitch_ids,
            private_route_table_ids=[network.route_table_id],
            cluster_name=cluster.cluster_name,
            cluster_endpoint=cluster.endpoint,
            kubeconfig=cluster.kubeconfig,
            node_pool_names=node_pool_names(config, cluster.system_node_pool_name),
            gpu_admin_role_arn=access.admin_role_arn,
            gpu_user_role_arn=access.user_role_arn,
        )
        self.stack_outputs |= {
            "egressIp": network.egress_ip,
            "clusterId": cluster.cluster_id,
            "rrsaOidcIssuerUrl": cluster.rrsa_oidc_issuer_url,
            "nodePoolIds": {p.node_pool_name: p.node_pool_id for p in node_pools.values()},
            "spotNodePoolIds": [g.spot_node_pool_id for g in spot_groups.values()],
        }
        self.register_outputs(self.stack_outputs)

    def _peer(
        self, name: str, args: GpuEnvironmentArgs, peering: PeeringSpec, network: PrivateNetwork, account_id: str
    ) -> dict[str, Any]:
        """Peer the environment's VPC with the data VPC in the peer region (created here, or another stack's)."""
        peer_provider = args.peer_provider
        assert peer_provider is not None  # _check saw it
        data_spec = peering.peer_network
        if data_spec is not None:
            # A data VPC with no internet path at all.
            data = PrivateNetwork(
                f"{name}-data-network",
                PrivateNetworkArgs(spec=data_spec, tags=dict(args.config.tags), protect=args.config.protect_stateful),
                was_top_level(self, provider=peer_provider),
            )
            peer: tuple[pulumi.Input[str], pulumi.Input[str]] = (data.vpc_id, data.route_table_id)
        else:
            # Another stack's VPC (it exports vpcId and privateRouteTableIds, one route table on ACK): _check saw both.
            assert args.peer_vpc_id is not None and args.peer_route_table_id is not None
            peer = (args.peer_vpc_id, args.peer_route_table_id)
        connection = self._peering(f"{name}-peering", args.config, network, peering, peer, peer_provider, account_id)
        return {"peeringConnectionId": connection.connection_id, "peerVpcId": peer[0]}

    def _peering(
        self,
        name: str,
        config: StackConfig,
        network: PrivateNetwork,
        spec: PeeringSpec,
        peer: tuple[pulumi.Input[str], pulumi.Input[str]],
        peer_provider: pulumi.ProviderResource,
        account_id: str,
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
            was_top_level(self),
        )

    def _deploy_path(
        self,
        name: str,
        args: GpuEnvironmentArgs,
        network: PrivateNetwork,
        provider: pulumi.ProviderResource,
        account_id: str,
    ) -> list[pulumi.Resource]:
        """The path from the deploy runner to the private API: a peering with the runner VPC (same region, routes both
        ways). What admits the runner is the API server's allow list, on its CLB's 6443 listener (GpuCluster
        ``api_clients``): a security group rule on the cluster's group does not gate that listener (review
        alicloud.md F3, ACK "Configure access control policies for the API server")."""
        config = args.config
        deploy = config.deploy
        # The runner's VPC is no config of this stack's (its ids come from the bootstrap's parameters, as inputs):
        # a spec of the peer's region and range only, built without the one-source validation of a config's peering.
        spec = PeeringSpec.model_construct(
            peer_region=config.region,
            peer_vpc_cidr=deploy.runner_vpc_cidr,
            peer_private_subnets=(),
            peer_stack=None,
            peer_route_table_count=1,
        )
        runner = (args.runner_vpc_id, args.runner_route_table_id)
        # Same region: the peer side is on the environment's own provider.
        return [self._peering(f"{name}-deploy-peering", config, network, spec, runner, provider, account_id)]


_ROLE_BASES = {AccessKind.MODEL: "{}-inference", AccessKind.TRAINING: "gpu-training", AccessKind.JOB: "{}-checkpoints"}
"""The base of each RRSA role's name by what it reaches (with the access's name)."""


def _bucket_policy(access: BucketAccess, key: KeyScope, bucket_name: str) -> str:
    """The RAM policy of ``access``'s role in the bucket ``bucket_name``, its objects encrypted with ``key``."""
    if access.kind is AccessKind.MODEL:
        return model_read_policy(key, bucket_name, access.prefix)
    if access.kind is AccessKind.JOB:
        return job_checkpoint_policy(key, bucket_name, access.prefix)
    return checkpoint_policy(key, bucket_name)


def _region_provider(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    """The Alibaba Cloud provider ``opts`` gives (``provider=`` or ``providers=``): the deploy runner's peering
    names it as its peer side's provider (same region)."""
    if opts is None:
        return None
    given = opts.providers.values() if isinstance(opts.providers, Mapping) else (opts.providers or [])
    return next((p for p in [opts.provider, *given] if p is not None and p.package == "alicloud"), None)


def _check(args: GpuEnvironmentArgs, provider: pulumi.ProviderResource | None) -> None:
    """The Kubernetes layer's problems on ACK's pinned driver, then the arguments' problems, before anything is
    declared."""
    config = args.config
    if config.cloud is not Cloud.ALICLOUD:
        message = "an Alibaba Cloud environment needs an alicloud config"
        raise ConfigError([Problem("config.cloud", message, config.cloud.value)])
    # ACK GPU pools run the driver the pool builder pins (components.alicloud._pool), not ACK's default.
    found = layer_problems(config, ACK_NVIDIA_DRIVER_VERSION)
    if found:
        raise config_error(found)
    problems = []
    if provider is None:
        problems.append(Problem("opts.provider", f"an Alibaba Cloud provider of {config.region} is required", None))
    peering = config.peering
    if peering is not None and args.peer_provider is None:
        message = f"required with peering: an Alibaba Cloud provider of {peering.peer_region}"
        problems.append(Problem("peer_provider", message, None))
    if peering is not None and peering.peer_stack is not None:
        for field, value in (("peer_vpc_id", args.peer_vpc_id), ("peer_route_table_id", args.peer_route_table_id)):
            if value is None:
                problems.append(Problem(field, f"required with peering.peerStack ({peering.peer_stack})", None))
    if config.kms.alicloud_kms_instance_id is None and args.kms_instance_id is None:
        # The key always rotates automatically, and only keys of a software KMS instance rotate on rotationDays.
        problems.append(Problem("kms_instance_id", ALICLOUD_KMS_INSTANCE_REQUIRED, None))
    if problems:
        raise ConfigError(problems)
