"""GpuSharing: ACK's shared GPU scheduling with GPU memory isolation (cGPU), which pools that share GPUs need.

"By default, the ACK scheduler used by ACK Pro clusters ... schedules exclusive GPU resources. You can use
ack-ai-installer (gpushare-device-plugin) with the ACK scheduler to implement GPU sharing" (ACK, "ack-ai-installer",
https://alibabacloud.com/help/en/ack/cloud-native-ai-suite/product-overview/ack-ai-installer, read 2026-12-03): its
gpushare-device-plugin advertises ``aliyun.com/gpu-mem`` on the nodes of a shared pool, and with the node label
:data:`GPU_SHARE_LABEL` ``ack.node.gpu.schedule=cgpu`` the sharing is "Shared computing power with isolated GPU
memory, based on Alibaba Cloud's cGPU sharing technology" ("Enable scheduling features", the ACK scheduling label
table: default, cgpu, core_mem, share, mps; read 2026-12-03). cGPU shows a container only the GPU memory it requested
(``ALIYUN_COM_GPU_MEM_CONTAINER``, "the GPU memory visible in the container"), so a replica that asks for more cannot
take its neighbours' memory. The label ``share`` would share the memory too, "not enforce[d] as a hard memory cap"
("Configure GPU sharing without GPU memory isolation", doc-detail/2523313: only for applications that manage GPU
memory themselves), which is how a second replica of a model server came to find no memory left (k8s.md W2).

The cluster's ``addons`` list is read only when the cluster is created ("Only works for **Create** Operation, use
resource cs_kubernetes_addon to manage addons if cluster is created", cs.ManagedKubernetes ``addons`` docstring,
pulumi-alicloud 4.0.0), so the component is its own cs.KubernetesAddon, which installs an add-on the cluster lacks
and leaves one of the same version alone (cs.KubernetesAddon docstring, "Installing of addon"). No version is pinned:
Alibaba publishes ack-ai-installer versions only in that page's release notes, none of which could be read here, and
cs.KubernetesAddon's ``version`` is optional (ACK installs the version it offers for the cluster's Kubernetes
version).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_alicloud as alicloud

from gpu_cloud.components.alicloud._common import child_options

__all__ = ["GPU_SHARE_LABEL", "GPU_SHARING_ADDON", "GpuSharing", "GpuSharingArgs"]

GPU_SHARE_LABEL = ("ack.node.gpu.schedule", "cgpu")
"""The node pool label of GPU sharing with isolated GPU memory (cGPU; module docstring)."""

GPU_SHARING_ADDON = "ack-ai-installer"
"""The add-on's name in ACK (the ack-ai-installer page above; cs.KubernetesAddon ``name``)."""


@dataclass(frozen=True)
class GpuSharingArgs:
    """Inputs of a GpuSharing.

    Attributes:
        cluster_id: The ACK cluster (ACK Pro: GPU sharing needs the ACK Pro scheduler).
        nodes: What the add-on waits for: the cluster's first nodes (GpuCluster.system_pool). The provider waits for
            the install task to succeed within its create timeout (terraform-provider-alicloud@81c43b67
            service_alicloud_cs.go:620-666, resource_alicloud_cs_kubernetes_addon.go:27: 10 minutes); with no node to
            run on, a task that waits for the add-on's pods would race the system pool (review alicloud.md F10).
    """

    cluster_id: pulumi.Input[str]
    nodes: Sequence[pulumi.Resource] = ()


class GpuSharing(pulumi.ComponentResource):
    """ACK GPU sharing on a cluster. Child: ``<name>-addon`` (cs.KubernetesAddon ack-ai-installer)."""

    addon: alicloud.cs.KubernetesAddon
    """The installed add-on (what the Kubernetes layer and shared pools wait for)."""

    def __init__(self, name: str, args: GpuSharingArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpucloud:alicloud:GpuSharing", name, None, opts)
        self.addon = alicloud.cs.KubernetesAddon(
            f"{name}-addon",
            cluster_id=args.cluster_id,
            name=GPU_SHARING_ADDON,
            opts=child_options(self, depends_on=list(args.nodes)),
        )
        self.register_outputs({})
