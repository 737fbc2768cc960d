"""PriorityClasses for GPU work: critical training, standard work, and preemptible work for spot capacity."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from gpu_cloud.components import labels

__all__ = ["PRIORITY_VALUES", "PriorityClasses", "PriorityClassesArgs"]

PRIORITY_VALUES: dict[str, int] = {
    labels.PRIORITY_CRITICAL: 1_000_000,
    labels.PRIORITY_STANDARD: 100_000,
    labels.PRIORITY_PREEMPTIBLE: 1_000,
}
"""Value of each class; all below the system classes (2000000000 and up), none the global default."""


@dataclass(frozen=True)
class PriorityClassesArgs:
    """PriorityClasses need nothing but a Kubernetes provider (through ``opts``)."""


class PriorityClasses(pulumi.ComponentResource):
    """``gpu-critical``, ``gpu-standard`` and ``gpu-preemptible`` (``preemptionPolicy: Never``: work that may run
    on spot capacity never evicts others). Names are ``components.labels.PRIORITY_*``."""

    classes: dict[str, k8s.scheduling.v1.PriorityClass]
    """The PriorityClasses by name."""

    def __init__(
        self, name: str, args: PriorityClassesArgs | None = None, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpucloud:k8s:PriorityClasses", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        descriptions = {
            labels.PRIORITY_CRITICAL: "Critical GPU training; preempts lower GPU work.",
            labels.PRIORITY_STANDARD: "Ordinary GPU work.",
            labels.PRIORITY_PREEMPTIBLE: "GPU work that may run on spot capacity; never preempts.",
        }
        self.classes = {
            class_name: k8s.scheduling.v1.PriorityClass(
                f"{name}-{class_name}",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=class_name),
                value=value,
                global_default=False,
                preemption_policy="Never" if class_name == labels.PRIORITY_PREEMPTIBLE else "PreemptLowerPriority",
                description=descriptions[class_name],
                opts=child,
            )
            for class_name, value in PRIORITY_VALUES.items()
        }
        self.register_outputs({"classes": list(self.classes)})
