"""Every pinned version in one place: Kubernetes, EKS/ACK add-ons, AMI types, Helm charts, images.

Bumping a value here is a deliberate change (node images roll, charts upgrade); each value cites where
it was read.
"""

# --- EKS (AWS) -----------------------------------------------------------------------------------


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
