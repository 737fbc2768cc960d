"""A one-resource program: a KMS key without rotation, which the kms-key-rotation policy rejects."""

import pulumi_aws as aws


def program() -> None:
    """Declare the key."""
    aws.kms.Key("key", enable_key_rotation=False, tags={"environment": "dev", "owner": "me", "cost-center": "1"})
