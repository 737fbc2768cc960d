import pytest

from gpu_cloud.components.k8s.cuda import ImageFamily, cuda_problems, driver_branch, image_family, max_cuda
from gpu_cloud.components.spec import Cloud
from tests.k8s.conftest import inference_pool, service, spot_group


@pytest.mark.parametrize(
    ("cloud", "pool", "family"),
    [
        (Cloud.AWS, inference_pool(), ImageFamily.EKS_AL2023_NVIDIA),
        (Cloud.AWS, inference_pool(aws_ami_type="BOTTLEROCKET_x86_64_NVIDIA"), ImageFamily.BOTTLEROCKET_NVIDIA),
        (Cloud.AWS, spot_group(), ImageFamily.EKS_AL2023_NVIDIA),
        (Cloud.ALICLOUD, inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",)), ImageFamily.ACK_GPU),
    ],
)
def test_image_family_of_a_pool(cloud, pool, family):
    assert image_family(cloud, pool) is family


@pytest.mark.parametrize(("branch", "cuda"), [(535, "12.2"), (550, "12.4"), (570, "12.8"), (580, "13.0"), (470, None)])
def test_newest_cuda_of_a_driver_branch(branch, cuda):
    assert max_cuda(branch) == cuda


def test_a_pinned_driver_overrides_the_family_default():
    ack_pool = inference_pool(labels={"ack.aliyun.com/nvidia-driver-version": "550.144.03"})
    assert driver_branch(Cloud.ALICLOUD, inference_pool()) == 535
    assert driver_branch(Cloud.ALICLOUD, ack_pool) == 550
    assert driver_branch(Cloud.ALICLOUD, inference_pool(), driver_version="570.133.20") == 570


def test_tensorflow_2_12_runs_on_the_ack_default_driver():
    assert cuda_problems(Cloud.ALICLOUD, service(framework="tensorflow-2.12"), inference_pool()) == []


def test_cuda_newer_than_the_driver_is_a_problem_naming_workload_pool_and_versions():
    [problem] = cuda_problems(Cloud.ALICLOUD, service(cuda_version="12.4"), inference_pool())
    assert str(problem) == (
        "cudaVersion: inference service 'resnet' needs CUDA 12.4, but pool 'inference-a10g' runs NVIDIA driver 535"
        " (ACK GPU node image), which runs CUDA up to 12.2; CUDA 12.4 needs driver 550.54.14 or later (got 12.4)"
    )


def test_a_framework_needing_newer_cuda_is_a_problem():
    [problem] = cuda_problems(Cloud.ALICLOUD, service(framework="tensorflow-2.18"), inference_pool())
    assert problem.path == "framework"
    assert "needs CUDA 12.5 (tensorflow-2.18)" in problem.message


def test_unknown_cuda_release_and_framework_are_problems():
    problems = cuda_problems(Cloud.AWS, service(cuda_version="12.7", framework="torch-2.5"), inference_pool())
    assert [(p.path, p.value) for p in problems] == [("cudaVersion", "12.7"), ("framework", "torch-2.5")]
