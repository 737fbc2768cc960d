"""gpu-cost-guard through the analyzer protocol: the budget at max size, on-demand-only GPU pools, spot
fall-backs, unknown prices, prod stacks, config overrides of the budget and the prices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpu_cloud.components import catalog
from gpu_cloud.planner.model import PlanError, RecordedResource
from gpu_cloud.planner.policy import PolicyReport, run_policy_pack
from gpu_cloud.policies.gpucloud_rules.gpu_node_isolation import is_gpu_instance_type
from gpu_cloud.policies.gpucloud_rules.gpu_prices import family_of
from tests.policies.wire import UNKNOWN, resource, stack_resource, stack_urn, urn

POLICY = "gpu-cost-guard"
NODE_GROUP, NODE_POOL = "aws:eks/nodeGroup:NodeGroup", "alicloud:cs/nodePool:NodePool"
A10G = ["g5.xlarge", "g5.2xlarge"]
ON_DEMAND_ONLY = (
    "GPU pool runs on demand only in a non-prod stack: run it on spot with an on-demand fall-back "
    "(a SpotGpuGroup: <name>-spot and <name>-ondemand)"
)
UNPRICED = "this GPU pool is left out of the monthly GPU budget, not counted as zero"


def node_group(stack: str, name: str, types: list[str], max_size: int, capacity: str | None) -> RecordedResource:
    props: dict[str, Any] = {
        "clusterName": "gpu",
        "nodeGroupName": name,
        "instanceTypes": types,
        "scalingConfig": {"minSize": 0, "desiredSize": 0, "maxSize": max_size},
    }
    if capacity is not None:
        props["capacityType"] = capacity
    return resource(stack, NODE_GROUP, name, props)


def aws_stack(stack: str) -> list[RecordedResource]:
    """Prices (us-east-1): g5.2xlarge 1.212, g5 spot discount 0.55, p5.48xlarge 55.04, g5.xlarge 1.006."""
    return [
        stack_resource(stack),
        node_group(stack, "inference-spot", A10G, 4, "SPOT"),  # 1.212 x 0.45 x 4 x 730 = 1592.568
        node_group(stack, "inference-ondemand", A10G, 4, "ON_DEMAND"),  # its fall-back: 1.212 x 4 x 730 = 3539.04
        node_group(stack, "train", ["p5.48xlarge"], 1, None),  # 55.04 x 730 = 40179.2
        node_group(stack, "orphan-ondemand", ["g5.xlarge"], 1, "ON_DEMAND"),  # no orphan-spot: 734.38
        node_group(stack, "legacy", ["p3.2xlarge"], 2, "SPOT"),  # not in the catalog: no price
        node_group(stack, "capacity-unknown", ["g5.xlarge"], 1, UNKNOWN),
        node_group(stack, "system", ["t3.large"], 3, "ON_DEMAND"),  # not GPU capacity
    ]


def run(pack_dir: Path, stack: str, config: dict[str, Any] | None = None) -> PolicyReport:
    return run_policy_pack(
        pack_dir,
        aws_stack(stack),
        project="gpu-cloud",
        stack=stack,
        config={POLICY: config or {}},
        stack_config={"aws:region": "us-east-1"},
    )


def findings(report: PolicyReport) -> dict[tuple[str, str], list[str]]:
    """(URN, level) -> the messages of gpu-cost-guard, without the policy description the SDK puts first."""
    found: dict[tuple[str, str], list[str]] = {}
    for v in report.violations:
        if v.policy == POLICY:
            found.setdefault((v.urn, v.level), []).append(v.message.split("\n", 1)[1])
    return found


def pool(stack: str, name: str, type_: str = NODE_GROUP) -> str:
    return urn(stack, type_, name)


def over_budget(total: str, budget: str, pools: str) -> str:
    return (
        f"monthly GPU cost at max size is {total} (730 h, spot pools at the estimated spot price), "
        f"over the budget of {budget}: {pools}"
    )


AWS_POOLS = (
    "train 1 x p5.48xlarge on demand USD 40,179.20; inference-ondemand 4 x g5.2xlarge on demand USD 3,539.04; "
    "inference-spot 4 x g5.2xlarge spot USD 1,592.57; orphan-ondemand 1 x g5.xlarge on demand USD 734.38"
)


def per_pool_findings(stack: str) -> dict[tuple[str, str], list[str]]:
    return {
        (pool(stack, "train"), "advisory"): [ON_DEMAND_ONLY],
        (pool(stack, "orphan-ondemand"), "advisory"): [ON_DEMAND_ONLY],
        (pool(stack, "legacy"), "advisory"): [
            "could not decide: no on-demand price for p3.2xlarge in us-east-1 (give it in the prices config); "
            + UNPRICED
        ],
        (pool(stack, "capacity-unknown"), "advisory"): [
            "could not decide: capacityType is unknown during preview",
            "could not decide: capacityType is unknown until deployment; " + UNPRICED,
        ],
    }


@pytest.fixture(scope="module")
def dev(pack_dir: Path) -> PolicyReport:
    return run(pack_dir, "dev")


def test_non_prod_stack_over_budget_and_on_demand_pools(dev: PolicyReport) -> None:
    # Unpriced pools are left out, so the total is a lower bound: "at least".
    stack = {(stack_urn("dev"), "advisory"): [over_budget("at least USD 46,045.19", "USD 20,000.00", AWS_POOLS)]}
    assert findings(dev) == {**per_pool_findings("dev"), **stack}


def test_on_demand_pool_whose_gpu_type_comes_from_its_launch_template(pack_dir: Path) -> None:
    template = resource("dev", "aws:ec2/launchTemplate:LaunchTemplate", "lt", {"instanceType": "g5.xlarge"})
    props = {
        "clusterName": "gpu",
        "nodeGroupName": "batch",
        "launchTemplate": {"id": UNKNOWN, "version": "1"},
        "scalingConfig": {"minSize": 0, "desiredSize": 0, "maxSize": 1},
    }
    group = resource("dev", NODE_GROUP, "batch", props, property_dependencies={"launchTemplate": [template.urn]})
    report = run_policy_pack(
        pack_dir,
        [stack_resource("dev"), template, group],
        project="gpu-cloud",
        stack="dev",
        config={POLICY: {}},
        stack_config={"aws:region": "us-east-1"},
    )
    assert findings(report) == {(group.urn, "advisory"): [ON_DEMAND_ONLY]}


def test_spot_pool_and_its_fall_back_are_fine(dev: PolicyReport) -> None:
    flagged = {u for u, _ in findings(dev)}
    assert {pool("dev", "inference-spot"), pool("dev", "inference-ondemand"), pool("dev", "system")} & flagged == set()


def test_node_groups_named_by_prefix_pair_up_as_spot_and_fall_back_as_gpu_cloud_declares_them(
    pack_dir: Path,
) -> None:
    # gpu-cloud names EKS node groups by prefix (components.aws.expander node_group_name_prefix). A stack policy
    # reads outputs: after creation they hold the generated nodeGroupName too, during a preview it is unknown.
    generated = {"infer-spot": UNKNOWN, "infer-ondemand": "infer-ondemand-20261203150000000000000001"}

    def by_prefix(name: str, capacity: str) -> RecordedResource:
        props = {
            "clusterName": "gpu",
            "nodeGroupNamePrefix": f"{name}-",
            "nodeGroupName": generated.get(name, f"{name}-20261203150000000000000002"),
            "instanceTypes": A10G,
            "scalingConfig": {"minSize": 0, "desiredSize": 0, "maxSize": 1},
            "capacityType": capacity,
        }
        return resource("dev", NODE_GROUP, name, props)

    groups = [by_prefix("infer-spot", "SPOT"), by_prefix("infer-ondemand", "ON_DEMAND")]
    orphan = by_prefix("orphan-ondemand", "ON_DEMAND")
    report = run_policy_pack(
        pack_dir,
        [stack_resource("dev"), *groups, orphan],
        project="gpu-cloud",
        stack="dev",
        config={POLICY: {}},
        stack_config={"aws:region": "us-east-1"},
    )
    assert findings(report) == {(orphan.urn, "advisory"): [ON_DEMAND_ONLY]}


def test_budget_from_config_under_the_total_leaves_only_pool_findings(pack_dir: Path) -> None:
    report = run(pack_dir, "staging", {"monthlyGpuBudget": {"USD": 50000}})
    assert findings(report) == per_pool_findings("staging")


def test_budget_from_config_over_the_total(pack_dir: Path) -> None:
    report = run(pack_dir, "staging", {"monthlyGpuBudget": {"USD": 1000}})
    stack = over_budget("at least USD 46,045.19", "USD 1,000.00", AWS_POOLS)
    assert findings(report)[(stack_urn("staging"), "advisory")] == [stack]


@pytest.mark.parametrize("stack", ["prod", "prod-cn"])
def test_prod_stacks_are_left_alone(pack_dir: Path, stack: str) -> None:
    assert findings(run(pack_dir, stack)) == {}


def test_prod_stacks_come_from_config(pack_dir: Path) -> None:
    assert findings(run(pack_dir, "perf", {"prodStacks": ["perf"]})) == {}
    assert findings(run(pack_dir, "prod", {"prodStacks": []})) == {
        **per_pool_findings("prod"),
        (stack_urn("prod"), "advisory"): [over_budget("at least USD 46,045.19", "USD 20,000.00", AWS_POOLS)],
    }


def test_an_exempted_stack_gets_a_note_with_the_reason(pack_dir: Path) -> None:
    exemptions = [{"urn": stack_urn("dev"), "reason": "load test, OPS-7"}]
    [message] = findings(run(pack_dir, "dev", {"exemptions": exemptions}))[(stack_urn("dev"), "advisory")]
    assert message == "exempted (load test, OPS-7): " + over_budget(
        "at least USD 46,045.19", "USD 20,000.00", AWS_POOLS
    )


# Alibaba Cloud: the catalog has no ACK prices, so they come from the prices config, in CNY.


def node_pool(name: str, max_size: int, spot_strategy: str | None) -> RecordedResource:
    props: dict[str, Any] = {
        "clusterId": UNKNOWN,
        "nodePoolName": name,
        "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
        "scalingConfig": {"enable": True, "minSize": 0, "maxSize": max_size},
    }
    if spot_strategy is not None:
        props["spotStrategy"] = spot_strategy
    return resource("staging", NODE_POOL, name, props)


ALICLOUD_PRICES = {
    "alicloud": {"cn-hangzhou": {"ecs.gn7i-c8g1.2xlarge": 10.0, "nat-gateway": 0.3}},
    "currency": {"alicloud": "CNY"},
    "spotDiscounts": {"alicloud": {"gn7i": 0.8}},
}


def alicloud_run(pack_dir: Path, config: dict[str, Any]) -> PolicyReport:
    resources = [
        stack_resource("staging"),
        node_pool("batch-spot", 4, "SpotAsPriceGo"),  # 10 x 0.2 x 4 x 730 = 5840
        node_pool("batch-ondemand", 2, "NoSpot"),  # its fall-back: 10 x 2 x 730 = 14600
        node_pool("serve", 1, None),  # 10 x 730 = 7300
    ]
    return run_policy_pack(
        pack_dir,
        resources,
        project="gpu-cloud",
        stack="staging",
        config={POLICY: {"prices": ALICLOUD_PRICES, **config}},
        stack_config={"alicloud:region": "cn-hangzhou"},
    )


def test_prices_from_config_in_their_currency(pack_dir: Path) -> None:
    report = alicloud_run(pack_dir, {"monthlyGpuBudget": {"CNY": 10000}})
    pools = (
        "batch-ondemand 2 x ecs.gn7i-c8g1.2xlarge on demand CNY 14,600.00; "
        "serve 1 x ecs.gn7i-c8g1.2xlarge on demand CNY 7,300.00; "
        "batch-spot 4 x ecs.gn7i-c8g1.2xlarge spot CNY 5,840.00"
    )
    assert findings(report) == {
        (pool("staging", "serve", NODE_POOL), "advisory"): [ON_DEMAND_ONLY],
        (stack_urn("staging"), "advisory"): [over_budget("CNY 27,740.00", "CNY 10,000.00", pools)],
    }


def test_a_currency_without_a_budget_is_undecided(pack_dir: Path) -> None:
    report = alicloud_run(pack_dir, {})
    assert findings(report)[(stack_urn("staging"), "advisory")] == [
        "could not decide: GPU pools are priced in CNY and monthlyGpuBudget has no CNY"
    ]


def test_invalid_prices_config_is_rejected(pack_dir: Path) -> None:
    with pytest.raises(PlanError, match=r"gpu-cost-guard: prices\.spotDiscounts\.aws\.g5"):
        run(pack_dir, "dev", {"prices": {"spotDiscounts": {"aws": {"g5": 1.5}}}})


# The pack's reading of the catalog.


@pytest.mark.parametrize("cloud", list(catalog.Cloud))
def test_every_catalog_type_is_gpu_and_in_its_family_for_the_pack(cloud: catalog.Cloud) -> None:
    for t in catalog.instance_types(cloud):
        assert is_gpu_instance_type(cloud.value, t.name), t.name
        assert family_of(cloud.value, t.name) == t.family, t.name
