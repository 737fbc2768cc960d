"""Every pinned version in one place: Kubernetes, EKS/ACK add-ons, AMI types, Helm charts, images.

Bumping a value here is a deliberate change (node images roll, charts upgrade); each value cites where
it was read.
"""

from typing import NamedTuple

# --- EKS (AWS) -----------------------------------------------------------------------------------

EKS_ADDON_VERSIONS: dict[str, dict[str, str]] = {
    # Amazon EKS User Guide (awsdocs/amazon-eks-user-guide), tables of the latest EKS add-on type per
    # Kubernetes version: managing-vpc-cni.adoc and managing-coredns.adoc (commit 057948d9),
    # managing-kube-proxy.adoc (commit 0cc5a760). eks-pod-identity-agent has no such table in the guide;
    # v1.3.8-eksbuild.2 is the version pinned by public EKS modules for 1.31 clusters -- confirm with
    # `aws eks describe-addon-versions --addon-name eks-pod-identity-agent --kubernetes-version 1.31`.
    "1.31": {
        "vpc-cni": "v1.20.1-eksbuild.3",
        "coredns": "v1.11.4-eksbuild.22",
        "kube-proxy": "v1.31.3-eksbuild.2",
        "eks-pod-identity-agent": "v1.3.8-eksbuild.2",
    },
}
"""EKS managed add-on versions per Kubernetes minor version."""

EKS_AL2023_RELEASE_VERSIONS: dict[str, str] = {
    # awslabs/amazon-eks-ami release v20250620: AL2023 AMIs (standard and NVIDIA) for Kubernetes 1.31.7;
    # EKS node group release_version format <kubernetes patch>-<date>.
    "1.31": "1.31.7-20250620",
}
"""Pinned EKS-optimized AL2023 AMI release per Kubernetes minor version (node group ``release_version``)."""

EKS_GPU_AMI_TYPES: dict[str, str] = {
    # EKS CreateNodegroup API, amiType: AL2023_x86_64_NVIDIA and AL2023_ARM_64_NVIDIA (pulumi-aws
    # eks.NodeGroup ami_type docs link the same list).
    "x86_64": "AL2023_x86_64_NVIDIA",
    "arm64": "AL2023_ARM_64_NVIDIA",
}
"""Default EKS AMI type of a GPU node group, by instance architecture."""


# --- ACK (Alibaba Cloud) -------------------------------------------------------------------------

ACK_KUBERNETES_RELEASES: dict[str, str] = {
    # ACK Kubernetes 1.30 release notes (component versions): 1.30.7-aliyun.1.
    # https://www.alibabacloud.com/help/en/ack/ack-managed-and-ack-dedicated/user-guide/kubernetes-1-30-release-notes
    "1.30": "1.30.7-aliyun.1",
    # ACK version format x.y.z-aliyun.n, example 1.31.1-aliyun.1.
    # https://www.alibabacloud.com/help/en/ack/ack-lingjun-managed-clusters/user-guide/support-for-kubernetes-versions
    "1.31": "1.31.1-aliyun.1",
    # ACK Kubernetes 1.33 release notes (component versions): 1.33.1-aliyun.1 and 1.33.3-aliyun.1.
    # https://www.alibabacloud.com/help/doc-detail/2923891.html
    "1.33": "1.33.3-aliyun.1",
}
"""ACK release of each Kubernetes minor version a spec may name (``cs.ManagedKubernetes.version``)."""

ACK_NVIDIA_DRIVER_VERSION = "550.144.03"
"""NVIDIA driver pinned on ACK GPU node pools with the ``ack.aliyun.com/nvidia-driver-version`` node label, so a
change of ACK's default driver never reaches new nodes unannounced. Listed as supported for ACK 1.28 and later;
550 fixes the XID 119/120/31 issues of earlier branches.
https://www.alibabacloud.com/help/en/document_detail/2402382.html (supported versions),
https://www.alibabacloud.com/help/en/document_detail/207292.html (the label)."""


# --- Kubernetes layer: Helm charts and images -----------------------------------------------------


class HelmChart(NamedTuple):
    """A Helm chart pinned to one version, and the repository it comes from."""

    name: str
    version: str
    repo: str


NVIDIA_DEVICE_PLUGIN_CHART = HelmChart("nvidia-device-plugin", "0.17.1", "https://nvidia.github.io/k8s-device-plugin")
"""NVIDIA device plugin, not the GPU Operator: the EKS NVIDIA AMIs and the ACK GPU images already carry the driver
and the container toolkit, so the operator (with driver and toolkit disabled) would only add an operator, NFD and
CRDs around this one DaemonSet. Repository: https://nvidia.github.io/k8s-device-plugin (NVIDIA/k8s-device-plugin
README); 0.17.1 is a published chart release (its upgrade to 0.18.0 in github.com/crutonjohn/gitops/pull/1548).
The AL2023 NVIDIA AMIs do not include the device plugin ("must be installed separately",
docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html)."""

DCGM_EXPORTER_CHART = HelmChart("dcgm-exporter", "4.8.1", "https://nvidia.github.io/dcgm-exporter/helm-charts")
"""NVIDIA DCGM exporter. Repository: https://nvidia.github.io/dcgm-exporter (helm repo add gpu-helm-charts ...);
chart 4.8.1 = image 4.5.2-4.8.1 (docs.convox.com rack parameter gpu_observability_chart_version)."""

KUBE_PROMETHEUS_STACK_CHART = HelmChart(
    "kube-prometheus-stack", "81.4.5", "https://prometheus-community.github.io/helm-charts"
)
"""Prometheus operator, Prometheus, Grafana, kube-state-metrics. charts/kube-prometheus-stack/Chart.yaml
(version 81.4.5, kubeVersion >=1.25) in github.com/prometheus-community/helm-charts."""

PROMETHEUS_ADAPTER_CHART = HelmChart(
    "prometheus-adapter", "5.3.0", "https://prometheus-community.github.io/helm-charts"
)
"""prometheus-adapter v0.12.0: charts/prometheus-adapter/Chart.yaml (version 5.3.0) in
prometheus-community/helm-charts."""

CLUSTER_AUTOSCALER_CHART = HelmChart("cluster-autoscaler", "9.38.0", "https://kubernetes.github.io/autoscaler")
"""Cluster autoscaler 1.31.0 (appVersion), matching Kubernetes 1.31: charts/cluster-autoscaler/Chart.yaml (version
9.38.0) in github.com/kubernetes/autoscaler. EKS only; ACK scales node pools with its own managed autoscaler."""

GRAFANA_DCGM_DASHBOARD = {"gnetId": 12239, "revision": 1, "datasource": "Prometheus"}
"""NVIDIA's official DCGM exporter dashboard on grafana.com (id 12239, https://nvidia.github.io/dcgm-exporter),
imported by the Grafana chart's ``dashboards`` value (gnetId/revision/datasource)."""

TENSORFLOW_SERVING_GPU_IMAGE = "tensorflow/serving:2.18.0-gpu"
"""TensorFlow Serving GPU image (Docker Hub tensorflow/serving, ``<version>-gpu`` tags built from
tensorflow_serving/tools/docker/Dockerfile.gpu; REST on 8501, gRPC on 8500)."""
