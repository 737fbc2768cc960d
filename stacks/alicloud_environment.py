"""An environment on Alibaba Cloud: the Alibaba components composed from the stack's config."""

import pulumi
import pulumi_alicloud as alicloud

from components.spec import StackConfig


def build(config: StackConfig) -> None:
    """Declare the environment's Alibaba Cloud resources and export its outputs."""
    provider = alicloud.Provider("alicloud", region=config.region)
    del provider
    pulumi.export("environment", config.environment)
    pulumi.export("region", config.region)
