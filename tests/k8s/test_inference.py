from types import SimpleNamespace

import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.k8s import InferenceService, InferenceServiceArgs
from gpu_cloud.components.spec import Cloud, GpuMetric
from tests.k8s.conftest import (
    assert_valid,
    children,
    inference_pool,
    kinds,
    one,
    refused,
    run,
    service,
    spot_group,
)


def _plan(spec=None, pool=None, cloud=Cloud.AWS):
    args = InferenceServiceArgs(service=spec or service(), pool=pool or inference_pool(), cloud=cloud)
    return run(lambda opts: InferenceService("resnet", args, opts=opts))


def _pod(plan):
    return one(plan, "resnet-deployment").inputs["spec"]["template"]["spec"]


def test_children_are_deployment_pdb_service_and_hpa():
    assert sorted(kinds(_plan())) == [
        ("gpucloud:k8s:InferenceService", "resnet"),
        ("kubernetes:apps/v1:Deployment", "resnet-deployment"),
        ("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "resnet-hpa"),
        ("kubernetes:core/v1:Service", "resnet-service"),
        ("kubernetes:policy/v1:PodDisruptionBudget", "resnet-pdb"),
    ]


def test_default_image_is_tensorflow_serving_gpu_serving_the_model_uri():
    [container] = _pod(_plan())["containers"]
    assert container["image"] == "tensorflow/serving:2.18.0-gpu"
    assert container["command"] == ["tensorflow_model_server"]
    assert container["args"] == [
        "--model_name=resnet",
        "--model_base_path=s3://models/resnet",
        "--rest_api_port=8501",
        "--port=8500",
    ]


def test_container_limits_gpus_and_probes_the_serving_port():
    [container] = _pod(_plan(service(gpus_per_replica=2)))["containers"]
    assert container["resources"] == {"limits": {"nvidia.com/gpu": "2"}}
    assert container["readinessProbe"]["httpGet"] == {"path": "/v1/models/resnet", "port": 8501}
    assert container["livenessProbe"]["tcpSocket"] == {"port": 8501}


def test_custom_image_gets_tcp_probes_and_the_model_uri_in_its_environment():
    [container] = _pod(_plan(service(image="registry.example/llm:1.0")))["containers"]
    assert container["image"] == "registry.example/llm:1.0"
    assert "command" not in container
    assert container["readinessProbe"]["tcpSocket"] == {"port": 8501}
    assert {"name": "MODEL_URI", "value": "s3://models/resnet"} in container["env"]


def test_pods_run_as_non_root_without_privilege():
    pod = _pod(_plan())
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 1000
    assert pod["containers"][0]["securityContext"] == {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }


def test_on_demand_pool_tolerates_only_the_gpu_taint_and_selects_its_pool():
    pod = _pod(_plan())
    assert pod["nodeSelector"] == {labels.POOL_LABEL: "inference-a10g"}
    assert pod["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert pod["priorityClassName"] == labels.PRIORITY_STANDARD


def test_spot_group_also_tolerates_the_spot_taint_and_is_preemptible():
    pod = _pod(_plan(service(pool="inference-spot-a10g"), spot_group()))
    assert pod["nodeSelector"] == {labels.POOL_LABEL: "inference-spot-a10g"}
    assert pod["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": labels.SPOT_TAINT_KEY, "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
    ]
    assert pod["priorityClassName"] == labels.PRIORITY_PREEMPTIBLE


def test_disruption_budget_lets_one_pod_go_at_a_time():
    spec = one(_plan(), "resnet-pdb").inputs["spec"]
    assert spec == {
        "maxUnavailable": 1,
        "selector": {"matchLabels": {"app.kubernetes.io/name": "resnet", "app.kubernetes.io/part-of": "gpucloud"}},
    }


def test_service_is_cluster_ip_by_default():
    inputs = one(_plan(), "resnet-service").inputs
    assert inputs["spec"]["type"] == "ClusterIP"
    assert "annotations" not in inputs["metadata"]


@pytest.mark.parametrize(
    ("cloud", "pool", "annotations"),
    [
        (
            Cloud.AWS,
            inference_pool(),
            {
                "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
                "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
            },
        ),
        (
            Cloud.ALICLOUD,
            inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",)),
            {"service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type": "intranet"},
        ),
    ],
)
def test_internal_load_balancer_carries_the_clouds_internal_annotations(cloud, pool, annotations):
    inputs = one(_plan(service(internal_load_balancer=True), pool, cloud), "resnet-service").inputs
    assert inputs["spec"]["type"] == "LoadBalancer"
    assert inputs["metadata"]["annotations"] == annotations


def test_hpa_follows_gpu_utilization_at_seventy_percent_by_default():
    spec = one(_plan(service(min_replicas=2, max_replicas=6)), "resnet-hpa").inputs["spec"]
    assert spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "resnet"}
    assert (spec["minReplicas"], spec["maxReplicas"]) == (2, 6)
    assert spec["metrics"] == [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "gpu_utilization"}, "target": {"type": "AverageValue", "averageValue": "70"}},
        }
    ]


def test_hpa_can_follow_gpu_memory():
    spec = one(_plan(service(metric=GpuMetric.MEMORY, target_percent=80)), "resnet-hpa").inputs["spec"]
    assert spec["metrics"][0]["pods"]["metric"] == {"name": "gpu_memory_utilization"}
    assert spec["metrics"][0]["pods"]["target"]["averageValue"] == "80"


def test_time_sliced_aws_pool_requests_a_gpu_replica():
    pool = inference_pool(gpu_time_slicing_replicas=4)
    [container] = _pod(_plan(pool=pool))["containers"]
    assert container["resources"] == {"limits": {"nvidia.com/gpu": "1"}}


def test_shared_ack_pool_requests_its_share_of_gpu_memory(monkeypatch):
    monkeypatch.setattr(
        "gpu_cloud.components.k8s.inference.lookup", lambda cloud, name: SimpleNamespace(gpu_memory_gib=24.0)
    )
    pool = inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",), gpu_time_slicing_replicas=4)
    [container] = _pod(_plan(pool=pool, cloud=Cloud.ALICLOUD))["containers"]
    assert container["resources"] == {"limits": {"aliyun.com/gpu-mem": "6"}}


def test_every_inference_object_is_valid_kubernetes():
    for resource in children(_plan(service(internal_load_balancer=True)))[1:]:
        assert_valid(resource)


def test_driver_too_old_for_the_cuda_version_is_refused_before_registering():
    ack_pool = inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",))
    args = InferenceServiceArgs(service=service(cuda_version="12.4"), pool=ack_pool, cloud=Cloud.ALICLOUD)
    message, plan = refused(lambda opts: InferenceService("resnet", args, opts=opts))
    assert message == (
        "cudaVersion: inference service 'resnet' needs CUDA 12.4, but pool 'inference-a10g' runs NVIDIA driver 535"
        " (ACK GPU node image), which runs CUDA up to 12.2; CUDA 12.4 needs driver 550.54.14 or later (got 12.4)"
    )
    assert children(plan) == []


def test_wrong_pool_and_training_pool_are_refused():
    training = inference_pool(name="train-a100", purpose="training", instance_types=("p4d.24xlarge",))
    args = InferenceServiceArgs(service=service(), pool=training, cloud=Cloud.AWS)
    message, plan = refused(lambda opts: InferenceService("resnet", args, opts=opts))
    assert message == (
        "pool: inference service 'resnet' runs on pool 'inference-a10g' (got train-a100)\n"
        "pool.purpose: pool 'train-a100' is not an inference pool (got training)"
    )
    assert children(plan) == []
