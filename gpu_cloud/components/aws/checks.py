"""The stack config checks only EKS needs, registered in the one validation model of ``components.spec`` for AWS
configs when this package is imported (the neutral spec never imports a cloud's module).

:class:`~gpu_cloud.components.aws.environment.GpuEnvironment` runs them again on the config it is given, so a
config validated before this package was imported is still checked before anything is declared.
"""

from __future__ import annotations

from gpu_cloud.components.aws.expander import expander_priorities, expander_problems, node_group_names
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import EgressMode, Problem, StackConfig, stack_check

__all__ = ["eks_network_problems", "eks_node_group_problems"]


@stack_check("node_pools", "spot_groups", cloud=Cloud.AWS)
def eks_node_group_problems(config: StackConfig) -> list[Problem]:
    """What keeps the node groups' EKS names from being generated or ranked by the autoscaler's priority expander
    (components.aws.expander: a name too long, a name clash, a fall-back not below its spot group)."""
    return expander_problems(node_group_names(config), expander_priorities(config.spot_groups))


def eks_network_problems(config: StackConfig) -> list[Problem]:
    """An environment's network must let its nodes pull the Kubernetes layer's images (GpuEnvironment runs this; a
    program that builds only some components, a network for instance, may be endpoints-only). With ``endpoints-only``
    egress the nodes reach AWS through VPC endpoints alone, and a cluster without outbound internet access "must pull
    images from a container registry that's in your VPC" (EKS User Guide, "Deploy private clusters with limited
    internet access", awsdocs/amazon-eks-user-guide latest/ug/clusters/private-clusters.adoc, read 2026-12-03),
    while the layer's charts pull from public registries (registry.k8s.io, nvcr.io, quay.io, ghcr.io:
    components.versions) that no endpoint reaches (aws.md W3)."""
    if config.network.egress is EgressMode.ENDPOINTS_ONLY:
        message = (
            "an EKS cluster's nodes pull the add-ons' images from public registries, which no VPC endpoint reaches: "
            "use nat"
        )
        return [Problem("network.egress", message, config.network.egress.value)]
    return []
