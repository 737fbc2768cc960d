"""KarpenterGpuPool: EC2NodeClass and NodePools valid for Karpenter's CRDs at the pinned tag, requirements that select
the intended instance types in Karpenter's own label table, capacity and disruption per pool, Kueue flavors that map
onto exactly one NodePool each."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.aws.karpenter_pool import (
    INSTANCE_GPUS_ANNOTATION,
    INSTANCE_LABELS,
    KarpenterGpuPool,
    KarpenterGpuPoolArgs,
    KarpenterTarget,
    catalog_labels,
    instance_requirements,
    matches,
    selected_types,
)
from gpu_cloud.components.catalog import Cloud, instance_types, price_of, spot_discount
from gpu_cloud.components.cloud_limits import limits
from gpu_cloud.components.k8s.queueing import flavor_specs
from gpu_cloud.components.spec import (
    AwsCapacityReservationSpec,
    ConfigError,
    GpuNodePoolSpec,
    PoolPurpose,
    SpotGroupSpec,
)
from gpu_cloud.planner.cost import estimate
from gpu_cloud.planner.engine import Plan
from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.price_book import PriceBook
from tests.aws.helpers import run
from tests.crds import errors

HERE = Path(__file__).resolve().parent
KARPENTER = json.loads((HERE / "karpenter-instance-types-v1.14.1.json").read_text())
"""Labels and resources Karpenter v1.14.1 gives every EC2 instance type (vendor_karpenter.py)."""
LABEL_TABLE: dict[str, dict[str, str]] = {
    name: {**t["labels"], "node.kubernetes.io/instance-type": name} for name, t in KARPENTER["instanceTypes"].items()
}

KEY = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
TARGET = KarpenterTarget(
    cluster_name="gpu-prod",
    kubernetes_version="1.35",
    instance_profile="karpenter-node-prod",
    kms_key_arn=KEY,
    zones=("us-east-1a", "us-east-1b", "us-east-1c"),
    tags={"environment": "prod", "owner": "ml-platform", "cost-center": "ml-production"},
)

TRAINING_H100 = GpuNodePoolSpec(
    name="training-h100",
    purpose=PoolPurpose.TRAINING,
    instance_types=("p5.48xlarge",),
    min_size=0,
    desired_size=0,
    max_size=8,
    disk_size_gib=1024,
    efa=True,
    placement_group=True,
    zones=("us-east-1a",),
)
INFERENCE_A10G = GpuNodePoolSpec(
    name="inference-a10g",
    purpose=PoolPurpose.INFERENCE,
    instance_types=("g5.2xlarge",),
    min_size=2,
    desired_size=2,
    max_size=16,
)
TRAINING_SPOT = SpotGroupSpec(
    name="training-spot",
    purpose=PoolPurpose.TRAINING,
    instance_types=("g5.xlarge",),
    max_size=8,
    fallback_max_size=4,
)
"""The three GPU pools of stacks/Pulumi.prod.yaml."""
PROD = (TRAINING_H100, INFERENCE_A10G, TRAINING_SPOT)


def catalog_price(name: str) -> Decimal:
    found = price_of(Cloud.AWS, "us-east-1", name)
    assert found is not None
    return found.hourly


def _record(*specs: GpuNodePoolSpec | SpotGroupSpec, target: KarpenterTarget = TARGET) -> Plan:
    def program() -> None:
        # The environment's AWS provider tags what the pools create (the placement group) with its tags.
        tags = aws.ProviderDefaultTagsArgs(tags=dict(target.tags))
        cloud = aws.Provider("aws", region="us-east-1", default_tags=tags)
        opts = pulumi.ResourceOptions(providers=[k8s.Provider("cluster", kubeconfig="{}"), cloud])
        for spec in specs:
            KarpenterGpuPool(spec.name, KarpenterGpuPoolArgs(spec, target), opts=opts)

    return run(program)


@pytest.fixture(scope="module")
def prod() -> Plan:
    return _record(*PROD)


def _objects(plan: Plan, kind: str) -> dict[str, dict[str, Any]]:
    """The inputs of every object of ``kind`` by its Kubernetes name."""
    return {r.inputs["metadata"]["name"]: r.inputs for r in plan.resources if r.type.endswith(f":{kind}") and r.custom}


def test_each_pool_is_one_ec2nodeclass_and_its_nodepools(prod: Plan) -> None:
    kinds = sorted((r.type, r.name) for r in prod.resources if r.custom and not r.type.startswith("pulumi:"))
    assert kinds == [
        ("aws:ec2/placementGroup:PlacementGroup", "training-h100-pg"),
        ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "inference-a10g-nodeclass"),
        ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "training-h100-nodeclass"),
        ("kubernetes:karpenter.k8s.aws/v1:EC2NodeClass", "training-spot-nodeclass"),
        ("kubernetes:karpenter.sh/v1:NodePool", "inference-a10g-inference-a10g"),
        ("kubernetes:karpenter.sh/v1:NodePool", "training-h100-training-h100"),
        ("kubernetes:karpenter.sh/v1:NodePool", "training-spot-training-spot-ondemand"),
        ("kubernetes:karpenter.sh/v1:NodePool", "training-spot-training-spot-spot"),
    ]


def _custom_objects(plan: Plan) -> list[RecordedResource]:
    return [r for r in plan.resources if r.type.startswith("kubernetes:karpenter")]


def test_every_object_is_valid_for_the_crds_of_the_pinned_karpenter(prod: Plan) -> None:
    objects = _custom_objects(prod)
    assert len(objects) == 7
    assert {r.name: errors(r.inputs) for r in objects} == {r.name: [] for r in objects}


def test_the_crd_check_catches_a_field_karpenter_does_not_know(prod: Plan) -> None:
    node_class = dict(_objects(prod, "EC2NodeClass")["inference-a10g"])
    node_class["spec"] = {**node_class["spec"], "associatePublicIpAddress": False}
    assert errors(node_class) == [
        "spec: Additional properties are not allowed ('associatePublicIpAddress' was unexpected)"
    ]


def test_the_catalog_labels_are_karpenters_labels_for_every_catalog_type() -> None:
    for t in instance_types(Cloud.AWS):
        karpenter = LABEL_TABLE[t.name]
        assert {k: karpenter.get(k) for k in INSTANCE_LABELS} == catalog_labels(t), t.name


def _selected_by_karpenter(spec: GpuNodePoolSpec | SpotGroupSpec) -> set[str]:
    """The instance types whose labels in Karpenter's own table satisfy the pool's instance requirements."""
    requirements = instance_requirements(spec)
    return {name for name, node in LABEL_TABLE.items() if matches(requirements, node)}


@pytest.mark.parametrize("spec", PROD, ids=[s.name for s in PROD])
def test_requirements_select_in_karpenters_table_exactly_the_catalog_types_intended(
    spec: GpuNodePoolSpec | SpotGroupSpec,
) -> None:
    selected = {t.name for t in selected_types(spec)}
    assert _selected_by_karpenter(spec) == selected
    assert selected <= (limits(Cloud.AWS).instance_types or frozenset())


def _one_type_pools(name: str) -> tuple[GpuNodePoolSpec | SpotGroupSpec, ...]:
    """An inference pool, a training pool and a spot group of the one catalog type ``name``."""
    return (
        *(
            GpuNodePoolSpec(name="p", purpose=purpose, instance_types=(name,), min_size=0, desired_size=0, max_size=2)
            for purpose in (PoolPurpose.INFERENCE, PoolPurpose.TRAINING)
        ),
        SpotGroupSpec(name="s", purpose=PoolPurpose.TRAINING, instance_types=(name,), max_size=2, fallback_max_size=1),
    )


@pytest.mark.parametrize("name", sorted(t.name for t in instance_types(Cloud.AWS)))
def test_no_pool_of_any_catalog_type_selects_a_type_the_catalog_lacks(name: str) -> None:
    """Karpenter's table has GPU types the catalog leaves out (p5.4xlarge: the catalog's source page at 0c5e7d81 gave
    it 0 GPUs, v1.14.1's gives 1 H100; g7e, p5e, p5en, p6, gr6, p3dn); no pool's requirements reach them, since
    they select by the GPU names, counts and memory of catalog types."""
    for spec in _one_type_pools(name):
        assert _selected_by_karpenter(spec) == {t.name for t in selected_types(spec)}, spec


def test_each_nodepool_names_the_types_it_selects_and_their_gpus_for_the_cost_estimate(prod: Plan) -> None:
    specs = {s.name: s for s in PROD}
    for name, pool in _objects(prod, "NodePool").items():
        spec = specs[pool["spec"]["template"]["metadata"]["labels"][labels.POOL_LABEL]]
        annotated = json.loads(pool["metadata"]["annotations"][INSTANCE_GPUS_ANNOTATION])
        assert set(annotated) == _selected_by_karpenter(spec), name
        assert annotated == {t: int(KARPENTER["instanceTypes"][t]["resources"]["nvidia.com/gpu"]) for t in annotated}


def test_the_spot_group_spans_three_families_of_24_to_48_gb_gpus_up_to_twice_its_vcpus() -> None:
    selected = selected_types(TRAINING_SPOT)
    assert [t.name for t in selected] == [
        "g5.xlarge",
        "g5.2xlarge",
        "g6.xlarge",
        "g6.2xlarge",
        "g6e.xlarge",
        "g6e.2xlarge",
    ]
    assert {(t.family, t.gpu_model) for t in selected} == {
        ("g5", "NVIDIA A10G"),
        ("g6", "NVIDIA L4"),
        ("g6e", "NVIDIA L40S"),
    }
    assert {t.gpu_count for t in selected} == {1}


def test_an_on_demand_pool_takes_its_own_gpu_in_sizes_up_to_twice_its_vcpus() -> None:
    assert [t.name for t in selected_types(INFERENCE_A10G)] == ["g5.xlarge", "g5.2xlarge", "g5.4xlarge"]
    assert [t.name for t in selected_types(TRAINING_H100)] == ["p5.48xlarge"]


def test_an_a100_pool_does_not_take_the_80_gb_a100() -> None:
    pool = GpuNodePoolSpec(
        name="a100",
        purpose=PoolPurpose.TRAINING,
        instance_types=("p4d.24xlarge",),
        min_size=0,
        desired_size=0,
        max_size=2,
    )
    assert _selected_by_karpenter(pool) == {"p4d.24xlarge"}


def _requirement(node_pool: dict[str, Any], key: str) -> list[str]:
    [found] = [r["values"] for r in node_pool["spec"]["template"]["spec"]["requirements"] if r["key"] == key]
    return list(found)


def test_spot_before_its_on_demand_fall_back_and_the_spot_nodes_tainted(prod: Plan) -> None:
    pools = _objects(prod, "NodePool")
    spot, fallback = pools["training-spot-spot"]["spec"], pools["training-spot-ondemand"]["spec"]
    assert _requirement(pools["training-spot-spot"], "karpenter.sh/capacity-type") == ["spot"]
    assert _requirement(pools["training-spot-ondemand"], "karpenter.sh/capacity-type") == ["on-demand"]
    assert spot["weight"] > fallback["weight"]
    gpu_taint = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    spot_taint = {"key": labels.SPOT_TAINT_KEY, "value": "spot", "effect": "NoSchedule"}
    assert spot["template"]["spec"]["taints"] == [gpu_taint, spot_taint]
    assert fallback["template"]["spec"]["taints"] == [gpu_taint]
    assert pools["training-h100"]["spec"]["template"]["spec"]["taints"] == [gpu_taint]


def test_every_gpu_nodepool_caps_its_gpus_at_its_maximum_nodes(prod: Plan) -> None:
    gpus = {name: p["spec"]["limits"] for name, p in _objects(prod, "NodePool").items()}
    assert gpus == {
        "training-h100": {"nvidia.com/gpu": "64"},
        "inference-a10g": {"nvidia.com/gpu": "16"},
        "training-spot-spot": {"nvidia.com/gpu": "8"},
        "training-spot-ondemand": {"nvidia.com/gpu": "4"},
    }


def test_training_nodes_with_pods_are_never_disrupted_voluntarily_and_idle_inference_is_reclaimed(
    prod: Plan,
) -> None:
    pools = _objects(prod, "NodePool")
    for name in ("training-h100", "training-spot-spot", "training-spot-ondemand"):
        spec = pools[name]["spec"]
        assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty", name
        assert {"nodes": "0", "reasons": ["Drifted", "Underutilized"]} in spec["disruption"]["budgets"]
        assert spec["template"]["spec"]["expireAfter"] == "Never"
        assert "terminationGracePeriod" not in spec["template"]["spec"]
    inference = pools["inference-a10g"]["spec"]
    assert inference["disruption"] == {
        "consolidationPolicy": "WhenEmptyOrUnderutilized",
        "consolidateAfter": "10m",
        "budgets": [{"nodes": "10%"}],
    }


def test_the_node_class_is_private_imdsv2_encrypted_with_the_environment_key(prod: Plan) -> None:
    for name, node_class in _objects(prod, "EC2NodeClass").items():
        spec = node_class["spec"]
        assert spec["associatePublicIPAddress"] is False, name
        assert (spec["metadataOptions"]["httpTokens"], spec["metadataOptions"]["httpPutResponseHopLimit"]) == (
            "required",
            1,
        )
        [root] = spec["blockDeviceMappings"]
        assert (root["deviceName"], root["ebs"]["encrypted"], root["ebs"]["kmsKeyID"]) == ("/dev/xvda", True, KEY)
        assert spec["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "gpu-prod"}}]
        assert spec["securityGroupSelectorTerms"] == [{"tags": {"aws:eks:cluster-name": "gpu-prod"}}]
        assert spec["amiSelectorTerms"] == [{"alias": "al2023@v20260714"}]
        assert spec["instanceProfile"] == "karpenter-node-prod"
        assert spec["tags"] == {"environment": "prod", "owner": "ml-platform", "cost-center": "ml-production"}
        # Every selected type has NVMe instance store (catalog local_nvme_gb).
        assert spec["instanceStorePolicy"] == "RAID0"


def test_the_efa_pool_gets_every_efa_device_of_its_type_one_per_card(prod: Plan) -> None:
    interfaces = _objects(prod, "EC2NodeClass")["training-h100"]["spec"]["networkInterfaces"]
    efa = [i for i in interfaces if i["interfaceType"] == "efa-only"]
    assert len(efa) == int(KARPENTER["instanceTypes"]["p5.48xlarge"]["resources"]["vpc.amazonaws.com/efa"]) == 32
    # The CRD's x-kubernetes-validations (CEL, not checked by the schema validator): a primary ENA interface on card
    # 0 device 0, no card/device pair twice, at most one EFA device per card.
    assert {"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"} in interfaces
    pairs = [(i["networkCardIndex"], i["deviceIndex"]) for i in interfaces]
    assert len(pairs) == len(set(pairs))
    cards = [i["networkCardIndex"] for i in efa]
    assert len(cards) == len(set(cards))
    assert "networkInterfaces" not in _objects(prod, "EC2NodeClass")["inference-a10g"]["spec"]


def test_the_efa_pool_launches_in_its_zone_into_a_cluster_placement_group(prod: Plan) -> None:
    pools = _objects(prod, "NodePool")
    assert _requirement(pools["training-h100"], "topology.kubernetes.io/zone") == ["us-east-1a"]
    assert _requirement(pools["training-h100"], "node.kubernetes.io/instance-type") == ["p5.48xlarge"]
    [group] = [r for r in prod.resources if r.type == "aws:ec2/placementGroup:PlacementGroup"]
    assert group.inputs["strategy"] == "cluster"
    node_class = next(r for r in prod.resources if r.name == "training-h100-nodeclass")
    assert group.urn in node_class.dependencies


def test_labels_are_the_node_group_paths_and_the_gpu_label_only_on_one_gpu_model(prod: Plan) -> None:
    pools = _objects(prod, "NodePool")
    h100 = pools["training-h100"]["spec"]["template"]["metadata"]["labels"]
    assert h100 == {
        labels.PURPOSE_LABEL: "training",
        labels.GPU_CLASS_LABEL: "nvidia-h100",
        "k8s.amazonaws.com/accelerator": "nvidia-h100",
        labels.POOL_LABEL: "training-h100",
        labels.CAPACITY_LABEL: "on-demand",
    }
    spot = pools["training-spot-spot"]["spec"]["template"]["metadata"]["labels"]
    assert spot == {labels.PURPOSE_LABEL: "training", labels.POOL_LABEL: "training-spot", labels.CAPACITY_LABEL: "spot"}


def test_each_kueue_flavor_maps_onto_exactly_one_nodepool(prod: Plan) -> None:
    pools = _objects(prod, "NodePool")
    flavors = flavor_specs([TRAINING_H100, TRAINING_SPOT])

    def serves(flavor: dict[str, Any], pool: dict[str, Any]) -> bool:
        template = pool["spec"]["template"]
        extra_taints = [t for t in template["spec"]["taints"] if t["key"] != labels.GPU_TAINT_KEY]
        node = template["metadata"]["labels"]
        return all(node.get(k) == v for k, v in flavor["nodeLabels"].items()) and extra_taints == flavor.get(
            "nodeTaints", []
        )

    mapping = {name: [p for p, pool in pools.items() if serves(flavor, pool)] for name, flavor in flavors.items()}
    assert mapping == {
        "training-h100": ["training-h100"],
        "training-spot-spot": ["training-spot-spot"],
        "training-spot-ondemand": ["training-spot-ondemand"],
    }


def _reserved(reservation: AwsCapacityReservationSpec, **changes: Any) -> GpuNodePoolSpec:
    return TRAINING_H100.model_copy(update={"aws_capacity_reservation": reservation, **changes})


def test_an_odcr_pool_takes_its_reservation_first_then_on_demand() -> None:
    plan = _record(_reserved(AwsCapacityReservationSpec(reservation_id="cr-02168da1478b509e0")))
    pool = _objects(plan, "NodePool")["training-h100"]
    assert _requirement(pool, "karpenter.sh/capacity-type") == ["reserved", "on-demand"]
    node_class = _objects(plan, "EC2NodeClass")["training-h100"]["spec"]
    assert node_class["capacityReservationSelectorTerms"] == [{"id": "cr-02168da1478b509e0"}]
    assert [errors(r.inputs) for r in _custom_objects(plan)] == [[], []]


def test_a_capacity_block_pool_runs_on_the_block_only() -> None:
    block = AwsCapacityReservationSpec(reservation_id="cr-02168da1478b509e0", capacity_block=True)
    plan = _record(_reserved(block))
    assert _requirement(_objects(plan, "NodePool")["training-h100"], "karpenter.sh/capacity-type") == ["reserved"]


def _refused(spec: GpuNodePoolSpec | SpotGroupSpec, target: KarpenterTarget = TARGET) -> str:
    found: list[str] = []

    def program() -> None:
        try:
            KarpenterGpuPool(spec.name, KarpenterGpuPoolArgs(spec, target))
        except ConfigError as err:
            found.append(str(err))

    plan = run(program)
    assert [r for r in plan.resources if r.custom and not r.type.startswith("pulumi:")] == []
    assert len(found) == 1
    return found[0]


REFUSALS: list[tuple[str, Callable[[], str], str, str]] = [
    (
        "resource group",
        lambda: _refused(
            _reserved(
                AwsCapacityReservationSpec(
                    resource_group_arn="arn:aws:resource-groups:us-east-1:123456789012:group/gpu-reservations"
                )
            )
        ),
        "awsCapacityReservation.resourceGroupArn",
        "group/gpu-reservations",
    ),
    (
        "bottlerocket",
        lambda: _refused(
            INFERENCE_A10G.model_copy(
                update={"aws_ami_type": "BOTTLEROCKET_x86_64_NVIDIA", "aws_ami_release_version": "1.50.0"}
            )
        ),
        "awsAmiType",
        "BOTTLEROCKET_x86_64_NVIDIA",
    ),
    (
        "spot price cap",
        lambda: _refused(TRAINING_SPOT.model_copy(update={"max_price_per_hour": 0.5})),
        "maxPricePerHour",
        "0.5",
    ),
    (
        "zone without subnet",
        lambda: _refused(TRAINING_H100.model_copy(update={"zones": ("us-east-1d",)})),
        "zones",
        "us-east-1d",
    ),
    (
        "restricted tag",
        lambda: _refused(
            INFERENCE_A10G, KarpenterTarget(**{**TARGET.__dict__, "tags": {"karpenter.sh/nodepool": "x"}})
        ),
        "tags",
        "karpenter.sh/nodepool",
    ),
]


@pytest.mark.parametrize(("case", "attempt", "field", "value"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_bad_input_is_refused_naming_field_and_value_with_nothing_created(
    case: str, attempt: Callable[[], str], field: str, value: str
) -> None:
    message = attempt()
    assert field in message and value in message, (case, message)


def test_the_cost_estimate_prices_each_nodepool_at_its_gpu_limit_with_its_dearest_type(prod: Plan) -> None:
    # One GPU per node in every type of these NodePools: the limit's nodes of the dearest type bound the cost.
    pools = {p.resource.name: p for p in estimate(prod, {}, PriceBook()).pools}
    found = {
        name: (p.capacity.spot, p.priced_as, p.gpus(), str(p.monthly()[2]) if p.monthly() else None, p.unknown)
        for name, p in pools.items()
    }
    on_demand = catalog_price("g6e.2xlarge")
    spot = on_demand * (1 - spot_discount(Cloud.AWS, "g6e").fraction)  # type: ignore[union-attr]
    assert found == {
        "training-h100-training-h100": (
            False,
            "p5.48xlarge",
            (0, 0, 64),
            str(8 * catalog_price("p5.48xlarge") * 730),
            "",
        ),
        "inference-a10g-inference-a10g": (
            False,
            "g5.4xlarge",
            (0, 0, 16),
            str(16 * catalog_price("g5.4xlarge") * 730),
            "",
        ),
        "training-spot-training-spot-spot": (True, "g6e.2xlarge", (0, 0, 8), str(8 * spot * 730), ""),
        "training-spot-training-spot-ondemand": (False, "g6e.2xlarge", (0, 0, 4), str(4 * on_demand * 730), ""),
    }


def test_a_nodepool_without_a_gpu_limit_has_no_known_cost() -> None:
    plan = _record(INFERENCE_A10G)
    pool = next(r for r in plan.resources if r.type == "kubernetes:karpenter.sh/v1:NodePool")
    unbounded = replace(pool, inputs={**pool.inputs, "spec": {**pool.inputs["spec"], "limits": {}}})
    [cost] = estimate(replace(plan, resources=(unbounded,)), {}, PriceBook()).pools
    assert cost.unknown == "spec.limits.nvidia.com/gpu is not set: its GPUs are unbounded"
