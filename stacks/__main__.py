"""The gpu-cloud program: one environment per stack, composed from its validated config. Glue only."""

import alicloud_environment
import aws_environment

from gpu_cloud.components.spec import Cloud, load_stack_config

config = load_stack_config()
backend = aws_environment if config.cloud is Cloud.AWS else alicloud_environment
backend.build(config)
