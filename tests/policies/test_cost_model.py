"""The cost model the pack and gpucloud share: reading wire-form properties, the arithmetic, its imports."""

from __future__ import annotations

import ast
import sys
from decimal import Decimal as D
from pathlib import Path

from gpu_cloud.policies.gpucloud_rules import cost_model

PACK = Path(__file__).resolve().parents[2] / "gpu_cloud" / "policies"
# What the pack may import under the Pulumi CLI (policies/requirements.txt): its own modules, the SDKs.
# yaml: PyYAML, a dependency of the pulumi SDK (requirements.txt pins it "via pulumi"); gpu-sharing-isolation reads
# the NVIDIA device plugin's config files with it.
PACK_IMPORTS = set(sys.stdlib_module_names) | {"__future__", "pulumi", "pulumi_policy", "gpucloud_rules", "yaml"}


def test_region_comes_from_the_resource_then_its_provider_then_the_config() -> None:
    props = {"region": "us-west-2"}
    assert cost_model.region_of(props, {"region": "eu-west-1"}, "us-east-1") == "us-west-2"
    assert cost_model.region_of({}, {"region": "eu-west-1"}, "us-east-1") == "eu-west-1"
    assert cost_model.region_of({}, {"region": "[unknown]"}, "us-east-1") == "us-east-1"
    assert cost_model.region_of({}, {}, None) is None


def test_cost_model_reads_policy_wire_form() -> None:
    props = {
        "instanceTypes": ["g5.xlarge"],
        "scalingConfig": {"minSize": 0.0, "desiredSize": 1.0, "maxSize": 4.0},
        "capacityType": "SPOT",
    }
    capacity = cost_model.read_capacity(cost_model.AWS_NODE_GROUP, props)
    assert capacity == cost_model.Capacity("aws", ("g5.xlarge",), cost_model.Sizes(0, 1, 4), spot=True)
    unknown = {
        **props,
        "scalingConfig": {"minSize": 0, "desiredSize": 1, "maxSize": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"},
    }
    assert cost_model.read_capacity(cost_model.AWS_NODE_GROUP, unknown) == cost_model.Capacity(
        "aws", (), None, False, unread="scalingConfig.maxSize is unknown until deployment"
    )
    disabled = {"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"], "scalingConfig": {"enable": "false"}, "desiredSize": "3"}
    pool = cost_model.read_capacity(cost_model.ALICLOUD_NODE_POOL, disabled)
    assert pool is not None and pool.sizes == cost_model.Sizes(3, 3, 3)


def test_cost_model_arithmetic() -> None:
    assert cost_model.spot_hourly(D("1.212"), D("0.55")) == D("0.5454")
    assert cost_model.monthly(D("0.5454"), 4) == D("1592.568")
    assert cost_model.most_expensive({"a": D("2"), "b": D("3"), "c": D("3")}) == "b"


def test_pack_modules_import_only_the_standard_library_and_the_pulumi_sdks() -> None:
    for module in [PACK / "__main__.py", *sorted((PACK / "gpucloud_rules").glob("*.py"))]:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        }
        assert {name.split(".")[0] for name in imported} <= PACK_IMPORTS, module.name
