"""The stack outputs every environment exports under the same names, whatever its cloud."""

from collections.abc import Sequence

import pulumi

from gpu_cloud.components import labels
from gpu_cloud.components.spec import StackConfig


def export_common(
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
) -> None:
    """Export environment, region, kmsKeyId, kmsKeyArn, vpcId, privateSubnetIds (vswitches on Alibaba Cloud),
    privateRouteTableIds (what a stack that peers with this one reads through peering.peerStack), clusterName,
    clusterEndpoint, kubeconfig (secret), nodePoolNames, gpuAdminRoleArn and gpuUserRoleArn (when there are users).
    checkpointBucket, peeringConnectionId and peerVpcId are exported where those exist."""
    pulumi.export("environment", config.environment)
    pulumi.export("region", config.region)
    pulumi.export("kmsKeyId", kms_key_id)
    pulumi.export("kmsKeyArn", kms_key_arn)
    pulumi.export("vpcId", vpc_id)
    pulumi.export("privateSubnetIds", list(private_subnet_ids))
    pulumi.export("privateRouteTableIds", list(private_route_table_ids))
    pulumi.export("clusterName", cluster_name)
    pulumi.export("clusterEndpoint", cluster_endpoint)
    pulumi.export("kubeconfig", pulumi.Output.secret(kubeconfig))
    pulumi.export("nodePoolNames", list(node_pool_names))
    pulumi.export("gpuAdminRoleArn", gpu_admin_role_arn)
    if gpu_user_role_arn is not None:
        pulumi.export("gpuUserRoleArn", gpu_user_role_arn)


def node_pool_names(config: StackConfig, system: str) -> list[str]:
    """Every ACK node pool's name: the system pool, the GPU pools, each spot group's spot and fall-back (EKS
    generates its node groups' names, which the AWS environment reads from the node groups)."""
    names = [system, *(p.name for p in config.node_pools)]
    for group in config.spot_groups:
        names.append(f"{group.name}{labels.SPOT_SUFFIX}")
        if group.on_demand_fallback:
            names.append(f"{group.name}{labels.FALLBACK_SUFFIX}")
    return names
