"""Every pinned version in one place: Kubernetes, EKS/ACK add-ons, AMI types, Helm charts, images.

Bumping a value here is a deliberate change (node images roll, charts upgrade); each value cites where
it was read.
"""

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


# --- Kubernetes layer: Helm charts and images -----------------------------------------------------
