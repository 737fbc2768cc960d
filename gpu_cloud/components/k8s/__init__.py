"""The cloud-neutral Kubernetes layer: priority classes, GPU RBAC, GPU add-ons, inference services, training
defaults. Every component takes the cluster's Kubernetes provider through ``opts``; :class:`KubernetesLayer` builds
them all on a cluster a :class:`ClusterHandle` describes, with the provider it makes from the kubeconfig."""

from gpu_cloud.components.k8s.acceptance import PoolAcceptanceTest, PoolAcceptanceTestArgs
from gpu_cloud.components.k8s.addons import GpuAddons, GpuAddonsArgs
from gpu_cloud.components.k8s.cuda import cuda_problems
from gpu_cloud.components.k8s.inference import InferenceService, InferenceServiceArgs
from gpu_cloud.components.k8s.layer import ClusterHandle, KubernetesLayer, KubernetesLayerArgs
from gpu_cloud.components.k8s.priority import PriorityClasses, PriorityClassesArgs
from gpu_cloud.components.k8s.queueing import TrainingQueues, TrainingQueuesArgs
from gpu_cloud.components.k8s.rbac import GpuRbac, GpuRbacArgs
from gpu_cloud.components.k8s.training import TrainingDefaults, TrainingDefaultsArgs
from gpu_cloud.components.k8s.training_job import TrainingJob, TrainingJobArgs

__all__ = [
    "ClusterHandle",
    "GpuAddons",
    "GpuAddonsArgs",
    "GpuRbac",
    "GpuRbacArgs",
    "InferenceService",
    "InferenceServiceArgs",
    "KubernetesLayer",
    "KubernetesLayerArgs",
    "PoolAcceptanceTest",
    "PoolAcceptanceTestArgs",
    "PriorityClasses",
    "PriorityClassesArgs",
    "TrainingDefaults",
    "TrainingDefaultsArgs",
    "TrainingJob",
    "TrainingJobArgs",
    "TrainingQueues",
    "TrainingQueuesArgs",
    "cuda_problems",
]
