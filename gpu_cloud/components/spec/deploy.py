"""Where the private Kubernetes API is reached from: the deploy runner."""

from __future__ import annotations

from ipaddress import IPv4Network

from pydantic import Field

from gpu_cloud.components.spec._base import Spec

__all__ = ["DeploySpec"]


class DeploySpec(Spec):
    """Where the Kubernetes API is reached from: the deploy runner of the account's bootstrap stack.

    The control plane has a private endpoint only, so ``pulumi up`` runs on the runner (AWS: a CodeBuild project in
    the runner VPC; Alibaba Cloud: an ECS instance without public IP, driven by Cloud Assistant), which reaches
    the API over a VPC peering this stack creates, admitted by an explicit rule (docs/deploy.md)."""

    runner_stack: str = Field(min_length=1)
    """The bootstrap stack that owns the runner (``<org>/gpu-cloud-bootstrap/<stack>``); it exports runnerVpcId and
    runnerRouteTableIds (AWS: a list; Alibaba Cloud: one id)."""
    runner_vpc_cidr: IPv4Network
    """The runner VPC's range: routed to over the peering and admitted on the API port; must not overlap the VPC."""
    runner_route_table_count: int = Field(default=1, ge=1, le=16)
    """AWS: how many ids the runner stack's runnerRouteTableIds lists."""
