import pytest

from components.k8s import TrainingDefaults, TrainingDefaultsArgs
from components.spec import Cloud, GpuNodePoolSpec, PoolPurpose, TrainingSpec
from tests.k8s.conftest import assert_valid, children, inference_pool, kinds, one, refused, run

ROLE_ARN = "arn:aws:iam::123456789012:role/checkpoints"


def _efa_pool():
    return GpuNodePoolSpec(
        name="train-p5",
        purpose=PoolPurpose.TRAINING,
        instance_types=("p5.48xlarge",),
        min_size=0,
        desired_size=0,
        max_size=4,
        efa=True,
        zones=("us-east-1a",),
    )


def _plan(access, cloud=Cloud.AWS, role=ROLE_ARN, pool=None, training=None):
    args = TrainingDefaultsArgs(
        training=training or TrainingSpec(), access=access, cloud=cloud, checkpoint_role=role, pool=pool
    )
    return run(lambda opts: TrainingDefaults("training", args, opts=opts))


def test_children_are_nccl_config_service_account_and_gpu_quota(access):
    assert sorted(kinds(_plan(access))) == [
        ("gpucloud:k8s:TrainingDefaults", "training"),
        ("kubernetes:core/v1:ConfigMap", "training-nccl"),
        ("kubernetes:core/v1:ResourceQuota", "training-gpu-quota"),
        ("kubernetes:core/v1:ServiceAccount", "training-service-account"),
    ]


def test_nccl_defaults_without_efa(access):
    inputs = one(_plan(access), "training-nccl").inputs
    assert inputs["metadata"] == {"name": "nccl-defaults", "namespace": "gpu-training"}
    assert inputs["data"] == {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "INFO"}


def test_efa_pool_adds_the_efa_transport(access):
    data = one(_plan(access, pool=_efa_pool(), training=TrainingSpec(nccl_debug="WARN")), "training-nccl").inputs[
        "data"
    ]
    assert data == {
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_DEBUG": "WARN",
        "FI_PROVIDER": "efa",
        "FI_EFA_USE_DEVICE_RDMA": "1",
    }


@pytest.mark.parametrize(
    ("cloud", "role", "annotations"),
    [
        (Cloud.AWS, ROLE_ARN, {"eks.amazonaws.com/role-arn": ROLE_ARN}),
        (Cloud.ALICLOUD, "checkpoints", {"pod-identity.alibabacloud.com/role-name": "checkpoints"}),
    ],
)
def test_service_account_carries_the_clouds_workload_identity(access, cloud, role, annotations):
    inputs = one(_plan(access, cloud, role), "training-service-account").inputs
    assert inputs["metadata"] == {"name": "training", "namespace": "gpu-training", "annotations": annotations}


def test_quota_caps_requested_gpus(access):
    spec = one(_plan(access, training=TrainingSpec(gpu_quota=16)), "training-gpu-quota").inputs["spec"]
    assert spec == {"hard": {"requests.nvidia.com/gpu": "16"}}


def test_every_training_object_is_valid_kubernetes(access):
    for resource in children(_plan(access, pool=_efa_pool()))[1:]:
        assert_valid(resource)


def test_namespace_outside_the_gpu_namespaces_and_inference_pool_are_refused(access):
    args = TrainingDefaultsArgs(
        training=TrainingSpec(namespace="default"),
        access=access,
        cloud=Cloud.AWS,
        checkpoint_role=ROLE_ARN,
        pool=inference_pool(),
    )
    message, plan = refused(lambda opts: TrainingDefaults("training", args, opts=opts))
    assert message == (
        "training.namespace: not a GPU namespace of access (gpu-training, gpu-inference) (got default)\n"
        "pool: pool 'inference-a10g' is not a training pool (got inference)"
    )
    assert children(plan) == []
