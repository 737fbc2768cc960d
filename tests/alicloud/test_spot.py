"""SpotGpuGroup: a spot pool over several types, price limits, remedy, cost-optimized, and an on-demand fall-back."""

from __future__ import annotations

from gpu_cloud.components import labels
from gpu_cloud.components.alicloud import SpotGpuGroup, SpotGpuGroupArgs
from gpu_cloud.components.spec import SpotGroupSpec
from tests.alicloud.support import (
    SPOT_GROUP,
    VSWITCHES,
    component,
    custom,
    label_map,
    of_type,
    plan_of,
    raw_config,
    refused_lines,
    registered,
    rejected,
)

POOL = "alicloud:cs/nodePool:NodePool"


def _args(spec: SpotGroupSpec) -> SpotGpuGroupArgs:
    return SpotGpuGroupArgs(spec=spec, cluster_id="c-123", vswitch_ids_by_zone=VSWITCHES, kms_key_id="key-123")


def _pools(spec: SpotGroupSpec = SPOT_GROUP) -> dict[str, dict]:  # type: ignore[type-arg]
    args = _args(spec)
    plan = plan_of(lambda: SpotGpuGroup("prod-batch", args))
    component(plan, "gpucloud:alicloud:SpotGpuGroup")
    assert {r.type for r in custom(plan)} == {POOL}
    return {r.name: r.inputs for r in of_type(plan, POOL)}


def test_group_is_a_spot_pool_and_an_on_demand_fallback_pool() -> None:
    pools = _pools()
    assert sorted(pools) == ["prod-batch-ondemand", "prod-batch-spot"]
    assert {name: p["nodePoolName"] for name, p in pools.items()} == {
        "prod-batch-spot": "batch-spot",
        "prod-batch-ondemand": "batch-ondemand",
    }


def test_spot_pool_bids_the_market_price_up_to_each_types_own_pay_as_you_go_price() -> None:
    spot = _pools()["prod-batch-spot"]
    assert (spot["spotStrategy"], spot["scalingConfig"]["type"]) == ("SpotAsPriceGo", "spot")
    assert "spotPriceLimits" not in spot


def test_one_price_cap_for_every_type_is_refused_before_anything_is_registered() -> None:
    args = _args(SPOT_GROUP.model_copy(update={"max_price_per_hour": 12.5}))
    error, plan = rejected(lambda: SpotGpuGroup("g", args))
    assert str(error) == (
        "maxPricePerHour: ACK caps the spot price of each instance type, and no cap per type can be derived from one"
        " figure (the price book has no Alibaba Cloud prices); leave it out: each type then bids the market price up"
        " to its own pay-as-you-go price (SpotAsPriceGo) (got 12.5)"
    )
    assert registered(plan) == []


def test_spot_pool_spreads_over_every_type_replaces_reclaimed_nodes_and_never_buys_pay_as_you_go_itself() -> None:
    spot = _pools()["prod-batch-spot"]
    assert {
        k: spot[k]
        for k in (
            "instanceChargeType",
            "spotInstancePools",
            "spotInstanceRemedy",
            "multiAzPolicy",
            "compensateWithOnDemand",
            "onDemandBaseCapacity",
            "onDemandPercentageAboveBaseCapacity",
        )
    } == {
        "instanceChargeType": "PostPaid",
        "spotInstancePools": 2,
        "spotInstanceRemedy": True,
        "multiAzPolicy": "COST_OPTIMIZED",
        # On-demand nodes bought inside the spot pool would carry its spot label and taint: the fall-back pool does it.
        "compensateWithOnDemand": False,
        "onDemandBaseCapacity": "0",
        "onDemandPercentageAboveBaseCapacity": "0",
    }
    assert spot["vswitchIds"] == ["vsw-h", "vsw-i"]


def test_spot_nodes_carry_the_spot_label_and_taint_besides_the_gpu_taint() -> None:
    spot = _pools()["prod-batch-spot"]
    assert label_map(spot)[labels.CAPACITY_LABEL] == "spot"
    assert label_map(spot)[labels.POOL_LABEL] == "batch"
    assert spot["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"},
        {"key": labels.SPOT_TAINT_KEY, "value": "spot", "effect": "NoSchedule"},
    ]


def test_fallback_pool_is_on_demand_from_zero_without_the_spot_taint() -> None:
    fallback = _pools(SPOT_GROUP.model_copy(update={"fallback_max_size": 3}))["prod-batch-ondemand"]
    assert fallback["scalingConfig"] == {"enable": True, "minSize": 0, "maxSize": 3, "isBondEip": False, "type": "gpu"}
    assert "spotStrategy" not in fallback
    assert label_map(fallback)[labels.CAPACITY_LABEL] == "on-demand"
    assert fallback["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]


def test_without_fallback_there_is_only_the_spot_pool_and_no_compensation() -> None:
    pools = _pools(SPOT_GROUP.model_copy(update={"on_demand_fallback": False}))
    assert list(pools) == ["prod-batch-spot"]
    assert pools["prod-batch-spot"]["compensateWithOnDemand"] is False


def test_types_of_different_gpu_classes_are_rejected_before_registration() -> None:
    spec = SPOT_GROUP.model_copy(update={"instance_types": ("ecs.gn7i-c8g1.2xlarge", "ecs.gn6i-c4g1.xlarge")})
    args = _args(spec)
    error, plan = rejected(lambda: SpotGpuGroup("g", args))
    assert str(error) == 'instanceTypes: mixes GPU classes; use one GPU model (got ["NVIDIA A10", "NVIDIA T4"])'
    assert registered(plan) == []


def test_a_flat_cap_in_the_stack_config_is_refused_with_its_field_and_value() -> None:
    group = {
        "name": "batch",
        "purpose": "training",
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c32g1.8xlarge"],
        "maxSize": 4,
        "maxPricePerHour": 12.5,
    }
    [line] = refused_lines({**raw_config("alicloud"), "spotGroups": [group]})
    assert line.startswith("spotGroups.0.maxPricePerHour: ACK caps the spot price of each instance type, ")
    assert line.endswith(" (got 12.5)")
