"""The stack outputs every environment exports under the same names, whatever its cloud."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pulumi

from gpu_cloud.components import labels
from gpu_cloud.components.spec import StackConfig

__all__ = ["common_outputs", "node_pool_names"]


def common_outputs(
    config: StackConfig,
    *,
    kms_key_id: pulumi.Input[str],
    kms_key_arn: pulumi.Input[str],
    vpc_id: pulumi.Input[str],
    private_subnet_ids: Sequence[pulumi.Input[str]],
    private_route_table_ids: Sequence[pulumi.Input[str]],
    cluster_name: pulumi.Input[str],
    cluster_endpoint: pulumi.Input[str],
    kubeconfig: pulumi.Input[str],
    node_pool_names: Sequence[pulumi.Input[str]],
    gpu_admin_role_arn: pulumi.Input[str],
    gpu_user_role_arn: pulumi.Input[str] | None,
) -> dict[str, Any]:
    """environment, region, kmsKeyId, kmsKeyArn, vpcId, privateSubnetIds (vswitches on Alibaba Cloud),
    privateRouteTableIds (what a stack that peers with this one reads through peering.peerStack), clusterName,
    clusterEndpoint, kubeconfig (secret), nodePoolNames, gpuAdminRoleArn and gpuUserRoleArn (when there are users).
    Each environment adds checkpointBucket, peeringConnectionId and peerVpcId where those exist."""
    outputs: dict[str, Any] = {
        "environment": config.environment,
        "region": config.region,
        "kmsKeyId": kms_key_id,
        "kmsKeyArn": kms_key_arn,
        "vpcId": vpc_id,
        "privateSubnetIds": list(private_subnet_ids),
        "privateRouteTableIds": list(private_route_table_ids),
        "clusterName": cluster_name,
        "clusterEndpoint": cluster_endpoint,
        "kubeconfig": pulumi.Output.secret(kubeconfig),
        "nodePoolNames": list(node_pool_names),
        "gpuAdminRoleArn": gpu_admin_role_arn,
    }
    if gpu_user_role_arn is not None:
        outputs["gpuUserRoleArn"] = gpu_user_role_arn
    return outputs


def node_pool_names(config: StackConfig, system: str) -> list[str]:
    """Every ACK node pool's name: the system pool, the GPU pools, each spot group's spot and fall-back (EKS
    generates its node groups' names, which the AWS environment reads from the node groups)."""
    names = [system, *(p.name for p in config.node_pools)]
    for group in config.spot_groups:
        names.append(f"{group.name}{labels.SPOT_SUFFIX}")
        if group.on_demand_fallback:
            names.append(f"{group.name}{labels.FALLBACK_SUFFIX}")
    return names
