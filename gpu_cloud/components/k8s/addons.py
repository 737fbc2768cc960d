"""GPU add-ons as Helm releases: device plugin, DCGM exporter, Prometheus/Grafana, prometheus-adapter, cluster
autoscaler, and the GPU alerts.

Releases are ``helm.v3.Release`` (Helm installs them in the cluster), never client-side rendered charts; every
chart version is pinned in ``components.versions``. What the cloud already manages (ACK's device plugin and node
autoscaler) is not installed: ``components.k8s.clouds`` decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import yaml

from gpu_cloud.components import labels, versions
from gpu_cloud.components.k8s.clouds import profile
from gpu_cloud.components.k8s.cuda import ImageFamily, image_family
from gpu_cloud.components.k8s.monitoring import (
    ALERT_RECEIVER_SECRET,
    ALERT_RECEIVER_SECRET_KEY,
    IDLE_GPU_PERCENT,
    adapter_external_rules,
    adapter_rules,
    alert_groups,
    alertmanager_config,
)
from gpu_cloud.components.k8s.scheduling import daemonset_tolerations
from gpu_cloud.components.spec import (
    AddonsSpec,
    AlertReceiverKind,
    AlertsSpec,
    Cloud,
    ConfigError,
    GpuNodePoolSpec,
    Problem,
    SpotGroupSpec,
)

__all__ = [
    "ALERTMANAGER_SERVICE_ACCOUNT",
    "AUTOSCALER_SERVICE_ACCOUNT",
    "MONITORING_NAMESPACE",
    "SYSTEM_NAMESPACE",
    "GpuAddons",
    "GpuAddonsArgs",
    "device_plugin_config",
]

MONITORING_NAMESPACE = "monitoring"
"""Namespace of Prometheus, Grafana, the DCGM exporter and prometheus-adapter."""

MONITORING_POD_SECURITY = {"pod-security.kubernetes.io/enforce": "privileged"}
"""Pod Security admission of the monitoring namespace, stated rather than left to the cluster default: its node
agents need what ``baseline`` forbids. The dcgm-exporter chart 4.8.1 mounts the kubelet's pod-resources socket as a
hostPath volume and adds SYS_ADMIN (NVIDIA/dcgm-exporter 4.5.2-4.8.1 deployment/templates/daemonset.yaml, volume
``pod-gpu-resources``, and values.yaml ``securityContext.capabilities.add``, read 2026-12-03); node-exporter runs on
the host's network and PID namespace with hostPath mounts. Baseline forbids hostPath volumes and capabilities beyond
its default set (kubernetes.io/docs/concepts/security/pod-security-standards, read 2026-12-03). The GPU namespaces
enforce baseline (components.k8s.rbac.POD_SECURITY_LABELS)."""

SYSTEM_NAMESPACE = "kube-system"
"""Namespace of the device plugin and the cluster autoscaler."""

AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
"""The cluster autoscaler's ServiceAccount in SYSTEM_NAMESPACE; on AWS its role comes through EKS Pod Identity
(components.aws.PodIdentityRole with the cluster-autoscaler statements)."""

SYSTEM_NODES = {labels.PURPOSE_LABEL: labels.SYSTEM_PURPOSE}
"""Node selector of the cluster-wide add-ons: the untainted system pool, never a GPU node."""

ALERTMANAGER_SERVICE_ACCOUNT = "alertmanager"
"""Alertmanager's ServiceAccount in MONITORING_NAMESPACE (chart value ``alertmanager.serviceAccount.name``); an SNS
receiver's Pod Identity role is associated with it."""

PROMETHEUS_RELEASE = "kube-prometheus-stack"
"""Release name of kube-prometheus-stack; its Prometheus Service is ``<release>-prometheus``."""

MANAGED_CONTROL_PLANE_SCRAPES: dict[str, dict[str, bool]] = {
    name: {"enabled": False} for name in ("kubeControllerManager", "kubeScheduler", "kubeEtcd", "kubeProxy")
}
"""kube-prometheus-stack targets EKS and ACK do not let Prometheus scrape, turned off with their alerts: the chart
renders each one's Service, ServiceMonitor and rules (KubeControllerManagerDown, KubeSchedulerDown, etcd,
KubeProxyDown ``absent(up{job="kube-proxy"})``) only if ``<name>.enabled`` (kube-prometheus-stack 81.4.3
templates/exporters/*/servicemonitor.yaml and templates/prometheus/rules-1.14/*.yaml, read 2026-12-02; the same at
88.5.3, e.g. rules-1.14/kubernetes-system-controller-manager.yaml:7, read 2026-12-03).
Both clouds run controller manager, scheduler and etcd on their managed control plane, outside the cluster's nodes.
kube-proxy on EKS binds its metrics to 127.0.0.1:10249 (aws/containers-roadmap#657; prometheus-community/helm-charts
#977, "connection refused" on EKS); on ACK no documented metrics endpoint of kube-proxy was found, so it is off too
rather than an alert that may fire forever."""

AUTOSCALER_ARGS: dict[str, str] = {
    "expander": "priority",
    "scale-down-enabled": "true",
    "scale-down-utilization-threshold": "0.5",
    "scale-down-gpu-utilization-threshold": f"{IDLE_GPU_PERCENT / 100:g}",
    "scale-down-unneeded-time": "10m",
    "balance-similar-node-groups": "true",
    "skip-nodes-with-system-pods": "false",
}
"""cluster-autoscaler flags (chart value ``extraArgs``, rendered as ``--<key>=<value>``): priority expander, and
scale-down of nodes unneeded for 10 minutes: CPU nodes under half used, GPU nodes whose pods request under 30 % of
their GPUs (``--scale-down-gpu-utilization-threshold``, cluster-autoscaler-1.35.0 (the pinned chart's appVersion)
config/flags/flags.go, as in 1.31.0 main.go: "Sum of gpu requests of
all pods running on the node divided by node's allocatable resource, below which a node can be considered for
scale down ... only cares about gpu resource for accelerator node"; read 2026-12-02)."""


@dataclass(frozen=True)
class GpuAddonsArgs:
    """Inputs of :class:`GpuAddons`.

    Attributes:
        addons: Which add-ons to install.
        cloud: The cluster's cloud.
        pools: Every GPU pool and spot group of the cluster (node agents run on them; time-sliced pools get their
            device plugin config).
        cluster_name: AWS: the EKS cluster name (autoscaler auto-discovery of its node groups' ASGs).
        region: AWS: the cluster's region (also an SNS receiver's).
        expander_priorities: AWS: the priority expander's config, patterns of the cloud's node group ids by
            priority (components.aws.expander: each spot group above its own fall-back).
        alerts: Where Alertmanager sends every alert; None keeps the chart's default (the ``null`` receiver).
        alert_receiver_url: The webhook or Slack receiver's URL (a secret), for receivers that post to one.
        kubernetes_version: The cluster's Kubernetes minor version (AWS: the cluster autoscaler's image).
    """

    addons: AddonsSpec
    cloud: Cloud
    pools: Sequence[GpuNodePoolSpec | SpotGroupSpec] = ()
    cluster_name: pulumi.Input[str] | None = None
    region: str | None = None
    expander_priorities: Mapping[str, Sequence[str]] | None = None
    alerts: AlertsSpec | None = None
    alert_receiver_url: pulumi.Input[str] | None = None
    kubernetes_version: str = versions.DEFAULT_KUBERNETES_VERSION


def device_plugin_config(pools: Sequence[GpuNodePoolSpec | SpotGroupSpec]) -> dict[str, str]:
    """The device plugin's named configs (chart value ``config.map``): ``default`` without sharing, and one per
    time-sliced pool (nodes pick it with ``DEVICE_PLUGIN_CONFIG_LABEL=<pool name>``)."""
    configs = {"default": _plugin_config(None)}
    for pool in pools:
        replicas = pool.gpu_time_slicing_replicas if isinstance(pool, GpuNodePoolSpec) else None
        if replicas is not None:
            configs[pool.name] = _plugin_config(replicas)
    return configs


def _plugin_config(replicas: int | None) -> str:
    # NVIDIA k8s-device-plugin config file, version v1 ("Shared Access to GPUs with CUDA Time-Slicing").
    config: dict[str, Any] = {"version": "v1", "flags": {"migStrategy": "none"}}
    if replicas is not None:
        config["sharing"] = {
            "timeSlicing": {
                "renameByDefault": False,
                "failRequestsGreaterThanOne": True,
                "resources": [{"name": labels.GPU_TAINT_KEY, "replicas": replicas}],
            }
        }
    return yaml.safe_dump(config, sort_keys=False)


class GpuAddons(pulumi.ComponentResource):
    """GPU add-ons of one cluster.

    Children (each only when enabled and not managed by the cloud): Namespace ``monitoring``; Secret
    ``gpucloud-alert-receiver`` (a URL receiver); Releases ``nvidia-device-plugin`` (AWS),
    ``aws-efa-k8s-device-plugin`` (AWS, where EFA pools exist), ``dcgm-exporter``, ``kube-prometheus-stack``,
    ``prometheus-adapter``, ``cluster-autoscaler`` (AWS); PrometheusRule ``gpu-alerts``.
    """

    releases: dict[str, k8s.helm.v3.Release]
    """The Helm releases by release name."""

    def __init__(self, name: str, args: GpuAddonsArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        cloud = profile(args.cloud)
        install_autoscaler = args.addons.cluster_autoscaler and cloud.installs_cluster_autoscaler
        problems: list[Problem] = []
        if args.addons.prometheus_adapter and not args.addons.monitoring:
            problems.append(Problem("addons.prometheusAdapter", "needs monitoring (its Prometheus)", True))
        if install_autoscaler:
            for field_name in ("cluster_name", "region", "expander_priorities"):
                if getattr(args, field_name) is None:
                    problems.append(Problem(field_name, "required for the cluster autoscaler on aws", None))
        alerts = args.alerts
        if alerts is not None and alerts.needs_url and args.alert_receiver_url is None:
            problems.append(Problem("alertReceiverUrl", f"required for receiver {alerts.receiver.value}", None))
        if alerts is not None and alerts.receiver is AlertReceiverKind.SNS and args.region is None:
            problems.append(Problem("region", "required for an sns receiver", None))
        if problems:
            raise ConfigError(problems)
        super().__init__("gpucloud:k8s:GpuAddons", name, None, opts)
        self.releases = {}
        plugin_pools = [p for p in args.pools if image_family(args.cloud, p) is not ImageFamily.BOTTLEROCKET_NVIDIA]
        if cloud.installs_device_plugin and plugin_pools:
            # Bottlerocket NVIDIA variants run their own device plugin; the chart's default affinity needs NFD labels.
            self._release(
                name,
                versions.NVIDIA_DEVICE_PLUGIN_CHART,
                SYSTEM_NAMESPACE,
                {
                    "tolerations": daemonset_tolerations(),
                    "affinity": _pool_affinity("In", sorted(p.name for p in plugin_pools)),
                    "config": {"map": device_plugin_config(plugin_pools), "default": "default"},
                },
            )
        efa_pools = sorted(p.name for p in args.pools if isinstance(p, GpuNodePoolSpec) and p.efa)
        if efa_pools:
            # The chart's only node affinity is "<key> In <values>" for each supportedInstanceLabels key (and not EKS
            # Auto Mode): keyed on the pool label, it runs on the EFA pools and nowhere else (aws/eks-charts v0.0.242
            # stable/aws-efa-k8s-device-plugin templates/daemonset.yaml; it already tolerates CriticalAddonsOnly).
            self._release(
                name,
                versions.EFA_DEVICE_PLUGIN_CHART,
                SYSTEM_NAMESPACE,
                {
                    "tolerations": daemonset_tolerations(),
                    "supportedInstanceLabels": {"keys": [labels.POOL_LABEL], "values": efa_pools},
                },
            )
        if args.addons.monitoring:
            namespace = k8s.core.v1.Namespace(
                f"{name}-{MONITORING_NAMESPACE}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=MONITORING_NAMESPACE, labels=MONITORING_POD_SECURITY),
                opts=pulumi.ResourceOptions(parent=self),
            )
            secret = None
            if alerts is not None and args.alert_receiver_url is not None:
                secret = self._receiver_secret(name, namespace, args.alert_receiver_url)
            stack = self._release(
                name,
                versions.KUBE_PROMETHEUS_STACK_CHART,
                namespace,
                _prometheus_values(_alertmanager_values(alerts, args.region, mounts_secret=secret is not None)),
                depends_on=None if secret is None else [secret],
            )
            self._release(name, versions.DCGM_EXPORTER_CHART, namespace, _dcgm_values(), depends_on=[stack])
            k8s.apiextensions.CustomResource(
                f"{name}-gpu-alerts",
                api_version="monitoring.coreos.com/v1",
                kind="PrometheusRule",
                metadata=k8s.meta.v1.ObjectMetaArgs(name="gpu-alerts", namespace=namespace.metadata.name),
                spec={"groups": alert_groups()},
                opts=pulumi.ResourceOptions(parent=self, depends_on=[stack]),
            )
            if args.addons.prometheus_adapter:
                adapter = {
                    "prometheus": {
                        "url": f"http://{PROMETHEUS_RELEASE}-prometheus.{MONITORING_NAMESPACE}.svc",
                        "port": 9090,
                    },
                    "rules": {"custom": adapter_rules(), "external": adapter_external_rules()},
                    "nodeSelector": SYSTEM_NODES,
                }
                self._release(name, versions.PROMETHEUS_ADAPTER_CHART, namespace, adapter, depends_on=[stack])
        if install_autoscaler:
            self._release(
                name,
                versions.CLUSTER_AUTOSCALER_CHART,
                SYSTEM_NAMESPACE,
                {
                    "image": {"tag": versions.CLUSTER_AUTOSCALER_IMAGE_TAGS[args.kubernetes_version]},
                    "cloudProvider": "aws",
                    "awsRegion": args.region,
                    "autoDiscovery": {"clusterName": args.cluster_name},
                    "rbac": {"serviceAccount": {"name": AUTOSCALER_SERVICE_ACCOUNT}},
                    "nodeSelector": SYSTEM_NODES,
                    "extraArgs": AUTOSCALER_ARGS,
                    "expanderPriorities": {k: list(v) for k, v in (args.expander_priorities or {}).items()},
                },
            )
        self.register_outputs({"releases": list(self.releases)})

    def _receiver_secret(
        self, name: str, namespace: k8s.core.v1.Namespace, url: pulumi.Input[str]
    ) -> k8s.core.v1.Secret:
        """The Secret Alertmanager mounts for the receiver's URL; the URL stays a Pulumi secret."""
        return k8s.core.v1.Secret(
            f"{name}-{ALERT_RECEIVER_SECRET}",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=ALERT_RECEIVER_SECRET, namespace=namespace.metadata.name),
            type="Opaque",
            string_data={ALERT_RECEIVER_SECRET_KEY: pulumi.Output.secret(url)},
            opts=pulumi.ResourceOptions(parent=self),
        )

    def _release(
        self,
        name: str,
        chart: versions.HelmChart,
        namespace: str | k8s.core.v1.Namespace,
        values: dict[str, Any],
        depends_on: list[pulumi.Resource] | None = None,
    ) -> k8s.helm.v3.Release:
        release = k8s.helm.v3.Release(
            f"{name}-{chart.name}",
            k8s.helm.v3.ReleaseArgs(
                name=chart.name,
                chart=chart.name,
                version=chart.version,
                repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=chart.repo),
                namespace=namespace if isinstance(namespace, str) else namespace.metadata.name,
                values=values,
            ),
            opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on),
        )
        self.releases[chart.name] = release
        return release


def _pool_affinity(operator: str, pools: list[str] | None = None) -> dict[str, Any]:
    expression: dict[str, Any] = {"key": labels.POOL_LABEL, "operator": operator}
    if pools is not None:
        expression["values"] = pools
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [expression]}]
            }
        }
    }


def _alertmanager_values(alerts: AlertsSpec | None, region: str | None, mounts_secret: bool) -> dict[str, Any]:
    """Chart value ``alertmanager``: on the system pool; with ``alerts``, their route and receiver, the
    ServiceAccount an SNS receiver's role is associated with, and the receiver Secret mounted."""
    values: dict[str, Any] = {"alertmanagerSpec": {"nodeSelector": SYSTEM_NODES}}
    if alerts is not None:
        values["config"] = alertmanager_config(alerts, region or "")
        values["serviceAccount"] = {"name": ALERTMANAGER_SERVICE_ACCOUNT}
    if mounts_secret:
        values["alertmanagerSpec"]["secrets"] = [ALERT_RECEIVER_SECRET]
    return values


def _prometheus_values(alertmanager: dict[str, Any]) -> dict[str, Any]:
    # The stack's Deployments and StatefulSets on the system pool (chart values prometheusOperator.nodeSelector,
    # prometheus.prometheusSpec.nodeSelector, alertmanager.alertmanagerSpec.nodeSelector and the grafana and
    # kube-state-metrics subcharts' nodeSelector); the node exporter DaemonSet stays on every node.
    return {
        **MANAGED_CONTROL_PLANE_SCRAPES,
        "prometheusOperator": {"nodeSelector": SYSTEM_NODES},
        "prometheus": {
            "prometheusSpec": {
                # Select every ServiceMonitor and PrometheusRule, not only those labelled for this release.
                "serviceMonitorSelectorNilUsesHelmValues": False,
                "ruleSelectorNilUsesHelmValues": False,
                "nodeSelector": SYSTEM_NODES,
            }
        },
        "alertmanager": alertmanager,
        # kube_node_labels carries only allow-listed node labels: the pool label joins GPU series to pools.
        "kube-state-metrics": {
            "metricLabelsAllowlist": [f"nodes=[{labels.POOL_LABEL}]"],
            "nodeSelector": SYSTEM_NODES,
        },
        "grafana": {
            "nodeSelector": SYSTEM_NODES,
            "dashboardProviders": {
                "dashboardproviders.yaml": {
                    "apiVersion": 1,
                    "providers": [
                        {
                            "name": "gpu",
                            "orgId": 1,
                            "folder": "GPU",
                            "type": "file",
                            "disableDeletion": True,
                            "options": {"path": "/var/lib/grafana/dashboards/gpu"},
                        }
                    ],
                }
            },
            "dashboards": {"gpu": {"nvidia-dcgm-exporter": dict(versions.GRAFANA_DCGM_DASHBOARD)}},
        },
    }


def _dcgm_values() -> dict[str, Any]:
    return {
        "tolerations": daemonset_tolerations(),
        "affinity": _pool_affinity("Exists"),
        "serviceMonitor": {
            "enabled": True,
            "interval": "15s",
            # Keep the namespace/pod of the GPU's workload (the exporter's Kubernetes mapping) over the target's.
            "honorLabels": True,
            "relabelings": [
                {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node", "action": "replace"}
            ],
        },
    }
