"""The EKS node monitoring agent's DCGM host engine runs on the tainted GPU nodes (pins.md F1): the add-on's
configuration is valid for the add-on's own schema at the pinned release, and the tolerations it gives the
``dcgm-server`` DaemonSet (rendered as given: charts/eks-node-monitoring-agent/templates/dcgm-daemonset.yaml at v1.7.0,
``{{- with .Values.dcgmAgent.tolerations }}``) tolerate every taint a GPU node of the project carries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.aws._node_group import GPU_TAINT_VALUE
from gpu_cloud.components.aws.cluster import GpuCluster, GpuClusterArgs
from gpu_cloud.components.k8s.scheduling import SPOT_TAINT_VALUE
from gpu_cloud.components.spec import ClusterSpec
from tests.aws.helpers import of_type, run

SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "eks-node-monitoring-agent-v1.7.0-configuration.schema.json").read_text()
)["schema"]
GPU_NODE_TAINTS = [
    {"key": labels.GPU_TAINT_KEY, "value": GPU_TAINT_VALUE, "effect": "NoSchedule"},
    {"key": labels.SPOT_TAINT_KEY, "value": SPOT_TAINT_VALUE, "effect": "NoSchedule"},
]


def _tolerates(toleration: dict[str, Any], taint: dict[str, str]) -> bool:
    """core/v1 Toleration.ToleratesTaint: an empty effect matches every effect; operator Exists with an empty key
    matches every key; Exists ignores the value, Equal (the default) compares it."""
    if toleration.get("effect") and toleration["effect"] != taint["effect"]:
        return False
    if toleration.get("key", "") and toleration["key"] != taint["key"]:
        return False
    if toleration.get("operator", "Equal") == "Exists":
        return True
    return bool(toleration.get("value", "") == taint["value"])


def _configuration() -> Any:
    args = GpuClusterArgs(
        spec=ClusterSpec(),
        subnet_ids=["subnet-a", "subnet-b"],
        kms_key_arn="arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        kms_key_alias="alias/gpucloud-test",
    )
    [agent] = [
        r.inputs
        for r in of_type(run(lambda: GpuCluster("gpu", args)), "aws:eks/addon:Addon")
        if r.inputs["addonName"] == "eks-node-monitoring-agent"
    ]
    return json.loads(agent["configurationValues"])


def test_the_configuration_is_valid_for_the_addons_schema() -> None:
    jsonschema.validate(_configuration(), SCHEMA)


@pytest.mark.parametrize("taint", GPU_NODE_TAINTS, ids=lambda t: t["key"])
def test_the_dcgm_server_tolerates_every_gpu_node_taint(taint: dict[str, str]) -> None:
    tolerations = _configuration()["dcgmAgent"]["tolerations"]
    assert any(_tolerates(t, taint) for t in tolerations)
