import pytest

from gpu_cloud.components import versions
from gpu_cloud.components.k8s.cuda import (
    ACK_DRIVER_VERSION_LABEL,
    CUDA_MIN_DRIVER,
    FORWARD_COMPATIBLE_IMAGES,
    FRAMEWORK_CUDA,
    ImageFamily,
    acceptance_cuda_problems,
    cuda_problems,
    driver_branch,
    image_family,
    image_framework,
    max_cuda,
    nccl_tests_cuda,
    training_cuda_problems,
)
from gpu_cloud.components.k8s.layer import layer_problems
from gpu_cloud.components.spec import Cloud, TrainingJobSpec, parse_stack_config
from tests.alicloud.support import label_map, raw_config
from tests.gpucloud.test_refused_configs import shipped
from tests.k8s.conftest import ack_training_pool, efa_training_pool, inference_pool, service, spot_group
from tests.stacks.test_environments import named


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
    own_build = service(image="registry.example.com/serving:2.18", framework="tensorflow-2.18")
    [problem] = cuda_problems(Cloud.ALICLOUD, own_build, inference_pool(), "530.30.02")
    assert (problem.path, problem.value) == ("framework", "tensorflow-2.18")
    assert "needs CUDA 12.2 (tensorflow-2.18)" in problem.message


# tensorflow_serving/tools/docker/Dockerfile.gpu at tag 2.18.0 (commit 5815bfdd1d1bbd9d0d3557576c98f13afc4d9016):
# FROM nvidia/cuda:12.2.0-base-ubuntu20.04, ENV CUDA=12.2, cuda-libraries-12-2 (read 2026-12-03).
TF_SERVING_2_18_CUDA = "12.2"


def test_the_tf_serving_2_18_image_is_built_on_cuda_12_2_not_the_pip_build_12_5():
    assert image_framework("tensorflow/serving:2.18.0-gpu") == "tensorflow-2.18"
    assert FRAMEWORK_CUDA["tensorflow-2.18"] == TF_SERVING_2_18_CUDA
    assert CUDA_MIN_DRIVER[TF_SERVING_2_18_CUDA] == "535.54.03"


def test_the_default_image_is_checked_through_its_cuda_against_the_pools_driver():
    # Default image -> CUDA 12.2 -> driver 535.54.03 or later -> the ACK pools' pinned 570 runs it, a 530 does not.
    assert versions.TENSORFLOW_SERVING_GPU_IMAGE == "tensorflow/serving:2.18.1-gpu"
    ack_pool = inference_pool(instance_types=("ecs.gn7i-c8g1.2xlarge",))
    assert driver_branch(Cloud.ALICLOUD, ack_pool, versions.ACK_NVIDIA_DRIVER_VERSION) == 570
    assert cuda_problems(Cloud.ALICLOUD, service(), ack_pool, versions.ACK_NVIDIA_DRIVER_VERSION) == []
    [problem] = cuda_problems(Cloud.ALICLOUD, service(), ack_pool, "530.30.02")
    assert str(problem) == (
        "image: inference service 'resnet' needs CUDA 12.2 (tensorflow/serving:2.18.1-gpu), but pool 'inference-a10g'"
        " runs NVIDIA driver 530 (ACK GPU node image), which runs CUDA up to 12.1; CUDA 12.2 needs driver 535.54.03"
        " or later (got tensorflow/serving:2.18.1-gpu)"
    )


def test_a_tf_serving_image_outside_the_table_is_a_problem_and_other_images_are_not_read():
    [problem] = cuda_problems(Cloud.AWS, service(image="tensorflow/serving:2.11.0-gpu"), inference_pool())
    assert (problem.path, problem.value) == ("image", "tensorflow/serving:2.11.0-gpu")
    assert problem.message.startswith("a TensorFlow Serving release not in the CUDA table (tensorflow-2.12, ")
    assert image_framework("registry.example.com/serving:2.18.0-gpu") is None
    assert image_framework("tensorflow/serving:2.18.0") is None
    assert cuda_problems(Cloud.AWS, service(image="registry.example.com/serving:2.18.0-gpu"), inference_pool()) == []


def test_unknown_cuda_release_and_framework_are_problems():
    problems = cuda_problems(Cloud.AWS, service(cuda_version="12.7", framework="torch-2.5"), inference_pool())
    assert [(p.path, p.value) for p in problems] == [("cudaVersion", "12.7"), ("framework", "torch-2.5")]


def test_prod_cn_serves_the_default_image_on_a_pool_whose_pinned_driver_runs_its_cuda():
    # The chain in the plan: the Deployment's image -> its release's CUDA -> that CUDA's minimum driver -> the driver
    # the inference node pool pins with ACK's driver label.
    [container] = named("prod-cn", "prod-cn-resnet-deployment").inputs["spec"]["template"]["spec"]["containers"]
    driver = label_map(named("prod-cn", "prod-cn-inference-pool").inputs)[ACK_DRIVER_VERSION_LABEL]
    cuda = FRAMEWORK_CUDA[image_framework(container["image"]) or ""]
    assert (container["image"], cuda, driver) == ("tensorflow/serving:2.18.1-gpu", "12.2", "570.169")
    assert int(CUDA_MIN_DRIVER[cuda].split(".")[0]) <= int(driver.split(".")[0])


def _job(cuda_version: str | None) -> TrainingJobSpec:
    return TrainingJobSpec(
        name="llm",
        queue="research",
        pool="train-h100",
        nodes=2,
        image="example.com/train:cu130",
        cuda_version=cuda_version,
        command=("/workspace/train.py",),
        checkpoint_prefix="jobs/llm/",
    )


def test_a_training_image_newer_than_the_pools_driver_is_a_problem_naming_job_pool_and_versions():
    # ACK's pinned 570.169 runs CUDA up to 12.8 (seed_coverage F10: training images were not checked at all, so a
    # CUDA 13 image reached the pool and failed at its first CUDA call).
    pool = ack_training_pool()
    driver = versions.ACK_NVIDIA_DRIVER_VERSION
    [problem] = training_cuda_problems(Cloud.ALICLOUD, _job("13.0"), pool, driver)
    assert str(problem) == (
        "cudaVersion: training job 'llm' needs CUDA 13.0, but pool 'training' runs NVIDIA driver 570 (ACK GPU node "
        "image), which runs CUDA up to 12.8; CUDA 13.0 needs driver 580.65.06 or later (got 13.0)"
    )
    assert training_cuda_problems(Cloud.ALICLOUD, _job("12.8"), pool, driver) == []


def test_the_eks_al2023_pools_run_the_driver_their_pinned_ami_release_records():
    # awslabs/amazon-eks-ami CHANGELOG.md at 81fec2e8, "AMI Release v20260714": kmod-nvidia-latest-dkms 580.159.03 on
    # the x86_64 and arm64 NVIDIA AMIs of every Kubernetes version of the release.
    pinned = {versions.EKS_AL2023_NVIDIA_DRIVERS[r] for r in versions.EKS_AL2023_RELEASE_VERSIONS.values()}
    assert pinned == {"580.159.03"}
    assert driver_branch(Cloud.AWS, efa_training_pool()) == driver_branch(Cloud.AWS, spot_group()) == 580
    assert driver_branch(Cloud.AWS, inference_pool(aws_ami_type="BOTTLEROCKET_x86_64_NVIDIA")) == 570


def test_a_cuda_13_training_image_runs_on_the_eks_al2023_driver_and_not_on_a_570_pinned_there():
    pool = efa_training_pool()
    assert training_cuda_problems(Cloud.AWS, _job("13.0"), pool) == []
    [problem] = training_cuda_problems(Cloud.AWS, _job("13.0"), pool, driver_version="570.195.03")
    assert (problem.path, problem.value) == ("cudaVersion", "13.0")


def test_prod_takes_a_cuda_13_training_image_on_the_eks_al2023_driver():
    raw = shipped("prod")
    raw["training"]["jobs"][0]["cudaVersion"] = "13.0"
    assert layer_problems(parse_stack_config(raw)) == []


def test_a_training_jobs_unknown_cuda_release_is_a_problem_and_none_is_not_checked():
    [problem] = training_cuda_problems(Cloud.AWS, _job("12.7"), efa_training_pool())
    assert (problem.path, problem.value) == ("cudaVersion", "12.7")
    assert training_cuda_problems(Cloud.AWS, _job(None), efa_training_pool()) == []


def test_each_pinned_vllm_build_is_the_forward_compatible_image_of_its_cuda_release():
    for cuda, image in versions.VLLM_IMAGES.items():
        assert [c for pattern, c in FORWARD_COMPATIBLE_IMAGES.items() if pattern.match(image)] == [cuda], image


def test_every_pinned_nccl_tests_image_names_its_cuda_release():
    assert {cloud: nccl_tests_cuda(image) for cloud, image in versions.NCCL_TESTS_IMAGES.items()} == {
        "aws": "12.8",
        "alicloud": "12.8",
    }


def test_an_acceptance_test_on_a_driver_older_than_its_images_cuda_is_a_problem():
    # ACK's default driver (535, CUDA up to 12.2) cannot run CoreWeave's CUDA 12.8 build, which is why the ACK
    # environment pins 570.169 (versions.ACK_NVIDIA_DRIVER_VERSION).
    pool = ack_training_pool()
    [problem] = acceptance_cuda_problems(Cloud.ALICLOUD, pool)
    image = versions.NCCL_TESTS_IMAGES["alicloud"]
    assert str(problem) == (
        f"image: the acceptance test of pool {pool.name!r} needs CUDA 12.8 ({image}), but pool {pool.name!r} runs "
        "NVIDIA driver 535 (ACK GPU node image), which runs CUDA up to 12.2; CUDA 12.8 needs driver 570.26 or later "
        f"(got {image})"
    )
    assert acceptance_cuda_problems(Cloud.ALICLOUD, pool, versions.ACK_NVIDIA_DRIVER_VERSION) == []
    assert acceptance_cuda_problems(Cloud.AWS, efa_training_pool()) == []


def test_the_layer_refuses_training_jobs_and_acceptance_tests_the_drivers_cannot_run():
    raw = raw_config("alicloud") | {
        "checkpointBucket": {},
        "training": {
            "queues": [{"name": "research", "gpus": {"batch": 8}}],
            "acceptancePools": ["batch"],
            "jobs": [
                {
                    "name": "llm",
                    "queue": "research",
                    "pool": "batch",
                    "nodes": 1,
                    "priority": "gpu-preemptible",
                    "image": "example.com/train:1",
                    "cudaVersion": "12.8",
                    "command": ["/workspace/train.py"],
                    "checkpointPrefix": "jobs/llm/",
                }
            ],
        },
    }
    config = parse_stack_config(raw)
    assert [(p.path, p.value) for p in layer_problems(config)] == [
        ("training.jobs.0.cudaVersion", "12.8"),
        ("training.acceptancePools.0", "batch"),
    ]
    assert layer_problems(config, versions.ACK_NVIDIA_DRIVER_VERSION) == []
