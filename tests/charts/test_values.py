"""Every values key path the project sets on a Helm release is a key of the chart at the pinned version."""

from __future__ import annotations

from typing import Any

import pulumi
import pytest

from gpu_cloud.components import versions
from gpu_cloud.components.k8s import GpuAddons, GpuAddonsArgs
from gpu_cloud.components.k8s.queueing import TrainingQueues, TrainingQueuesArgs
from gpu_cloud.components.spec import AddonsSpec, AlertReceiverKind, AlertsSpec, Cloud, TrainingSpec
from gpu_cloud.planner.model import RecordedResource
from tests.charts import TEMPLATE_READS, VendoredChart, vendored
from tests.k8s.conftest import efa_training_pool, inference_pool, run, spot_group
from tests.stacks.test_environments import STACKS, plan

RELEASE = "kubernetes:helm.sh/v3:Release"

RECEIVERS = (
    (AlertsSpec(receiver=AlertReceiverKind.SLACK, slack_channel="#gpu"), "https://hooks.slack.example/x"),
    (AlertsSpec(receiver=AlertReceiverKind.WEBHOOK), "https://bridge.example/x"),
    (AlertsSpec(receiver=AlertReceiverKind.SNS, sns_topic_arn="arn:aws:sns:us-east-1:123456789012:a"), None),
)


def _chart(release: RecordedResource) -> VendoredChart:
    name = str(release.inputs["chart"]).rsplit("/", 1)[-1]
    chart = vendored().get((name, str(release.inputs["version"])))
    assert chart is not None, f"{release.name}: {name} {release.inputs['version']} is not vendored in tests/charts"
    return chart


def _components() -> list[RecordedResource]:
    """The releases of the components with every option that changes values, on both clouds."""
    pools = (inference_pool(gpu_time_slicing_replicas=4), efa_training_pool(), spot_group())
    priorities = {"50": ["^eks-a-spot-x$"], "10": [".*"]}

    def build(opts: pulumi.ResourceOptions) -> None:
        for cloud in Cloud:
            for i, (alerts, url) in enumerate(RECEIVERS):
                args = GpuAddonsArgs(AddonsSpec(), cloud, pools, "gpu-dev", "us-east-1", priorities, alerts, url)
                GpuAddons(f"{cloud.value}-{i}", args, opts=opts)
        GpuAddons("defaults", GpuAddonsArgs(AddonsSpec(), Cloud.AWS, pools, "c", "us-east-1", priorities), opts=opts)
        TrainingQueues("queues", TrainingQueuesArgs(TrainingSpec(), pools), opts=opts)

    return [r for r in run(build).resources if r.type == RELEASE]


def _releases() -> list[tuple[str, RecordedResource]]:
    found = [(stack, r) for stack in STACKS for r in plan(stack).resources if r.type == RELEASE]
    return found + [("components", r) for r in _components()]


def test_every_release_of_every_plan_and_component_sets_only_keys_of_its_pinned_chart() -> None:
    releases = _releases()
    assert {_chart(r).name for _, r in releases} == {c.name for c in versions.CHARTS}
    problems = {f"{where}: {r.name}": _chart(r).undefined(r.inputs["values"]) for where, r in releases}
    assert {k: v for k, v in problems.items() if v} == {}


def test_every_pinned_chart_is_vendored_at_its_version_with_its_source() -> None:
    for pin in versions.CHARTS:
        chart = vendored().get((pin.name, pin.version))
        assert chart is not None, f"{pin.name} {pin.version} not vendored"
        assert chart.source["chart"] == pin.name and chart.source["version"] == pin.version
        assert chart.source["read"] == "2026-12-03"
        for url in chart.source["urls"].values():
            assert url.startswith("https://github.com/") and f"/blob/{chart.source['tag']}/" in url


def test_every_subchart_the_project_sets_values_of_is_vendored_at_its_dependency_version() -> None:
    stack = vendored()[(versions.KUBE_PROMETHEUS_STACK_CHART.name, versions.KUBE_PROMETHEUS_STACK_CHART.version)]
    for key in ("grafana", "kube-state-metrics"):
        sub = stack.subchart(key)
        assert sub is not None, key
        assert sub.source["read"] == "2026-12-03"


def test_every_template_read_is_cited_at_the_charts_pinned_tag() -> None:
    pinned = {name: chart for (name, _), chart in vendored().items()}
    for name, reads in TEMPLATE_READS.items():
        for read in reads:
            assert f"/blob/{pinned[name].source['tag']}/" in read.source, (name, read.pattern)


CHART = "cluster-autoscaler"


def _autoscaler() -> VendoredChart:
    return vendored()[(versions.CLUSTER_AUTOSCALER_CHART.name, versions.CLUSTER_AUTOSCALER_CHART.version)]


@pytest.mark.parametrize(
    ("values", "undefined"),
    [
        ({"autoDiscovery": {"clusterName": "c"}}, []),
        ({"autoDiscovery": {"clusterNames": "c"}}, ["autoDiscovery.clusterNames"]),  # a renamed key
        ({"rbac": {"serviceAccount": {"nam": "x"}}}, ["rbac.serviceAccount.nam"]),
        ({"nodeSelector": {"any/label": "x"}, "extraArgs": {"new-flag": "1"}}, []),  # free-form maps are leaves
        ({"expanderPriorities": {"10": [".*"]}}, []),  # read whole by its template
        ({"awsRegion": {"nested": "x"}}, ["awsRegion.nested"]),  # a scalar key holds no keys
    ],
)
def test_a_key_the_chart_does_not_have_is_reported(values: dict[str, Any], undefined: list[str]) -> None:
    assert _autoscaler().undefined(values) == undefined


def test_subchart_keys_are_checked_against_the_subcharts_values() -> None:
    stack = vendored()[(versions.KUBE_PROMETHEUS_STACK_CHART.name, versions.KUBE_PROMETHEUS_STACK_CHART.version)]
    assert stack.undefined({"grafana": {"dashboardProviders": {"a.yaml": {"x": 1}}, "adminPasword": "x"}}) == [
        "grafana.adminPasword"
    ]
    assert stack.undefined({"grafana": {"dashboards": {"p": {"d": {"gnetId": 1, "gnetID": 2}}}}}) == [
        "grafana.dashboards.p.d.gnetID"
    ]


def test_a_pin_bump_without_vendoring_its_chart_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    bumped = versions.HelmChart(CHART, "9.60.0", versions.CLUSTER_AUTOSCALER_CHART.repo)
    charts = tuple(bumped if c == versions.CLUSTER_AUTOSCALER_CHART else c for c in versions.CHARTS)
    monkeypatch.setattr(versions, "CHARTS", charts)
    with pytest.raises(AssertionError, match=r"cluster-autoscaler 9\.60\.0 not vendored"):
        test_every_pinned_chart_is_vendored_at_its_version_with_its_source()
