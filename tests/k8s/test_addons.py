import json
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gpu_cloud.components import labels
from gpu_cloud.components.k8s import GpuAddons, GpuAddonsArgs
from gpu_cloud.components.k8s.monitoring import alert_groups
from gpu_cloud.components.spec import AddonsSpec, AlertReceiverKind, AlertsSpec, Cloud
from tests.k8s.conftest import (
    KUBERNETES_VERSION,
    assert_valid,
    children,
    inference_pool,
    kinds,
    one,
    refused,
    run,
    spot_group,
)

GPU_TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": labels.SPOT_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"},
]


PRIORITIES = {"50": ["^eks-a-spot-x$"], "10": [".*"]}


def _aws(**changes):
    fields = {
        "addons": AddonsSpec(),
        "cloud": Cloud.AWS,
        "pools": (inference_pool(gpu_time_slicing_replicas=4), spot_group()),
        "cluster_name": "gpu-dev",
        "region": "us-east-1",
        "expander_priorities": PRIORITIES,
    }
    return GpuAddonsArgs(**(fields | changes))


def _plan(args):
    return run(lambda opts: GpuAddons("addons", args, opts=opts))


def _values(plan, release):
    return one(plan, f"addons-{release}").inputs["values"]


def test_aws_installs_every_addon_as_helm_releases():
    assert sorted(kinds(_plan(_aws()))) == [
        ("gpucloud:k8s:GpuAddons", "addons"),
        ("kubernetes:core/v1:Namespace", "addons-monitoring"),
        ("kubernetes:helm.sh/v3:Release", "addons-cluster-autoscaler"),
        ("kubernetes:helm.sh/v3:Release", "addons-dcgm-exporter"),
        ("kubernetes:helm.sh/v3:Release", "addons-kube-prometheus-stack"),
        ("kubernetes:helm.sh/v3:Release", "addons-nvidia-device-plugin"),
        ("kubernetes:helm.sh/v3:Release", "addons-prometheus-adapter"),
        ("kubernetes:monitoring.coreos.com/v1:PrometheusRule", "addons-gpu-alerts"),
    ]


def test_ack_leaves_device_plugin_and_autoscaler_to_ack():
    ack_pool = inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",))
    releases = [
        name
        for kind, name in kinds(_plan(GpuAddonsArgs(addons=AddonsSpec(), cloud=Cloud.ALICLOUD, pools=(ack_pool,))))
        if kind.endswith("Release")
    ]
    assert sorted(releases) == ["addons-dcgm-exporter", "addons-kube-prometheus-stack", "addons-prometheus-adapter"]


def test_releases_are_pinned_from_versions():
    inputs = one(_plan(_aws()), "addons-nvidia-device-plugin").inputs
    assert {k: inputs[k] for k in ("name", "chart", "version", "namespace", "repositoryOpts")} == {
        "name": "nvidia-device-plugin",
        "chart": "nvidia-device-plugin",
        "version": "0.20.0",
        "namespace": "kube-system",
        "repositoryOpts": {"repo": "https://nvidia.github.io/k8s-device-plugin"},
    }
    plan = _plan(_aws())
    assert {r.inputs["chart"]: r.inputs["version"] for r in children(plan) if r.type.endswith("Release")} == {
        "nvidia-device-plugin": "0.20.0",
        "dcgm-exporter": "4.8.2",
        "kube-prometheus-stack": "88.5.3",
        "prometheus-adapter": "5.3.0",
        "cluster-autoscaler": "9.59.0",
    }


def test_device_plugin_runs_on_gpu_pools_and_time_slices_the_shared_pool():
    values = _values(_plan(_aws()), "nvidia-device-plugin")
    assert values["tolerations"] == GPU_TOLERATIONS
    term = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term == [
        {
            "matchExpressions": [
                {"key": labels.POOL_LABEL, "operator": "In", "values": ["inference-a10g", "inference-spot-a10g"]}
            ]
        }
    ]
    assert values["config"]["default"] == "default"
    assert yaml.safe_load(values["config"]["map"]["default"]) == {"version": "v1", "flags": {"migStrategy": "none"}}
    assert yaml.safe_load(values["config"]["map"]["inference-a10g"])["sharing"] == {
        "timeSlicing": {
            "renameByDefault": False,
            "failRequestsGreaterThanOne": True,
            "resources": [{"name": "nvidia.com/gpu", "replicas": 4}],
        }
    }


def test_bottlerocket_pools_keep_their_builtin_device_plugin():
    pools = (inference_pool(name="br", aws_ami_type="BOTTLEROCKET_x86_64_NVIDIA"), inference_pool())
    values = _values(_plan(_aws(pools=pools)), "nvidia-device-plugin")
    [term] = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"][0]["values"] == ["inference-a10g"]


def test_dcgm_exporter_runs_on_tainted_gpu_nodes_with_a_service_monitor():
    values = _values(_plan(_aws()), "dcgm-exporter")
    assert values["tolerations"] == GPU_TOLERATIONS
    assert values["serviceMonitor"]["enabled"] is True
    assert values["serviceMonitor"]["honorLabels"] is True
    assert values["serviceMonitor"]["relabelings"] == [
        {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node", "action": "replace"}
    ]


def test_grafana_gets_the_dcgm_dashboard_and_prometheus_selects_every_monitor():
    values = _values(_plan(_aws()), "kube-prometheus-stack")
    assert values["grafana"]["dashboards"] == {
        "gpu": {"nvidia-dcgm-exporter": {"gnetId": 12239, "revision": 1, "datasource": "Prometheus"}}
    }
    assert values["prometheus"]["prometheusSpec"]["serviceMonitorSelectorNilUsesHelmValues"] is False
    assert values["kube-state-metrics"]["metricLabelsAllowlist"] == [f"nodes=[{labels.POOL_LABEL}]"]


def test_adapter_exposes_gpu_utilization_and_memory_ratio_as_pod_metrics():
    values = _values(_plan(_aws()), "prometheus-adapter")
    assert values["prometheus"] == {"url": "http://kube-prometheus-stack-prometheus.monitoring.svc", "port": 9090}
    rules = values["rules"]["custom"]
    assert [(r["seriesQuery"], r["name"]["as"]) for r in rules] == [
        ('DCGM_FI_DEV_GPU_UTIL{namespace!="",pod!=""}', "gpu_utilization"),
        ('DCGM_FI_DEV_FB_USED{namespace!="",pod!=""}', "gpu_memory_utilization"),
    ]
    assert "DCGM_FI_DEV_FB_FREE" in rules[1]["metricsQuery"]
    assert all(r["resources"]["overrides"]["pod"] == {"resource": "pod"} for r in rules)


def test_autoscaler_prefers_spot_then_fallback_and_scales_down():
    values = _values(_plan(_aws()), "cluster-autoscaler")
    assert values["cloudProvider"] == "aws"
    assert values["autoDiscovery"] == {"clusterName": "gpu-dev"}
    # No IRSA annotation: EKS Pod Identity associates this ServiceAccount with its role.
    assert values["rbac"]["serviceAccount"] == {"name": "cluster-autoscaler"}
    assert values["extraArgs"]["expander"] == "priority"
    assert values["extraArgs"]["scale-down-enabled"] == "true"
    # GPU nodes whose pods request under 30 % of their GPUs are scale-down candidates (the idle threshold).
    assert values["extraArgs"]["scale-down-gpu-utilization-threshold"] == "0.3"
    assert values["expanderPriorities"] == PRIORITIES


@pytest.mark.parametrize(("version", "tag"), [("1.35", "v1.35.2"), ("1.36", "v1.36.1")])
def test_the_autoscaler_runs_the_image_of_the_clusters_kubernetes_version(version, tag):
    values = _values(_plan(_aws(kubernetes_version=version)), "cluster-autoscaler")
    assert values["image"] == {"tag": tag}


def test_alert_rules_are_the_monitoring_groups_with_no_info_severity():
    # Their behaviour is tested by promtool (tests/k8s/test_alert_rules.py).
    rule = one(_plan(_aws()), "addons-gpu-alerts")
    assert rule.inputs["metadata"] == {"name": "gpu-alerts", "namespace": "monitoring"}
    assert rule.inputs["spec"] == {"groups": alert_groups()}
    rules = rule.inputs["spec"]["groups"][0]["rules"]
    assert [(r["alert"], r["labels"]["severity"]) for r in rules] == [
        ("GpuPoolIdle", "warning"),
        ("GpuXidError", "critical"),
    ]


SLACK = AlertsSpec(receiver=AlertReceiverKind.SLACK, slack_channel="#gpu-alerts")
URL_FILE = "/etc/alertmanager/secrets/gpucloud-alert-receiver/url"
SILENCED = [
    {"receiver": "null", "matchers": ['alertname = "Watchdog"']},
    {"receiver": "null", "matchers": ['alertname = "InfoInhibitor"']},
]


def test_without_alerts_alertmanager_keeps_the_charts_config():
    values = _values(_plan(_aws()), "kube-prometheus-stack")["alertmanager"]
    assert values == {"alertmanagerSpec": {"nodeSelector": {"gpucloud.io/purpose": "system"}}}


def test_a_slack_receiver_gets_every_alert_with_its_url_from_the_mounted_secret():
    plan = _plan(_aws(alerts=SLACK, alert_receiver_url="https://hooks.slack.example/x"))
    values = _values(plan, "kube-prometheus-stack")["alertmanager"]
    assert values == {
        "alertmanagerSpec": {"nodeSelector": {"gpucloud.io/purpose": "system"}, "secrets": ["gpucloud-alert-receiver"]},
        "serviceAccount": {"name": "alertmanager"},
        "config": {
            "route": {"receiver": "gpucloud", "routes": SILENCED},
            "receivers": [
                {"name": "null"},
                {
                    "name": "gpucloud",
                    "slack_configs": [{"api_url_file": URL_FILE, "channel": "#gpu-alerts", "send_resolved": True}],
                },
            ],
        },
    }
    secret = one(plan, "addons-gpucloud-alert-receiver")
    assert secret.inputs["metadata"] == {"name": "gpucloud-alert-receiver", "namespace": "monitoring"}
    assert secret.inputs["stringData"] == "[secret]"  # the URL stays a Pulumi secret
    stack = one(plan, "addons-kube-prometheus-stack")
    assert secret.urn in stack.dependencies
    assert "hooks.slack.example" not in json.dumps(stack.inputs)
    # Valid once the secret is known (the plan shows only its placeholder).
    kubernetes_validate.validate({**secret.inputs, "stringData": {"url": "u"}}, KUBERNETES_VERSION, strict=True)


def test_a_webhook_receiver_posts_to_the_secret_url():
    alerts = AlertsSpec(receiver=AlertReceiverKind.WEBHOOK)
    config = _values(_plan(_aws(alerts=alerts, alert_receiver_url="https://bridge/x")), "kube-prometheus-stack")
    assert config["alertmanager"]["config"]["receivers"][1] == {
        "name": "gpucloud",
        "webhook_configs": [{"url_file": URL_FILE, "send_resolved": True}],
    }


def test_an_sns_receiver_publishes_in_the_region_and_mounts_no_secret():
    alerts = AlertsSpec(receiver=AlertReceiverKind.SNS, sns_topic_arn="arn:aws:sns:us-east-1:123456789012:alerts")
    plan = _plan(_aws(alerts=alerts))
    values = _values(plan, "kube-prometheus-stack")["alertmanager"]
    assert values["config"]["receivers"][1] == {
        "name": "gpucloud",
        "sns_configs": [
            {
                "topic_arn": "arn:aws:sns:us-east-1:123456789012:alerts",
                "sigv4": {"region": "us-east-1"},
                "send_resolved": True,
            }
        ],
    }
    assert values["serviceAccount"] == {"name": "alertmanager"}
    assert "secrets" not in values["alertmanagerSpec"]
    assert [r for r in children(plan) if r.type == "kubernetes:core/v1:Secret"] == []


def test_a_url_receiver_without_its_url_is_refused():
    message, plan = refused(lambda opts: GpuAddons("addons", _aws(alerts=SLACK), opts=opts))
    assert message == "alertReceiverUrl: required for receiver slack (got null)"
    assert children(plan) == []


def test_monitoring_namespace_is_valid_kubernetes():
    assert_valid(one(_plan(_aws()), "addons-monitoring"))


EXPORTER_POD = json.loads((Path(__file__).parent / "data" / "dcgm-exporter-4.5.2-4.8.1-pod-security.json").read_text())


def _baseline_violations(pod: dict[str, Any]) -> list[str]:
    """What Pod Security ``baseline`` forbids in the exporter pod: hostPath volumes, added capabilities outside its
    allowed set."""
    allowed = set(pod["baselineAllowedCapabilities"]["values"])
    added = set(pod["containerSecurityContext"]["capabilities"]["add"])
    return [f"hostPath {p}" for p in pod["hostPathVolumes"]] + [f"capability {c}" for c in sorted(added - allowed)]


def test_monitoring_namespace_admits_the_exporters_pod_which_baseline_would_refuse():
    plan = _plan(_aws())
    assert _baseline_violations(EXPORTER_POD) == ["hostPath /var/lib/kubelet/pod-resources", "capability SYS_ADMIN"]
    values = one(plan, "addons-dcgm-exporter").inputs["values"]
    overrides = {"securityContext", "podSecurityContext", "kubeletPath", "hostNetwork", "hostPID", "extraHostVolumes"}
    assert not overrides & set(values), "the chart's pod spec (vendored above) is what runs"
    labels = one(plan, "addons-monitoring").inputs["metadata"]["labels"]
    assert labels == {"pod-security.kubernetes.io/enforce": "privileged"}


def test_autoscaler_without_its_aws_inputs_is_refused():
    args = _aws(cluster_name=None, region=None, expander_priorities=None)
    message, plan = refused(lambda opts: GpuAddons("addons", args, opts=opts))
    assert message == (
        "cluster_name: required for the cluster autoscaler on aws (got null)\n"
        "region: required for the cluster autoscaler on aws (got null)\n"
        "expander_priorities: required for the cluster autoscaler on aws (got null)"
    )
    assert children(plan) == []


def test_adapter_without_monitoring_is_refused():
    args = _aws(addons=AddonsSpec(monitoring=False))
    message, plan = refused(lambda opts: GpuAddons("addons", args, opts=opts))
    assert message == "addons.prometheusAdapter: needs monitoring (its Prometheus) (got true)"
    assert children(plan) == []


def test_cluster_wide_addons_run_on_the_system_pool():
    plan = _plan(_aws())
    system = {"gpucloud.io/purpose": "system"}
    assert _values(plan, "cluster-autoscaler")["nodeSelector"] == system
    assert _values(plan, "prometheus-adapter")["nodeSelector"] == system
    stack = _values(plan, "kube-prometheus-stack")
    assert stack["prometheusOperator"]["nodeSelector"] == system
    assert stack["prometheus"]["prometheusSpec"]["nodeSelector"] == system
    assert stack["alertmanager"]["alertmanagerSpec"]["nodeSelector"] == system
    assert stack["grafana"]["nodeSelector"] == system
    assert stack["kube-state-metrics"]["nodeSelector"] == system


@pytest.mark.parametrize("cloud", list(Cloud))
def test_control_plane_targets_the_managed_clouds_hide_are_not_scraped(cloud):
    pools = (inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",)),) if cloud is Cloud.ALICLOUD else ()
    args = _aws(cloud=cloud, pools=pools) if cloud is Cloud.AWS else GpuAddonsArgs(AddonsSpec(), cloud, pools)
    values = _values(_plan(args), "kube-prometheus-stack")
    for target in ("kubeControllerManager", "kubeScheduler", "kubeEtcd", "kubeProxy"):
        assert values[target] == {"enabled": False}, target
    # The API server and the kubelets are reachable on both clouds and stay scraped (chart defaults).
    assert "kubeApiServer" not in values
    assert "kubelet" not in values


def _efa_training_pool():
    return inference_pool(
        name="train-p5", purpose="training", instance_types=("p5.48xlarge",), efa=True, zones=("us-east-1a",)
    )


def test_efa_device_plugin_runs_only_on_the_efa_pools_and_tolerates_their_taints():
    plan = _plan(_aws(pools=(_efa_training_pool(), inference_pool(), spot_group())))
    release = one(plan, "addons-aws-efa-k8s-device-plugin").inputs
    assert (release["chart"], release["version"], release["namespace"]) == (
        "aws-efa-k8s-device-plugin",
        "v0.5.30",
        "kube-system",
    )
    assert release["repositoryOpts"] == {"repo": "https://aws.github.io/eks-charts"}
    assert release["values"] == {
        "tolerations": GPU_TOLERATIONS,
        # Rendered by the chart as nodeAffinity "gpucloud.io/pool In [train-p5]".
        "supportedInstanceLabels": {"keys": [labels.POOL_LABEL], "values": ["train-p5"]},
    }


def test_no_efa_pool_no_efa_device_plugin():
    names = [name for _, name in kinds(_plan(_aws()))]
    assert "addons-aws-efa-k8s-device-plugin" not in names
