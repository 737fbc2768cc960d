"""What differs between EKS and ACK for the Kubernetes layer, in one table instead of branches in every component.

Each value is documented by its cloud; the comment beside it says where.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gpu_cloud.components.spec import Cloud

__all__ = ["CloudProfile", "profile"]


@dataclass(frozen=True)
class CloudProfile:
    """The Kubernetes-side facts of one cloud.

    Attributes:
        cloud: The cloud.
        internal_load_balancer_annotations: Service annotations that make a LoadBalancer Service internal.
        workload_identity_annotation: ServiceAccount annotation naming the cloud role a pod assumes; None where the
            cloud binds roles to ServiceAccounts outside the cluster.
        workload_identity_namespace_labels: Namespace labels the cloud's identity webhook needs.
        installs_device_plugin: The layer installs the NVIDIA device plugin (False: the cloud manages it).
        installs_cluster_autoscaler: The layer installs the cluster autoscaler (False: the cloud manages it).
        maps_groups: The cloud's access components put identities in ``labels.ADMIN_GROUP``/``USER_GROUP``, so the
            layer binds its roles to those groups (False: the cloud binds the ClusterRoles to identities itself).
        shared_gpu_resource: Extended resource a pod requests on a pool that shares GPUs; ``nvidia.com/gpu``
            counts time-sliced replicas, ``aliyun.com/gpu-mem`` counts GiB of GPU memory.
        model_store: How the staging script (``stage_model.sh``) reaches the environment's bucket: ``s3`` or ``oss``.
        load_balancer_class: ``spec.loadBalancerClass`` of a TLS load balancer Service (None: the cloud's default).
        tls_certificate_annotation: Service annotation naming the TLS listener's certificate.
        tls_policy_annotation: Service annotation naming the TLS listener's security policy.
        tls_port_annotation: Service annotation marking the TLS port, and its value with ``{name}`` and ``{port}``.
        zone_maps_annotation: Service annotation listing ``zone:vswitch`` pairs of a new load balancer, if needed.
        limits_load_balancer_clients: An internal load balancer Service names its clients' networks in
            ``loadBalancerSourceRanges``, which the cloud's controller opens the backends to (otherwise to all).
        disk_provisioner: The CSI driver of the cloud's block volumes (a StorageClass ``provisioner``).
        disk_parameters: The StorageClass parameters of an encrypted SSD volume, less the key.
        disk_key_parameter: The StorageClass parameter naming the encryption key.
    """

    cloud: Cloud
    internal_load_balancer_annotations: Mapping[str, str]
    workload_identity_annotation: str | None
    workload_identity_namespace_labels: Mapping[str, str]
    installs_device_plugin: bool
    installs_cluster_autoscaler: bool
    maps_groups: bool
    shared_gpu_resource: str
    model_store: str
    load_balancer_class: str | None
    tls_certificate_annotation: str
    tls_policy_annotation: str
    tls_port_annotation: tuple[str, str]
    zone_maps_annotation: str | None
    limits_load_balancer_clients: bool
    disk_provisioner: str
    disk_parameters: Mapping[str, str]
    disk_key_parameter: str


_PROFILES = {
    Cloud.AWS: CloudProfile(
        cloud=Cloud.AWS,
        # EKS reconciles LoadBalancer Services with the cloud provider's own service controller unless the AWS Load
        # Balancer Controller is installed ("By default, Kubernetes Service resources of type LoadBalancer get
        # reconciled by the Kubernetes controller built into the CloudProvider component ... (in-tree controller)",
        # kubernetes-sigs.github.io/aws-load-balancer-controller/v2.5/guide/service/nlb/). That controller reads
        # aws-load-balancer-type "nlb" and aws-load-balancer-internal "true" (an internal NLB; annotation list of the
        # cloud provider's AWS service controller, as used in kubernetes/kubernetes#114111). The layer installs no
        # Load Balancer Controller, so its "external"/"scheme" annotations would leave the Service pending.
        internal_load_balancer_annotations={
            "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
            "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
        },
        # EKS Pod Identity: an association (components.aws.PodIdentityRole) binds the ServiceAccount to its role in
        # the EKS API, and the eks-pod-identity-agent hands pods the credentials; the ServiceAccount needs no
        # annotation (docs.aws.amazon.com/eks/latest/userguide/pod-identities.html, "EKS Pod Identity overview").
        workload_identity_annotation=None,
        workload_identity_namespace_labels={},
        installs_device_plugin=True,
        installs_cluster_autoscaler=True,
        # EKS access entries carry kubernetesGroups (components.aws.GpuAdminAccess; docs.aws.amazon.com/eks/latest/
        # userguide/creating-access-entries.html, "Kubernetes groups"), which RBAC bindings name as Group subjects.
        maps_groups=True,
        # Time-slicing replicas are still advertised as nvidia.com/gpu (renameByDefault false).
        shared_gpu_resource="nvidia.com/gpu",
        model_store="s3",
        # The in-tree service controller makes a port of an NLB a TLS listener when the Service has a certificate
        # and the port's number or name is in ssl-ports, with ssl-negotiation-policy as its SslPolicy
        # (kubernetes/cloud-provider-aws v1.35.2, the release for the clusters' Kubernetes 1.35:
        # pkg/providers/v1/aws.go:158-168 and :2388-2394, aws_loadbalancer.go:719-722; read 2026-12-02). The
        # backend stays plain TCP inside the VPC.
        load_balancer_class=None,
        tls_certificate_annotation="service.beta.kubernetes.io/aws-load-balancer-ssl-cert",
        tls_policy_annotation="service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy",
        tls_port_annotation=("service.beta.kubernetes.io/aws-load-balancer-ssl-ports", "{name}"),
        zone_maps_annotation=None,
        # The in-tree controller writes loadBalancerSourceRanges (default 0.0.0.0/0) into the instances' security
        # group as the NodePort's clients (cloud-provider-aws v1.35.2 pkg/providers/v1/aws.go:2491-2498,
        # aws_loadbalancer.go:1027; aws.md A9).
        limits_load_balancer_clients=True,
        # The EBS CSI driver (components.aws.EbsCsiDriver): gp3, encrypted with the key in kmsKeyId
        # (kubernetes-sigs/aws-ebs-csi-driver docs/parameters.md, read 2026-12-03).
        disk_provisioner="ebs.csi.aws.com",
        disk_parameters={"type": "gp3", "encrypted": "true"},
        disk_key_parameter="kmsKeyId",
    ),
    Cloud.ALICLOUD: CloudProfile(
        cloud=Cloud.ALICLOUD,
        # ACK CLB annotations: "To create an internal-facing CLB instance, set the value to intranet."
        # alibabacloud.com/help/en/cs/add-annotations-to-the-yaml-file-of-a-service-to-configure-clb-instances
        internal_load_balancer_annotations={
            "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type": "intranet"
        },
        # RRSA through ack-pod-identity-webhook: service account annotation pod-identity.alibabacloud.com/role-name,
        # namespace label pod-identity.alibabacloud.com/injection=on. alibabacloud.com/help/doc-detail/600451.html
        workload_identity_annotation="pod-identity.alibabacloud.com/role-name",
        workload_identity_namespace_labels={"pod-identity.alibabacloud.com/injection": "on"},
        # ACK runs its own ack-nvidia-device-plugin on GPU nodes (kube-system, component=nvidia-device-plugin;
        # alibabacloud.com/help/en/document_detail/207292.html) and scales node pools with its managed autoscaler
        # (the node pool's scaling settings, the cluster component's business).
        installs_device_plugin=False,
        installs_cluster_autoscaler=False,
        # ACK maps RAM identities through GrantPermissions (cs.KubernetesPermission), which binds predefined roles or
        # "custom cluster roles" (pulumi_alicloud cs KubernetesPermissionPermissionArgs.is_custom), never a group.
        maps_groups=False,
        # ACK GPU sharing: pods request GPU memory in GiB as aliyun.com/gpu-mem on nodes labelled
        # ack.node.gpu.schedule=cgpu (memory isolated by cGPU: components.alicloud.gpu_sharing).
        shared_gpu_resource="aliyun.com/gpu-mem",
        model_store="oss",
        # ACK CCM 2.5+ creates an NLB for loadBalancerClass alibabacloud.com/nlb; zone-maps is required for a new
        # one; protocol-port "tcpssl:<port>" makes a TCP/SSL listener with cert-id and tls-cipher-policy ("Use
        # annotations to configure NLB instances", alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/
        # user-guide/configure-nlb-instances-by-using-annotations, read 2026-12-02). CLB offers only system TLS
        # policies, none of them TLS 1.3 only; an NLB takes a custom security policy (nlb.SecurityPolicy).
        load_balancer_class="alibabacloud.com/nlb",
        tls_certificate_annotation="service.beta.kubernetes.io/alibaba-cloud-loadbalancer-cert-id",
        tls_policy_annotation="service.beta.kubernetes.io/alibaba-cloud-loadbalancer-tls-cipher-policy",
        tls_port_annotation=("service.beta.kubernetes.io/alibaba-cloud-loadbalancer-protocol-port", "tcpssl:{port}"),
        zone_maps_annotation="service.beta.kubernetes.io/alibaba-cloud-loadbalancer-zone-maps",
        # The NLB reaches the pods through the cluster's security group, which the ACK cluster component governs;
        # how ACK's CCM treats loadBalancerSourceRanges on an NLB was not read, so none is given.
        limits_load_balancer_clients=False,
        # ACK's disk CSI plug-in (installed with every ACK cluster): ESSD, encrypted with the KMS key in kmsKeyId
        # (ACK "StorageClass" page: provisioner diskplugin.csi.alibabacloud.com, parameters type, encrypted,
        # kmsKeyId, and WaitForFirstConsumer for clusters over several zones; alibabacloud.com/help/zh/ack/
        # ack-managed-and-ack-dedicated/user-guide/storage-class, read 2026-12-03).
        disk_provisioner="diskplugin.csi.alibabacloud.com",
        disk_parameters={"type": "cloud_essd", "encrypted": "true"},
        disk_key_parameter="kmsKeyId",
    ),
}


def profile(cloud: Cloud) -> CloudProfile:
    """The Kubernetes-side facts of ``cloud``."""
    return _PROFILES[cloud]
