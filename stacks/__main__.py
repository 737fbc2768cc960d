"""The gpu-cloud program: one environment per stack, composed from its validated config. Glue only."""

from gpu_cloud.components.spec import Cloud, load_stack_config

config = load_stack_config()
# Only the stack's own cloud is imported: the other provider SDK and its components are never loaded.
if config.cloud is Cloud.AWS:
    import aws_environment

    aws_environment.build(config)
else:
    import alicloud_environment

    alicloud_environment.build(config)
