"""Where the private Kubernetes API is reached from: the deploy runner."""

from __future__ import annotations

from ipaddress import IPv4Network

from pydantic import Field

from gpu_cloud.components.spec._base import Spec

__all__ = ["DeploySpec"]


class DeploySpec(Spec):
    """Where the Kubernetes API is reached from: the deploy runner of the account's bootstrap.

    The control plane has a private endpoint only, so ``pulumi up`` runs on the runner (AWS: a CodeBuild project in
    the runner VPC; Alibaba Cloud: an ECS instance without public IP, driven by Cloud Assistant), which reaches
    the API over a VPC peering this stack creates, admitted by an explicit rule (docs/deploy.md). The runner's VPC
    and route tables come from the parameters its bootstrap publishes in ``runnerRegion``
    (``gpu_cloud.components.bootstrap_facts``), never from a StackReference: the bootstrap's state lives in another
    backend (pulumi/pulumi#3395)."""

    runner_vpc_cidr: IPv4Network
    """The runner VPC's range: routed to over the peering and admitted on the API port; must not overlap the VPC,
    and must be the range the bootstrap publishes (checked when the parameter is read)."""
    runner_route_table_count: int = Field(default=1, ge=1, le=16)
    """How many route tables the bootstrap publishes for the runner VPC (AWS: one per zone; Alibaba Cloud: one): a
    route to this environment goes into each, so the count must be known before the parameter is read."""
    runner_region: str | None = Field(default=None, min_length=1)
    """The region of the runner and of its bootstrap's parameters, when not the environment's (AWS: the peering with
    the runner VPC is then cross-region). Alibaba Cloud: the environment's region only."""
