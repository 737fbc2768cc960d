import pytest

from gpu_cloud.components.k8s import TrainingDefaults, TrainingDefaultsArgs
from gpu_cloud.components.spec import Cloud, GpuNodePoolSpec, PoolPurpose, TrainingSpec
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


def _plan(access, cloud=Cloud.AWS, role=None, pool=None, training=None):
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


def test_service_account_on_ack_names_its_rrsa_role(access):
    inputs = one(_plan(access, Cloud.ALICLOUD, "checkpoints"), "training-service-account").inputs
    assert inputs["metadata"] == {
        "name": "training",
        "namespace": "gpu-training",
        "annotations": {"pod-identity.alibabacloud.com/role-name": "checkpoints"},
    }


def test_service_account_on_eks_has_no_annotation_pod_identity_binds_it(access):
    inputs = one(_plan(access), "training-service-account").inputs
    assert inputs["metadata"] == {"name": "training", "namespace": "gpu-training"}


@pytest.mark.parametrize(
    ("cloud", "role", "message"),
    [
        (Cloud.AWS, ROLE_ARN, f"checkpoint_role: not used on aws (got {ROLE_ARN})"),
        (Cloud.ALICLOUD, None, "checkpoint_role: needed on alicloud (got null)"),
    ],
)
def test_checkpoint_role_follows_the_clouds_workload_identity(access, cloud, role, message):
    args = TrainingDefaultsArgs(training=TrainingSpec(), access=access, cloud=cloud, checkpoint_role=role)
    refusal, plan = refused(lambda opts: TrainingDefaults("training", args, opts=opts))
    assert refusal == message
    assert children(plan) == []


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
        pool=inference_pool(),
    )
    message, plan = refused(lambda opts: TrainingDefaults("training", args, opts=opts))
    assert message == (
        "training.namespace: not a GPU namespace of access (gpu-training, gpu-inference) (got default)\n"
        "pool: pool 'inference-a10g' is not a training pool (got inference)"
    )
    assert children(plan) == []
