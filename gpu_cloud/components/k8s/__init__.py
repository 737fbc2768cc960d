"""The cloud-neutral Kubernetes layer: priority classes, GPU RBAC, GPU add-ons, inference services, training
defaults. Every component takes the cluster's Kubernetes provider through ``opts``."""

from gpu_cloud.components.k8s.addons import GpuAddons, GpuAddonsArgs
from gpu_cloud.components.k8s.cuda import cuda_problems
from gpu_cloud.components.k8s.inference import InferenceService, InferenceServiceArgs
from gpu_cloud.components.k8s.priority import PriorityClasses, PriorityClassesArgs
from gpu_cloud.components.k8s.queueing import TrainingQueues, TrainingQueuesArgs
from gpu_cloud.components.k8s.rbac import GpuRbac, GpuRbacArgs
from gpu_cloud.components.k8s.training import TrainingDefaults, TrainingDefaultsArgs

__all__ = [
    "GpuAddons",
    "GpuAddonsArgs",
    "GpuRbac",
    "GpuRbacArgs",
    "InferenceService",
    "InferenceServiceArgs",
    "PriorityClasses",
    "PriorityClassesArgs",
    "TrainingDefaults",
    "TrainingDefaultsArgs",
    "TrainingQueues",
    "TrainingQueuesArgs",
    "cuda_problems",
]
