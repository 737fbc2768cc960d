"""GpuCluster: an EKS control plane reachable only from inside the VPC, with encrypted secrets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import pulumi
import pulumi_aws as aws

from gpu_cloud.components import labels
from gpu_cloud.components.aws._iam import Account, account_of, document, managed_policy_arn, service_trust
from gpu_cloud.components.aws._node_group import NodeGroupPlan, NodeGroupTarget, declare_node_group, declare_node_role
from gpu_cloud.components.aws.kms import key_use_statement
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.inputs import checked, known_problems
from gpu_cloud.components.kubernetes_support import version_problem
from gpu_cloud.components.naming import EKS_CLUSTER, physical_name
from gpu_cloud.components.protection import protection
from gpu_cloud.components.spec import (
    DEFAULT_SYSTEM_INSTANCE_TYPES,
    SYSTEM_POOL_NAME,
    ClusterSpec,
    ConfigError,
    Problem,
    system_pool_problems,
)
from gpu_cloud.components.versions import (
    EKS_ADDON_VERSIONS,
    EKS_NODE_MONITORING_AGENT_ADDON,
    EKS_UPGRADE_POLICY,
)

__all__ = ["ADDON_CONFIGURATION", "CONTROL_PLANE_LOG_TYPES", "SYSTEM_INSTANCE_TYPES", "GpuCluster", "GpuClusterArgs"]

SYSTEM_INSTANCE_TYPES = DEFAULT_SYSTEM_INSTANCE_TYPES[Cloud.AWS]
"""Default types of the system node group: 4 vCPUs and 16 GiB (EC2 M6i general purpose instances,
aws.amazon.com/ec2/instance-types/m6i/), room for coredns, the cluster autoscaler, kube-prometheus-stack and
prometheus-adapter on two nodes; 58 pods per node with the VPC CNI (amazon-eks-ami eni-max-pods.txt), where
m6i.large would hold 29."""


CONTROL_PLANE_LOG_TYPES = ("api", "audit", "authenticator", "controllerManager", "scheduler")
"""Every EKS control-plane log type (EKS User Guide, "Send control plane logs to CloudWatch Logs")."""

CLUSTER_POLICY = "AmazonEKSClusterPolicy"
"""The one managed policy a cluster role needs (EKS User Guide, "Amazon EKS cluster IAM role")."""

# The cluster role's use of the secrets key (EKS User Guide, "Encrypt Kubernetes secrets with KMS on
# existing clusters": the cluster role needs kms:Encrypt, kms:Decrypt, kms:ListGrants, kms:DescribeKey).
_SECRETS_KEY_ACTIONS = ("kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:ListGrants")

ADDON_CONFIGURATION: dict[str, dict[str, object]] = {
    # The agent's own DaemonSet tolerates every taint, its dcgm-server DaemonSet none (aws/eks-node-monitoring-agent
    # v1.7.0 charts/eks-node-monitoring-agent/values.yaml: nodeAgent.tolerations [{operator: Exists}],
    # dcgmAgent.tolerations []), so on tainted GPU nodes the agent finds no nv-hostengine and reports a fatal DCGM
    # error that node auto repair acts on (pins.md F1; aws/containers-roadmap#2567). The add-on's configuration
    # schema takes dcgmAgent.tolerations (charts/configuration.schema.json, same tag; read 2026-12-03).
    "eks-node-monitoring-agent": {"dcgmAgent": {"tolerations": [{"operator": "Exists"}]}},
}
"""Configuration values (``configuration_values``, JSON) of managed add-ons that need more than their defaults."""

ADMIN_POLICY = "AmazonEKSClusterAdminPolicy"
"""The EKS access policy of cluster-admin (EKS User Guide, "Review access policy permissions": "includes ... the
cluster-admin Kubernetes role"), granted to the roles that apply the Kubernetes layer."""
_ACCESS_ENTRY_TYPE = "STANDARD"
"""An IAM principal of the account (EKS CreateAccessEntry type)."""

STS_AUDIENCE = "sts.amazonaws.com"
"""The audience of IRSA web identity tokens (EKS User Guide, "Create an IAM OIDC provider for your cluster")."""


@dataclass(frozen=True)
class GpuClusterArgs:
    """Arguments of a GpuCluster."""

    spec: ClusterSpec
    """Kubernetes version and log retention."""
    subnet_ids: Sequence[pulumi.Input[str]]
    """Private subnets of the control plane's network interfaces (at least two zones)."""
    kms_key_arn: pulumi.Input[str]
    """The KMS key for secrets envelope encryption and the control-plane log group."""
    kms_key_alias: pulumi.Input[str]
    """That key's alias (``alias/...``; e.g. another resource's ``name``): the cluster role's policy selects the key
    by it."""
    protect: bool = True
    """Protected environments (StackConfig.protect_stateful): EKS deletion protection and Pulumi ``protect`` on the
    control plane, which holds etcd (every Kubernetes object); the caller's ``protect`` option wins
    (components.protection)."""
    cluster_name: str | None = None
    """The base of the EKS cluster name, ``<base>-<stack>`` (components.naming); defaults to the component's name."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags of the system nodes' instances, volumes and network interfaces (NodeGroupTarget.tags)."""
    admin_role_arns: Sequence[pulumi.Input[str]] = ()
    """The IAM roles that apply the Kubernetes layer (the environment's deployer roles): each gets an EKS access
    entry with AmazonEKSClusterAdminPolicy, whichever of them created the cluster. With none, the creating identity
    alone is admin (EKS ``bootstrapClusterCreatorAdminPermissions``, set at creation only)."""


class GpuCluster(pulumi.ComponentResource):
    """An EKS cluster with a private endpoint only, KMS-encrypted secrets, every control-plane log and IRSA.

    Children: ``<name>-cluster-role``, ``<name>-cluster-policy``, ``<name>-cluster-kms``,
    ``<name>-control-plane-logs``, ``<name>-cluster``, ``<name>-oidc``, the system node group
    (``<name>-system-node-role``
    and its ``<name>-system-node-<policy>`` attachments, ``<name>-system-lt``, ``<name>-system``: untainted CPU nodes
    for coredns and the cluster add-ons) and one ``<name>-<addon>`` per managed add-on, created once system nodes
    exist (coredns stays degraded without a node to run on).
    """

    cluster_name: pulumi.Output[str]
    """The EKS cluster's name, ``<base>-<stack>`` (components.naming)."""
    kubernetes_version: str
    """The Kubernetes minor version."""
    cluster_arn: pulumi.Output[str]
    """The cluster's ARN."""
    endpoint: pulumi.Output[str]
    """The private API server endpoint."""
    security_group_id: pulumi.Output[str]
    """The cluster security group EKS creates (nodes and control plane talk through it)."""
    oidc_provider_arn: pulumi.Output[str]
    """The IAM OIDC provider for service-account roles (IRSA)."""
    oidc_issuer_url: pulumi.Output[str]
    """The cluster's OIDC issuer URL."""
    kubeconfig: pulumi.Output[str]
    """A kubeconfig (JSON, secret) for a pulumi_kubernetes Provider; it authenticates with ``aws eks get-token``."""
    system_node_group_name: pulumi.Output[str]
    """The EKS name of the system node group (``system-`` and what EKS generated at creation)."""
    admin_access: list[pulumi.Resource]
    """The admin roles' access policy associations: the Kubernetes layer waits for them."""

    def __init__(self, name: str, args: GpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        addons = _check(args)
        super().__init__("gpucloud:aws:GpuCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        cluster_name = physical_name(EKS_CLUSTER, args.cluster_name or name)
        account = account_of(self)
        guard = protection(self, opts, args.protect)
        role = aws.iam.Role(
            f"{name}-cluster-role",
            description=f"EKS control plane of {cluster_name}",
            assume_role_policy=service_trust("eks.amazonaws.com"),
            opts=child,
        )
        attachment = aws.iam.RolePolicyAttachment(
            f"{name}-cluster-policy",
            role=role.name,
            policy_arn=managed_policy_arn(account, CLUSTER_POLICY),
            opts=child,
        )
        key_policy = aws.iam.RolePolicy(
            f"{name}-cluster-kms",
            role=role.id,
            policy=pulumi.Output.all(account, checked("kmsKeyAlias", args.kms_key_alias, _is_alias, _NOT_ALIAS)).apply(
                lambda v: document(key_use_statement(v[0], v[1], _SECRETS_KEY_ACTIONS))
            ),
            opts=child,
        )
        # EKS writes control-plane logs to this fixed group name; declaring it first sets retention and the key.
        logs = aws.cloudwatch.LogGroup(
            f"{name}-control-plane-logs",
            name=f"/aws/eks/{cluster_name}/cluster",
            retention_in_days=args.spec.log_retention_days,
            kms_key_id=args.kms_key_arn,
            opts=child,
        )
        cluster = aws.eks.Cluster(
            f"{name}-cluster",
            name=cluster_name,
            version=args.spec.kubernetes_version,
            role_arn=role.arn,
            vpc_config=aws.eks.ClusterVpcConfigArgs(
                subnet_ids=list(args.subnet_ids),
                endpoint_private_access=True,
                endpoint_public_access=False,
            ),
            encryption_config=aws.eks.ClusterEncryptionConfigArgs(
                provider=aws.eks.ClusterEncryptionConfigProviderArgs(key_arn=args.kms_key_arn),
                resources=["secrets"],
            ),
            enabled_cluster_log_types=list(CONTROL_PLANE_LOG_TYPES),
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type=EKS_UPGRADE_POLICY),
            deletion_protection=guard.protect,
            # Access entries only (no aws-auth ConfigMap). The roles that apply the Kubernetes layer are admins by
            # their own entries (below), so that any of them, not only the creator, can run the next `up`.
            access_config=aws.eks.ClusterAccessConfigArgs(
                authentication_mode="API", bootstrap_cluster_creator_admin_permissions=not args.admin_role_arns
            ),
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[attachment, key_policy, logs],
                protect=guard.protect,
                retain_on_delete=guard.retain_on_delete,
            ),
        )
        self.admin_access = [
            self._admin(f"{name}-admin-{i}", cluster.name, arn, account) for i, arn in enumerate(args.admin_role_arns)
        ]
        self.security_group_id = cluster.vpc_config.apply(_security_group)
        system = self._system_node_group(name, args, cluster.name)
        issuer = cluster.identities.apply(lambda ids: (ids[0].oidcs[0].issuer or "") if ids and ids[0].oidcs else "")
        oidc = aws.iam.OpenIdConnectProvider(f"{name}-oidc", url=issuer, client_id_lists=[STS_AUDIENCE], opts=child)
        for addon, version in addons.items():
            aws.eks.Addon(
                f"{name}-{addon}",
                cluster_name=cluster.name,
                addon_name=addon,
                addon_version=version,
                configuration_values=json.dumps(ADDON_CONFIGURATION[addon]) if addon in ADDON_CONFIGURATION else None,
                # Take over the self-managed defaults EKS installs, then keep in-cluster edits on updates
                # (EKS User Guide, "Create an Amazon EKS add-on": --resolve-conflicts).
                resolve_conflicts_on_create="OVERWRITE",
                resolve_conflicts_on_update="PRESERVE",
                opts=pulumi.ResourceOptions(parent=self, depends_on=[system]),
            )
        self.cluster_name = cluster.name
        self.kubernetes_version = args.spec.kubernetes_version
        self.cluster_arn = cluster.arn
        self.endpoint = cluster.endpoint
        self.oidc_provider_arn = oidc.arn
        self.oidc_issuer_url = issuer
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(cluster.name, cluster.endpoint, cluster.certificate_authority, account).apply(
                lambda v: kubeconfig(v[0], v[1], v[2].data if v[2] else "", v[3])
            )
        )
        self.register_outputs(
            {
                "clusterName": self.cluster_name,
                "endpoint": self.endpoint,
                "securityGroupId": self.security_group_id,
                "oidcProviderArn": self.oidc_provider_arn,
                "kubeconfig": self.kubeconfig,
                "systemNodeGroupName": self.system_node_group_name,
            }
        )

    def _admin(
        self, name: str, cluster_name: pulumi.Input[str], role_arn: pulumi.Input[str], account: pulumi.Output[Account]
    ) -> pulumi.Resource:
        """Access entry ``name`` making ``role_arn`` cluster admin (EKS User Guide, "Grant IAM users access to
        Kubernetes with EKS access entries": an entry, then AmazonEKSClusterAdminPolicy associated at cluster scope)."""
        child = pulumi.ResourceOptions(parent=self)
        entry = aws.eks.AccessEntry(
            name, cluster_name=cluster_name, principal_arn=role_arn, type=_ACCESS_ENTRY_TYPE, opts=child
        )
        return aws.eks.AccessPolicyAssociation(
            f"{name}-policy",
            cluster_name=cluster_name,
            principal_arn=entry.principal_arn,
            policy_arn=account.apply(lambda a: f"arn:{a.partition}:eks::aws:cluster-access-policy/{ADMIN_POLICY}"),
            access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
            opts=child,
        )

    def _system_node_group(
        self, name: str, args: GpuClusterArgs, cluster_name: pulumi.Output[str]
    ) -> aws.eks.NodeGroup:
        """The untainted on-demand CPU node group over every private subnet, on the shared launch template."""
        spec = args.spec
        role, attachments = declare_node_role(f"{name}-system", self)
        plan = NodeGroupPlan(
            suffix=SYSTEM_POOL_NAME,
            node_group_name=SYSTEM_POOL_NAME,
            instance_types=(),
            cpu_instance_types=spec.system_instance_types or SYSTEM_INSTANCE_TYPES,
            capacity_type="ON_DEMAND",
            min_size=spec.system_min_size,
            desired_size=spec.system_min_size,
            max_size=spec.system_max_size,
            disk_size_gib=spec.system_disk_size_gib,
            zones=(_ALL_SUBNETS,),
            labels={labels.PURPOSE_LABEL: labels.SYSTEM_PURPOSE, labels.CAPACITY_LABEL: "on-demand"},
        )
        target = NodeGroupTarget(
            cluster_name=cluster_name,
            kubernetes_version=spec.kubernetes_version,
            cluster_security_group_id=self.security_group_id,
            kms_key_arn=args.kms_key_arn,
            subnets={_ALL_SUBNETS: list(args.subnet_ids)},
            tags=args.tags,
        )
        group = declare_node_group(name, self, plan, target, role.arn, attachments)
        self.system_node_group_name = group.node_group_name
        return group


_ALL_SUBNETS = "all-private-subnets"
"""The system group's one "zone" in its NodeGroupTarget: it spans every private subnet of the cluster."""


def _security_group(config: aws.eks.outputs.ClusterVpcConfig) -> str:
    return config.cluster_security_group_id or ""


def kubeconfig(name: str, endpoint: str, certificate_authority: str | None, account: Account) -> str:
    """A kubeconfig for cluster ``name`` whose user runs ``aws eks get-token`` (EKS User Guide, "Connect kubectl
    to an EKS cluster by creating a kubeconfig file")."""
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "aws",
            "args": ["eks", "get-token", "--cluster-name", name, "--region", account.region, "--output", "json"],
        }
    }
    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}
            ],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
            "users": [{"name": name, "user": user}],
        }
    )


_NOT_ALIAS = "not an alias name (alias/...)"


def _is_alias(name: str) -> bool:
    return name.startswith("alias/")


def _check(args: GpuClusterArgs) -> dict[str, str | None]:
    problems: list[Problem] = []
    version = args.spec.kubernetes_version
    unsupported = version_problem(Cloud.AWS, version, date.today())
    if unsupported is not None:
        problems.append(Problem("kubernetesVersion", unsupported, version))
    if len(args.subnet_ids) < 2:
        problems.append(Problem("subnetIds", "EKS needs subnets in at least two zones", len(args.subnet_ids)))
    problems += system_pool_problems(Cloud.AWS, args.spec)
    problems += known_problems("kmsKeyAlias", args.kms_key_alias, _is_alias, _NOT_ALIAS)
    if problems:
        raise ConfigError(problems)
    return {**EKS_ADDON_VERSIONS[version], **EKS_NODE_MONITORING_AGENT_ADDON}
