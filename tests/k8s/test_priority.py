from gpu_cloud.components.k8s import PriorityClasses
from tests.k8s.conftest import assert_valid, children, kinds, one, run


def _plan():
    return run(lambda opts: PriorityClasses("prio", opts=opts))


def test_three_priority_classes_under_the_component():
    plan = _plan()
    assert sorted(kinds(plan)) == sorted(
        [
            ("gpucloud:k8s:PriorityClasses", "prio"),
            ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "prio-gpu-critical"),
            ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "prio-gpu-standard"),
            ("kubernetes:scheduling.k8s.io/v1:PriorityClass", "prio-gpu-preemptible"),
        ]
    )
    component = one(plan, "prio")
    assert all(r.parent == component.urn for r in children(plan)[1:])


def test_critical_class_is_one_million_and_not_global_default():
    inputs = one(_plan(), "prio-gpu-critical").inputs
    assert inputs["metadata"]["name"] == "gpu-critical"
    assert inputs["value"] == 1000000
    assert inputs["globalDefault"] is False
    assert inputs["preemptionPolicy"] == "PreemptLowerPriority"


def test_preemptible_class_is_low_and_never_preempts():
    inputs = one(_plan(), "prio-gpu-preemptible").inputs
    assert (inputs["value"], inputs["preemptionPolicy"], inputs["globalDefault"]) == (1000, "Never", False)


def test_standard_class_sits_between():
    assert one(_plan(), "prio-gpu-standard").inputs["value"] == 100000


def test_every_priority_class_is_valid_kubernetes():
    for resource in children(_plan())[1:]:
        assert_valid(resource)
