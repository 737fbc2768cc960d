"""Which ServiceAccounts of the Kubernetes layer reach the environment's bucket, and how far: the one list both
clouds' environments give a workload identity each (AWS: an EKS Pod Identity role; Alibaba Cloud: an RRSA role),
and the ClusterHandle fields those identities fill.

The layer names the ServiceAccounts (an inference service's and a training job's are named after them, the
training namespace's is :data:`~gpu_cloud.components.k8s.training.TRAINING_SERVICE_ACCOUNT`), so it also says who
needs the bucket; each cloud turns a :class:`BucketAccess` into its own policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import pulumi

from gpu_cloud.components.k8s.layer import INFERENCE_NAMESPACE
from gpu_cloud.components.k8s.training import TRAINING_SERVICE_ACCOUNT
from gpu_cloud.components.spec import StackConfig

__all__ = ["AccessKind", "BucketAccess", "bucket_accesses", "handle_fields"]


class AccessKind(StrEnum):
    """What a ServiceAccount does with the bucket."""

    MODEL = "model"
    """An inference service reads its model (``prefix``), nothing else."""
    TRAINING = "training"
    """The training namespace's ServiceAccount reads and writes checkpoints anywhere in the bucket."""
    JOB = "job"
    """A training job reads, writes and prunes its own checkpoints (``prefix``), nothing else."""


@dataclass(frozen=True)
class BucketAccess:
    """A ServiceAccount that reaches the environment's bucket."""

    kind: AccessKind
    name: str
    """The inference service's or training job's name; ``training`` for the training namespace's ServiceAccount."""
    namespace: str
    service_account: str
    prefix: str
    """The key prefix it may reach (its model, its checkpoints); empty for the whole bucket."""


def bucket_accesses(config: StackConfig) -> list[BucketAccess]:
    """Every ServiceAccount of ``config``'s Kubernetes layer that reaches the bucket: the inference services', then the
    training namespace's and each training job's."""
    found = [
        BucketAccess(AccessKind.MODEL, s.name, INFERENCE_NAMESPACE, s.name, s.model_source) for s in config.inference
    ]
    if config.training is not None:
        namespace = config.training.namespace
        found.append(BucketAccess(AccessKind.TRAINING, "training", namespace, TRAINING_SERVICE_ACCOUNT, ""))
        found += [
            BucketAccess(AccessKind.JOB, job.name, namespace, job.name, job.checkpoint_prefix)
            for job in config.training.jobs
        ]
    return found


def handle_fields(
    identities: Mapping[BucketAccess, pulumi.Resource], role_names: Mapping[BucketAccess, pulumi.Input[str]] | None
) -> dict[str, Any]:
    """The ClusterHandle fields of the identities made for each access: what the layer's objects wait for, and, where
    the ServiceAccount names its role (``role_names``: ACK's RRSA annotation), the role names."""
    by_kind: dict[AccessKind, dict[str, pulumi.Resource]] = {kind: {} for kind in AccessKind}
    for access, identity in identities.items():
        by_kind[access.kind][access.name] = identity
    fields: dict[str, Any] = {
        "inference_identities": by_kind[AccessKind.MODEL],
        "training_identities": list(by_kind[AccessKind.TRAINING].values()),
        "job_identities": by_kind[AccessKind.JOB],
    }
    if role_names is not None:
        roles: dict[AccessKind, dict[str, pulumi.Input[str]]] = {kind: {} for kind in AccessKind}
        for access, role in role_names.items():
            roles[access.kind][access.name] = role
        fields |= {
            "inference_roles": roles[AccessKind.MODEL],
            "checkpoint_role": next(iter(roles[AccessKind.TRAINING].values()), None),
            "job_roles": roles[AccessKind.JOB],
        }
    return fields
