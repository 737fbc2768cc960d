"""TrainingQueues: JobSet and Kueue releases, flavors (spot first), team ClusterQueues and LocalQueues, Kueue priorities
equal to the PriorityClasses, gang admission."""

from __future__ import annotations

import yaml

from gpu_cloud.components import versions
from gpu_cloud.components.k8s import TrainingQueues, TrainingQueuesArgs
from gpu_cloud.components.k8s.priority import PRIORITY_VALUES
from gpu_cloud.components.spec import PoolPurpose, QueueSpec, SpotGroupSpec, TrainingSpec
from tests.crds import errors
from tests.k8s.conftest import children, efa_training_pool, kinds, one, run

H100 = efa_training_pool(name="train-h100")
SPOT = SpotGroupSpec(
    name="train-spot", purpose=PoolPurpose.TRAINING, instance_types=("g5.xlarge", "g5.2xlarge"), max_size=8
)
QUEUES = (
    QueueSpec(name="research", gpus={"train-spot": 8, "train-h100": 16}),
    QueueSpec(name="platform", gpus={"train-h100": 8}),
)


def _plan(queues=QUEUES, pools=(H100, SPOT)):
    args = TrainingQueuesArgs(training=TrainingSpec(queues=queues), pools=list(pools))
    return run(lambda opts: TrainingQueues("queues", args, opts=opts))


def test_children_are_the_two_releases_flavors_priorities_and_a_queue_pair_per_team():
    assert sorted(kinds(_plan())) == [
        ("gpucloud:k8s:TrainingQueues", "queues"),
        ("kubernetes:helm.sh/v3:Release", "queues-jobset"),
        ("kubernetes:helm.sh/v3:Release", "queues-kueue"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "queues-clusterqueue-platform"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue", "queues-clusterqueue-research"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "queues-localqueue-platform"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", "queues-localqueue-research"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "queues-resourceflavor-train-h100"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "queues-resourceflavor-train-spot-ondemand"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:ResourceFlavor", "queues-resourceflavor-train-spot-spot"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass", "queues-workloadpriorityclass-gpu-critical"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass", "queues-workloadpriorityclass-gpu-preemptible"),
        ("kubernetes:kueue.x-k8s.io/v1beta2:WorkloadPriorityClass", "queues-workloadpriorityclass-gpu-standard"),
    ]


def test_every_kueue_object_is_valid_for_the_pinned_crds():
    objects = [r.inputs for r in children(_plan()) if "kueue.x-k8s.io" in r.type]
    assert len(objects) == 10
    assert [errors(o) for o in objects] == [[]] * 10


def test_the_charts_are_the_pinned_oci_charts_and_kueue_waits_for_jobset():
    plan = _plan()
    jobset, kueue = one(plan, "queues-jobset"), one(plan, "queues-kueue")
    assert (jobset.inputs["chart"], jobset.inputs["version"]) == (
        "oci://registry.k8s.io/jobset/charts/jobset",
        "0.12.0",
    )
    assert (kueue.inputs["chart"], kueue.inputs["version"]) == ("oci://registry.k8s.io/kueue/charts/kueue", "0.19.2")
    assert (kueue.inputs["namespace"], jobset.inputs["namespace"]) == ("kueue-system", "jobset-system")
    assert jobset.urn in kueue.dependencies
    assert versions.KUEUE_CHART.version == "0.19.2"


def test_kueue_admits_a_job_whole_and_requeues_it_when_its_pods_are_not_all_ready_in_time():
    values = one(_plan(), "queues-kueue").inputs["values"]
    config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    assert config["apiVersion"] == "config.kueue.x-k8s.io/v1beta2"
    assert config["waitForPodsReady"] == {
        "timeout": "20m",
        "blockAdmission": True,
        "requeuingStrategy": {"timestamp": "Eviction", "backoffBaseSeconds": 60, "backoffMaxSeconds": 3600},
    }
    assert config["integrations"] == {"frameworks": ["batch/job", "jobset.x-k8s.io/jobset"]}
    assert config["webhook"] == {"port": 9443}


def test_a_spot_group_has_a_tainted_spot_flavor_and_an_on_demand_fall_back():
    plan = _plan()
    assert one(plan, "queues-resourceflavor-train-spot-spot").inputs["spec"] == {
        "nodeLabels": {"gpucloud.io/pool": "train-spot", "gpucloud.io/capacity": "spot"},
        "nodeTaints": [{"key": "gpucloud.io/capacity", "value": "spot", "effect": "NoSchedule"}],
    }
    assert one(plan, "queues-resourceflavor-train-spot-ondemand").inputs["spec"] == {
        "nodeLabels": {"gpucloud.io/pool": "train-spot", "gpucloud.io/capacity": "on-demand"}
    }
    assert one(plan, "queues-resourceflavor-train-h100").inputs["spec"] == {
        "nodeLabels": {"gpucloud.io/pool": "train-h100"}
    }


def test_the_team_queue_tries_spot_before_on_demand_with_the_team_quota_on_each():
    spec = one(_plan(), "queues-clusterqueue-research").inputs["spec"]
    assert spec["resourceGroups"] == [
        {
            "coveredResources": ["nvidia.com/gpu"],
            "flavors": [
                {"name": "train-spot-spot", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8}]},
                {"name": "train-spot-ondemand", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8}]},
                {"name": "train-h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16}]},
            ],
        }
    ]
    assert spec["cohortName"] == "gpu-training"
    assert spec["namespaceSelector"] == {"matchLabels": {"kubernetes.io/metadata.name": "gpu-training"}}


def test_critical_jobs_preempt_lower_priority_jobs_and_reclaim_lent_quota():
    spec = one(_plan(), "queues-clusterqueue-platform").inputs["spec"]
    assert spec["preemption"] == {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"}


def test_kueue_priorities_are_the_priority_classes_names_and_values():
    plan = _plan()
    for name, value in PRIORITY_VALUES.items():
        inputs = one(plan, f"queues-workloadpriorityclass-{name}").inputs
        assert (inputs["metadata"], inputs["value"]) == ({"name": name}, value)
    assert PRIORITY_VALUES["gpu-critical"] > PRIORITY_VALUES["gpu-standard"] > PRIORITY_VALUES["gpu-preemptible"]


def test_each_team_has_a_local_queue_in_the_training_namespace():
    inputs = one(_plan(), "queues-localqueue-platform").inputs
    assert inputs["metadata"] == {"name": "platform", "namespace": "gpu-training"}
    assert inputs["spec"] == {"clusterQueue": "platform"}


def test_only_pools_a_queue_uses_get_flavors():
    plan = _plan(queues=(QueueSpec(name="solo", gpus={"train-h100": 8}),))
    flavors = [r.name for r in children(plan) if r.type.endswith(":ResourceFlavor")]
    assert flavors == ["queues-resourceflavor-train-h100"]
