"""The vLLM server kind (issue 25 item 2): the pinned image serving the model staged from the environment's bucket
with the pod's own identity, capped to the replica's GPU memory, tensor-parallel over the replica's GPUs, probed on
/health, scraped by a PodMonitor and scaled on its requests; on an ACK cGPU pool, the GPU memory it requests."""

from __future__ import annotations

from typing import Any

import pytest

from gpu_cloud.components import versions
from gpu_cloud.components.k8s import InferenceService
from gpu_cloud.components.spec import Cloud, GpuMetric, GpuNodePoolSpec, InferenceServiceSpec, ModelServer
from tests.crds import errors
from tests.k8s.conftest import assert_valid, children, inference_pool, kinds, one, refused, run
from tests.k8s.test_inference import _args as inference_args

ACK_POOL = {"instance_types": ("ecs.gn7i-c8g1.2xlarge",)}


def llm(**changes: Any) -> InferenceServiceSpec:
    """A service of the default server kind."""
    fields: dict[str, Any] = {"name": "llm", "pool": "inference-a10g", "model_source": "models/qwen2.5-7b-instruct"}
    return InferenceServiceSpec(**(fields | changes))


def _args(spec: InferenceServiceSpec, pool: Any = None, cloud: Cloud = Cloud.AWS, **changes: Any) -> Any:
    """test_inference's arguments, with the service's own RRSA role on ACK."""
    if cloud is Cloud.ALICLOUD:
        changes.setdefault("identity_role", "env-llm-inference")
    return inference_args(spec, pool, cloud, **changes)


def _plan(spec: InferenceServiceSpec, pool: Any = None, cloud: Cloud = Cloud.AWS, **changes: Any) -> Any:
    args = _args(spec, pool, cloud, **changes)
    return run(lambda opts: InferenceService("llm", args, opts=opts))


def _server(plan: Any) -> dict[str, Any]:
    [container] = one(plan, "llm-deployment").inputs["spec"]["template"]["spec"]["containers"]
    return dict(container)


def test_vllm_is_the_default_server_and_runs_the_pinned_image() -> None:
    spec = llm()
    assert spec.server is ModelServer.VLLM
    assert spec.serving_port == 8000
    container = _server(_plan(spec))
    # The EKS AL2023 NVIDIA AMI's pinned release ships driver 580, which runs vLLM's CUDA 13.0 build.
    assert container["image"] == versions.VLLM_IMAGES["13.0"] == "vllm/vllm-openai:v0.31.0"
    # The image's entrypoint is `vllm serve`: the arguments follow it.
    assert "command" not in container
    assert container["args"] == [
        "/models/llm",
        "--served-model-name=llm",
        "--host=0.0.0.0",
        "--port=8000",
        "--gpu-memory-utilization=0.900",
        "--tensor-parallel-size=1",
    ]
    assert container["ports"] == [{"name": "http", "containerPort": 8000, "protocol": "TCP"}]


def test_children_add_the_pod_monitor() -> None:
    assert ("kubernetes:monitoring.coreos.com/v1:PodMonitor", "llm-pod-monitor") in kinds(_plan(llm()))


def test_tensor_parallelism_is_the_replicas_gpus() -> None:
    pool = inference_pool(instance_types=("g5.12xlarge",))
    container = _server(_plan(llm(gpus_per_replica=4), pool))
    assert "--tensor-parallel-size=4" in container["args"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "4"


@pytest.mark.parametrize(
    ("changes", "pool", "fraction"),
    [
        # The whole A10G (22 GiB): 90 % of it.
        ({}, {}, "0.900"),
        # 11 of its 22 GiB: the other half stays free.
        ({"gpu_memory_gib": 11}, {}, "0.450"),
        # Time-sliced by 2 on AWS (no isolation): each replica takes its half.
        ({}, {"gpu_time_slicing_replicas": 2}, "0.450"),
    ],
)
def test_vllm_takes_only_its_replicas_gpu_memory(changes: dict[str, Any], pool: dict[str, Any], fraction: str) -> None:
    container = _server(_plan(llm(**changes), inference_pool(**pool)))
    assert f"--gpu-memory-utilization={fraction}" in container["args"]


def test_on_an_ack_cgpu_pool_vllm_requests_its_gpu_memory_and_takes_what_it_sees() -> None:
    """cGPU shows the container only the aliyun.com/gpu-mem it requested, so vLLM's fraction is of those 10 GiB."""
    pool = inference_pool(**ACK_POOL, gpu_time_slicing_replicas=2)
    plan = _plan(llm(gpu_memory_gib=10), pool, Cloud.ALICLOUD)
    container = _server(plan)
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "4Gi", "aliyun.com/gpu-mem": "10"}
    assert "--gpu-memory-utilization=0.900" in container["args"]
    pod = one(plan, "llm-deployment").inputs["spec"]["template"]
    assert pod["metadata"] == {"labels": {"app.kubernetes.io/name": "llm", "app.kubernetes.io/part-of": "gpucloud"}}


def test_probes_ask_vllm_health() -> None:
    container = _server(_plan(llm()))
    health = {"path": "/health", "port": "http"}
    assert container["startupProbe"] == {"httpGet": health, "periodSeconds": 10, "failureThreshold": 60}
    assert container["readinessProbe"] == {"httpGet": health, "periodSeconds": 10, "failureThreshold": 3}
    assert container["livenessProbe"] == {"httpGet": health, "periodSeconds": 20, "failureThreshold": 3}


def test_vllm_runs_offline_as_non_root_with_its_shared_memory() -> None:
    plan = _plan(llm())
    container = _server(plan)
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env == {
        "MODEL_NAME": "llm",
        "MODEL_BASE_PATH": "/models",
        "HOME": "/tmp",
        "HF_HUB_OFFLINE": "1",
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "USER": "vllm",
    }
    assert {"name": "dshm", "mountPath": "/dev/shm"} in container["volumeMounts"]
    pod = one(plan, "llm-deployment").inputs["spec"]["template"]["spec"]
    assert {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "2Gi"}} in pod["volumes"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True


@pytest.mark.parametrize(
    ("cloud", "store"),
    [(Cloud.AWS, {"MODEL_STORE": "s3", "AWS_REGION": "us-east-1"}), (Cloud.ALICLOUD, {"MODEL_STORE": "oss"})],
)
def test_the_model_directory_is_staged_flat_with_the_pods_own_identity(cloud: Cloud, store: dict[str, str]) -> None:
    """As for TensorFlow Serving: the init container copies the model from the environment's bucket with the pod's
    credentials (EKS Pod Identity for the ServiceAccount ``llm``; on ACK the RRSA role annotation); vLLM loads one
    Hugging Face directory, so the version is staged as /models/llm itself."""
    pool = inference_pool(**ACK_POOL) if cloud is Cloud.ALICLOUD else None
    plan = _plan(llm(model_version=2), pool, cloud)
    pod = one(plan, "llm-deployment").inputs["spec"]["template"]["spec"]
    [stage] = pod["initContainers"]
    env = {e["name"]: e["value"] for e in stage["env"]}
    assert env["MODEL_LAYOUT"] == "flat" and env["MODEL_FORMAT"] == "huggingface"
    assert (env["MODEL_PREFIX"], env["MODEL_VERSION"], env["MODEL_NAME"]) == ("models/qwen2.5-7b-instruct", "2", "llm")
    assert store.items() <= env.items()
    assert pod["serviceAccountName"] == "llm"
    account = one(plan, "llm-service-account").inputs["metadata"]
    if cloud is Cloud.ALICLOUD:
        assert account["annotations"] == {"pod-identity.alibabacloud.com/role-name": "env-llm-inference"}
    else:
        assert "annotations" not in account


def test_the_hpa_follows_running_and_waiting_requests() -> None:
    spec = one(_plan(llm(min_replicas=2, max_replicas=8, target_requests_running=24)), "llm-hpa").inputs["spec"]
    assert spec["metrics"] == [
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "vllm_requests_running"},
                "target": {"type": "AverageValue", "averageValue": "24"},
            },
        },
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "vllm_requests_waiting"},
                "target": {"type": "AverageValue", "averageValue": "5"},
            },
        },
    ]


def test_vllm_can_scale_on_gpu_utilization_instead() -> None:
    spec = one(_plan(llm(metric=GpuMetric.UTILIZATION)), "llm-hpa").inputs["spec"]
    assert [m["pods"]["metric"]["name"] for m in spec["metrics"]] == ["gpu_utilization"]


def test_the_pod_monitor_scrapes_the_servers_metrics_and_is_a_valid_pod_monitor() -> None:
    monitor = one(_plan(llm()), "llm-pod-monitor").inputs
    assert monitor["metadata"] == {
        "name": "llm",
        "namespace": "gpu-inference",
        "labels": {"app.kubernetes.io/name": "llm", "app.kubernetes.io/part-of": "gpucloud"},
    }
    assert monitor["spec"] == {
        "selector": {"matchLabels": {"app.kubernetes.io/name": "llm", "app.kubernetes.io/part-of": "gpucloud"}},
        "podMetricsEndpoints": [{"port": "http", "path": "/metrics", "interval": "15s"}],
    }
    assert errors(dict(monitor)) == []


def test_the_internal_endpoint_is_a_tls_1_3_listener_like_tensorflow_servings() -> None:
    cert = "arn:aws:acm:us-east-1:123456789012:certificate/0b7c3a6e-2f4d-4e1a-9c8b-5d6e7f8a9b0c"
    plan = _plan(llm(internal_load_balancer=True, tls_certificate=cert), client_cidrs=["10.20.0.0/16"])
    service = one(plan, "llm-service").inputs
    annotations = service["metadata"]["annotations"]
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy"] == (
        "ELBSecurityPolicy-TLS13-1-3-2021-06"
    )
    assert service["spec"]["ports"] == [{"name": "https", "port": 443, "targetPort": "http", "protocol": "TCP"}]
    assert service["spec"]["loadBalancerSourceRanges"] == ["10.20.0.0/16"]
    for resource in children(plan)[1:]:
        if resource.type.startswith("kubernetes:monitoring.coreos.com"):
            continue
        assert_valid(resource)


def test_the_cuda_13_build_is_refused_on_a_cuda_12_driver() -> None:
    """The unsuffixed tag is vLLM's CUDA 13.0 build: forward compatibility does not cross a major release, so ACK's
    pinned 570.169 cannot run it."""
    spec, pool = llm(image="vllm/vllm-openai:v0.31.0"), inference_pool(**ACK_POOL)
    args = _args(spec, pool, Cloud.ALICLOUD, driver_version=versions.ACK_NVIDIA_DRIVER_VERSION)
    message, plan = refused(lambda opts: InferenceService("llm", args, opts=opts))
    assert message == (
        "image: inference service 'llm' needs CUDA 13.0 (vllm/vllm-openai:v0.31.0), which runs through forward "
        "compatibility on drivers of CUDA 13 (from 580.65.06), but pool 'inference-a10g' runs NVIDIA driver 570 "
        "(ACK GPU node image) (got vllm/vllm-openai:v0.31.0)"
    )
    assert children(plan) == []


@pytest.mark.parametrize(
    ("cloud", "pool", "driver"),
    [
        (Cloud.ALICLOUD, inference_pool(**ACK_POOL), versions.ACK_NVIDIA_DRIVER_VERSION),
        (Cloud.ALICLOUD, inference_pool(**ACK_POOL), "550.144.03"),
        (Cloud.AWS, inference_pool(aws_ami_type="BOTTLEROCKET_x86_64_NVIDIA"), None),
    ],
)
def test_the_default_image_on_a_cuda_12_driver_is_the_cuda_12_9_build(
    cloud: Cloud, pool: GpuNodePoolSpec, driver: str | None
) -> None:
    """ACK's pinned 570 and 550 and Bottlerocket's 570 are older than CUDA 13.0's 580 and CUDA 12.9's 575 but of CUDA
    12: the CUDA 12.9 build's compat libraries run it on a data center GPU."""
    container = _server(_plan(llm(), pool, cloud, driver_version=driver))
    assert container["image"] == versions.VLLM_IMAGES["12.9"] == "vllm/vllm-openai:v0.31.0-cu129"


def test_a_named_image_replaces_the_build_the_driver_would_get() -> None:
    container = _server(_plan(llm(image="vllm/vllm-openai:v0.31.0-cu129")))
    assert container["image"] == "vllm/vllm-openai:v0.31.0-cu129"


def test_a_driver_older_than_cuda_12_is_refused_for_the_cuda_12_9_build() -> None:
    args = _args(llm(), inference_pool(**ACK_POOL), Cloud.ALICLOUD, driver_version="470.199.02")
    message, _ = refused(lambda opts: InferenceService("llm", args, opts=opts))
    assert message == (
        "image: inference service 'llm' needs CUDA 12.9 (vllm/vllm-openai:v0.31.0-cu129), which runs through "
        "forward compatibility on drivers of CUDA 12 (from 525.60.13), but pool 'inference-a10g' runs NVIDIA driver "
        "470 (ACK GPU node image) (got vllm/vllm-openai:v0.31.0-cu129)"
    )
