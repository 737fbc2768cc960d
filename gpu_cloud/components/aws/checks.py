"""The stack config checks only EKS needs, registered in the one validation model of ``components.spec`` for AWS
configs when this package is imported (the neutral spec never imports a cloud's module).

:class:`~gpu_cloud.components.aws.environment.GpuEnvironment` runs them again on the config it is given, so a
config validated before this package was imported is still checked before anything is declared.
"""

from __future__ import annotations

from gpu_cloud.components.aws.expander import expander_priorities, expander_problems, node_group_names
from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import Problem, StackConfig, stack_check

__all__ = ["eks_node_group_problems"]


@stack_check("node_pools", "spot_groups", cloud=Cloud.AWS)
def eks_node_group_problems(config: StackConfig) -> list[Problem]:
    """What keeps the node groups' EKS names from being generated or ranked by the autoscaler's priority expander
    (components.aws.expander: a name too long, a name clash, a fall-back not below its spot group)."""
    return expander_problems(node_group_names(config), expander_priorities(config.spot_groups))
