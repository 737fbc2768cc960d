import pytest

from gpu_cloud.components.k8s import TrainingDefaults, TrainingDefaultsArgs
from gpu_cloud.components.k8s.training import nccl_settings
from gpu_cloud.components.spec import Cloud, GpuNodePoolSpec, PoolPurpose, TrainingSpec
from tests.k8s.conftest import assert_valid, children, inference_pool, kinds, one, refused, run, spot_group

ROLE_ARN = "arn:aws:iam::123456789012:role/checkpoints"


def _training_pool(name="train-p5", types=("p5.48xlarge",), efa=True):
    return GpuNodePoolSpec(
        name=name,
        purpose=PoolPurpose.TRAINING,
        instance_types=types,
        min_size=0,
        desired_size=0,
        max_size=4,
        efa=efa,
        zones=("us-east-1a",),
    )


def _plan(access, cloud=Cloud.AWS, role=None, pools=(), training=None):
    args = TrainingDefaultsArgs(
        training=training or TrainingSpec(), access=access, cloud=cloud, checkpoint_role=role, pools=pools
    )
    return run(lambda opts: TrainingDefaults("training", args, opts=opts))


def test_children_are_one_nccl_config_per_pool_service_account_and_gpu_quota(access):
    pools = (_training_pool(), spot_group(name="batch", purpose=PoolPurpose.TRAINING))
    assert sorted(kinds(_plan(access, pools=pools))) == [
        ("gpucloud:k8s:TrainingDefaults", "training"),
        ("kubernetes:core/v1:ConfigMap", "training-nccl-batch"),
        ("kubernetes:core/v1:ConfigMap", "training-nccl-train-p5"),
        ("kubernetes:core/v1:ResourceQuota", "training-gpu-quota"),
        ("kubernetes:core/v1:ServiceAccount", "training-service-account"),
    ]


def test_rdma_read_type_gets_efa_with_device_rdma(access):
    inputs = one(
        _plan(access, pools=(_training_pool(),), training=TrainingSpec(nccl_debug="WARN")), "training-nccl-train-p5"
    ).inputs
    assert inputs["metadata"] == {"name": "nccl-train-p5", "namespace": "gpu-training"}
    assert inputs["data"] == {
        "NCCL_SOCKET_IFNAME": "eth0",
        "NCCL_DEBUG": "WARN",
        "FI_PROVIDER": "efa",
        "FI_EFA_USE_DEVICE_RDMA": "1",
    }


@pytest.mark.parametrize(
    ("types", "efa", "expected"),
    [
        # EFA without RDMA read (libfabric aborts with FI_EFA_USE_DEVICE_RDMA=1 there): the provider only.
        (("g5.12xlarge",), True, {"FI_PROVIDER": "efa"}),
        (("g4dn.12xlarge",), True, {"FI_PROVIDER": "efa"}),
        (("p4d.24xlarge",), True, {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1"}),
        # An EFA-capable type in a pool without EFA: nothing EFA-specific.
        (("p5.48xlarge",), False, {}),
        (("g5.xlarge",), False, {}),
    ],
)
def test_nccl_settings_follow_the_pool_types_catalog_facts(types, efa, expected):
    pool = _training_pool(types=types, efa=efa)
    assert nccl_settings(TrainingSpec(), pool) == {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "INFO", **expected}


def test_spot_group_gets_nothing_efa_specific():
    group = spot_group(name="batch", purpose=PoolPurpose.TRAINING)
    assert nccl_settings(TrainingSpec(), group) == {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "INFO"}


def test_jobs_on_a_non_efa_pool_of_an_efa_environment_get_no_efa_settings(access):
    pools = (_training_pool(), _training_pool(name="train-g5", types=("g5.2xlarge",), efa=False))
    plan = _plan(access, pools=pools)
    assert one(plan, "training-nccl-train-g5").inputs["data"] == {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DEBUG": "INFO"}
    assert one(plan, "training-nccl-train-p5").inputs["data"]["FI_PROVIDER"] == "efa"


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
    for resource in children(_plan(access, pools=(_training_pool(),)))[1:]:
        assert_valid(resource)


def test_namespace_outside_the_gpu_namespaces_and_inference_pool_are_refused(access):
    args = TrainingDefaultsArgs(
        training=TrainingSpec(namespace="default"),
        access=access,
        cloud=Cloud.AWS,
        pools=(inference_pool(),),
    )
    message, plan = refused(lambda opts: TrainingDefaults("training", args, opts=opts))
    assert message == (
        "training.namespace: not a GPU namespace of access (gpu-training, gpu-inference) (got default)\n"
        "pools.0: pool 'inference-a10g' is not a training pool (got inference)"
    )
    assert children(plan) == []
