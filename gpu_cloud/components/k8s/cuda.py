"""Which CUDA a GPU node can run: the driver branch each node image family ships, what each CUDA release needs.

A workload's image brings a CUDA version: a TensorFlow Serving GPU image (the default) the one its tag's release is
built with; another image names its CUDA version or the framework release whose serving image it is.
:func:`cuda_problems` says, before anything is registered, when the workload's pool runs a driver too old for it.

The check is made per driver branch (the major version, e.g. 535): every release of a branch that a node image
ships is at least the branch's first CUDA-toolkit driver. It uses NVIDIA's toolkit-driver table, not CUDA minor
version compatibility, which runs newer 12.x builds on older 12.x drivers only "with limited feature-set" (no
PTX JIT; docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html).

One exception, :data:`FORWARD_COMPATIBLE_IMAGES`: an image that carries the CUDA forward-compatibility libraries of its
CUDA release and puts them first on the loader path (``cuda-compat-<major>-<minor>``: "applications built on newer
CUDA Toolkits [run] on systems installed with an older NVIDIA Linux GPU driver", applicable only to "NVIDIA Data
Center GPUs"; docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html, read 2026-12-03). Such an image
is allowed on a data center GPU (every GPU of the catalog is one) whose driver is of its CUDA major release family;
a driver older than that is still refused.
"""

from __future__ import annotations

import re
from enum import StrEnum

from gpu_cloud.components.catalog import lookup
from gpu_cloud.components.spec import (
    Cloud,
    GpuNodePoolSpec,
    InferenceServiceSpec,
    ModelServer,
    Problem,
    SpotGroupSpec,
    TrainingJobSpec,
)
from gpu_cloud.components.versions import (
    EKS_AL2023_NVIDIA_DRIVERS,
    EKS_AL2023_RELEASE_VERSIONS,
    NCCL_TESTS_IMAGES,
    TENSORFLOW_SERVING_GPU_IMAGE,
    VLLM_IMAGES,
)

__all__ = [
    "ACK_DRIVER_VERSION_LABEL",
    "CUDA_MIN_DRIVER",
    "DATA_CENTER_GPUS",
    "DRIVER_BRANCH",
    "FORWARD_COMPATIBLE_IMAGES",
    "FRAMEWORK_CUDA",
    "ImageFamily",
    "acceptance_cuda_problems",
    "cuda_problems",
    "default_image",
    "driver_branch",
    "image_family",
    "image_framework",
    "max_cuda",
    "nccl_tests_cuda",
    "training_cuda_problems",
]


class ImageFamily(StrEnum):
    """A node image family that brings its own NVIDIA driver."""

    EKS_AL2023_NVIDIA = "EKS AL2023 NVIDIA AMI"
    BOTTLEROCKET_NVIDIA = "Bottlerocket NVIDIA"
    ACK_GPU = "ACK GPU node image"


def _major(driver: str) -> int:
    return int(driver.split(".", 1)[0])


DRIVER_BRANCH: dict[ImageFamily, int] = {
    # The driver of the pinned AL2023 releases (components.versions.EKS_AL2023_NVIDIA_DRIVERS: 580.159.03 in
    # v20260714). A pool that pins another release (awsAmiReleaseVersion) is taken to run the same branch: every
    # release with an NVIDIA AMI for Kubernetes 1.35 (the oldest the project supports), v20260114 to v20260714, ships
    # kmod-nvidia-latest-dkms 580.105.08, 580.126.09 or 580.159.03 (awslabs/amazon-eks-ami CHANGELOG.md at 81fec2e8).
    ImageFamily.EKS_AL2023_NVIDIA: min(
        _major(EKS_AL2023_NVIDIA_DRIVERS[release]) for release in EKS_AL2023_RELEASE_VERSIONS.values()
    ),
    # aws-k8s-1.31-nvidia ships 570.148.08 from Bottlerocket 1.41.0 on (bottlerocket.dev/en/os/1.41.x/
    # version-information/gpu-drivers/1.41.0), 570.195.03 in 1.50.0, 580 later.
    ImageFamily.BOTTLEROCKET_NVIDIA: 570,
    # ACK 1.28 and later: default driver 535.161.07 (alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/
    # user-guide/ack-supported-nvidia-driver-version-list). A node pool can pin another supported version with the
    # ack.aliyun.com/nvidia-driver-version label (see driver_branch).
    ImageFamily.ACK_GPU: 535,
}
"""The NVIDIA driver branch of each family: the pinned AMI releases' for EKS AL2023, else the oldest a current image
of the family ships (the conservative choice)."""

ACK_DRIVER_VERSION_LABEL = "ack.aliyun.com/nvidia-driver-version"
"""ACK node pool label that installs a given driver version on new GPU nodes
(alibabacloud.com/help/en/document_detail/207292.html)."""

CUDA_MIN_DRIVER: dict[str, str] = {
    "11.8": "520.61.05",
    "12.0": "525.60.13",
    "12.1": "530.30.02",
    "12.2": "535.54.03",
    "12.3": "545.23.06",
    "12.4": "550.54.14",
    "12.5": "555.42.02",
    "12.6": "560.28.03",
    "12.8": "570.26",
    "12.9": "575.51.03",
    "13.0": "580.65.06",
}
"""Minimum Linux x86_64 driver of each CUDA release (GA): NVIDIA CUDA Toolkit Release Notes, table "CUDA Toolkit
and Corresponding Driver Versions" (docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html)."""

FRAMEWORK_CUDA: dict[str, str] = {
    "tensorflow-2.12": "11.8",
    "tensorflow-2.13": "11.8",
    "tensorflow-2.14": "11.8",
    "tensorflow-2.15": "12.2",
    "tensorflow-2.16": "12.2",
    "tensorflow-2.17": "12.2",
    "tensorflow-2.18": "12.2",
    "tensorflow-2.19": "12.2",
}
"""CUDA of each framework release's GPU serving image, which an inference service runs: for ``tensorflow-X.Y``, the
``tensorflow/serving:X.Y.*-gpu`` image, built by ``tensorflow_serving/tools/docker/Dockerfile.gpu`` at the release's
tag on ``nvidia/cuda:<CUDA>.0-base`` with the ``cuda-*-<CUDA>`` packages (github.com/tensorflow/serving, read
2026-12-03 at tags 2.12.0-2.14.1: 11.8; 2.15.1, 2.16.1, 2.17.0, 2.17.1, 2.18.0 (commit 5815bfdd1d1b), 2.18.1,
2.19.0, 2.19.1: 12.2). Not TensorFlow's pip builds ("Tested build configurations", tensorflow.org/install/source#gpu:
12.3 for 2.16-2.17, 12.5 for 2.18), which TF Serving does not use; an image built on those names ``cudaVersion``."""

FORWARD_COMPATIBLE_IMAGES: dict[re.Pattern[str], str] = {
    # vLLM's release images: the vllm-openai target is built FROM nvidia/cuda:<CUDA_VERSION>-devel (which installs
    # cuda-compat-<major>-<minor> under /usr/local/cuda-<X.Y>/compat) and runs
    # `ldconfig /usr/local/cuda-$(echo $CUDA_VERSION | cut -d. -f1,2)/compat/` in its final stage
    # (vllm-project/vllm docker/Dockerfile at dead20ba, read 2026-12-03); `-cu129` is the CUDA 12.9 build, the
    # unsuffixed tag CUDA 13.0 (.buildkite/scripts/publish-release-images.sh at c8246ae4).
    re.compile(r"^vllm/vllm-openai:v\d+\.\d+\.\d+-cu129$"): "12.9",
    re.compile(r"^vllm/vllm-openai:v\d+\.\d+\.\d+$"): "13.0",
}
"""Images that run on drivers older than their CUDA release's through forward compatibility, and that release."""

DATA_CENTER_GPUS = frozenset(
    (
        "NVIDIA A10",
        "NVIDIA A10G",
        "NVIDIA A100",
        "NVIDIA H100",
        "NVIDIA L20",
        "NVIDIA L4",
        "NVIDIA L40S",
        "NVIDIA T4",
        "NVIDIA T4G",
    )
)
"""NVIDIA Data Center GPUs (nvidia.com data center product line: A-, H-, L- and T-series), which forward
compatibility supports: every GPU model of the catalog."""

TF_SERVING_GPU_IMAGE = re.compile(r"^tensorflow/serving:(?P<release>\d+\.\d+)\.\d+-gpu$")
"""A TensorFlow Serving GPU release tag on Docker Hub (``tensorflow/serving:2.18.0-gpu``)."""


def image_framework(image: str) -> str | None:
    """The framework release a TensorFlow Serving GPU image serves with (``tensorflow/serving:2.18.0-gpu`` ->
    ``tensorflow-2.18``), or None for any other image."""
    match = TF_SERVING_GPU_IMAGE.match(image)
    return f"tensorflow-{match['release']}" if match else None


def image_family(cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec) -> ImageFamily:
    """The node image family of ``pool`` on ``cloud`` (AWS default: AL2023 NVIDIA, as the AWS node pool)."""
    if cloud is Cloud.ALICLOUD:
        return ImageFamily.ACK_GPU
    ami_type = pool.aws_ami_type if isinstance(pool, GpuNodePoolSpec) else None
    if ami_type is not None and ami_type.startswith("BOTTLEROCKET"):
        return ImageFamily.BOTTLEROCKET_NVIDIA
    return ImageFamily.EKS_AL2023_NVIDIA


def driver_branch(cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec, driver_version: str | None = None) -> int:
    """The NVIDIA driver branch ``pool``'s nodes run.

    Args:
        cloud: The pool's cloud.
        pool: The pool or spot group.
        driver_version: The driver the cloud component pins on the pool, if any (e.g. ``550.144.03``); an ACK
            pool's ``ack.aliyun.com/nvidia-driver-version`` label counts too. Default: the image family's branch.
    """
    pinned = driver_version or (
        pool.labels.get(ACK_DRIVER_VERSION_LABEL) if isinstance(pool, GpuNodePoolSpec) else None
    )
    if pinned:
        return int(pinned.split(".", 1)[0])
    return DRIVER_BRANCH[image_family(cloud, pool)]


def max_cuda(branch: int) -> str | None:
    """The newest CUDA release a driver of ``branch`` runs, or None for a branch older than every CUDA listed."""
    runnable = [cuda for cuda, driver in CUDA_MIN_DRIVER.items() if _major(driver) <= branch]
    return max(runnable, key=_cuda_key) if runnable else None


def cuda_problems(
    cloud: Cloud,
    service: InferenceServiceSpec,
    pool: GpuNodePoolSpec | SpotGroupSpec,
    driver_version: str | None = None,
) -> list[Problem]:
    """What keeps ``service`` from running on ``pool``: an unknown CUDA release or framework, or a driver too old for
    the CUDA of its image (a TensorFlow Serving GPU tag, the default image included), ``cudaVersion`` or
    ``framework``."""
    needs: list[tuple[str, str, str, str]] = []  # (field, CUDA version, what asks for it, the field's value)
    problems: list[Problem] = []
    image = service.image or default_image(cloud, service, pool, driver_version)
    compatible = next((cuda for pattern, cuda in FORWARD_COMPATIBLE_IMAGES.items() if pattern.match(image)), None)
    if compatible is not None:
        problems += _forward_compatible_problems(cloud, service, pool, driver_version, image, compatible)
    served = image_framework(image)
    if served in FRAMEWORK_CUDA:
        needs.append(("image", FRAMEWORK_CUDA[served], f"CUDA {FRAMEWORK_CUDA[served]} ({image})", image))
    elif served is not None:
        known = ", ".join(FRAMEWORK_CUDA)
        problems.append(Problem("image", f"a TensorFlow Serving release not in the CUDA table ({known})", image))
    problems += _cuda_version_needs(service.cuda_version, needs)
    if service.framework is not None:
        if service.framework in FRAMEWORK_CUDA:
            cuda = FRAMEWORK_CUDA[service.framework]
            needs.append(("framework", cuda, f"CUDA {cuda} ({service.framework})", service.framework))
        else:
            known = ", ".join(FRAMEWORK_CUDA)
            problems.append(Problem("framework", f"not a framework of the CUDA table ({known})", service.framework))
    return problems + _driver_problems(f"inference service {service.name!r}", needs, cloud, pool, driver_version)


def training_cuda_problems(
    cloud: Cloud, job: TrainingJobSpec, pool: GpuNodePoolSpec | SpotGroupSpec, driver_version: str | None = None
) -> list[Problem]:
    """What keeps training ``job`` from running on ``pool``: its image's CUDA release (``cudaVersion``) unknown, or
    newer than the pool's NVIDIA driver runs. A job without ``cudaVersion`` is not checked (its image is the team's
    own and its CUDA cannot be read offline)."""
    needs: list[tuple[str, str, str, str]] = []
    problems = _cuda_version_needs(job.cuda_version, needs)
    return problems + _driver_problems(f"training job {job.name!r}", needs, cloud, pool, driver_version)


def nccl_tests_cuda(image: str) -> str | None:
    """The CUDA release (``X.Y``) a pinned nccl-tests image is built on, from the start of its tag: AWS's
    ``cuda12.8.1-efa…``, CoreWeave's ``12.8.1-devel-…`` (components.versions.NCCL_TESTS_IMAGES); None if the tag names
    none."""
    found = re.match(r"(?:cuda)?(\d+\.\d+)\.\d+-", image.rsplit(":", 1)[-1])
    return found.group(1) if found else None


def acceptance_cuda_problems(
    cloud: Cloud, pool: GpuNodePoolSpec | SpotGroupSpec, driver_version: str | None = None
) -> list[Problem]:
    """What keeps the acceptance test of ``pool`` from running: the pinned nccl-tests image of ``cloud`` needs a CUDA
    release the pool's NVIDIA driver does not run (e.g. an ACK pool pinned to a 550 driver, CUDA up to 12.4)."""
    image = NCCL_TESTS_IMAGES[cloud.value]
    cuda = nccl_tests_cuda(image)
    needs = [] if cuda is None else [("image", cuda, f"CUDA {cuda} ({image})", image)]
    return _driver_problems(f"the acceptance test of pool {pool.name!r}", needs, cloud, pool, driver_version)


def _cuda_version_needs(cuda_version: str | None, needs: list[tuple[str, str, str, str]]) -> list[Problem]:
    """Add a ``cudaVersion`` of the driver table to ``needs``; a release outside the table is a problem."""
    if cuda_version is None:
        return []
    if cuda_version not in CUDA_MIN_DRIVER:
        known = ", ".join(CUDA_MIN_DRIVER)
        return [Problem("cudaVersion", f"not a CUDA release of the driver table ({known})", cuda_version)]
    needs.append(("cudaVersion", cuda_version, f"CUDA {cuda_version}", cuda_version))
    return []


def _driver_problems(
    workload: str,
    needs: list[tuple[str, str, str, str]],
    cloud: Cloud,
    pool: GpuNodePoolSpec | SpotGroupSpec,
    driver_version: str | None,
) -> list[Problem]:
    """Each need (field, CUDA release, what asks for it, the field's value) that the pool's driver branch is too old
    for (CUDA_MIN_DRIVER)."""
    branch = driver_branch(cloud, pool, driver_version)
    family = image_family(cloud, pool)
    return [
        Problem(
            field,
            f"{workload} needs {what}, but pool {pool.name!r} runs NVIDIA driver {branch} ({family}), which runs CUDA "
            f"up to {max_cuda(branch)}; CUDA {cuda} needs driver {CUDA_MIN_DRIVER[cuda]} or later",
            value,
        )
        for field, cuda, what, value in needs
        if _major(CUDA_MIN_DRIVER[cuda]) > branch
    ]


def default_image(
    cloud: Cloud,
    service: InferenceServiceSpec,
    pool: GpuNodePoolSpec | SpotGroupSpec,
    driver_version: str | None = None,
) -> str:
    """The image a service runs when it names none (components.versions): TensorFlow Serving's GPU image, or for vLLM
    the build of the newest CUDA release whose major release ``pool``'s driver runs (the CUDA 13.0 build on a 580
    driver, the CUDA 12.9 one on 570), the oldest build when none fits (:func:`cuda_problems` refuses it then)."""
    if service.server is not ModelServer.VLLM:
        return TENSORFLOW_SERVING_GPU_IMAGE
    branch = driver_branch(cloud, pool, driver_version)
    runnable = [cuda for cuda in VLLM_IMAGES if _major(_compatible_floor(cuda)) <= branch]
    return VLLM_IMAGES[max(runnable, key=_cuda_key) if runnable else min(VLLM_IMAGES, key=_cuda_key)]


def _forward_compatible_problems(
    cloud: Cloud,
    service: InferenceServiceSpec,
    pool: GpuNodePoolSpec | SpotGroupSpec,
    driver_version: str | None,
    image: str,
    cuda: str,
) -> list[Problem]:
    """An image of :data:`FORWARD_COMPATIBLE_IMAGES` needs a data center GPU and a driver of its CUDA major release."""
    problems = []
    models = {t.gpu_model for name in pool.instance_types if (t := lookup(cloud, name)) is not None}
    if not models <= DATA_CENTER_GPUS:
        message = f"forward compatibility needs data center GPUs; pool {pool.name!r} has {', '.join(sorted(models))}"
        problems.append(Problem("image", message, image))
    major = cuda.split(".")[0]
    branch = driver_branch(cloud, pool, driver_version)
    floor = _compatible_floor(cuda)
    if _major(floor) > branch:
        problems.append(
            Problem(
                "image",
                f"inference service {service.name!r} needs CUDA {cuda} ({image}), which runs through forward "
                f"compatibility on drivers of CUDA {major} (from {floor}), but pool {pool.name!r} runs NVIDIA driver "
                f"{branch} ({image_family(cloud, pool)})",
                image,
            )
        )
    return problems


def _compatible_floor(cuda: str) -> str:
    """The oldest driver a forward-compatible image of CUDA release ``cuda`` runs on: its major release's first."""
    return CUDA_MIN_DRIVER[f"{cuda.split('.')[0]}.0"]


def _cuda_key(cuda: str) -> tuple[int, int]:
    major, minor = cuda.split(".")
    return int(major), int(minor)
