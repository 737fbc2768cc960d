"""Every pinned version in one place: Kubernetes, EKS/ACK add-ons, AMI types, Helm charts, images.

Bumping a value here is a deliberate change (node images roll, charts upgrade). Every pin names where it was
verified upstream at that exact version and the date it was read, and the newest release of its line seen upstream
with that release's date (``PIN_SOURCES``); ``tests/components/test_versions.py`` fails when a pin has no source, and
``tests/components/test_pin_freshness.py`` when a pin is behind the newest release seen without a recorded reason.
docs/upgrading.md gives the routine. Each Helm chart's
``Chart.yaml`` and ``values.yaml`` are vendored at its pin in ``tests/charts``, where a test fails when a values key
the project sets is no key of the pinned chart. Which Kubernetes minor versions a spec may name (standard
support on its cloud today, and every pin below) is ``components.kubernetes_support``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final, NamedTuple

READ_ON: Final = "2026-12-02"
"""The date every pin below was verified upstream."""


class PinSource(NamedTuple):
    """Where a pinned value was verified at that exact version, and when; the newest release of its line seen.

    Attributes:
        url: Where the pinned value was verified.
        newest: The newest release of the pin's line seen upstream, written as the pinned value writes it (the pin
            names it when it is current).
        newest_date: When that release was published (or, where the material gives no date, the date it was seen).
        behind_because: Why the pin stays behind ``newest`` ("" when it names it).
        read_on: When ``url`` (and the newest release) was read.
    """

    url: str
    newest: str
    newest_date: str
    behind_because: str = ""
    read_on: str = READ_ON


DEFAULT_KUBERNETES_VERSION: Final = "1.35"
"""The default Kubernetes minor version of both clouds: in standard support on EKS until 2027-03-27 and on ACK
until 2027-02-28 (``kubernetes_support.json``). 1.36 is pinned on both too (standard support until 2027-08-02 on
EKS and 2027-05-30 on ACK); a spec opts into it with ``kubernetesVersion``."""

# --- EKS (AWS) -----------------------------------------------------------------------------------

_EKS_KUBE_PROXY = "https://docs.aws.amazon.com/ja_jp/eks/latest/userguide/managing-kube-proxy.md"
_EKS_COREDNS = "https://docs.aws.amazon.com/ja_jp/eks/latest/userguide/managing-coredns.md"
_EKS_VPC_CNI = "https://docs.aws.amazon.com/eks/latest/userguide/managing-vpc-cni.html"
_EKS_POD_IDENTITY_AGENT = "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html"

EKS_ADDON_VERSIONS: dict[str, dict[str, str]] = {
    # The Amazon EKS User Guide's tables of the latest EKS add-on type per Kubernetes version (kube-proxy:
    # 1.35 -> v1.35.3-eksbuild.13; CoreDNS: 1.35 -> v1.14.3-eksbuild.3). vpc-cni 1.35 -> v1.22.4-eksbuild.3, the build
    # of aws/amazon-vpc-cni-k8s release v1.22.4 (tag read 2026-12-03; v1.22.4 >= the EFA-only minimum), and
    # eks-pod-identity-agent v1.3.10-eksbuild.3: the User Guide's current vpc-cni table could not be read here (its
    # stored copies stop at 1.33) and the pod identity agent has no per-version table; both builds are the ones
    # public `aws eks describe-addon-versions` captures of 1.34-1.36 clusters report (August-September 2026,
    # code search read 2026-12-03), and the same captures agree with the kube-proxy and CoreDNS pins above.
    # Confirm with `aws eks describe-addon-versions --kubernetes-version 1.35 --addon-name <name>` before a bump.
    # A describe-addon-versions capture of 2026-09-24 (PIN_SOURCES) shows v1.22.4-eksbuild.3 as EKS's default vpc-cni
    # for 1.36, the newest build of the v1.22 line, with v1.23.0-eksbuild.1 and v1.23.1-eksbuild.1 above it.
    "1.35": {
        "vpc-cni": "v1.22.4-eksbuild.3",
        "coredns": "v1.14.3-eksbuild.3",
        "kube-proxy": "v1.35.3-eksbuild.13",
        "eks-pod-identity-agent": "v1.3.10-eksbuild.3",
    },
    # The same tables: kube-proxy 1.36 -> v1.36.0-eksbuild.14, CoreDNS 1.36 -> v1.14.3-eksbuild.3 (read 2026-12-03);
    # vpc-cni and the pod identity agent as for 1.35 (the same captures list them on 1.36 clusters).
    "1.36": {
        "vpc-cni": "v1.22.4-eksbuild.3",
        "coredns": "v1.14.3-eksbuild.3",
        "kube-proxy": "v1.36.0-eksbuild.14",
        "eks-pod-identity-agent": "v1.3.10-eksbuild.3",
    },
}
"""EKS managed add-on versions per Kubernetes minor version."""

EKS_AL2023_RELEASE_VERSIONS: dict[str, str] = {
    # awslabs/amazon-eks-ami release v20260714 (CHANGELOG.md): amazon-eks-node-al2023-x86_64-nvidia-1.35-v20260714
    # and the standard AL2023 AMIs, release version 1.35.6-20260714; the same release's
    # amazon-eks-node-al2023-x86_64-nvidia-1.36-v20260714, release version 1.36.2-20260714 (kmod-nvidia 580.159.03).
    # Newer releases exist (tag v20260724, 2026-07-23) but their release versions are in no CHANGELOG readable here:
    # PIN_SOURCES records why the pin stays.
    "1.35": "1.35.6-20260714",
    "1.36": "1.36.2-20260714",
}
"""Pinned EKS-optimized AL2023 AMI release per Kubernetes minor version (node group ``release_version``)."""

EKS_AL2023_NVIDIA_DRIVERS: dict[str, str] = {
    # CHANGELOG.md (_EKS_AMI_CHANGELOG), "AMI Release v20260714", the package table of every Kubernetes version of
    # the release (1.30 to 1.36): kmod-nvidia-latest-dkms 580.159.03-1.amzn2023 on AL2023_x86_64_NVIDIA and
    # 580.159.03-1.el9 on AL2023_ARM_64_NVIDIA. Read 2026-12-04.
    "1.35.6-20260714": "580.159.03",
    "1.36.2-20260714": "580.159.03",
}
"""The NVIDIA driver the AL2023 NVIDIA AMIs (x86_64 and arm64) of each pinned release in
:data:`EKS_AL2023_RELEASE_VERSIONS` ship, by release version: a new release pin states its driver here, which
components.k8s.cuda takes as the driver of the EKS AL2023 NVIDIA node image family."""

_EKS_AMI_CHANGELOG = (
    "https://github.com/awslabs/amazon-eks-ami/blob/81fec2e895854f599974fe4d3d72f61c0a9aaffa/CHANGELOG.md"
)

EKS_NODE_MONITORING_AGENT_ADDON: dict[str, str] = {
    # EKS User Guide, "Amazon EKS add-ons" (awsdocs/amazon-eks-user-guide latest/ug/workloads/eks-add-ons.adoc):
    # "The Amazon EKS add-on name is eks-node-monitoring-agent"; node-health.adoc: node auto repair reacts to the
    # agent's conditions, AcceleratedHardwareReady among them (NVIDIA XID errors). Version: aws/eks-node-monitoring-
    # agent tag v1.7.0 (2026-08-04), charts/eks-node-monitoring-agent/values.yaml nodeAgent.image.tag
    # v1.7.0-eksbuild.1, the add-on build of that release; its DaemonSet tolerates every taint (tolerations:
    # operator Exists), so it runs on the tainted GPU nodes. https://github.com/aws/eks-node-monitoring-agent/blob/
    # v1.7.0/charts/eks-node-monitoring-agent/values.yaml, read 2026-12-02. Confirm per cluster version with
    # `aws eks describe-addon-versions --addon-name eks-node-monitoring-agent`.
    "eks-node-monitoring-agent": "v1.7.0-eksbuild.1",
}
"""The EKS node monitoring agent add-on, on every cluster next to the version-specific add-ons: without it node
auto repair sees only kubelet readiness, not GPU faults."""

EKS_GPU_AMI_TYPES: dict[str, str] = {
    # EKS CreateNodegroup API, amiType: AL2023_x86_64_NVIDIA and AL2023_ARM_64_NVIDIA (botocore eks model
    # AMITypes; pulumi-aws eks.NodeGroup ami_type docs link the same list).
    "x86_64": "AL2023_x86_64_NVIDIA",
    "arm64": "AL2023_ARM_64_NVIDIA",
}
"""Default EKS AMI type of a GPU node group, by instance architecture."""

EKS_UPGRADE_POLICY: Final = "STANDARD"
"""The cluster ``upgradePolicy.supportType``: ``STANDARD`` so a cluster is upgraded at the end of standard support
instead of entering paid extended support (the API default is ``EXTENDED``: botocore eks ``UpgradePolicyRequest``;
EKS User Guide, "Manage EKS extended support")."""


# --- ACK (Alibaba Cloud) -------------------------------------------------------------------------

ACK_KUBERNETES_RELEASES: dict[str, str] = {
    # ACK Kubernetes 1.35 release notes, component versions: Kubernetes 1.35.1-aliyun.1, 1.35.2-aliyun.1,
    # 1.35.7-aliyun.1 (updated 2026-08-26); ACK supports only the latest patch of each minor version.
    # ACK release notes for Kubernetes 1.36, component versions: Kubernetes 1.36.1-aliyun.1 (updated 2026-06-06,
    # read 2026-12-03).
    "1.35": "1.35.7-aliyun.1",
    "1.36": "1.36.1-aliyun.1",
}
"""ACK release of each Kubernetes minor version a spec may name (``cs.ManagedKubernetes.version``)."""

_ACK_136_NOTES = "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/kubernetes-1-36"
_ACK_135_NOTES = (
    "https://www.alibabacloud.com/help/pt-br/ack/ack-managed-and-ack-dedicated/user-guide/kubernetes-1-35-release-notes"
)

ACK_NVIDIA_DRIVER_VERSION = "570.169"
"""NVIDIA driver pinned on ACK GPU node pools with the ``ack.aliyun.com/nvidia-driver-version`` node label, so a
change of ACK's default driver never reaches new nodes unannounced. ACK's list for clusters 1.28 and later: 570.169,
570.133.20, 550.163.01, 550.144.03, 550.90.07, 535.230.02, 535.161.07 (default 535.161.07; "List of NVIDIA driver
versions supported by ACK", updated 2026-02-12, read 2026-12-03). 570.169 is the newest listed: the 570 branch runs
CUDA up to 12.8 (components/k8s/cuda.py CUDA_MIN_DRIVER), which the maintained nccl-tests builds of the acceptance
job need (NCCL_TESTS_IMAGES: CoreWeave builds only CUDA 12.6.3 and later now); the 550 branch, whose newest listed
patch is 550.163.01, stops at CUDA 12.4. The 550 XID 119/120/31 fixes ACK notes are in the later branch too.
https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/ack-supported-nvidia-driver-version-list
(supported versions), https://www.alibabacloud.com/help/en/document_detail/207292.html (the label)."""


# --- Kubernetes layer: Helm charts and images -----------------------------------------------------


class HelmChart(NamedTuple):
    """A Helm chart pinned to one version, and the repository it comes from."""

    name: str
    version: str
    repo: str


NVIDIA_DEVICE_PLUGIN_CHART = HelmChart("nvidia-device-plugin", "0.20.0", "https://nvidia.github.io/k8s-device-plugin")
"""NVIDIA device plugin, not the GPU Operator: the EKS NVIDIA AMIs and the ACK GPU images already carry the driver
and the container toolkit, so the operator (with driver and toolkit disabled) would only add an operator, NFD and
CRDs around this one DaemonSet. NVIDIA/k8s-device-plugin tag v0.20.0 (2026-08-19): deployments/helm/
nvidia-device-plugin/Chart.yaml version 0.20.0; README ``helm repo add nvdp https://nvidia.github.io/k8s-device-plugin``.
From 0.17.1: the values the project sets (affinity, tolerations, config.map, config.default) are unchanged; 0.19.0 to
0.19.2 turned GDRCopy and MOFED on by default, 0.19.3 turned them off again (EKS User Guide,
device-management-nvidia-dra-device-plugin.adoc), so 0.20.0 keeps 0.17's defaults.
The AL2023 NVIDIA AMIs do not include the device plugin ("must be installed separately",
docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html)."""

DCGM_EXPORTER_CHART = HelmChart("dcgm-exporter", "4.8.2", "https://nvidia.github.io/dcgm-exporter/helm-charts")
"""NVIDIA DCGM exporter. NVIDIA/dcgm-exporter tag 4.5.3-4.8.2 (2026-05-06): deployment/Chart.yaml version 4.8.2;
README ``helm repo add gpu-helm-charts https://nvidia.github.io/dcgm-exporter/helm-charts``. From 4.8.1 (git diff of
deployment/): image 4.5.3-4.8.2-distroless, priorityClassName now a value (default system-node-critical, as before),
the chart's own metrics ConfigMap drops DCGM_FI_DEV_FB_RESERVED and DCGM_FI_DRIVER_VERSION; etc/default-counters.csv
and the pod mapping filter (internal/pkg/transformation/kubernetes.go:72-81: nvidia.com/gpu, nvidia.com/mig-*) are
unchanged."""

KUBE_PROMETHEUS_STACK_CHART = HelmChart(
    "kube-prometheus-stack", "88.5.3", "https://prometheus-community.github.io/helm-charts"
)
"""Prometheus operator, Prometheus, Grafana, kube-state-metrics. prometheus-community/helm-charts tag
kube-prometheus-stack-88.5.3 (2026-08-21): charts/kube-prometheus-stack/Chart.yaml version 88.5.3, appVersion
v0.93.1 (Prometheus operator), kubeVersion >=1.25.0-0; subcharts grafana 12.11.1 (now from grafana-community/
helm-charts, Grafana 13.2.0) and kube-state-metrics 8.4.0. Its UPGRADE.md, per major from 81.x: 82, 83, 86, 87, 88
move the Prometheus operator (v0.89.0, v0.90.1, v0.91.0, v0.92.0, v0.93.0) and need its CRDs applied first (Helm does
not upgrade CRDs: docs/upgrading.md); 84 moves Grafana to v13.0.0; 85 uses the distroless prometheus and
node-exporter images. No values key the project sets changed (tests/charts/test_values.py)."""

PROMETHEUS_ADAPTER_CHART = HelmChart(
    "prometheus-adapter", "5.3.0", "https://prometheus-community.github.io/helm-charts"
)
"""prometheus-adapter v0.12.0: prometheus-community/helm-charts tag prometheus-adapter-5.3.0,
charts/prometheus-adapter/Chart.yaml version 5.3.0."""

CLUSTER_AUTOSCALER_CHART = HelmChart("cluster-autoscaler", "9.59.0", "https://kubernetes.github.io/autoscaler")
"""Cluster autoscaler 1.35.0 (appVersion), matching Kubernetes 1.35: kubernetes/autoscaler tag
cluster-autoscaler-chart-9.59.0, cluster-autoscaler/charts/cluster-autoscaler/Chart.yaml version 9.59.0;
README ``helm repo add autoscaler https://kubernetes.github.io/autoscaler``. EKS only; ACK scales node pools
with its own managed autoscaler."""

CLUSTER_AUTOSCALER_IMAGE_TAGS: dict[str, str] = {
    # The image of each Kubernetes minor version (the autoscaler README: "We recommend using Cluster Autoscaler with
    # the Kubernetes control plane version for which it was meant"): 1.35 the release tag cluster-autoscaler-1.35.2
    # (version/version.go "1.35.2", 2026-07-22; config/flags/flags.go unchanged from 1.35.0, the chart's own
    # image.tag); 1.36
    # the release tag cluster-autoscaler-1.36.1 of kubernetes/autoscaler (version/version.go "1.36.1", 2026-07-22),
    # no chart release with appVersion 1.36 existing (chart 9.59.0 is the newest; its templates are unchanged on
    # master at 55c37cd5, 2026-08-22, and every flag of AUTOSCALER_ARGS is in 1.36.1's config/flags/flags.go).
    "1.35": "v1.35.2",
    "1.36": "v1.36.1",
}
"""cluster-autoscaler image tag (chart value ``image.tag``) per EKS Kubernetes minor version."""

EFA_DEVICE_PLUGIN_CHART = HelmChart("aws-efa-k8s-device-plugin", "v0.5.30", "https://aws.github.io/eks-charts")
"""AWS EFA Kubernetes device plugin (advertises ``vpc.amazonaws.com/efa``, mounts /dev/infiniband): the EKS AL2023
and Bottlerocket AMIs carry the EFA host components but not the plugin (EKS User Guide, "Manage EFA devices on
Amazon EKS"). aws/eks-charts tag v0.0.242 (2026-08-03): stable/aws-efa-k8s-device-plugin/Chart.yaml version v0.5.30,
appVersion v0.5.20; README ``helm repo add eks https://aws.github.io/eks-charts``.
https://github.com/aws/eks-charts/blob/v0.0.242/stable/aws-efa-k8s-device-plugin/Chart.yaml, read 2026-12-02."""

# --- Karpenter (EKS environments with nodeProvisioner: karpenter) ---------------------------------

_KARPENTER = "https://github.com/aws/karpenter-provider-aws/blob"
_KARPENTER_DOCS = f"{_KARPENTER}/1d927085dd81a9df9301e613f371dac5b4d16bfe/website/content/en/v1.14"

KARPENTER_CHART = HelmChart("karpenter", "1.14.1", "oci://public.ecr.aws/karpenter")
"""Karpenter's controller, app version = chart version. aws/karpenter-provider-aws tag v1.14.1 (commit bde00654,
2026-08-20; the newest release): its versioned docs (website/content/en/v1.14 at 1d927085, "docs: update for patch
release v1.14.1") install ``oci://public.ecr.aws/karpenter/karpenter --version 1.14.1`` (getting-started
``KARPENTER_VERSION="1.14.1"``), and upgrading/compatibility.md lists Kubernetes 1.35 (>= 1.9) and 1.36 (>= 1.13),
the two EKS versions pinned here. The chart is published from charts/karpenter at the tag with version, appVersion
and the controller image rewritten to the release (hack/release/common.sh at the tag, ``publishHelmChart``), so the
tag's Chart.yaml still reads 1.13.0. Read 2026-12-03."""

KARPENTER_CRD_CHART = HelmChart("karpenter-crd", "1.14.1", "oci://public.ecr.aws/karpenter")
"""Karpenter's CRDs as their own release, installed before the controller (which then skips its crds/): Helm
installs a chart's crds/ only on the first install and never upgrades them, so the upgrade guide recommends this
chart to keep the CRDs at the controller's version (v1.14 upgrading/upgrade-guide.md, "CRD Upgrades", read
2026-12-03). The objects of this project are validated against the CRDs of this tag (tests/crds)."""

KARPENTER_CHARTS: Final = (KARPENTER_CRD_CHART, KARPENTER_CHART)
"""Installed only on EKS environments whose nodeProvisioner is karpenter (components.aws.karpenter)."""

KARPENTER_PIN_SOURCES: Final[Mapping[str, PinSource]] = {
    # v1.14.1 (tag commit bde00654, 2026-08-20) is the newest tag of aws/karpenter-provider-aws (read 2026-12-03).
    "chart/karpenter": PinSource(
        f"{_KARPENTER_DOCS}/getting-started/getting-started-with-karpenter/_index.md",
        "1.14.1",
        "2026-08-20",
        read_on="2026-12-03",
    ),
    "chart/karpenter-crd": PinSource(
        f"{_KARPENTER_DOCS}/upgrading/upgrade-guide.md", "1.14.1", "2026-08-20", read_on="2026-12-03"
    ),
}
"""Where the Karpenter pins were verified (merged into PIN_SOURCES)."""


GRAFANA_DCGM_DASHBOARD = {"gnetId": 12239, "revision": 1, "datasource": "Prometheus"}
"""NVIDIA's official DCGM exporter dashboard on grafana.com (id 12239, named by the dcgm-exporter README at tag
4.5.2-4.8.1), imported by the Grafana chart's ``dashboards`` value (gnetId/revision/datasource)."""

TENSORFLOW_SERVING_GPU_IMAGE = "tensorflow/serving:2.18.1-gpu"
"""TensorFlow Serving GPU image (Docker Hub tensorflow/serving, ``<version>-gpu`` tags built from
tensorflow_serving/tools/docker/Dockerfile.gpu at the release tag; REST on 8501, gRPC on 8500). 2.18.1 (tag of
2025-03-18, the newest of the 2.18 line) changes only the version strings from 2.18.0 and builds on
nvidia/cuda:12.2.0-base-ubuntu20.04 like it (Dockerfile.gpu:19). The image's tag on Docker Hub could not be read
here (no registry client)."""

AWS_CLI_IMAGE = "public.ecr.aws/aws-cli/aws-cli:2.36.7"
"""The AWS CLI v2 image that stages models from S3 on EKS (the inference pod's init container). Amazon ECR Public is
the image AWS recommends over Docker Hub, tagged with each CLI version ("Run the AWS CLI from the official Amazon
ECR Public or Docker images", docs.aws.amazon.com/cli/latest/userguide/getting-started-docker.html, read
2026-12-02). 2.36.7 is the newest tag of aws/aws-cli seen (2026-07-23); its docker/Dockerfile builds on
public.ecr.aws/amazonlinux/amazonlinux:2023 (2.31.23, pinned before, on Amazon Linux 2, out of support since
2026-06-30); ``/bin/sh`` is there. EKS Pod Identity credentials need CLI v2.15 or later. The image's tag on ECR
Public could not be read here (no registry client)."""

ALPINE_IMAGE = "alpine:3.22.5"
"""The shell image that stages models from OSS on ACK: busybox's ``wget`` (HTTPS through Alpine's ssl_client),
``sha256sum`` and ``unzip`` fetch and check :data:`OSSUTIL_ARCHIVE` first. Docker Official Image ``alpine``: tag 3.22.5
in docker-library/official-images library/alpine (added 2026-06-22, current at 37079fb3 of 2026-08-21, with 3.23.5 and
3.24.1 in the newer lines). Alibaba publishes ossutil as an archive, not as an
image (ossutil 2.0 overview, alibabacloud.com/help/en/oss/developer-reference/ossutil-overview, read 2026-12-02)."""

OSSUTIL_ARCHIVE = (
    "https://gosspublic.alicdn.com/ossutil/v2/2.2.0/ossutil-2.2.0-linux-amd64.zip",
    "9e02837d806cfe976ae6c1fc22557d8e0a394ca6d298b45fb9f48a360d3a67f4",
    "ossutil-2.2.0-linux-amd64/ossutil",
)
"""ossutil 2.2.0 for Linux x86_64: the archive's URL, its SHA-256 and the binary inside, as Alibaba's ossutil 2.0
overview lists them (download table and install steps, read 2026-12-02). ossutil 2 reads RRSA credentials from its
config file (``mode = oidcRoleArn`` with OIDCProviderArn, OIDCTokenFilePath, roleArn: same page, "Use an
OIDCRoleARN")."""


KUEUE_CHART = HelmChart("kueue", "0.19.2", "oci://registry.k8s.io/kueue/charts")
"""Kueue (job queueing, quotas, gang admission): charts/kueue/Chart.yaml at tag v0.19.2 of
github.com/kubernetes-sigs/kueue says version 0.19.2, appVersion v0.19.2; its README installs it as
``helm install kueue oci://registry.k8s.io/kueue/charts/kueue --version="0.19.2"``. The published chart runs image
registry.k8s.io/kueue/kueue:v0.19.2 (hack/helm-chart-package.sh at the tag rewrites the values' image). Its API is
kueue.x-k8s.io/v1beta2 (the storage version of the CRDs in charts/kueue/templates/crd). Read 2026-12-02."""

JOBSET_CHART = HelmChart("jobset", "0.12.0", "oci://registry.k8s.io/jobset/charts")
"""JobSet (multi-node training jobs): charts/jobset/Chart.yaml at tag v0.12.0 of github.com/kubernetes-sigs/jobset
says version 0.12.0; its README installs ``oci://registry.k8s.io/jobset/charts/jobset --version 0.12.0``. API
jobset.x-k8s.io/v1alpha2 (charts/jobset/crds/jobset.x-k8s.io_jobsets.yaml). Read 2026-12-02."""

NCCL_TESTS_IMAGES: dict[str, str] = {
    # AWS's EFA build: EFA installer, aws-ofi-nccl, NCCL, Open MPI, sshd and nccl-tests (built from
    # micro-benchmarks/nccl-tests/nccl-tests.Dockerfile of github.com/aws-samples/awsome-distributed-training; this
    # tag is pinned at commit 7217859f in 1.architectures/3.aws-batch/aws-batch-distributed-training-p6.yaml:301).
    # Read 2026-12-02.
    "aws": "public.ecr.aws/hpc-cloud/nccl-tests:cuda12.8.1-efa1.42.0-ofiv1.16.0-ncclv2.27.5-1-testsv2.16.4",
    # CoreWeave's maintained public build (NCCL 2.30.4, HPC-X Open MPI with mpirun on PATH, sshd, nccl-tests built
    # under /opt/nccl-tests with the /opt/nccl_tests link the acceptance job runs) for CUDA 12.8.1 on Ubuntu 22.04:
    # coreweave/nccl-tests README.md:89 at cb865533 (2026-05-27) lists this tag, built from Dockerfile at 2eedd7c1
    # (2026-05-20; PATH :246-259, nccl-tests :279-283). CUDA 12.8 needs driver 570.26 or later: ACK's pinned 570.169.
    # Its CUDA 12.9 and 13.x builds need drivers ACK does not list. Read 2026-12-03.
    "alicloud": "ghcr.io/coreweave/nccl-tests:12.8.1-devel-ubuntu22.04-nccl2.30.4-1-2eedd7c",
}
"""The nccl-tests image of the GPU pool acceptance job, per cloud."""

# --- Workloads: LLM serving and EBS volumes (workloads engineer) ------------------------------------------------

VLLM_IMAGES: dict[str, str] = {
    "13.0": "vllm/vllm-openai:v0.31.0",
    "12.9": "vllm/vllm-openai:v0.31.0-cu129",
}
"""vLLM's OpenAI-compatible server (``ENTRYPOINT ["vllm", "serve"]``, docker/Dockerfile target vllm-openai), release
0.31.0, by the CUDA release of the build: vLLM publishes each release as ``v<version>`` (CUDA 13.0, the default since
0.20) and ``v<version>-cu129`` (CUDA 12.9; .buildkite/scripts/publish-release-images.sh at c8246ae4, sections "CUDA
(default: 13.0)" and "CUDA 12.9"), and only those two ("We only release cu129 and cu130 wheels",
vllm-project/vllm#42756, maintainer, 2026-05-15). A pool gets the build of the newest CUDA release its driver runs
(components.k8s.cuda ``default_image``): CUDA 13.0 on EKS's AL2023 NVIDIA AMI, whose pinned release ships driver
580.159.03 (:data:`EKS_AL2023_NVIDIA_DRIVERS`; CUDA 13.0 needs 580.65.06), CUDA 12.9 on ACK's pinned 570.169 and on
Bottlerocket (570 assumed), through the image's forward-compatibility libraries. 0.31.0 is the newest release AWS's Deep
Learning Containers build on (aws/deep-learning-containers docs/src/data/vllm/0.31.0-gpu-ec2.yml at c6e3ca18). Read
2026-12-03; neither tag was read at Docker Hub (no registry client here).

Not verified to start, the CUDA 12.9 build only: vLLM's CUDA builds install torchcodec 0.14 or later
(requirements/cuda.txt at 009d5248), which has CUDA 13 wheels only, so ``import torchcodec`` fails in the CUDA 12.9
build (``OSError: libnvrtc.so.13``; vllm-project/vllm#48592); whether 0.31.0 still imports it while starting was not
read (vllm-project/vllm#54097, #54334). The CUDA 13.0 build carries the libraries those wheels need (not run here).
Read 2026-12-04; details and the check in docs/inference.md."""

EKS_EBS_CSI_DRIVER_ADDON: dict[str, str] = {
    # The build AWS marks defaultVersion for Kubernetes 1.36 in `aws eks describe-addon-versions --addon-name
    # aws-ebs-csi-driver` (mitodl/ol-infrastructure#5959, 2026-09-21; upstream kubernetes-sigs/aws-ebs-csi-driver
    # v1.66.0). EBS CSI add-on builds span several Kubernetes minors; 1.35 was not read separately. Confirm with
    # `aws eks describe-addon-versions --kubernetes-version 1.35 --addon-name aws-ebs-csi-driver` before a bump.
    "1.35": "v1.66.0-eksbuild.1",
    "1.36": "v1.66.0-eksbuild.1",
}
"""The Amazon EBS CSI driver EKS add-on per Kubernetes minor version: volume claims (Prometheus' storage) bind only
with it ("The Amazon EBS CSI driver isn't installed when you first create a cluster", EKS User Guide, ebs-csi)."""


def pins() -> Iterator[tuple[str, str]]:
    """Every pinned value: ``(pin id, value)``; the id is the key of its entry in ``PIN_SOURCES``."""
    for version, addons in EKS_ADDON_VERSIONS.items():
        for addon, addon_version in addons.items():
            yield f"eks-addon/{version}/{addon}", addon_version
    for addon, addon_version in EKS_NODE_MONITORING_AGENT_ADDON.items():
        yield f"eks-addon/{addon}", addon_version
    for version, release in EKS_AL2023_RELEASE_VERSIONS.items():
        yield f"eks-ami/{version}", release
    for version, tag in CLUSTER_AUTOSCALER_IMAGE_TAGS.items():
        yield f"image/cluster-autoscaler/{version}", tag
    for arch, ami_type in EKS_GPU_AMI_TYPES.items():
        yield f"eks-ami-type/{arch}", ami_type
    yield "eks-upgrade-policy", EKS_UPGRADE_POLICY
    for version, release in ACK_KUBERNETES_RELEASES.items():
        yield f"ack-release/{version}", release
    yield "ack-nvidia-driver", ACK_NVIDIA_DRIVER_VERSION
    for chart in CHARTS:
        yield f"chart/{chart.name}", f"{chart.repo} {chart.version}"
    yield "grafana-dashboard/dcgm", f"{GRAFANA_DCGM_DASHBOARD['gnetId']} r{GRAFANA_DCGM_DASHBOARD['revision']}"
    yield "image/tensorflow-serving-gpu", TENSORFLOW_SERVING_GPU_IMAGE
    yield "image/aws-cli", AWS_CLI_IMAGE
    yield "image/alpine", ALPINE_IMAGE
    yield "archive/ossutil", f"{OSSUTIL_ARCHIVE[0]} sha256:{OSSUTIL_ARCHIVE[1]}"
    for cloud, image in NCCL_TESTS_IMAGES.items():
        yield f"image/nccl-tests/{cloud}", image
    for cuda, image in VLLM_IMAGES.items():
        yield f"image/vllm/{cuda}", image
    for version, build in EKS_EBS_CSI_DRIVER_ADDON.items():
        yield f"eks-addon/{version}/aws-ebs-csi-driver", build


CHARTS: Final = (
    NVIDIA_DEVICE_PLUGIN_CHART,
    DCGM_EXPORTER_CHART,
    KUBE_PROMETHEUS_STACK_CHART,
    PROMETHEUS_ADAPTER_CHART,
    CLUSTER_AUTOSCALER_CHART,
    JOBSET_CHART,
    KUEUE_CHART,
    EFA_DEVICE_PLUGIN_CHART,
    *KARPENTER_CHARTS,
)
"""Every Helm chart the Kubernetes layer installs, and Karpenter's."""

_GH = "https://github.com"
_ADDON_CAPTURE = f"{_GH}/aobao32/eks-101-workshop/blob/main/18-EKS-Network-performance.md"
"""The page's revision of 2026-09-24 (EKS 1.36 in ap-southeast-1, "Time: UTC 11:30-12:30, Sep 24, 2026") prints
``aws eks describe-addon-versions --addon-name vpc-cni --kubernetes-version 1.36``: v1.23.1-eksbuild.1 False,
v1.23.0-eksbuild.1 False, v1.22.4-eksbuild.3 True. Cited on its branch: the commit this once named (9aba525e) is the
page's first revision, of December 2023 (VPC CNI v1.14.1 and v1.15.4 on EKS 1.28), which shows none of these; the
2026 revision was read through the code index on 2026-12-04, which gives no commit for it."""
_EKS_BUILDS = (
    "AWS's table, the pin's source, lists the pinned build as the latest for this Kubernetes version; the newer builds "
    "appear only in third-party configurations and captures, so the pin moves after `aws eks describe-addon-versions` "
    "confirms them"
)
_VLLM_RELEASE = PinSource(
    f"{_GH}/vllm-project/vllm/blob/c8246ae4a217d4f3a5d7fd75bcef375ddb00c019/.buildkite/scripts/publish-release-images.sh",
    "v0.31.0",
    "2026-12-03",
    read_on="2026-12-03",
)
"""Both builds of the pinned vLLM release (the tag scheme is the script's); 0.31.0 is the newest release seen (see
:data:`VLLM_IMAGES`)."""
_EKS_AMI_NEWER = (
    "tag v20260724 (2026-07-23) is the newest release readable here, but its CHANGELOG entry (the release version per "
    "Kubernetes version) is in no snapshot, and later releases are known only from third-party mentions; read the "
    "release notes before moving"
)
PIN_SOURCES: Final[Mapping[str, PinSource]] = {
    "eks-addon/1.35/vpc-cni": PinSource(
        _ADDON_CAPTURE,
        "v1.23.1-eksbuild.1",
        "2026-09-24",
        "the v1.22 line's newest build is the pin; v1.23 is a newer minor line that describe-addon-versions (the "
        "capture cited, for 1.36) does not mark EKS's default, and its 1.35 compatibility was not read; move after "
        "`aws eks describe-addon-versions --kubernetes-version 1.35 --addon-name vpc-cni`",
        "2026-12-03",
    ),
    "eks-addon/1.35/coredns": PinSource(_EKS_COREDNS, "v1.14.3-eksbuild.23", "2026-12-03", _EKS_BUILDS),
    "eks-addon/1.35/kube-proxy": PinSource(_EKS_KUBE_PROXY, "v1.35.3-eksbuild.29", "2026-12-03", _EKS_BUILDS),
    "eks-addon/1.35/eks-pod-identity-agent": PinSource(
        _EKS_POD_IDENTITY_AGENT, "v1.3.10-eksbuild.3", "2026-06-24", read_on="2026-12-03"
    ),
    "eks-addon/eks-node-monitoring-agent": PinSource(
        f"{_GH}/aws/eks-node-monitoring-agent/blob/v1.7.0/charts/eks-node-monitoring-agent/values.yaml",
        "v1.7.0-eksbuild.1",
        "2026-08-04",
    ),
    "eks-addon/1.36/vpc-cni": PinSource(
        _ADDON_CAPTURE,
        "v1.23.1-eksbuild.1",
        "2026-09-24",
        "the v1.22 line's newest build is the pin and EKS's default for 1.36 (describe-addon-versions in the capture "
        "cited: v1.22.4-eksbuild.3 defaultVersion True, v1.23.0-eksbuild.1 and v1.23.1-eksbuild.1 above it); v1.23 is "
        "a newer minor line, kept in step with 1.35",
        "2026-12-03",
    ),
    # v1.14.6-eksbuild.4: ACTIVE on 1.36 clusters in public add-on inventories (with kube-proxy v1.36.0-eksbuild.25,
    # vpc-cni v1.23.1-eksbuild.1, eks-pod-identity-agent v1.4.0-eksbuild.2), code index read 2026-12-04; no release
    # date given there.
    "eks-addon/1.36/coredns": PinSource(_EKS_COREDNS, "v1.14.6-eksbuild.4", "2026-12-04", _EKS_BUILDS, "2026-12-04"),
    "eks-addon/1.36/kube-proxy": PinSource(
        _EKS_KUBE_PROXY, "v1.36.0-eksbuild.25", "2026-12-03", _EKS_BUILDS, "2026-12-03"
    ),
    "eks-addon/1.36/eks-pod-identity-agent": PinSource(
        _EKS_POD_IDENTITY_AGENT, "v1.3.10-eksbuild.3", "2026-06-24", read_on="2026-12-03"
    ),
    "eks-ami/1.35": PinSource(_EKS_AMI_CHANGELOG, "20260724", "2026-07-23", _EKS_AMI_NEWER),
    "eks-ami/1.36": PinSource(_EKS_AMI_CHANGELOG, "20260724", "2026-07-23", _EKS_AMI_NEWER, "2026-12-03"),
    "image/cluster-autoscaler/1.35": PinSource(
        f"{_GH}/kubernetes/autoscaler/blob/cluster-autoscaler-1.35.2/cluster-autoscaler/version/version.go",
        "v1.35.2",
        "2026-07-22",
        read_on="2026-12-03",
    ),
    "image/cluster-autoscaler/1.36": PinSource(
        f"{_GH}/kubernetes/autoscaler/blob/cluster-autoscaler-1.36.1/cluster-autoscaler/version/version.go",
        "v1.36.1",
        "2026-07-22",
        read_on="2026-12-03",
    ),
    "eks-ami-type/x86_64": PinSource(
        "https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html", "AL2023_x86_64_NVIDIA", READ_ON
    ),
    "eks-ami-type/arm64": PinSource(
        "https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html", "AL2023_ARM_64_NVIDIA", READ_ON
    ),
    "eks-upgrade-policy": PinSource(
        "https://docs.aws.amazon.com/eks/latest/APIReference/API_UpgradePolicyRequest.html", "STANDARD", READ_ON
    ),
    "ack-release/1.35": PinSource(_ACK_135_NOTES, "1.35.7-aliyun.1", "2026-08-26"),
    "ack-release/1.36": PinSource(_ACK_136_NOTES, "1.36.1-aliyun.1", "2026-06-06", read_on="2026-12-03"),
    "ack-nvidia-driver": PinSource(
        "https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/"
        "ack-supported-nvidia-driver-version-list",
        "570.169",
        "2026-02-12",
        read_on="2026-12-03",
    ),
    "chart/nvidia-device-plugin": PinSource(
        f"{_GH}/NVIDIA/k8s-device-plugin/blob/v0.20.0/deployments/helm/nvidia-device-plugin/Chart.yaml",
        "0.20.0",
        "2026-08-19",
        read_on="2026-12-03",
    ),
    "chart/dcgm-exporter": PinSource(
        f"{_GH}/NVIDIA/dcgm-exporter/blob/4.5.3-4.8.2/deployment/Chart.yaml",
        "4.8.2",
        "2026-05-06",
        read_on="2026-12-03",
    ),
    "chart/kube-prometheus-stack": PinSource(
        f"{_GH}/prometheus-community/helm-charts/blob/kube-prometheus-stack-88.5.3/charts/kube-prometheus-stack/Chart.yaml",
        "88.5.3",
        "2026-08-21",
        read_on="2026-12-03",
    ),
    "chart/prometheus-adapter": PinSource(
        f"{_GH}/prometheus-community/helm-charts/blob/prometheus-adapter-5.3.0/charts/prometheus-adapter/Chart.yaml",
        "5.3.0",
        "2026-02-19",
    ),
    "chart/cluster-autoscaler": PinSource(
        f"{_GH}/kubernetes/autoscaler/blob/cluster-autoscaler-chart-9.59.0/cluster-autoscaler/charts/cluster-autoscaler/Chart.yaml",
        "9.59.0",
        "2026-07-21",
    ),
    "chart/aws-efa-k8s-device-plugin": PinSource(
        f"{_GH}/aws/eks-charts/blob/v0.0.242/stable/aws-efa-k8s-device-plugin/Chart.yaml", "v0.5.30", "2026-07-28"
    ),
    "grafana-dashboard/dcgm": PinSource(
        f"{_GH}/NVIDIA/dcgm-exporter/blob/4.5.3-4.8.2/README.md", "r1", "2026-12-03", read_on="2026-12-03"
    ),
    "image/tensorflow-serving-gpu": PinSource(
        f"{_GH}/tensorflow/serving/blob/2.18.1/tensorflow_serving/tools/docker/Dockerfile.gpu",
        "2.18.1",
        "2025-03-18",
        read_on="2026-12-03",
    ),
    "image/aws-cli": PinSource(
        f"{_GH}/aws/aws-cli/blob/2.36.7/docker/Dockerfile", "2.36.7", "2026-07-23", read_on="2026-12-03"
    ),
    "image/alpine": PinSource(
        f"{_GH}/docker-library/official-images/blob/37079fb336f572a88700cf32e5e1f6be54a04e8f/library/alpine",
        "3.22.5",
        "2026-06-22",
        read_on="2026-12-03",
    ),
    "archive/ossutil": PinSource(
        "https://www.alibabacloud.com/help/en/oss/developer-reference/ossutil-overview",
        "2.3.0",
        "2026-12-03",
        "no newer 2.2.x was seen; 2.3.0 appears only in third-party mentions (an npm wrapper), not in Alibaba's "
        "download table with its SHA-256, which a move needs (OSSUTIL_ARCHIVE)",
    ),
    "chart/jobset": PinSource(
        f"{_GH}/kubernetes-sigs/jobset/blob/v0.12.0/charts/jobset/Chart.yaml", "0.12.0", "2026-05-08"
    ),
    "chart/kueue": PinSource(
        f"{_GH}/kubernetes-sigs/kueue/blob/v0.19.2/charts/kueue/Chart.yaml", "0.19.2", "2026-08-20"
    ),
    "image/nccl-tests/aws": PinSource(
        f"{_GH}/aws-samples/awsome-distributed-training/blob/7217859f67bc693c52ff175ccc6082c41dbd7a1b/"
        "1.architectures/3.aws-batch/aws-batch-distributed-training-p6.yaml",
        "cuda12.8.1-efa1.42.0-ofiv1.16.0-ncclv2.27.5-1-testsv2.16.4",
        "2026-02-21",
    ),
    "image/nccl-tests/alicloud": PinSource(
        f"{_GH}/coreweave/nccl-tests/blob/cb86553328f8c9ed6f9d682971f5f9b17a926ab4/README.md",
        "12.8.1-devel-ubuntu22.04-nccl2.30.4-1-2eedd7c",
        "2026-05-27",
        read_on="2026-12-03",
    ),
    **{f"image/vllm/{cuda}": _VLLM_RELEASE for cuda in VLLM_IMAGES},
    # EKS's defaultVersion for 1.36 on 2026-09-21 (the pull request's description).
    "eks-addon/1.35/aws-ebs-csi-driver": PinSource(
        f"{_GH}/mitodl/ol-infrastructure/pull/5959", "v1.66.0-eksbuild.1", "2026-09-21", read_on="2026-12-03"
    ),
    "eks-addon/1.36/aws-ebs-csi-driver": PinSource(
        f"{_GH}/mitodl/ol-infrastructure/pull/5959", "v1.66.0-eksbuild.1", "2026-09-21", read_on="2026-12-03"
    ),
    **KARPENTER_PIN_SOURCES,
}
"""Pin id (see ``pins``) -> where that exact value was verified and when, and the newest release seen of its line."""
