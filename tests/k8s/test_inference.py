from types import SimpleNamespace

import pytest

from gpu_cloud.components import labels
from gpu_cloud.components.k8s import InferenceService, InferenceServiceArgs
from gpu_cloud.components.k8s.inference import STAGE_MODEL_SCRIPT
from gpu_cloud.components.spec import Cloud, GpuMetric, ModelServer
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

ACK_POOL = {"instance_types": ("ecs.gn7i-c8g1.2xlarge",)}
CERT = "arn:aws:acm:us-east-1:123456789012:certificate/0b7c3a6e-2f4d-4e1a-9c8b-5d6e7f8a9b0c"
APP = {"app.kubernetes.io/name": "resnet", "app.kubernetes.io/part-of": "gpucloud"}


def _args(spec=None, pool=None, cloud=Cloud.AWS, **changes):
    fields = {
        "service": spec or service(),
        "pool": pool or inference_pool(),
        "cloud": cloud,
        "model_bucket": "gpucloud-env-ckpt",
        "region": "us-east-1" if cloud is Cloud.AWS else "cn-hangzhou",
    }
    if cloud is Cloud.ALICLOUD:
        fields["identity_role"] = "env-resnet-inference"
    return InferenceServiceArgs(**(fields | changes))


def _plan(spec=None, pool=None, cloud=Cloud.AWS, **changes):
    args = _args(spec, pool, cloud, **changes)
    return run(lambda opts: InferenceService("resnet", args, opts=opts))


def _ack_tls(spec=None):
    return _plan(
        spec or service(internal_load_balancer=True, tls_certificate="1234-cn-hangzhou"),
        inference_pool(**ACK_POOL),
        Cloud.ALICLOUD,
        tls_policy="sp-tls13",
        zone_maps="cn-hangzhou-h:vsw-1,cn-hangzhou-i:vsw-2",
    )


def _pod(plan):
    return one(plan, "resnet-deployment").inputs["spec"]["template"]["spec"]


def test_children_are_service_account_deployment_pdb_service_and_hpa():
    assert sorted(kinds(_plan())) == [
        ("gpucloud:k8s:InferenceService", "resnet"),
        ("kubernetes:apps/v1:Deployment", "resnet-deployment"),
        ("kubernetes:autoscaling/v2:HorizontalPodAutoscaler", "resnet-hpa"),
        ("kubernetes:core/v1:Service", "resnet-service"),
        ("kubernetes:core/v1:ServiceAccount", "resnet-service-account"),
        ("kubernetes:policy/v1:PodDisruptionBudget", "resnet-pdb"),
    ]


def test_default_image_is_tensorflow_serving_gpu_serving_the_staged_model():
    [container] = _pod(_plan())["containers"]
    assert container["image"] == "tensorflow/serving:2.18.1-gpu"
    assert container["command"] == ["tensorflow_model_server"]
    assert container["args"] == [
        "--model_name=resnet",
        "--model_base_path=/models/resnet",
        "--rest_api_port=8501",
        "--port=8500",
    ]
    assert container["env"] == [
        {"name": "MODEL_NAME", "value": "resnet"},
        {"name": "MODEL_BASE_PATH", "value": "/models"},
    ]
    assert container["volumeMounts"] == [
        {"name": "models", "mountPath": "/models", "readOnly": True},
        {"name": "tmp", "mountPath": "/tmp"},
    ]


def test_startup_and_readiness_ask_tensorflow_serving_for_the_model():
    [container] = _pod(_plan(service(model_name="resnet50")))["containers"]
    served = {"path": "/v1/models/resnet50", "port": "http"}
    assert container["startupProbe"] == {"httpGet": served, "periodSeconds": 10, "failureThreshold": 60}
    assert container["readinessProbe"] == {"httpGet": served, "periodSeconds": 10, "failureThreshold": 3}
    assert container["livenessProbe"] == {"tcpSocket": {"port": "http"}, "periodSeconds": 20, "failureThreshold": 3}


def test_a_custom_tensorflow_serving_image_is_passed_the_model_and_probed_the_same_way():
    [container] = _pod(_plan(service(image="tensorflow/serving:2.16.1-gpu")))["containers"]
    assert container["image"] == "tensorflow/serving:2.16.1-gpu"
    assert container["args"][:2] == ["--model_name=resnet", "--model_base_path=/models/resnet"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/v1/models/resnet", "port": "http"}


def test_a_custom_server_gets_the_model_in_its_environment_and_is_probed_on_its_path():
    spec = service(server=ModelServer.CUSTOM, image="registry.example/llm:1.0", probe_path="/health/ready")
    [container] = _pod(_plan(spec))["containers"]
    assert "command" not in container and "args" not in container
    assert {"name": "MODEL_BASE_PATH", "value": "/models"} in container["env"]
    assert container["startupProbe"]["httpGet"] == {"path": "/health/ready", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/health/ready", "port": "http"}


@pytest.mark.parametrize(
    ("cloud", "image", "store_env"),
    [
        (Cloud.AWS, "public.ecr.aws/aws-cli/aws-cli:2.36.7", {"AWS_REGION": "us-east-1"}),
        (
            Cloud.ALICLOUD,
            "alpine:3.22.5",
            {"OSS_REGION": "cn-hangzhou", "OSS_ENDPOINT": "https://oss-cn-hangzhou-internal.aliyuncs.com"},
        ),
    ],
)
def test_an_init_container_stages_the_model_with_the_clouds_cli(cloud, image, store_env):
    pool = inference_pool(**ACK_POOL) if cloud is Cloud.ALICLOUD else None
    [stage] = _pod(_plan(service(model_source="models/resnet50/", model_version=3), pool, cloud))["initContainers"]
    assert stage["name"] == "stage-model"
    assert stage["image"] == image
    assert stage["command"][0:2] == ["/bin/sh", "-c"] and stage["command"][3] == "stage-model"
    assert stage["command"][2].endswith(STAGE_MODEL_SCRIPT)
    assert {e["name"]: e["value"] for e in stage["env"]} == {
        "MODEL_STORE": "s3" if cloud is Cloud.AWS else "oss",
        "MODEL_BUCKET": "gpucloud-env-ckpt",
        "MODEL_PREFIX": "models/resnet50",
        "MODEL_VERSION": "3",
        "MODEL_NAME": "resnet",
        "MODEL_BASE_PATH": "/models",
        "HOME": "/tmp",
        **store_env,
    }
    assert stage["volumeMounts"] == [{"name": "models", "mountPath": "/models"}, {"name": "tmp", "mountPath": "/tmp"}]


def test_on_ack_the_init_container_checks_ossutil_against_alibabas_checksum_first():
    [stage] = _pod(_plan(pool=inference_pool(**ACK_POOL), cloud=Cloud.ALICLOUD))["initContainers"]
    script = stage["command"][2]
    assert (
        "wget -q -O ossutil.zip https://gosspublic.alicdn.com/ossutil/v2/2.2.0/ossutil-2.2.0-linux-amd64.zip" in script
    )
    assert (
        'echo "9e02837d806cfe976ae6c1fc22557d8e0a394ca6d298b45fb9f48a360d3a67f4  ossutil.zip" | sha256sum -c -'
        in script
    )
    assert script.index("sha256sum") < script.index("MODEL_STORE")


@pytest.mark.parametrize(
    ("cloud", "annotations"),
    [(Cloud.AWS, None), (Cloud.ALICLOUD, {"pod-identity.alibabacloud.com/role-name": "env-resnet-inference"})],
)
def test_the_pod_runs_as_its_own_service_account_without_an_api_token(cloud, annotations):
    pool = inference_pool(**ACK_POOL) if cloud is Cloud.ALICLOUD else None
    plan = _plan(pool=pool, cloud=cloud)
    account = one(plan, "resnet-service-account").inputs
    assert account["metadata"].get("annotations") == annotations
    assert account["automountServiceAccountToken"] is False
    pod = _pod(plan)
    assert (pod["serviceAccountName"], pod["automountServiceAccountToken"]) == ("resnet", False)


def test_requests_equal_limits_for_cpu_and_memory():
    [container] = _pod(_plan(service(cpu="2", memory="8Gi", gpus_per_replica=2)))["containers"]
    assert container["resources"] == {
        "requests": {"cpu": "2", "memory": "8Gi"},
        "limits": {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "2"},
    }


def test_replicas_spread_over_zones():
    assert _pod(_plan())["topologySpreadConstraints"] == [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": APP},
        }
    ]


def test_rolling_updates_surge_one_pod_and_take_none_down():
    strategy = one(_plan(), "resnet-deployment").inputs["spec"]["strategy"]
    assert strategy == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}}


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
    spec = one(_plan(service(min_replicas=2)), "resnet-pdb").inputs["spec"]
    assert spec == {"maxUnavailable": 1, "selector": {"matchLabels": APP}}


def test_disruption_budget_keeps_a_single_replica():
    assert one(_plan(), "resnet-pdb").inputs["spec"] == {"minAvailable": 1, "selector": {"matchLabels": APP}}


def test_service_is_cluster_ip_by_default():
    inputs = one(_plan(), "resnet-service").inputs
    assert inputs["spec"]["type"] == "ClusterIP"
    assert "annotations" not in inputs["metadata"]


def test_aws_internal_load_balancer_is_an_nlb_with_a_tls_1_3_listener():
    inputs = one(_plan(service(internal_load_balancer=True, tls_certificate=CERT)), "resnet-service").inputs
    assert inputs["spec"]["type"] == "LoadBalancer"
    assert "loadBalancerClass" not in inputs["spec"]
    assert inputs["spec"]["ports"] == [{"name": "https", "port": 443, "targetPort": "http", "protocol": "TCP"}]
    assert inputs["metadata"]["annotations"] == {
        "service.beta.kubernetes.io/aws-load-balancer-type": "nlb",
        "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
        "service.beta.kubernetes.io/aws-load-balancer-ssl-cert": CERT,
        "service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-3-2021-06",
        "service.beta.kubernetes.io/aws-load-balancer-ssl-ports": "https",
    }


def test_aws_listener_can_take_the_fips_tls_1_3_policy():
    spec = service(
        internal_load_balancer=True, tls_certificate=CERT, aws_ssl_policy="ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04"
    )
    annotations = one(_plan(spec), "resnet-service").inputs["metadata"]["annotations"]
    assert annotations["service.beta.kubernetes.io/aws-load-balancer-ssl-negotiation-policy"] == (
        "ELBSecurityPolicy-TLS13-1-3-FIPS-2023-04"
    )


def test_ack_internal_load_balancer_is_an_nlb_with_a_tls_1_3_listener():
    inputs = one(_ack_tls(), "resnet-service").inputs
    assert inputs["spec"]["loadBalancerClass"] == "alibabacloud.com/nlb"
    assert inputs["spec"]["ports"] == [{"name": "https", "port": 443, "targetPort": "http", "protocol": "TCP"}]
    assert inputs["metadata"]["annotations"] == {
        "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-address-type": "intranet",
        "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-cert-id": "1234-cn-hangzhou",
        "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-tls-cipher-policy": "sp-tls13",
        "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-protocol-port": "tcpssl:443",
        "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-zone-maps": "cn-hangzhou-h:vsw-1,cn-hangzhou-i:vsw-2",
    }


def test_hpa_follows_gpu_memory_at_seventy_percent_by_default():
    spec = one(_plan(service(min_replicas=2, max_replicas=6)), "resnet-hpa").inputs["spec"]
    assert spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "resnet"}
    assert (spec["minReplicas"], spec["maxReplicas"]) == (2, 6)
    assert spec["metrics"] == [
        {
            "type": "Pods",
            "pods": {
                "metric": {"name": "gpu_memory_utilization"},
                "target": {"type": "AverageValue", "averageValue": "70"},
            },
        }
    ]


def test_hpa_can_follow_gpu_compute():
    spec = one(_plan(service(metric=GpuMetric.UTILIZATION, target_percent=80)), "resnet-hpa").inputs["spec"]
    assert spec["metrics"][0]["pods"]["metric"] == {"name": "gpu_utilization"}
    assert spec["metrics"][0]["pods"]["target"]["averageValue"] == "80"


def test_time_sliced_aws_pool_requests_a_gpu_replica():
    pool = inference_pool(gpu_time_slicing_replicas=4)
    [container] = _pod(_plan(pool=pool))["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"


def test_shared_ack_pool_requests_its_share_of_gpu_memory(monkeypatch):
    monkeypatch.setattr(
        "gpu_cloud.components.k8s.inference.lookup", lambda cloud, name: SimpleNamespace(gpu_memory_gib=24.0)
    )
    pool = inference_pool(**ACK_POOL, gpu_time_slicing_replicas=4)
    [container] = _pod(_plan(pool=pool, cloud=Cloud.ALICLOUD))["containers"]
    assert container["resources"]["limits"] == {"cpu": "1", "memory": "4Gi", "aliyun.com/gpu-mem": "6"}


def test_every_inference_object_is_valid_kubernetes():
    for plan in (_plan(service(internal_load_balancer=True, tls_certificate=CERT)), _ack_tls()):
        for resource in children(plan)[1:]:
            assert_valid(resource)


def test_driver_too_old_for_the_cuda_version_is_refused_before_registering():
    args = _args(service(cuda_version="12.4"), inference_pool(**ACK_POOL), Cloud.ALICLOUD)
    message, plan = refused(lambda opts: InferenceService("resnet", args, opts=opts))
    assert message == (
        "cudaVersion: inference service 'resnet' needs CUDA 12.4, but pool 'inference-a10g' runs NVIDIA driver 535"
        " (ACK GPU node image), which runs CUDA up to 12.2; CUDA 12.4 needs driver 550.54.14 or later (got 12.4)"
    )
    assert children(plan) == []


def test_wrong_pool_and_training_pool_are_refused():
    training = inference_pool(name="train-a100", purpose="training", instance_types=("p4d.24xlarge",))
    args = _args(pool=training)
    message, plan = refused(lambda opts: InferenceService("resnet", args, opts=opts))
    assert message == (
        "pool: inference service 'resnet' runs on pool 'inference-a10g' (got train-a100)\n"
        "pool.purpose: pool 'train-a100' is not an inference pool (got training)"
    )
    assert children(plan) == []


def test_cloud_identity_and_load_balancer_inputs_must_match_the_cloud():
    spec = service(internal_load_balancer=True, tls_certificate="1234-cn-hangzhou")
    args = _args(spec, inference_pool(**ACK_POOL), Cloud.ALICLOUD, identity_role=None)
    message, plan = refused(lambda opts: InferenceService("resnet", args, opts=opts))
    assert message == (
        "identityRole: needed on alicloud (got null)\n"
        "tlsPolicy: needed on alicloud (got null)\n"
        "zoneMaps: needed on alicloud (got null)"
    )
    assert children(plan) == []
    args = _args(service(), identity_role="role")
    message, _ = refused(lambda opts: InferenceService("resnet", args, opts=opts))
    assert message == "identityRole: not used on aws (got role)"


def test_on_a_pool_that_shares_gpus_the_hpa_follows_the_pools_gpus():
    pool = inference_pool(**ACK_POOL, gpu_time_slicing_replicas=4)
    spec = one(_plan(pool=pool, cloud=Cloud.ALICLOUD), "resnet-hpa").inputs["spec"]
    assert spec["metrics"] == [
        {
            "type": "External",
            "external": {
                "metric": {
                    "name": "gpu_pool_memory_utilization",
                    "selector": {"matchLabels": {"label_gpucloud_io_pool": "inference-a10g"}},
                },
                "target": {"type": "Value", "value": "70"},
            },
        }
    ]
