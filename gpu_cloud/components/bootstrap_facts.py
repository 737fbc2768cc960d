"""Where an account's bootstrap publishes the facts its environments read, whatever backend each stack lives in.

A ``pulumi.StackReference`` resolves only inside the backend of the running stack (pulumi/pulumi
``pkg/resource/deploy/builtins.go`` ``readStackReference`` asks the current backend; pulumi/pulumi#3395), and in a
self-managed backend it must also decrypt the referenced stack's secrets (pulumi/pulumi#21143). The bootstrap's state
is created before the state bucket exists, so it cannot live where the environments do. Instead the bootstrap writes
these facts as parameters in the cloud's parameter store of its region (AWS Systems Manager Parameter Store,
``aws.ssm.Parameter``; Alibaba Cloud OOS common parameters, ``alicloud.oos.Parameter``, whose names may contain
``/``), and the environments read them with the cloud's data source.
"""

PREFIX = "/gpucloud/bootstrap/"
"""Every bootstrap parameter's name starts with this (OOS names must not start with ALIYUN, ACS, ALIBABA, ALICLOUD
or OOS; SSM names must not start with aws or ssm)."""

RUNNER_VPC_ID = PREFIX + "runner-vpc-id"
"""The deploy runner's VPC id (String)."""
RUNNER_VPC_CIDR = PREFIX + "runner-vpc-cidr"
"""The deploy runner's VPC CIDR (String)."""
RUNNER_ROUTE_TABLE_IDS = PREFIX + "runner-route-table-ids"
"""The deploy runner VPC's route table ids (StringList, comma-separated)."""
RUNNER_SECURITY_GROUP_ID = PREFIX + "runner-security-group-id"
"""The deploy runner's security group id (String)."""
AUTOSCALING_SERVICE_ROLE_ARN = PREFIX + "autoscaling-service-role-arn"
"""AWS: the Auto Scaling service-linked role the environments' key policies name (String)."""
KMS_INSTANCE_ID = PREFIX + "kms-instance-id"
"""Alibaba Cloud: the software KMS instance the environments' keys live in (String)."""
DEPLOYER_ROLE_ARNS = PREFIX + "deployer-role-arns"
"""Alibaba Cloud: the roles that run ``pulumi up`` of the environments (StringList, comma-separated): each is made
a cluster administrator of every environment (ACK RBAC, cs.KubernetesPermission)."""


def deployer_role_arn(environment: str) -> str:
    """AWS: the name of the parameter holding the role that runs ``pulumi up`` of ``environment`` (String): the
    environment makes that role cluster admin (an EKS access entry), since its builds reach the API as it."""
    return f"{PREFIX}deployer-role-arn/{environment}"
