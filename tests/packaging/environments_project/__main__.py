"""A platform team's program: two GPU environments, ``train`` and ``serve``, from the stack's gpu-cloud config, on
the cloud it names. What comes from outside the program (the deploy runner's network, the account's KMS instance on
Alibaba Cloud) is the team's own config; providers are the program's."""

import pulumi

from gpu_cloud.components.spec import Cloud, load_stack_config

config = load_stack_config()
team = pulumi.Config()
runner_vpc_id = team.require("runnerVpcId")
runner_tables: list[str] = team.require_object("runnerRouteTableIds")
peer_region = config.peering.peer_region if config.peering is not None else None
if config.cloud is Cloud.AWS:
    import pulumi_aws as aws

    from gpu_cloud.components import aws as eks

    tags = aws.ProviderDefaultTagsArgs(tags=config.tags)
    opts = pulumi.ResourceOptions(provider=aws.Provider("aws", region=config.region, default_tags=tags))
    peer = aws.Provider("aws-peer", region=peer_region, default_tags=tags) if peer_region else None
    for name in ("train", "serve"):
        args = eks.GpuEnvironmentArgs(config, runner_vpc_id, runner_tables, peer_provider=peer)
        pulumi.export(f"{name}Cluster", eks.GpuEnvironment(name, args, opts=opts).cluster.cluster_name)
else:
    import pulumi_alicloud as alicloud

    from gpu_cloud.components import alicloud as ack

    opts = pulumi.ResourceOptions(provider=alicloud.Provider("alicloud", region=config.region))
    peer_provider = alicloud.Provider("alicloud-peer", region=peer_region) if peer_region else None
    for name in ("train", "serve"):
        args = ack.GpuEnvironmentArgs(
            config, runner_vpc_id, runner_tables[0], peer_provider, kms_instance_id=team.require("kmsInstanceId")
        )
        pulumi.export(f"{name}Cluster", ack.GpuEnvironment(name, args, opts=opts).cluster.cluster_name)
