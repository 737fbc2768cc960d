"""A node-group target with known values, shared by the node pool and spot group tests."""

from gpu_cloud.components.aws.node_pool import NodeGroupTarget

KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
TARGET = NodeGroupTarget(
    cluster_name="gpu",
    kubernetes_version="1.35",
    cluster_security_group_id="sg-cluster",
    kms_key_arn=KEY_ARN,
    subnets={"us-east-1a": ["subnet-a"], "us-east-1b": ["subnet-b"]},
)
