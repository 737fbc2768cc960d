"""GpuCluster: an ACK managed Pro cluster with a private API endpoint and KMS-encrypted secrets."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from ipaddress import IPv4Network

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components import labels
from gpu_cloud.components.alicloud._common import check, child_options
from gpu_cloud.components.alicloud._pool import Placement, PoolShape, node_pool
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.kubernetes_support import version_problem
from gpu_cloud.components.naming import ACK_CLUSTER, physical_name
from gpu_cloud.components.protection import protection
from gpu_cloud.components.spec import (
    ACK_SERVICE_CIDR,
    DEFAULT_SYSTEM_INSTANCE_TYPES,
    SYSTEM_POOL_NAME,
    AlicloudMaintenanceWindowSpec,
    ClusterSpec,
    NetworkSpec,
    Problem,
    system_pool_problems,
)
from gpu_cloud.components.versions import ACK_KUBERNETES_RELEASES

__all__ = [
    "ACK_CONTROL_PLANE_CIDR",
    "ADDONS",
    "API_SERVER_PORT",
    "CLUSTER_TAG_KEY",
    "KUBECONFIG_MINUTES",
    "SERVICE_CIDR",
    "SYSTEM_INSTANCE_TYPES",
    "GpuCluster",
    "GpuClusterArgs",
    "api_acl_template",
    "api_intranet_endpoint",
    "maintenance_window",
    "require_success",
]

SYSTEM_INSTANCE_TYPES = DEFAULT_SYSTEM_INSTANCE_TYPES[Cloud.ALICLOUD]
"""Default types of the system node pool: 4 vCPUs and 16 GiB. ACK refuses node types with fewer than 4 vCPUs
(e.g. ecs.g6.large) and, with Terway in shared-ENI mode, types whose (ENIs - 1) x IPs per ENI is 11 or less
(https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/
select-ecs-instances-to-create-the-master-and-worker-nodes-of-an-ack-cluster)."""


CLUSTER_SPEC = "ack.pro.small"
"""ACK managed cluster Pro edition (cs.ManagedKubernetes ``cluster_spec``)."""

SERVICE_CIDR = ACK_SERVICE_CIDR
"""The Kubernetes Service range; must not overlap the VPC (cs.ManagedKubernetes ``service_cidr``)."""

CLUSTER_TAG_KEY = "gpucloud-cluster"
"""Tag on the cluster whose value is the cluster's name. RAM policies scope to it with ``acs:ResourceTag``, which
ACK supports (https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/
use-labels-to-enforce-fine-grained-access-control), because the cluster id is unknown until the cluster exists."""

CONTROL_PLANE_LOGS = ("apiserver", "kcm", "scheduler", "ccm")
"""Control-plane logs kept in Simple Log Service (cs.ManagedKubernetes ``control_plane_log_components``)."""

AUDIT_LOG = alicloud.cs.ManagedKubernetesAuditLogConfigArgs(enabled=True)
"""API server audit log to Simple Log Service (cs.ManagedKubernetes ``audit_log_config``: "Whether to enable audit
logging"). Without ``sls_project_name`` its Logstore is created in the cluster's own project ``k8s-log-{clusterid}``
(UpdateClusterAuditLogConfig ``sls_project_name``, "default value k8s-log-{clusterid}",
https://help.aliyun.com/zh/ack/ack-edge/developer-reference/api-cs-2015-12-15-updateclusterauditlogconfig-edge, read
2026-12-03), beside the control-plane logs."""

MAINTENANCE_DATE = "2026-01-01"
"""The date part of ``maintenance_time`` (RFC 3339, "the start time of the maintenance window"): the window recurs on
``weekly_period`` from its time of day; ACK's own example carries a past date ("2020-10-15T12:31:00.000+08:00",
CreateCluster ``maintenance_window``, https://alibabacloud.com/help/zh/ack/ack-managed-and-ack-dedicated/
developer-reference/api-cs-2015-12-15-struct-maintenance-window, read 2026-12-03). A fixed date keeps the input
stable from one run to the next."""

NO_AUTO_UPGRADE = alicloud.cs.ManagedKubernetesOperationPolicyArgs(
    cluster_auto_upgrade=alicloud.cs.ManagedKubernetesOperationPolicyClusterAutoUpgradeArgs(enabled=False)
)
"""No automatic cluster upgrade (cs.ManagedKubernetes ``operation_policy.cluster_auto_upgrade``, channels ``patch``,
``stable``, ``rapid``; it "only works when ``maintenance_window`` is enabled"). The version is the program's:
``cs.ManagedKubernetes.version`` is the exact ACK release pinned in components.versions and validated against the
support calendar, and an upgrade by ACK would move the cluster away from it under Pulumi. The next refresh would then
find the newer release, and the provider answers a changed ``version`` with UpgradeCluster to the pinned, older one
(``UpgradeAlicloudKubernetesCluster`` in terraform-provider-alicloud's resource_alicloud_cs_managed_kubernetes.go,
commit 81c43b6727a0, read 2026-12-03), which ACK cannot do. Upgrades are pin changes, reviewed and planned."""


KUBECONFIG_MINUTES = 240
"""How long the Kubernetes layer's client certificate lives (cs.get_cluster_credential ``temporary_duration_minutes``,
"The valid value between 15 and 4320, in minutes. When this field is omitted, the expiration time will be determined
by the system", aliyun/terraform-provider-alicloud@81c43b67 website/docs/d/cs_cluster_credential.html.markdown; the
data source sends it only when it is set, alicloud/data_source_alicloud_cs_cluster_credential.go:100). The
credential is minted on every preview and up once the cluster exists, so it must outlive one run: the Kubernetes
layer of a first ``up`` (Helm releases waiting for node pools to scale out) fits in four hours. A new certificate
each run changes only the kubeconfig's user, not its cluster (server and CA), which the Kubernetes provider reads
as an update, not a replacement (pulumi/pulumi-kubernetes@94977969 provider/pkg/provider/provider.go DiffConfig:
it replaces only when the active cluster changes). The kubeconfig kept in state expires: ``pulumi refresh`` and
``pulumi destroy`` of the Kubernetes layer must run the program (``--run-program``) to mint a fresh one."""

API_SERVER_PORT = 6443
"""The port of the API server's listener on its internal CLB."""

ACK_CONTROL_PLANE_CIDR = IPv4Network("100.104.0.0/16")
"""The range ACK's managed control plane reaches the API server's CLB from; an allow list on the 6443 listener
must keep it, with the cluster's VPC (ACK, "Configure access control policies for the API server", the console's
prompt when setting access control, https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/user-guide/
configure-network-acls-for-the-api-server-of-an-ack-cluster, read 2026-12-03; review alicloud.md F3)."""


def api_acl_template() -> str:
    """The OOS template that turns the allow list on for the API server's listener and then checks it took.

    ACK creates the API server's internal CLB and its TCP 6443 listener itself ("a private Classic Load Balancer
    (CLB) instance is automatically created as the internal endpoint of the cluster API server. Configure a
    whitelist ... for the listener on port 6443", ACK doc at ACK_CONTROL_PLANE_CIDR). pulumi-alicloud can create an
    ACL and its entries (slb.Acl, slb.AclEntryAttachment) but can set a listener's ACL only on a listener it creates
    (slb.Listener); ACK's ``ModifyCluster`` ``access_control_list`` is deprecated and was for registered clusters
    (alibabacloud-go cs-20151215 client, ModifyClusterRequest). So an OOS execution calls the CLB API the console
    calls: ``SetLoadBalancerTCPListenerAttribute`` with ``AclStatus`` on, ``AclType`` white and ``AclId`` (the
    provider's own listener code sends these names, aliyun/terraform-provider-alicloud@81c43b67
    alicloud/resource_alicloud_slb_listener.go:523-577; values on/off and white/black, :100-106), then
    ``ACS::CheckFor`` reads ``DescribeLoadBalancerTCPListenerAttribute`` and fails the execution unless the listener
    reports the ACL as on. Task syntax as in Alibaba's public templates (aliyun/oos-templates@48dd266,
    ACS-ECS-BulkyReplaceSystemDiskInSLBDefaultServerGroup.json: ``ACS::ExecuteApi``, Service ``SLB``;
    ACS::CICD::DockerBuild.json: ``ACS::CheckFor`` with ``PropertySelector`` and ``DesiredValues``). No
    ``RamRole``: the execution runs with the permissions of whoever starts it, the deployer ("You do not need to
    specify the RamRole parameter if you use the permissions of the current Alibaba Cloud account",
    https://alibabacloud.com/help/en/oos/use-cases/query-the-ram-policy-required-for-template-execution, read
    2026-12-03)."""
    listener = {"LoadBalancerId": "{{ loadBalancerId }}", "ListenerPort": API_SERVER_PORT}
    template = {
        "FormatVersion": "OOS-2019-06-01",
        "Description": "gpu-cloud: allow only the listed networks on an ACK API server's internal CLB (TCP 6443)",
        "Parameters": {
            "loadBalancerId": {"Type": "String", "Description": "The API server's internal CLB"},
            "aclId": {"Type": "String", "Description": "The access control list of the allowed networks"},
        },
        "Tasks": [
            {
                "Name": "allowListOn",
                "Action": "ACS::ExecuteApi",
                "Description": "Turn the allow list on for the API server listener",
                "Properties": {
                    "Service": "SLB",
                    "API": "SetLoadBalancerTCPListenerAttribute",
                    "Parameters": {**listener, "AclStatus": "on", "AclType": "white", "AclId": "{{ aclId }}"},
                },
            },
            {
                "Name": "allowListIsOn",
                "Action": "ACS::CheckFor",
                "Description": "Fail unless the listener reports the allow list as on",
                "Properties": {
                    "Service": "SLB",
                    "API": "DescribeLoadBalancerTCPListenerAttribute",
                    "Parameters": listener,
                    "PropertySelector": "AclStatus",
                    "DesiredValues": ["on"],
                },
            },
        ],
    }
    return json.dumps(template, indent=2, sort_keys=True)


def maintenance_window(spec: AlicloudMaintenanceWindowSpec) -> alicloud.cs.ManagedKubernetesMaintenanceWindowArgs:
    """The cs.ManagedKubernetes ``maintenance_window`` of ``spec``: when ACK may run its planned maintenance."""
    hour_minute, sign, offset = spec.start[:5], spec.start[5], spec.start[6:]
    return alicloud.cs.ManagedKubernetesMaintenanceWindowArgs(
        enable=True,
        maintenance_time=f"{MAINTENANCE_DATE}T{hour_minute}:00.000{sign}{offset}",
        duration=f"{spec.duration_hours}h",
        weekly_period=",".join(spec.weekdays),
    )


ADDONS: tuple[tuple[str, bool], ...] = (
    # Terway gives pods VPC addresses from the pod vswitches (GpuClusterArgs.pod_vswitch_ids): no overlay and no
    # per-node custom route in the VPC route table, which Flannel's cloud controller manager would add and manage
    # (one entry per node) —
    # https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/user-guide/network/ and
    # https://help.aliyun.com/en/ack/ack-managed-and-ack-dedicated/user-guide/work-with-flannel
    ("terway-eniip", False),
    # CSI storage (disks, NAS, OSS volumes for datasets and checkpoints).
    ("csi-plugin", False),
    ("csi-provisioner", False),
    # Node auto repair detects faults (including GPU XID errors) with the node problem detector and
    # repairs through the node lifecycle controller (cs.NodePool ``management.auto_repair``;
    # https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/auto-repair).
    ("ack-node-problem-detector", False),
    ("node-lifecycle-controller", False),
    # RRSA for pods: injects the OIDC token and role environment into pods of namespaces labelled
    # pod-identity.alibabacloud.com/injection=on whose ServiceAccount names a RAM role
    # (https://www.alibabacloud.com/help/doc-detail/600451.html, ack-pod-identity-webhook).
    ("ack-pod-identity-webhook", False),
    # No internet-facing ingress: the NGINX ingress add-on would create a public SLB; disabled explicitly.
    ("nginx-ingress-controller", True),
)
"""Add-ons at cluster creation: (name, disabled). Names from cs.ManagedKubernetes ``addons``."""


@dataclass
class GpuClusterArgs:
    """Inputs of a GpuCluster."""

    spec: ClusterSpec
    """Kubernetes version and control-plane log retention."""
    network: NetworkSpec
    """The VPC's spec (its range must not overlap the Service range)."""
    vswitch_ids: Sequence[pulumi.Input[str]]
    """Vswitches of the control plane's endpoints and of the system nodes."""
    kms_key_id: pulumi.Input[str]
    """The KMS key that encrypts Kubernetes Secrets."""
    tags: Mapping[str, str] = field(default_factory=dict)
    """Tags on the cluster (ACK also puts them on its nodes)."""
    protect: bool = True
    """Protected environments (StackConfig.protect_stateful): ACK deletion protection and Pulumi ``protect`` on the
    cluster, which holds every Kubernetes object (several of its inputs force a replacement); the caller's ``protect``
    option wins (components.protection)."""
    cluster_name: str | None = None
    """The base of the ACK cluster name, ``<base>-<stack>`` (components.naming); defaults to the component's name."""
    api_clients: Sequence[IPv4Network] = ()
    """The networks besides the cluster's VPC that may reach the API server (the deploy runner's VPC): the allow list
    of its internal CLB holds exactly these, the VPC and ACK_CONTROL_PLANE_CIDR."""
    pod_vswitch_ids: Sequence[pulumi.Input[str]] = ()
    """Terway's pod vswitches (PrivateNetwork.pod_vswitch_ids), in the zones of ``vswitch_ids``; taken only when the
    cluster is created. Empty: pods take addresses of ``vswitch_ids``."""
    egress: Sequence[pulumi.Resource] = ()
    """What gives the VPC its egress (the network's SNAT entries): the cluster is created after them, so its nodes
    boot with a route out and ACK finds the VPC's NAT gateway in place."""


class GpuCluster(pulumi.ComponentResource):
    """ACK managed Pro cluster: private API server only, Secrets encrypted with the KmsKey, RRSA for pods.

    Children: ``<name>-cluster`` and ``<name>-system``, an untainted pool of CPU nodes (pay-as-you-go, encrypted
    disks, no public IP, a fixed ``system_min_size`` nodes: ACK keeps system components off autoscaled nodes)
    where cluster add-ons and monitoring run.
    """

    cluster_id: pulumi.Output[str]
    """The cluster's id."""
    cluster_name: str
    """The cluster's name, ``<base>-<stack>`` (components.naming), also the value of its ``CLUSTER_TAG_KEY`` tag."""
    kubeconfig: pulumi.Output[str]
    """A kubeconfig for the cluster's intranet API endpoint (secret); unknown until the cluster exists."""
    security_group_id: pulumi.Output[str]
    """The security group ACK creates for the cluster's nodes and control-plane network interfaces."""
    rrsa_oidc_issuer_url: pulumi.Output[str]
    """The RRSA OIDC issuer, for RAM roles of service accounts."""
    rrsa_oidc_provider_arn: pulumi.Output[str]
    """The RAM OIDC identity provider ACK registers for RRSA (the Federated principal of service-account roles)."""
    endpoint: pulumi.Output[str]
    """The API server's intranet endpoint."""
    api_load_balancer_id: pulumi.Output[str]
    """The API server's internal CLB (cs.ManagedKubernetes ``slb_id``, "The ID of APIServer load balancer", read from
    DescribeClusterResources' SLB resource, terraform-provider-alicloud resource_alicloud_cs_kubernetes.go
    getApiServerSlbID)."""
    api_allow_list: pulumi.Output[str]
    """The status of the execution that turned the API server's allow list on ("Success"); resolving it fails the run
    when the execution did not succeed."""
    system_node_pool_id: pulumi.Output[str]
    """The system node pool's id."""
    system_node_pool_name: str
    """The system node pool's name in ACK."""
    system_pool: alicloud.cs.NodePool
    """The system node pool: the cluster's first nodes, what cluster add-ons wait for."""

    def __init__(self, name: str, args: GpuClusterArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        spec = args.spec
        problems: list[Problem] = []
        unsupported = version_problem(Cloud.ALICLOUD, spec.kubernetes_version, date.today())
        if unsupported is not None:
            problems.append(Problem("kubernetesVersion", unsupported, spec.kubernetes_version))
        if args.network.vpc_cidr.overlaps(SERVICE_CIDR):
            message = f"overlaps the cluster's Service range {SERVICE_CIDR}"
            problems.append(Problem("vpcCidr", message, str(args.network.vpc_cidr)))
        problems += system_pool_problems(Cloud.ALICLOUD, spec)
        check(problems)
        super().__init__("gpucloud:alicloud:GpuCluster", name, None, opts)
        guard = protection(self, opts, args.protect)
        self.cluster_name = physical_name(ACK_CLUSTER, args.cluster_name or name)
        cluster = alicloud.cs.ManagedKubernetes(
            f"{name}-cluster",
            name=self.cluster_name,
            cluster_spec=CLUSTER_SPEC,
            version=ACK_KUBERNETES_RELEASES[spec.kubernetes_version],
            vswitch_ids=list(args.vswitch_ids),
            pod_vswitch_ids=list(args.pod_vswitch_ids or args.vswitch_ids),
            service_cidr=str(SERVICE_CIDR),
            # The network component owns egress (SNAT only); ACK must not add a NAT gateway of its own.
            new_nat_gateway=False,
            # No public API endpoint: the API server gets only its intranet load balancer. The provider sends neither
            # this false nor new_nat_gateway's: it sends a field only when GetOk finds it set, and false is unset
            # (aliyun/terraform-provider-alicloud@81c43b67 resource_alicloud_cs_managed_kubernetes.go:1018-1024,
            # since 47f872f2 of 2024-10-24). CreateCluster's snat_entry defaults to false, as wanted; its
            # endpoint_public_access defaults to true, so an Internet endpoint on the API server fails the run
            # (api_intranet_endpoint; alicloud.md F9).
            slb_internet_enabled=False,
            encryption_provider_key=args.kms_key_id,
            disable_encryption=False,
            enable_rrsa=True,
            control_plane_log_components=list(CONTROL_PLANE_LOGS),
            control_plane_log_ttl=str(spec.log_retention_days),
            audit_log_config=AUDIT_LOG,
            maintenance_window=maintenance_window(spec.alicloud_maintenance_window or AlicloudMaintenanceWindowSpec()),
            operation_policy=NO_AUTO_UPGRADE,
            addons=[alicloud.cs.ManagedKubernetesAddonArgs(name=n, disabled=d) for n, d in ADDONS],
            tags={**args.tags, CLUSTER_TAG_KEY: self.cluster_name},
            deletion_protection=guard.protect,
            opts=child_options(
                self,
                protect=guard.protect,
                retain_on_delete=guard.retain_on_delete,
                depends_on=list(args.egress),
            ),
        )
        credential = alicloud.cs.get_cluster_credential_output(
            cluster_id=cluster.id,
            temporary_duration_minutes=KUBECONFIG_MINUTES,
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.cluster_id = cluster.id
        self.api_load_balancer_id = cluster.slb_id
        self.api_allow_list = self._api_allow_list(name, args, cluster)
        self.security_group_id = cluster.security_group_id
        cluster_name = self.cluster_name
        self.endpoint = cluster.connections.apply(lambda c: api_intranet_endpoint(c, cluster_name))
        # The data source's kube_config always names the Internet endpoint (the provider sends
        # DescribeClusterUserKubeconfig with PrivateIpAddress=false; service_alicloud_cs.go), which this cluster
        # does not have: the kubeconfig is assembled from the intranet endpoint and the same credential's certificates.
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(self.endpoint, credential.certificate_authorities).apply(
                lambda v: intranet_kubeconfig(name, v[0], v[1][0] if v[1] else None)
            )
        )
        self.rrsa_oidc_issuer_url = cluster.rrsa_metadata.apply(lambda m: (m.rrsa_oidc_issuer_url or "") if m else "")
        self.rrsa_oidc_provider_arn = cluster.rrsa_metadata.apply(
            lambda m: (m.ram_oidc_provider_arn or "") if m else ""
        )
        system = PoolShape(
            pool_name=SYSTEM_POOL_NAME,
            group=SYSTEM_POOL_NAME,
            purpose=labels.SYSTEM_PURPOSE,
            instance_types=spec.system_instance_types or SYSTEM_INSTANCE_TYPES,
            min_size=spec.system_min_size,
            max_size=spec.system_max_size,
            disk_size_gib=spec.system_disk_size_gib,
            capacity="on-demand",
            autoscaled=False,
            gpu=False,
        )
        # The system pool spans every vswitch of the cluster.
        placement = Placement(cluster.id, {"all": list(args.vswitch_ids)}, args.kms_key_id, args.tags)
        system_pool = node_pool(f"{name}-{SYSTEM_POOL_NAME}", system, placement, self)
        self.system_pool = system_pool
        self.system_node_pool_id = system_pool.node_pool_id
        self.system_node_pool_name = SYSTEM_POOL_NAME
        self.register_outputs(
            {
                "clusterId": self.cluster_id,
                "kubeconfig": self.kubeconfig,
                "rrsaOidcIssuerUrl": self.rrsa_oidc_issuer_url,
                "endpoint": self.endpoint,
                "systemNodePoolId": self.system_node_pool_id,
                "apiAllowList": self.api_allow_list,
            }
        )

    def _api_allow_list(
        self, name: str, args: GpuClusterArgs, cluster: alicloud.cs.ManagedKubernetes
    ) -> pulumi.Output[str]:
        """The API server's allow list: an ACL with ACK's control plane, the VPC and ``api_clients``, turned on for
        the 6443 listener of the API server's CLB by an OOS execution (api_acl_template). Nothing else reaches the
        API, whatever routes lead to the VPC (review alicloud.md F3)."""
        acl = alicloud.slb.Acl(
            f"{name}-api-acl",
            name=f"{self.cluster_name}-api",
            ip_version="ipv4",
            tags=dict(args.tags),
            opts=child_options(self),
        )
        allowed = [
            (ACK_CONTROL_PLANE_CIDR, "ACK managed control plane"),
            (args.network.vpc_cidr, "the cluster's VPC"),
            *((cidr, "deploy runner") for cidr in args.api_clients),
        ]
        entries = [
            alicloud.slb.AclEntryAttachment(
                f"{name}-api-acl-{i}", acl_id=acl.id, entry=str(cidr), comment=comment, opts=child_options(self)
            )
            for i, (cidr, comment) in enumerate(allowed)
        ]
        template = alicloud.oos.Template(
            f"{name}-api-acl-template",
            template_name=f"gpucloud-{self.cluster_name}-api-acl",
            content=api_acl_template(),
            tags=dict(args.tags),
            opts=child_options(self),
        )
        # Every entry is in the list before the list is turned on: the VPC's and ACK's ranges keep the cluster
        # working. A changed CLB or ACL starts a new execution (every argument forces a replacement).
        execution = alicloud.oos.Execution(
            f"{name}-api-acl-listener",
            template_name=template.template_name,
            description=f"Allow list on the API server listener of {self.cluster_name}",
            parameters=pulumi.Output.json_dumps({"loadBalancerId": cluster.slb_id, "aclId": acl.id}),
            tags=dict(args.tags),
            opts=child_options(self, depends_on=entries),
        )
        # An execution that ends Failed is still created (the provider waits for Success, Failed or Cancelled and
        # reports none of them as an error, resource_alicloud_oos_execution.go:200 with no fail states), so the
        # component fails the run itself: its registered outputs include this check.
        cluster_name = self.cluster_name
        return execution.status.apply(lambda status: require_success(status, cluster_name))


def require_success(status: str | None, cluster_name: str) -> str:
    """``status`` of the allow-list execution of ``cluster_name``; a RunError unless it is Success."""
    if status != "Success":
        raise pulumi.RunError(
            f"the OOS execution that turns on the API server allow list of {cluster_name} ended {status}: "
            "see its status message (aliyun oos GetExecution); the API server is not restricted"
        )
    return status


def intranet_kubeconfig(name: str, endpoint: str, authority: object) -> str:
    """A kubeconfig (JSON) for ``endpoint`` (the API server's intranet address, ``https://<ip>:6443``) with the
    cluster CA, client certificate and key of a ``cs.get_cluster_credential`` certificate authority entry."""

    def cert(field: str) -> str:
        return str(getattr(authority, field, "") or "")

    return json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": name, "cluster": {"server": endpoint, "certificate-authority-data": cert("cluster_cert")}}
            ],
            "users": [
                {
                    "name": name,
                    "user": {"client-certificate-data": cert("client_cert"), "client-key-data": cert("client_key")},
                }
            ],
            "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
            "current-context": name,
        }
    )


def api_intranet_endpoint(connections: object, cluster_name: str) -> str:
    """The API server's intranet endpoint among the cluster's ``connections``; a RunError when it also has an Internet
    endpoint (empty without one: DescribeClusterDetail ``master_url`` ``{"api_server_endpoint":"",
    "intranet_api_server_endpoint":"https://<ip>:6443"}``, which the provider's Read copies into ``connections``)."""
    # Typed as a list of connections by pulumi-alicloud; one object in the Terraform schema's older releases.
    first = connections[0] if isinstance(connections, list) and connections else connections
    internet = getattr(first, "api_server_internet", None)
    if internet:
        raise pulumi.RunError(
            f"the API server of {cluster_name} has an Internet endpoint {internet}: this project's clusters have a"
            " private endpoint only; unbind the EIP from the API server's load balancer (ACK console, Cluster"
            " Information, API server Public Endpoint), then run again"
        )
    return str(getattr(first, "api_server_intranet", None) or "")
