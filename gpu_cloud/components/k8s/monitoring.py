"""GPU signals: the metrics prometheus-adapter serves to the HPA, the alerts on idle and unhealthy GPUs, and the
Alertmanager route that delivers every alert to the environment's receiver.

DCGM exporter series carry the ``namespace`` and ``pod`` of the pod using the GPU (its Kubernetes mapping; the
ServiceMonitor keeps them with honorLabels) and the ``node`` they were scraped on (a relabeling). Node labels
reach Prometheus through kube-state-metrics' ``kube_node_labels`` for the allow-listed ``labels.POOL_LABEL``.
"""

from __future__ import annotations

from typing import Any

from gpu_cloud.components import labels
from gpu_cloud.components.spec import AlertReceiverKind, AlertsSpec, GpuMetric

__all__ = [
    "ALERT_RECEIVER",
    "ALERT_RECEIVER_SECRET",
    "ALERT_RECEIVER_SECRET_KEY",
    "APPLICATION_XIDS",
    "HPA_METRICS",
    "IDLE_GPU_MINUTES",
    "IDLE_GPU_PERCENT",
    "POOL_HPA_METRICS",
    "POOL_SERIES_LABEL",
    "REQUEST_METRICS",
    "RUNNING_METRIC",
    "WAITING_METRIC",
    "XID_ALERT_MINUTES",
    "adapter_external_rules",
    "adapter_rules",
    "alert_groups",
    "alertmanager_config",
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

REQUEST_METRICS: dict[str, str] = {
    "vllm:num_requests_running": "vllm_requests_running",
    "vllm:num_requests_waiting": "vllm_requests_waiting",
}
"""Pods metric prometheus-adapter serves for each of vLLM's scheduler gauges (vllm/v1/metrics/loggers.py: "Number
of requests in model execution batches", "Number of requests waiting to be processed"; labels model_name and
engine), read from the API server's ``/metrics`` by the service's PodMonitor, which adds the pod's ``namespace`` and
``pod`` (prometheus-operator PodMonitor target labels); summed over the pod's engines (one per data-parallel rank).
Both move with traffic, unlike a model server's GPU memory, which it reserves when it starts (vLLM
``--gpu-memory-utilization``, TensorFlow Serving ``--per_process_gpu_memory_fraction``): the running requests grow
with the load up to what a replica batches, the waiting ones from there (spec.GpuMetric.REQUESTS)."""

RUNNING_METRIC = REQUEST_METRICS["vllm:num_requests_running"]
"""A replica's running requests (the HPA's target ``targetRequestsRunning``)."""

WAITING_METRIC = REQUEST_METRICS["vllm:num_requests_waiting"]
"""A replica's waiting requests (the HPA's target ``targetRequestsWaiting``)."""

IDLE_GPU_PERCENT = 30
"""A pool whose average GPU utilisation stays below this is idle (the scale-in signal)."""

IDLE_GPU_MINUTES = 30
"""How long the idle condition must hold before the alert fires."""

XID_ALERT_MINUTES = 15
"""How long GpuXidError keeps firing after a GPU last reported a new XID; it resolves once the GPU reports none."""

APPLICATION_XIDS = (13, 31, 43)
"""XIDs an application causes (graphics engine exception, GPU memory page fault, GPU stopped processing; NVIDIA
"XID Errors", docs.nvidia.com/deploy/xid-errors, read 2026-12-02): not a reason to drain the node."""

POOL_SERIES_LABEL = "label_" + "".join(c if c.isalnum() else "_" for c in labels.POOL_LABEL)
"""``labels.POOL_LABEL`` as kube-state-metrics names it on ``kube_node_labels`` (non-alphanumerics become ``_``)."""

_POD_RESOURCES = {"overrides": {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}}


def adapter_rules() -> list[dict[str, Any]]:
    """prometheus-adapter custom rules (chart value ``rules.custom``) for the metrics of :data:`REQUEST_METRICS` and
    :data:`HPA_METRICS`."""
    return [
        *(
            {
                "seriesQuery": f'{series}{{namespace!="",pod!=""}}',
                "resources": _POD_RESOURCES,
                "name": {"matches": f"^{series}$", "as": metric},
                "metricsQuery": "sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
            }
            for series, metric in REQUEST_METRICS.items()
        ),
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
    """PrometheusRule ``spec.groups``: an idle GPU pool (scale-in signal) and GPUs reporting XID errors.

    Both are ``warning`` or ``critical``, never ``info``: kube-prometheus-stack's InfoInhibitor fires for every
    ``info`` alert and its Alertmanager inhibit rule mutes ``severity=info`` alerts with the same (here empty)
    namespace (81.4.3 rules-1.14/general.rules.yaml and values.yaml ``alertmanager.config.inhibit_rules``).

    ``DCGM_FI_DEV_XID_ERRORS`` is the value of the last XID and never resets (its description in dcgm-exporter
    4.5.2-4.8.1 etc/default-counters.csv; NVIDIA/dcgm-exporter#500): the XID alert fires when the value changes
    to a hardware XID and resolves :data:`XID_ALERT_MINUTES` after the last change. The exporter's windowed
    ``DCGM_EXP_XID_ERRORS_COUNT`` is not in the chart's default counters (commented out there). A GPU repeating the
    very same XID is not seen again by this rule; ACK's and EKS's node repair act on persistent GPU faults.
    """
    pool_util = (
        f"avg by ({POOL_SERIES_LABEL}) (DCGM_FI_DEV_GPU_UTIL * on (node) group_left ({POOL_SERIES_LABEL})"
        f' kube_node_labels{{{POOL_SERIES_LABEL}!=""}})'
    )
    application = " or ".join(f"DCGM_FI_DEV_XID_ERRORS == {xid}" for xid in APPLICATION_XIDS)
    return [
        {
            "name": "gpucloud.gpu",
            "rules": [
                {
                    "alert": "GpuPoolIdle",
                    "expr": f"{pool_util} < {IDLE_GPU_PERCENT}",
                    "for": f"{IDLE_GPU_MINUTES}m",
                    "labels": {"severity": "warning"},
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
                    "expr": (
                        f"DCGM_FI_DEV_XID_ERRORS > 0 and changes(DCGM_FI_DEV_XID_ERRORS[{XID_ALERT_MINUTES}m]) > 0"
                        f" unless ({application})"
                    ),
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


ALERT_RECEIVER = "gpucloud"
"""Name of the Alertmanager receiver every alert goes to."""

ALERT_RECEIVER_SECRET = "gpucloud-alert-receiver"
"""Kubernetes Secret holding the receiver's URL. The Alertmanager custom resource's ``secrets`` mounts it at
``/etc/alertmanager/secrets/<name>`` (prometheus-operator Alertmanager CRD, ``spec.secrets``, as vendored in
kube-prometheus-stack 81.4.3 charts/crds; read 2026-12-02)."""

ALERT_RECEIVER_SECRET_KEY = "url"
"""The Secret's key holding the URL."""

_SILENCED = ("Watchdog", "InfoInhibitor")
"""Alerts that are meant for no one: the always-firing Watchdog and the InfoInhibitor helper (chart defaults route
Watchdog to ``null``; InfoInhibitor's description says "should be routed to a null receiver")."""


def alertmanager_config(alerts: AlertsSpec, region: str) -> dict[str, Any]:
    """kube-prometheus-stack value ``alertmanager.config``: every alert to :data:`ALERT_RECEIVER`, Watchdog and
    InfoInhibitor to ``null``.

    The chart renders ``alertmanager.config`` with ``toYaml`` into the Secret ``alertmanager-<name>`` the operator
    loads (81.4.3 templates/alertmanager/secret.yaml); Helm merges these maps into the chart's default config and
    replaces its lists, so the default ``global``, ``inhibit_rules`` and ``route`` timings stay. URL receivers
    read the URL from the mounted Secret file (``url_file``, ``api_url_file``: Alertmanager 0.30.1
    config/notifiers.go, the version the chart runs), so the URL is in no Helm value. SNS signs with the pod's
    credentials in ``region`` (``sigv4``). ``send_resolved`` is on, so a resolved alert reaches the receiver too
    (Slack's default is off).
    """
    url_file = f"/etc/alertmanager/secrets/{ALERT_RECEIVER_SECRET}/{ALERT_RECEIVER_SECRET_KEY}"
    integration: dict[str, Any]
    if alerts.receiver is AlertReceiverKind.SLACK:
        integration = {"slack_configs": [{"api_url_file": url_file, "channel": alerts.slack_channel}]}
    elif alerts.receiver is AlertReceiverKind.WEBHOOK:
        integration = {"webhook_configs": [{"url_file": url_file}]}
    else:
        integration = {"sns_configs": [{"topic_arn": alerts.sns_topic_arn, "sigv4": {"region": region}}]}
    for configs in integration.values():
        configs[0]["send_resolved"] = True
    return {
        "route": {
            "receiver": ALERT_RECEIVER,
            "routes": [{"receiver": "null", "matchers": [f'alertname = "{name}"']} for name in _SILENCED],
        },
        "receivers": [{"name": "null"}, {"name": ALERT_RECEIVER, **integration}],
    }
