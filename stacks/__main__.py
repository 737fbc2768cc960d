"""The gpu-cloud program: the stack's environment, built from its validated config. Glue only: the providers, what
comes from outside the program (``references``: the account's bootstrap through its published parameters, another
stack of this backend), the environment component, its outputs."""

from __future__ import annotations

import pulumi
import pulumi_aws as aws
import references

from gpu_cloud.components import aws as eks
from gpu_cloud.components.spec import Cloud, load_stack_config

config = load_stack_config()  # after the import of components.aws, which registers the EKS checks of the config
env: eks.GpuEnvironment | ack.GpuEnvironment
provider: pulumi.ProviderResource
peer_vpc_id, peer_tables = references.StackReferences().peer(config)
peer_region = config.peering.peer_region if config.peering is not None else None
if config.cloud is Cloud.AWS:
    tags = aws.ProviderDefaultTagsArgs(tags=config.tags)
    provider = aws.Provider("aws", region=config.region, default_tags=tags)
    bootstrap = references.BootstrapFacts(config, provider)
    runner_vpc_id, runner_tables = bootstrap.runner()
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
            admin_role_arns=[bootstrap.deployer_role()],
        ),
        opts=pulumi.ResourceOptions(provider=provider),
    )
else:
    # Only an Alibaba Cloud stack loads that cloud's SDK and components (0.13 s of an AWS plan; no config checks).
    import pulumi_alicloud as alicloud

    from gpu_cloud.components import alicloud as ack

    provider = alicloud.Provider("alicloud", region=config.region)
    bootstrap = references.BootstrapFacts(config, provider)
    runner_vpc_id, runner_tables = bootstrap.runner()
    env = ack.GpuEnvironment(
        config.environment,
        ack.GpuEnvironmentArgs(
            config=config,
            runner_vpc_id=runner_vpc_id,
            runner_route_table_id=runner_tables[0],
            peer_provider=alicloud.Provider("alicloud-peer", region=peer_region) if peer_region else None,
            peer_vpc_id=peer_vpc_id,
            peer_route_table_id=peer_tables[0] if peer_tables else None,
            kms_instance_id=None if config.kms.alicloud_kms_instance_id else bootstrap.kms_instance(),
            deployer_role_arns=bootstrap.deployer_roles(),
        ),
        opts=pulumi.ResourceOptions(provider=provider),
    )
for key, value in env.stack_outputs.items():
    pulumi.export(key, value)
