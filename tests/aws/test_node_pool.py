"""GpuNodePool: a tainted, IMDSv2-only, private, encrypted GPU node group; EFA training with placement."""

from __future__ import annotations

import base64
import email
import gzip
import json
from pathlib import Path
from typing import Any

import botocore
import pytest
import yaml

from gpu_cloud.components import catalog
from gpu_cloud.components.aws._node_group import (
    CAPACITY_BLOCK,
    EFA_ONLY_MIN_VPC_CNI,
    NodeGroupPlan,
    efa_layout,
    node_user_data,
)
from gpu_cloud.components.aws.node_pool import GpuNodePool, GpuNodePoolArgs
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import ConfigError, GpuNodePoolSpec
from gpu_cloud.components.versions import EKS_ADDON_VERSIONS, EKS_AL2023_RELEASE_VERSIONS
from tests.aws.helpers import assert_policies_lint_clean, named, of_type, run, type_counts
from tests.aws.nodes import KEY_ARN, TARGET

INFERENCE = {
    "name": "infer",
    "purpose": "inference",
    "instanceTypes": ["g5.xlarge"],
    "minSize": 0,
    "desiredSize": 1,
    "maxSize": 4,
}
TRAINING = {
    "name": "train",
    "purpose": "training",
    "instanceTypes": ["p5.48xlarge"],
    "minSize": 0,
    "desiredSize": 0,
    "maxSize": 4,
    "efa": True,
    "placementGroup": True,
    "zones": ["us-east-1a"],
}


def _pool(fields: dict[str, Any], **overrides: Any) -> None:
    spec = GpuNodePoolSpec.model_validate({**fields, **overrides})
    GpuNodePool("pool", GpuNodePoolArgs(spec=spec, target=TARGET))


def test_inference_children() -> None:
    plan = run(lambda: _pool(INFERENCE))
    assert type_counts(plan) == {
        "aws:iam/role:Role": 1,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 3,
        "aws:ec2/launchTemplate:LaunchTemplate": 1,
        "aws:eks/nodeGroup:NodeGroup": 1,
    }
    assert named(plan, "pool").type == "gpucloud:aws:GpuNodePool"
    assert all(r.parent == named(plan, "pool").urn for r in plan.resources if r.custom)


def test_training_on_efa_adds_a_cluster_placement_group() -> None:
    plan = run(lambda: _pool(TRAINING))
    (group,) = of_type(plan, "aws:ec2/placementGroup:PlacementGroup")
    assert group.name == "pool-nodes-pg"
    assert group.inputs["strategy"] == "cluster"
    assert named(plan, "pool-nodes-lt").property_dependencies["placement"] == (group.urn,)


def test_node_role_has_only_the_node_policies() -> None:
    plan = run(lambda: _pool(INFERENCE))
    assert sorted(
        r.inputs["policyArn"] for r in of_type(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
    ) == [
        "arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy",
    ]


def test_a_given_node_role_is_used_instead_of_creating_one() -> None:
    role = "arn:aws:iam::123456789012:role/gpu-nodes"

    def program() -> None:
        GpuNodePool(
            "pool", GpuNodePoolArgs(spec=GpuNodePoolSpec.model_validate(INFERENCE), target=TARGET, node_role_arn=role)
        )

    plan = run(program)
    assert of_type(plan, "aws:iam/role:Role") == []
    assert named(plan, "pool-nodes").inputs["nodeRoleArn"] == role


def test_launch_template_requires_imdsv2_with_one_hop() -> None:
    assert named(run(lambda: _pool(INFERENCE)), "pool-nodes-lt").inputs["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpPutResponseHopLimit": 1,
        "httpTokens": "required",
    }


def test_no_interface_gets_a_public_ip() -> None:
    interfaces = named(run(lambda: _pool(INFERENCE)), "pool-nodes-lt").inputs["networkInterfaces"]
    assert interfaces == [
        {
            "associatePublicIpAddress": "false",
            "deleteOnTermination": "true",
            "deviceIndex": 0,
            "securityGroups": ["sg-cluster"],
        }
    ]


def test_root_volume_is_gp3_encrypted_with_the_key() -> None:
    assert named(run(lambda: _pool(INFERENCE)), "pool-nodes-lt").inputs["blockDeviceMappings"] == [
        {
            "deviceName": "/dev/xvda",
            "ebs": {
                "deleteOnTermination": "true",
                "encrypted": "true",
                "kmsKeyId": KEY_ARN,
                "volumeSize": 200,
                "volumeType": "gp3",
            },
        }
    ]


def test_bottlerocket_keeps_images_on_an_encrypted_data_volume() -> None:
    plan = run(
        lambda: _pool(INFERENCE, awsAmiType="BOTTLEROCKET_x86_64_NVIDIA", awsAmiReleaseVersion="1.41.0-a1b2c3d4")
    )
    volumes = named(plan, "pool-nodes-lt").inputs["blockDeviceMappings"]
    assert [(v["deviceName"], v["ebs"].get("volumeSize"), v["ebs"]["encrypted"]) for v in volumes] == [
        ("/dev/xvda", None, "true"),
        ("/dev/xvdb", 200, "true"),
    ]
    assert named(plan, "pool-nodes").inputs["amiType"] == "BOTTLEROCKET_x86_64_NVIDIA"


NODEADM = json.loads((Path(__file__).parent / "nodeadm-v20260714" / "SOURCE.json").read_text())
"""The nodeadm NodeConfig API of the pinned AL2023 AMI release, vendored as facts with their source."""


def _node_configs(user_data: str) -> list[dict[str, Any]]:
    """The NodeConfig documents nodeadm reads from base64 user data: the parts of a MIME multi-part document whose
    media type is nodeadm's, each parsed as YAML (nodeadm's configprovider/mime.go ``ParseMultipart``)."""
    message = email.message_from_bytes(base64.b64decode(user_data))
    assert message.get_content_type() == "multipart/mixed"
    parts = [p for p in message.get_payload() if p.get_content_type() == NODEADM["mediaType"]]
    return [yaml.safe_load(p.get_payload()) for p in parts]


def _api_problems(value: Any, type_name: str, path: str) -> list[str]:
    """Fields of ``value`` that the vendored nodeadm API does not define for ``type_name``, and enum values outside
    their enum."""
    if type_name in NODEADM["enums"]:
        return [] if value in NODEADM["enums"][type_name] else [f"{path}: {value!r} not in {type_name}"]
    fields = NODEADM["fields"].get(type_name)
    if fields is None:
        return []
    if not isinstance(value, dict):
        return [f"{path}: not an object"]
    problems = [f"{path}.{key}: not a field of {type_name}" for key in value if key not in fields]
    for key, child in value.items():
        if key in fields:
            problems += _api_problems(child, fields[key], f"{path}.{key}")
    return problems


def test_p5_nodes_raid0_their_nvme_instance_store_through_a_nodeadm_node_config() -> None:
    user_data = named(run(lambda: _pool(TRAINING)), "pool-nodes-lt").inputs["userData"]
    [config] = _node_configs(user_data)
    assert (config["apiVersion"], config["kind"]) == (NODEADM["apiVersion"], NODEADM["kind"])
    assert _api_problems(config, "NodeConfig", "") == []
    assert config["spec"] == {
        "instance": {"localStorage": {"strategy": "RAID0"}},
        # A training pool: CPU and topology managers align a Guaranteed pod's cores with its GPUs.
        "kubelet": {
            "config": {
                "cpuManagerPolicy": "static",
                "topologyManagerPolicy": "best-effort",
                "topologyManagerScope": "pod",
            }
        },
    }


def test_the_api_check_finds_fields_nodeadm_does_not_have() -> None:
    config = {"apiVersion": "x", "spec": {"instance": {"localStorage": {"strategy": "raid0", "size": 1}}}}
    assert _api_problems(config, "NodeConfig", "") == [
        ".spec.instance.localStorage.size: not a field of LocalStorageOptions",
        ".spec.instance.localStorage.strategy: 'raid0' not in LocalStorageStrategy",
    ]


def test_the_vendored_nodeadm_api_is_the_pinned_ami_release() -> None:
    # A new AL2023 AMI pin must be read against its own nodeadm API before this test passes again.
    assert {v.rsplit("-", 1)[1] for v in EKS_AL2023_RELEASE_VERSIONS.values()} == {NODEADM["tag"].removeprefix("v")}


AWS_TYPES = catalog.instance_types(Cloud.AWS)


@pytest.mark.parametrize("instance_type", AWS_TYPES, ids=[t.name for t in AWS_TYPES])
def test_only_types_with_nvme_instance_store_get_the_local_storage_config(instance_type: catalog.InstanceType) -> None:
    plan = NodeGroupPlan(
        suffix="nodes",
        node_group_name="pool",
        instance_types=(instance_type,),
        capacity_type="ON_DEMAND",
        min_size=0,
        desired_size=0,
        max_size=1,
        disk_size_gib=200,
        zones=("us-east-1a",),
        labels={},
    )
    user_data = node_user_data(plan)
    assert (user_data is not None) is instance_type.has_local_nvme
    if user_data is not None:
        assert [c["spec"] for c in _node_configs(user_data)] == [{"instance": {"localStorage": {"strategy": "RAID0"}}}]


def test_a_type_without_instance_store_gets_no_user_data() -> None:
    plan = run(lambda: _pool(INFERENCE, instanceTypes=["g5g.xlarge"]))
    assert "userData" not in named(plan, "pool-nodes-lt").inputs


def test_bottlerocket_gets_no_nodeadm_user_data() -> None:
    # Bottlerocket does not run nodeadm; its own instance-store setting was not verified, so images stay on the
    # data volume.
    plan = run(
        lambda: _pool(INFERENCE, awsAmiType="BOTTLEROCKET_x86_64_NVIDIA", awsAmiReleaseVersion="1.41.0-a1b2c3d4")
    )
    assert "userData" not in named(plan, "pool-nodes-lt").inputs


def test_an_on_demand_capacity_reservation_is_the_launch_template_target_of_an_on_demand_group() -> None:
    plan = run(lambda: _pool(TRAINING, awsCapacityReservation={"reservationId": "cr-02168da1478b509e0"}))
    template = named(plan, "pool-nodes-lt").inputs
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-02168da1478b509e0"}
    }
    assert "instanceMarketOptions" not in template and "instanceType" not in template
    group = named(plan, "pool-nodes").inputs
    assert (group["capacityType"], group["instanceTypes"]) == ("ON_DEMAND", ["p5.48xlarge"])


def test_a_reservation_group_is_the_target_instead_of_one_reservation() -> None:
    arn = "arn:aws:resource-groups:us-east-1:123456789012:group/p5"
    plan = run(lambda: _pool(TRAINING, awsCapacityReservation={"resourceGroupArn": arn}))
    assert named(plan, "pool-nodes-lt").inputs["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationResourceGroupArn": arn}
    }


def test_a_capacity_block_pool_is_a_capacity_block_group_on_a_capacity_block_launch_template() -> None:
    block = {"reservationId": "cr-02168da1478b509e0", "capacityBlock": True}
    plan = run(lambda: _pool(TRAINING, awsCapacityReservation=block))
    template = named(plan, "pool-nodes-lt").inputs
    assert template["capacityReservationSpecification"] == {
        "capacityReservationTarget": {"capacityReservationId": "cr-02168da1478b509e0"}
    }
    assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["instanceType"] == "p5.48xlarge"
    group = named(plan, "pool-nodes").inputs
    assert group["capacityType"] == "CAPACITY_BLOCK"
    assert "instanceTypes" not in group
    assert group["subnetIds"] == ["subnet-a"]


def _botocore_model(service: str, version: str) -> dict[str, Any]:
    path = Path(botocore.__file__).parent / "data" / service / version / "service-2.json.gz"
    model: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    return model


def test_the_capacity_type_and_market_type_are_the_apis_own_values() -> None:
    assert CAPACITY_BLOCK in _botocore_model("eks", "2017-11-01")["shapes"]["CapacityTypes"]["enum"]
    assert "capacity-block" in _botocore_model("ec2", "2016-11-15")["shapes"]["MarketType"]["enum"]


def test_p5_training_puts_efa_on_the_primary_card_and_efa_only_on_the_others() -> None:
    interfaces = named(run(lambda: _pool(TRAINING)), "pool-nodes-lt").inputs["networkInterfaces"]
    assert len(interfaces) == 32
    assert [(i["networkCardIndex"], i["deviceIndex"], i["interfaceType"]) for i in interfaces] == [
        (0, 0, "efa"),
        *[(card, 1, "efa-only") for card in range(1, 32)],
    ]
    assert {i["associatePublicIpAddress"] for i in interfaces} == {"false"}


EFA_TYPES = [t for t in catalog.instance_types(Cloud.AWS) if t.has_efa]


@pytest.mark.parametrize("instance_type", EFA_TYPES, ids=[t.name for t in EFA_TYPES])
def test_efa_layout_per_type_is_one_efa_device_per_card_efa_only_after_the_primary(instance_type) -> None:
    layout = efa_layout(instance_type)
    assert len(layout) == instance_type.efa_interfaces
    assert layout[0] == (0, 0, "efa")
    assert layout[1:] == [(card, 1, "efa-only") for card in range(1, instance_type.efa_interfaces)]


@pytest.mark.parametrize(
    ("name", "efa_only"), [("p5.48xlarge", 31), ("p4d.24xlarge", 3), ("g6e.48xlarge", 3), ("g5.12xlarge", 0)]
)
def test_efa_only_count_per_type(name, efa_only) -> None:
    found = catalog.lookup(Cloud.AWS, name)
    assert found is not None
    assert [kind for _, _, kind in efa_layout(found)].count("efa-only") == efa_only


def test_pinned_vpc_cni_supports_efa_only_interfaces() -> None:
    for kubernetes, addons in EKS_ADDON_VERSIONS.items():
        version = tuple(int(x) for x in addons["vpc-cni"].removeprefix("v").split("-")[0].split("."))
        assert version >= EFA_ONLY_MIN_VPC_CNI, (kubernetes, addons["vpc-cni"])


def test_node_group_is_tainted_labelled_and_pinned() -> None:
    inputs = named(run(lambda: _pool(INFERENCE, labels={"team": "vision"})), "pool-nodes").inputs
    assert inputs["taints"] == [{"effect": "NO_SCHEDULE", "key": "nvidia.com/gpu", "value": "true"}]
    assert inputs["labels"] == {
        "gpucloud.io/capacity": "on-demand",
        "gpucloud.io/gpu-class": "nvidia-a10g",
        "gpucloud.io/pool": "infer",
        "gpucloud.io/purpose": "inference",
        # The autoscaler's GPU label: the node counts as a GPU node before the device plugin starts.
        "k8s.amazonaws.com/accelerator": "nvidia-a10g",
        "team": "vision",
    }
    assert inputs["amiType"] == "AL2023_x86_64_NVIDIA"
    assert inputs["version"] == "1.35"
    assert inputs["releaseVersion"] == "1.35.6-20260714"
    assert inputs["capacityType"] == "ON_DEMAND"
    assert inputs["nodeGroupNamePrefix"] == "infer-"
    assert "nodeGroupName" not in inputs
    assert inputs["clusterName"] == "gpu"


def test_a_time_sliced_pool_picks_its_device_plugin_config() -> None:
    plan = run(lambda: _pool(INFERENCE, gpuTimeSlicingReplicas=4))
    labels = named(plan, "pool-nodes").inputs["labels"]
    assert labels["nvidia.com/device-plugin.config"] == "infer"
    tags = named(plan, "pool-nodes").inputs["tags"]
    assert tags["k8s.io/cluster-autoscaler/node-template/label/nvidia.com/device-plugin.config"] == "infer"


def test_a_pool_without_sharing_uses_the_default_device_plugin_config() -> None:
    labels = named(run(lambda: _pool(INFERENCE)), "pool-nodes").inputs["labels"]
    assert "nvidia.com/device-plugin.config" not in labels


def test_node_group_updates_one_node_at_a_time_and_repairs_nodes() -> None:
    inputs = named(run(lambda: _pool(INFERENCE)), "pool-nodes").inputs
    assert inputs["updateConfig"] == {"maxUnavailable": 1}
    assert inputs["nodeRepairConfig"] == {"enabled": True}
    assert inputs["scalingConfig"] == {"desiredSize": 1, "maxSize": 4, "minSize": 0}


def test_autoscaler_owns_the_desired_size() -> None:
    assert named(run(lambda: _pool(INFERENCE)), "pool-nodes").ignore_changes == ("scalingConfig.desiredSize",)


def test_autoscaler_discovery_and_node_template_tags() -> None:
    tags = named(run(lambda: _pool(TRAINING)), "pool-nodes").inputs["tags"]
    prefix = "k8s.io/cluster-autoscaler"
    assert tags[f"{prefix}/enabled"] == "true"
    assert tags[f"{prefix}/gpu"] == "owned"
    assert tags[f"{prefix}/node-template/resources/nvidia.com/gpu"] == "8"
    assert tags[f"{prefix}/node-template/resources/vpc.amazonaws.com/efa"] == "32"
    assert tags[f"{prefix}/node-template/label/gpucloud.io/pool"] == "train"
    assert tags[f"{prefix}/node-template/taint/nvidia.com/gpu"] == "true:NoSchedule"


def test_inference_spreads_over_every_zone_and_efa_training_uses_one() -> None:
    assert named(run(lambda: _pool(INFERENCE)), "pool-nodes").inputs["subnetIds"] == ["subnet-a", "subnet-b"]
    assert named(run(lambda: _pool(TRAINING)), "pool-nodes").inputs["subnetIds"] == ["subnet-a"]


def test_trust_policy_lints_clean() -> None:
    assert assert_policies_lint_clean(run(lambda: _pool(INFERENCE))) == 1


def test_efa_on_a_type_without_it_is_rejected_before_registering() -> None:
    errors: list[str] = []

    def program() -> None:
        with pytest.raises(ConfigError) as err:
            _pool(TRAINING, instanceTypes=["g5.xlarge"])
        errors.append(str(err.value))

    plan = run(program)
    assert errors == ["instanceTypes.0: does not support EFA (efa is true) (got g5.xlarge)"]
    assert len(plan.resources) == 1


def test_unknown_instance_type_is_rejected() -> None:
    with pytest.raises(
        ConfigError, match=r"^instanceTypes\.0: not a GPU instance type of the aws catalog \(got m5\.large\)$"
    ):
        _pool(INFERENCE, instanceTypes=["m5.large"])


def test_zone_without_subnet_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^zones: no private subnet in that zone \(got us-east-1c\)$"):
        _pool(INFERENCE, zones=["us-east-1c"])


def test_a_name_without_room_for_the_generated_part_is_rejected() -> None:
    # Raised before the component registers anything (plan_problems runs before super().__init__).
    with pytest.raises(ConfigError, match=r"^name: node group name 'p{37}' has 37 characters; EKS allows 63 "):
        _pool(INFERENCE, name="p" * 37)


def test_bottlerocket_without_a_pinned_release_is_rejected() -> None:
    with pytest.raises(
        ConfigError, match=r"^awsAmiReleaseVersion: Bottlerocket pools must pin their AMI release \(got null\)$"
    ):
        _pool(INFERENCE, awsAmiType="BOTTLEROCKET_x86_64_NVIDIA")


def test_placement_group_over_two_zones_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^zones: a cluster placement group lives in exactly one zone"):
        _pool({**TRAINING, "efa": False, "instanceTypes": ["p4d.24xlarge"], "zones": ["us-east-1a", "us-east-1b"]})


@pytest.mark.parametrize(("purpose", "managed"), [("training", True), ("inference", False)])
def test_only_training_nodes_run_the_cpu_and_topology_managers(purpose: str, managed: bool) -> None:
    plan = NodeGroupPlan(
        suffix="nodes",
        node_group_name="pool",
        # No instance store: the kubelet config alone makes the NodeConfig.
        instance_types=(catalog.lookup(Cloud.AWS, "g5g.xlarge"),),  # type: ignore[arg-type]
        capacity_type="ON_DEMAND",
        min_size=0,
        desired_size=0,
        max_size=1,
        disk_size_gib=200,
        zones=("us-east-1a",),
        labels={"gpucloud.io/purpose": purpose},
    )
    user_data = node_user_data(plan)
    if not managed:
        assert user_data is None
        return
    assert user_data is not None
    [config] = _node_configs(user_data)
    assert _api_problems(config, "NodeConfig", "") == []
    assert config["spec"]["kubelet"]["config"]["topologyManagerPolicy"] == "best-effort"
