"""GpuNodePool: catalog GPU types, no public IP, encrypted disks, GPU taint and labels, autoscaling, auto repair."""

from __future__ import annotations

import inspect
import re

import pulumi_alicloud as alicloud

from gpu_cloud.components import labels
from gpu_cloud.components.alicloud import (
    GpuCluster,
    GpuClusterArgs,
    GpuNodePool,
    GpuNodePoolArgs,
    GpuSharing,
    GpuSharingArgs,
)
from gpu_cloud.components.alicloud._pool import CGROUP_V1_REMOVED, CGROUP_V2_IMAGE_TYPES, IMAGE_TYPES
from gpu_cloud.components.spec import ClusterSpec, GpuNodePoolSpec, PoolPurpose
from gpu_cloud.components.versions import ACK_KUBERNETES_RELEASES, ACK_NVIDIA_DRIVER_VERSION
from tests.alicloud.support import (
    INFERENCE_POOL,
    NETWORK,
    VSWITCHES,
    component,
    custom,
    label_map,
    one,
    plan_of,
    registered,
    rejected,
)

POOL = "alicloud:cs/nodePool:NodePool"


def _pool(spec: GpuNodePoolSpec = INFERENCE_POOL, sharing: bool = False) -> dict:  # type: ignore[type-arg]
    def program() -> None:
        gpu_sharing = GpuSharing("sharing", GpuSharingArgs(cluster_id="c-123")) if sharing else None
        args = GpuNodePoolArgs(
            spec=spec,
            gpu_sharing=gpu_sharing,
            cluster_id="c-123",
            vswitch_ids_by_zone=VSWITCHES,
            kms_key_id="key-123",
            tags={"owner": "ml"},
        )
        GpuNodePool("prod-inference", args)

    plan = plan_of(program)
    pool = one(plan, "gpucloud:alicloud:GpuNodePool")
    assert [(r.type, r.name) for r in custom(plan) if r.parent == pool.urn] == [(POOL, "prod-inference-pool")]
    return one(plan, POOL).inputs


def test_pool_uses_the_spec_types_on_pay_as_you_go_container_optimized_alinux3_nodes() -> None:
    inputs = _pool()
    assert inputs["nodePoolName"] == "inference"
    assert inputs["clusterId"] == "c-123"
    assert inputs["instanceTypes"] == ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"]
    assert (inputs["instanceChargeType"], inputs["imageType"]) == ("PostPaid", "AliyunLinux3ContainerOptimized")


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_every_pinned_ack_release_from_1_35_on_gets_a_cgroup_v2_image_the_provider_accepts() -> None:
    # ACK 1.35: "the kubelet will not start" on cgroup v1 (_pool.CGROUP_V1_REMOVED); only the container-optimized
    # Alinux images run cgroup v2 by default (_pool.IMAGE_TYPES cites the sources). The provider's own list of
    # image types is the cs.NodePool image_type docstring of the installed pulumi-alicloud.
    doc = inspect.getdoc(alicloud.cs.NodePoolArgs.__init__) or ""
    accepted = set(re.findall(r"- `(\w+)`\s*[:\uff1a]", doc.split(" image_type:")[1].split(":param")[0]))
    assert {"AliyunLinux3", "AliyunLinux3ContainerOptimized", "AliyunLinux4ContainerOptimizedArm64"} <= accepted
    newer = [v for v in ACK_KUBERNETES_RELEASES if _minor(v) >= _minor(CGROUP_V1_REMOVED)]
    assert newer == sorted(ACK_KUBERNETES_RELEASES)  # every pinned minor is past cgroup v1
    for arch, image in IMAGE_TYPES.items():
        assert image in CGROUP_V2_IMAGE_TYPES, (arch, image)
        assert image in accepted, (arch, image)


def test_nodes_have_no_public_ip() -> None:
    inputs = _pool()
    assert "internetMaxBandwidthOut" not in inputs  # unset: no public bandwidth
    assert inputs["scalingConfig"]["isBondEip"] is False


def test_system_and_data_disks_are_encrypted_with_the_kms_key() -> None:
    inputs = _pool()
    assert (inputs["systemDiskEncrypted"], inputs["systemDiskKmsKey"]) == (True, "key-123")
    assert inputs["dataDisks"] == [{"category": "cloud_essd", "size": 300, "encrypted": "true", "kmsKeyId": "key-123"}]


def test_gpu_nodes_are_tainted_for_gpu_pods_only() -> None:
    assert _pool()["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]


def test_nodes_carry_purpose_gpu_class_pool_capacity_and_driver_labels() -> None:
    assert label_map(_pool()) == {
        labels.PURPOSE_LABEL: "inference",
        labels.GPU_CLASS_LABEL: "nvidia-a10",
        labels.POOL_LABEL: "inference",
        labels.CAPACITY_LABEL: "on-demand",
        "ack.aliyun.com/nvidia-driver-version": ACK_NVIDIA_DRIVER_VERSION,
    }


SHARED_POOL = INFERENCE_POOL.model_copy(update={"gpu_time_slicing_replicas": 4, "labels": {"team": "search"}})


def test_gpu_sharing_adds_the_ack_share_label_and_scales_as_a_shared_gpu_pool() -> None:
    inputs = _pool(SHARED_POOL, sharing=True)
    found = label_map(inputs)
    assert (found["ack.node.gpu.schedule"], found["team"]) == ("cgpu", "search")
    assert inputs["scalingConfig"]["type"] == "gpushare"


def test_the_sharing_component_is_ack_ai_installer_as_its_own_cluster_addon() -> None:
    plan = plan_of(lambda: GpuSharing("prod-gpu-sharing", GpuSharingArgs(cluster_id="c-123")))
    component(plan, "gpucloud:alicloud:GpuSharing")
    [addon] = custom(plan)
    assert (addon.type, addon.name) == ("alicloud:cs/kubernetesAddon:KubernetesAddon", "prod-gpu-sharing-addon")
    assert addon.inputs == {"clusterId": "c-123", "name": "ack-ai-installer"}


def test_the_sharing_addon_is_installed_after_the_clusters_first_nodes() -> None:
    def program() -> None:
        cluster = GpuCluster(
            "gpu",
            GpuClusterArgs(
                spec=ClusterSpec(kubernetes_version="1.35"),
                network=NETWORK,
                vswitch_ids=["vsw-h", "vsw-i"],
                kms_key_id="k",
            ),
        )
        GpuSharing("gpu-sharing", GpuSharingArgs(cluster_id=cluster.cluster_id, nodes=[cluster.system_pool]))

    plan = plan_of(program)
    addon = one(plan, "alicloud:cs/kubernetesAddon:KubernetesAddon")
    assert one(plan, POOL).urn in addon.dependencies  # review alicloud.md F10


def test_sharing_without_the_sharing_component_is_rejected_before_anything_is_registered() -> None:
    args = GpuNodePoolArgs(spec=SHARED_POOL, cluster_id="c-123", vswitch_ids_by_zone=VSWITCHES, kms_key_id="k")
    error, plan = rejected(lambda: GpuNodePool("p", args))
    assert str(error) == (
        "gpuTimeSlicingReplicas: shares GPUs, but the cluster has no GPU sharing component "
        "(ack-ai-installer; GpuSharing) (got 4)"
    )
    assert registered(plan) == []


def test_the_autoscaler_owns_the_size_between_min_and_max() -> None:
    inputs = _pool()
    assert inputs["scalingConfig"] == {"enable": True, "minSize": 1, "maxSize": 6, "isBondEip": False, "type": "gpu"}
    assert "desiredSize" not in inputs


def test_managed_pool_auto_repairs_nodes() -> None:
    assert _pool()["management"] == {
        "enable": True,
        "autoRepair": True,
        "autoRepairPolicy": {"restartNode": True},
        "maxUnavailable": 1,
    }


def test_instance_metadata_needs_tokens() -> None:
    assert _pool()["instanceMetadataOptions"] == {"httpTokens": "required"}


def test_a_pool_with_zones_uses_only_their_vswitches() -> None:
    assert _pool(INFERENCE_POOL.model_copy(update={"zones": ("cn-hangzhou-i",)}))["vswitchIds"] == ["vsw-i"]
    assert _pool()["vswitchIds"] == ["vsw-h", "vsw-i"]


def test_unknown_types_aws_settings_and_zones_without_vswitch_are_rejected_before_registration() -> None:
    spec = INFERENCE_POOL.model_copy(
        update={"instance_types": ("g5.xlarge",), "aws_ami_type": "AL2023_x86_64_NVIDIA", "zones": ("cn-hangzhou-k",)}
    )
    args = GpuNodePoolArgs(spec=spec, cluster_id="c", vswitch_ids_by_zone=VSWITCHES, kms_key_id="k")
    error, plan = rejected(lambda: GpuNodePool("p", args))
    assert str(error) == (
        "instanceTypes.0: not a GPU instance type of the alicloud catalog (got g5.xlarge)\n"
        "awsAmiType: is an AWS-only setting (got AL2023_x86_64_NVIDIA)\n"
        "zones: no vswitch in that zone (got cn-hangzhou-k)"
    )
    assert registered(plan) == []


def test_training_nodes_run_the_static_cpu_manager_and_the_topology_manager() -> None:
    """A Guaranteed training pod gets whole cores on the NUMA nodes of its GPUs; inference nodes are unchanged."""
    training = INFERENCE_POOL.model_copy(update={"name": "training", "purpose": PoolPurpose.TRAINING})
    assert _pool(training)["kubeletConfiguration"] == {
        "cpuManagerPolicy": "static",
        "topologyManagerPolicy": "best-effort",
    }
    assert "kubeletConfiguration" not in _pool()
