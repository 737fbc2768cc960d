"""GPU signals: the metrics prometheus-adapter serves to the HPA, and the alerts on idle and unhealthy GPUs.

DCGM exporter series carry the ``namespace`` and ``pod`` of the pod using the GPU (its Kubernetes mapping; the
ServiceMonitor keeps them with honorLabels) and the ``node`` they were scraped on (a relabeling). Node labels
reach Prometheus through kube-state-metrics' ``kube_node_labels`` for the allow-listed ``labels.POOL_LABEL``.
"""

from __future__ import annotations

from typing import Any

from gpu_cloud.components import labels
from gpu_cloud.components.spec import GpuMetric

__all__ = [
    "HPA_METRICS",
    "IDLE_GPU_MINUTES",
    "IDLE_GPU_PERCENT",
    "POOL_SERIES_LABEL",
    "adapter_rules",
    "alert_groups",
]

HPA_METRICS: dict[GpuMetric, str] = {
    GpuMetric.UTILIZATION: "gpu_utilization",
    GpuMetric.MEMORY: "gpu_memory_utilization",
}
"""Pods metric name prometheus-adapter serves for each GPU signal (percent, averaged over the pod's GPUs)."""

IDLE_GPU_PERCENT = 30
"""A pool whose average GPU utilisation stays below this is idle (the scale-in signal)."""

IDLE_GPU_MINUTES = 30
"""How long the idle condition must hold before the alert fires."""

POOL_SERIES_LABEL = "label_" + "".join(c if c.isalnum() else "_" for c in labels.POOL_LABEL)
"""``labels.POOL_LABEL`` as kube-state-metrics names it on ``kube_node_labels`` (non-alphanumerics become ``_``)."""

_POD_RESOURCES = {"overrides": {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}}


def adapter_rules() -> list[dict[str, Any]]:
    """prometheus-adapter custom rules (chart value ``rules.custom``) for the metrics of :data:`HPA_METRICS`."""
    return [
        {
            "seriesQuery": 'DCGM_FI_DEV_GPU_UTIL{namespace!="",pod!=""}',
            "resources": _POD_RESOURCES,
            "name": {"matches": "^DCGM_FI_DEV_GPU_UTIL$", "as": HPA_METRICS[GpuMetric.UTILIZATION]},
            "metricsQuery": "avg(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
        },
        {
            "seriesQuery": 'DCGM_FI_DEV_FB_USED{namespace!="",pod!=""}',
            "resources": _POD_RESOURCES,
            "name": {"matches": "^DCGM_FI_DEV_FB_USED$", "as": HPA_METRICS[GpuMetric.MEMORY]},
            "metricsQuery": (
                "avg(100 * DCGM_FI_DEV_FB_USED{<<.LabelMatchers>>} / (DCGM_FI_DEV_FB_USED{<<.LabelMatchers>>}"
                " + DCGM_FI_DEV_FB_FREE{<<.LabelMatchers>>})) by (<<.GroupBy>>)"
            ),
        },
    ]


def alert_groups() -> list[dict[str, Any]]:
    """PrometheusRule ``spec.groups``: an idle GPU pool (scale-in signal) and GPUs reporting XID errors."""
    pool_util = (
        f"avg by ({POOL_SERIES_LABEL}) (DCGM_FI_DEV_GPU_UTIL * on (node) group_left ({POOL_SERIES_LABEL})"
        f' kube_node_labels{{{POOL_SERIES_LABEL}!=""}})'
    )
    return [
        {
            "name": "gpucloud.gpu",
            "rules": [
                {
                    "alert": "GpuPoolIdle",
                    "expr": f"{pool_util} < {IDLE_GPU_PERCENT}",
                    "for": f"{IDLE_GPU_MINUTES}m",
                    "labels": {"severity": "info"},
                    "annotations": {
                        "summary": f"GPU pool {{{{ $labels.{POOL_SERIES_LABEL} }}}} is idle",
                        "description": (
                            f"Average GPU utilisation of the pool stayed under {IDLE_GPU_PERCENT}% for"
                            f" {IDLE_GPU_MINUTES} minutes: scale it in."
                        ),
                    },
                },
                {
                    "alert": "GpuXidError",
                    "expr": "DCGM_FI_DEV_XID_ERRORS > 0",
                    "for": "0m",
                    "labels": {"severity": "critical"},
                    "annotations": {
                        "summary": "GPU {{ $labels.gpu }} on node {{ $labels.node }} reports XID error {{ $value }}",
                        "description": "The GPU is unhealthy: cordon the node and drain it.",
                    },
                },
            ],
        }
    ]
