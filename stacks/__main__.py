"""The gpu-cloud program: the stack's environment, built from its validated config. Glue only: the providers, the
facts other stacks export (``references``), the environment component, its outputs."""

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import references

from gpu_cloud.components import alicloud as ack
from gpu_cloud.components import aws as eks
from gpu_cloud.components.spec import Cloud, load_stack_config

config = load_stack_config()  # after the imports above: the cloud packages register their checks of the config
env: eks.GpuEnvironment | ack.GpuEnvironment
other_stacks = references.StackReferences()
runner_vpc_id, runner_tables = other_stacks.runner(config)
peer_vpc_id, peer_tables = other_stacks.peer(config)
peer_region = config.peering.peer_region if config.peering is not None else None
if config.cloud is Cloud.AWS:
    tags = aws.ProviderDefaultTagsArgs(tags=config.tags)
    creates_peer = config.peering is not None and config.peering.peer_network is not None
    env = eks.GpuEnvironment(
        config.environment,
        eks.GpuEnvironmentArgs(
            config=config,
            runner_vpc_id=runner_vpc_id,
            runner_route_table_ids=runner_tables,
            peer_vpc_id=peer_vpc_id,
            peer_route_table_ids=peer_tables,
            peer_provider=aws.Provider("aws-peer", region=peer_region, default_tags=tags) if creates_peer else None,
        ),
        opts=pulumi.ResourceOptions(provider=aws.Provider("aws", region=config.region, default_tags=tags)),
    )
else:
    env = ack.GpuEnvironment(
        config.environment,
        ack.GpuEnvironmentArgs(
            config=config,
            runner_vpc_id=runner_vpc_id,
            runner_route_table_id=runner_tables[0],
            peer_provider=alicloud.Provider("alicloud-peer", region=peer_region) if peer_region else None,
            peer_vpc_id=peer_vpc_id,
            peer_route_table_id=peer_tables[0] if peer_tables else None,
            kms_instance_id=other_stacks.kms_instance(config),
        ),
        opts=pulumi.ResourceOptions(provider=alicloud.Provider("alicloud", region=config.region)),
    )
for key, value in env.stack_outputs.items():
    pulumi.export(key, value)
