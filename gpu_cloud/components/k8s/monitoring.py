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
    "POOL_HPA_METRICS",
    "POOL_SERIES_LABEL",
    "adapter_external_rules",
    "adapter_rules",
    "alert_groups",
]

HPA_METRICS: dict[GpuMetric, str] = {
    GpuMetric.UTILIZATION: "gpu_utilization",
    GpuMetric.MEMORY: "gpu_memory_utilization",
}
"""Pods metric name prometheus-adapter serves for each GPU signal (percent, averaged over the pod's GPUs)."""

POOL_HPA_METRICS: dict[GpuMetric, str] = {
    GpuMetric.UTILIZATION: "gpu_pool_utilization",
    GpuMetric.MEMORY: "gpu_pool_memory_utilization",
}
"""External metric name prometheus-adapter serves for each GPU signal of a whole pool (percent, averaged over the
pool's GPUs, selected by :data:`POOL_SERIES_LABEL`). The HPA of a service on a pool that shares GPUs follows it:
dcgm-exporter maps a GPU to pods only for ``nvidia.com/gpu`` and MIG resources (or NVIDIA_RESOURCE_NAMES), and to
one pod even when time-sliced (internal/pkg/transformation/kubernetes.go at 4.5.2-4.8.1), so per-pod series of a
shared GPU do not exist or belong to one pod; the pool's GPUs, which only inference pods share, are what the
service's replicas load."""

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


def _pool_average(expression: str) -> str:
    """``expression`` per GPU, joined to its node's pool and averaged over the pool the HPA's selector names."""
    return (
        f"avg by ({POOL_SERIES_LABEL}) ({expression} * on (node) group_left ({POOL_SERIES_LABEL})"
        f" kube_node_labels{{<<.LabelMatchers>>}})"
    )


def adapter_external_rules() -> list[dict[str, Any]]:
    """prometheus-adapter external rules (chart value ``rules.external``) for :data:`POOL_HPA_METRICS`.

    ``namespaced: false``: the DCGM series of shared GPUs carry the exporter's own namespace, not the HPA's, so the
    adapter must not add the HPA's namespace to the query (prometheus-adapter docs/externalmetrics.md at v0.12.0,
    "Cross-Namespace or No Namespace Queries"); the HPA's selector (the pool label) fills ``<<.LabelMatchers>>``.
    """
    fb_used, fb_free = "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"
    return [
        {
            "seriesQuery": 'DCGM_FI_DEV_GPU_UTIL{node!=""}',
            "resources": {"namespaced": False},
            "name": {"matches": "^DCGM_FI_DEV_GPU_UTIL$", "as": POOL_HPA_METRICS[GpuMetric.UTILIZATION]},
            "metricsQuery": _pool_average("DCGM_FI_DEV_GPU_UTIL"),
        },
        {
            "seriesQuery": f'{fb_used}{{node!=""}}',
            "resources": {"namespaced": False},
            "name": {"matches": f"^{fb_used}$", "as": POOL_HPA_METRICS[GpuMetric.MEMORY]},
            "metricsQuery": _pool_average(f"(100 * {fb_used} / ({fb_used} + {fb_free}))"),
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
