"""ClusterAutoscaling: ACK's cluster-level autoscaler, spot pools ranked above their fall-backs, idle GPUs at 30 %."""

from __future__ import annotations

from gpu_cloud.components.alicloud import ClusterAutoscaling, ClusterAutoscalingArgs
from tests.alicloud.support import component, custom, plan_of

CONFIG = "alicloud:cs/autoscalingConfig:AutoscalingConfig"


def _inputs(args: ClusterAutoscalingArgs) -> dict:  # type: ignore[type-arg]
    plan = plan_of(lambda: ClusterAutoscaling("prod-autoscaling", args))
    component(plan, "gpucloud:alicloud:ClusterAutoscaling")
    [config] = custom(plan)
    assert (config.type, config.name) == (CONFIG, "prod-autoscaling-autoscaling")
    return config.inputs


def test_cluster_autoscaling_is_on_with_the_priority_expander_and_the_idle_gpu_threshold() -> None:
    inputs = _inputs(
        ClusterAutoscalingArgs(cluster_id="c-1", spot_groups=[("asg-spot", "asg-od")], other_pools=["asg-sys"])
    )
    assert inputs == {
        "clusterId": "c-1",
        "scalerType": "cluster-autoscaler",
        "expander": "priority",
        # Each spot pool strictly above its own fall-back; every other pool listed so the expander uses it.
        "priorities": {"50": "asg-spot", "20": "asg-od", "10": "asg-sys"},
        "scaleUpFromZero": True,
        "scaleDownEnabled": True,
        "utilizationThreshold": "0.5",
        "gpuUtilizationThreshold": "0.3",
        "unneededDuration": "10m",
        "coolDownDuration": "10m",  # equal to unneededDuration: the provider's Read swaps the two
    }


def test_several_spot_groups_share_the_levels_and_a_group_without_fall_back_adds_none() -> None:
    args = ClusterAutoscalingArgs(
        cluster_id="c-1", spot_groups=[("asg-a", "asg-a-od"), ("asg-b", None)], other_pools=["asg-sys", "asg-train"]
    )
    assert _inputs(args)["priorities"] == {"50": "asg-a,asg-b", "20": "asg-a-od", "10": "asg-sys,asg-train"}
