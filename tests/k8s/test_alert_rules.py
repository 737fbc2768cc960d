"""The GPU alert rules under `promtool test rules` (Prometheus' own rule engine): the idle-pool alert fires at 29 %
after its window and never at 31 %, is not an ``info`` alert the chart's InfoInhibitor mutes, and the XID alert
fires on a hardware XID and resolves after the fault clears.

The series values and the expected labels and annotations are literals here, so moving the threshold, the window or
a severity in ``components.k8s.monitoring`` fails these tests. `make test` installs promtool (Debian package
prometheus) when missing; without it these tests skip."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpu_cloud.components.k8s.monitoring import alert_groups

PROMTOOL = shutil.which("promtool")
INFO_INHIBITOR = Path(__file__).parent / "data" / "kube-prometheus-stack-81.4.3-info-inhibitor.yaml"

pytestmark = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not found: `make test` installs it (Debian package prometheus) as root"
)

UTIL = 'DCGM_FI_DEV_GPU_UTIL{gpu="0", node="gpu-node-1"}'
POOL = 'kube_node_labels{node="gpu-node-1", label_gpucloud_io_pool="inference-a10g"}'
IDLE = {
    "exp_labels": {"label_gpucloud_io_pool": "inference-a10g", "severity": "warning"},
    "exp_annotations": {
        "summary": "GPU pool inference-a10g is idle",
        "description": "Average GPU utilisation of the pool stayed under 30% for 30 minutes: scale it in.",
    },
}
XID = 'DCGM_FI_DEV_XID_ERRORS{gpu="0", node="gpu-node-1", UUID="GPU-1"}'


def _xid_alert(code: int) -> dict[str, Any]:
    return {
        "exp_labels": {"gpu": "0", "node": "gpu-node-1", "UUID": "GPU-1", "severity": "critical"},
        "exp_annotations": {
            "summary": f"GPU 0 on node gpu-node-1 reports XID error {code}",
            "description": "The GPU is unhealthy: cordon the node and drain it.",
        },
    }


def _promtool(tmp_path: Path, series: dict[str, str], checks: list[dict[str, Any]], groups=None) -> str:  # type: ignore[no-untyped-def]
    """Run ``promtool test rules`` on the project's alert groups (or ``groups``) and the chart's InfoInhibitor; return
    its output, failing the test with it when promtool does."""
    rules = tmp_path / "gpu-alerts.yaml"
    rules.write_text(yaml.safe_dump({"groups": alert_groups() if groups is None else groups}))
    test = {
        "rule_files": [str(rules), str(INFO_INHIBITOR)],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": name, "values": values} for name, values in series.items()],
                "alert_rule_test": checks,
            }
        ],
    }
    test_file = tmp_path / "test.yaml"
    test_file.write_text(yaml.safe_dump(test, sort_keys=False))
    assert PROMTOOL is not None
    done = subprocess.run([PROMTOOL, "test", "rules", str(test_file)], capture_output=True, text=True, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_idle_alert_is_pending_before_its_window_and_fires_at_29_percent_after_it(tmp_path: Path) -> None:
    _promtool(
        tmp_path,
        {UTIL: "29x60", POOL: "1x60"},
        [
            {"eval_time": "29m", "alertname": "GpuPoolIdle", "exp_alerts": []},
            {"eval_time": "31m", "alertname": "GpuPoolIdle", "exp_alerts": [IDLE]},
        ],
    )


def test_idle_alert_never_fires_at_31_percent(tmp_path: Path) -> None:
    _promtool(
        tmp_path,
        {UTIL: "31x90", POOL: "1x90"},
        [{"eval_time": t, "alertname": "GpuPoolIdle", "exp_alerts": []} for t in ("31m", "60m", "90m")],
    )


def test_idle_alert_needs_the_whole_window_below_30_percent(tmp_path: Path) -> None:
    # Busy (80 %) at minute 10 restarts the window: still pending at 31m, firing 30 minutes after the busy sample.
    _promtool(
        tmp_path,
        {UTIL: "29x9 80 29x50", POOL: "1x60"},
        [
            {"eval_time": "31m", "alertname": "GpuPoolIdle", "exp_alerts": []},
            {"eval_time": "42m", "alertname": "GpuPoolIdle", "exp_alerts": [IDLE]},
        ],
    )


def test_idle_alert_survives_the_info_inhibitor(tmp_path: Path) -> None:
    # InfoInhibitor fires for each info alert; the chart's inhibit rule then mutes info alerts of that namespace.
    # The idle alert is a warning: no InfoInhibitor fires while it does.
    _promtool(
        tmp_path,
        {UTIL: "29x60", POOL: "1x60"},
        [
            {"eval_time": "35m", "alertname": "GpuPoolIdle", "exp_alerts": [IDLE]},
            {"eval_time": "35m", "alertname": "InfoInhibitor", "exp_alerts": []},
        ],
    )


def test_the_info_inhibitor_would_fire_for_an_info_idle_alert(tmp_path: Path) -> None:
    # The check above is not vacuous: with severity info (as before), InfoInhibitor fires beside the idle alert.
    groups = alert_groups()
    groups[0]["rules"][0]["labels"] = {"severity": "info"}
    _promtool(
        tmp_path,
        {UTIL: "29x60", POOL: "1x60"},
        [
            {
                "eval_time": "35m",
                "alertname": "InfoInhibitor",
                "exp_alerts": [
                    {
                        "exp_labels": {
                            "alertname": "GpuPoolIdle",
                            "alertstate": "firing",
                            "label_gpucloud_io_pool": "inference-a10g",
                            "severity": "none",
                        }
                    }
                ],
            }
        ],
        groups,
    )


def test_xid_alert_fires_on_a_hardware_xid_and_resolves_after_the_fault_clears(tmp_path: Path) -> None:
    # The exporter's gauge keeps the last XID (79, fallen off the bus) after the fault: the alert resolves anyway.
    _promtool(
        tmp_path,
        {XID: "0x5 79x60"},
        [
            {"eval_time": "4m", "alertname": "GpuXidError", "exp_alerts": []},
            {"eval_time": "6m", "alertname": "GpuXidError", "exp_alerts": [_xid_alert(79)]},
            {"eval_time": "19m", "alertname": "GpuXidError", "exp_alerts": [_xid_alert(79)]},
            {"eval_time": "21m", "alertname": "GpuXidError", "exp_alerts": []},
            {"eval_time": "60m", "alertname": "GpuXidError", "exp_alerts": []},
        ],
    )


def test_xid_alert_fires_again_on_the_next_fault(tmp_path: Path) -> None:
    _promtool(
        tmp_path,
        {XID: "0x5 79x30 48x30"},
        [
            {"eval_time": "30m", "alertname": "GpuXidError", "exp_alerts": []},
            {"eval_time": "37m", "alertname": "GpuXidError", "exp_alerts": [_xid_alert(48)]},
        ],
    )


@pytest.mark.parametrize("code", [13, 31, 43])
def test_xid_alert_ignores_application_xids(tmp_path: Path, code: int) -> None:
    _promtool(
        tmp_path,
        {XID: f"0x5 {code}x30"},
        [{"eval_time": t, "alertname": "GpuXidError", "exp_alerts": []} for t in ("6m", "10m")],
    )
