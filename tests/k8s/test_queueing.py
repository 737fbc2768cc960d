"""TrainingQueues: JobSet and Kueue releases, flavors (spot first), team ClusterQueues and LocalQueues, Kueue priorities
equal to the PriorityClasses, gang admission."""

from __future__ import annotations

import yaml

from gpu_cloud.components import versions
from gpu_cloud.components.k8s import TrainingQueues, TrainingQueuesArgs
from gpu_cloud.components.k8s.priority import PRIORITY_VALUES
from gpu_cloud.components.spec import Cloud, PoolPurpose, QueueSpec, SpotGroupSpec, TrainingSpec
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


def _kueue_manages(config: dict[str, object], namespace_labels: dict[str, str], job_labels: dict[str, str]) -> bool:
    """Whether Kueue v0.19.2 manages a batch Job or JobSet (apis/config/v1beta2/configuration_types.go): one with a
    queue-name label always; one without only when ManageJobsWithoutQueueName is true and its namespace matches
    ManagedJobsNamespaceSelector (matchLabels here). A managed job without a queue is suspended and never started;
    an unmanaged one starts at once, outside every quota."""
    if "kueue.x-k8s.io/queue-name" in job_labels:
        return True
    selector = config.get("managedJobsNamespaceSelector")
    matches = selector is None or all(
        namespace_labels.get(k) == v
        for k, v in selector["matchLabels"].items()  # type: ignore[index]
    )
    return bool(config.get("manageJobsWithoutQueueName")) and matches


def test_a_job_without_a_queue_is_held_in_every_gpu_namespace_and_nowhere_else(access):
    from gpu_cloud.components.k8s import GpuRbac, GpuRbacArgs
    from gpu_cloud.components.spec import Cloud

    values = one(_plan(), "queues-kueue").inputs["values"]
    config = yaml.safe_load(values["managerConfig"]["controllerManagerConfigYaml"])
    rbac = run(lambda opts: GpuRbac("rbac", GpuRbacArgs(access=access, cloud=Cloud.AWS), opts=opts))
    namespaces = [r.inputs["metadata"] for r in children(rbac) if r.type == "kubernetes:core/v1:Namespace"]
    assert len(namespaces) == 2
    for namespace in namespaces:
        # Kueue suspends it; with no LocalQueue named it is never admitted.
        assert _kueue_manages(config, namespace["labels"], {}), namespace["name"]
    assert not _kueue_manages(config, {"kubernetes.io/metadata.name": "monitoring"}, {})


def _acceptance_plan(pools=(H100, SPOT), queues=QUEUES, cloud=Cloud.AWS):
    training = TrainingSpec(queues=queues, acceptance_pools=("train-h100",))
    args = TrainingQueuesArgs(training=training, pools=list(pools), cloud=cloud)
    return run(lambda opts: TrainingQueues("queues", args, opts=opts))


def test_acceptance_tests_have_a_queue_of_their_own_with_one_tests_gpus_lending_nothing():
    plan = _acceptance_plan()
    queue = one(plan, "queues-clusterqueue-gpucloud-acceptance").inputs
    assert queue["spec"] == {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gpu-training"}},
        "queueingStrategy": "BestEffortFIFO",
        "resourceGroups": [
            {
                "coveredResources": ["nvidia.com/gpu"],
                # Two nodes of 8 H100s.
                "flavors": [{"name": "train-h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16}]}],
            }
        ],
    }
    assert "cohortName" not in queue["spec"]
    local = one(plan, "queues-localqueue-gpucloud-acceptance").inputs
    assert local["metadata"] == {"name": "gpucloud-acceptance", "namespace": "gpu-training"}
    assert local["spec"] == {"clusterQueue": "gpucloud-acceptance"}
    assert errors(queue) == [] and errors(local) == []


def test_an_acceptance_pool_no_team_uses_still_gets_its_flavor():
    plan = _acceptance_plan(queues=(QueueSpec(name="research", gpus={"train-spot": 8}),))
    assert one(plan, "queues-resourceflavor-train-h100").inputs["spec"] == {
        "nodeLabels": {"gpucloud.io/pool": "train-h100"}
    }


def test_a_team_queue_cannot_take_the_acceptance_queues_name():
    from tests.k8s.conftest import refused

    taken = (QueueSpec(name="gpucloud-acceptance", gpus={"train-h100": 8}),)
    message, plan = refused(
        lambda opts: TrainingQueues(
            "queues",
            TrainingQueuesArgs(
                training=TrainingSpec(queues=taken, acceptance_pools=("train-h100",)), pools=[H100], cloud=Cloud.AWS
            ),
            opts=opts,
        )
    )
    assert message == "training.queues.0.name: reserved for the acceptance tests (got gpucloud-acceptance)"
    assert [r for r in plan.resources if "Queue" in r.type] == []
