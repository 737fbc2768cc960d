"""Bootstrap of a cloud account (run once, first): the deploy runner the environments peer with, and what the
environments read from the account (AWS: state bucket, secrets key, Auto Scaling role; Alibaba Cloud: the KMS
instance). Glue only."""

import alicloud_account
import aws_account
import settings

from gpu_cloud.components.catalog import Cloud

config = settings.load()
backend = aws_account if config.cloud is Cloud.AWS else alicloud_account
backend.build(config)
