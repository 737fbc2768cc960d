"""The typed vocabulary of a GPU environment: frozen pydantic specs shared by both clouds.

Every spec is immutable and rejects unknown fields. Field names are snake_case in Python and camelCase in stack config
files (``nodePools``, ``vpcCidr``). A spec validates itself; checks that need the cloud (the instance catalog, key
rotation bounds, principal formats) or span several specs are registered in one validation model
(:mod:`~gpu_cloud.components.spec.stack`), which :class:`StackConfig` runs whole, so that an invalid config yields
every problem at once and nothing is registered from invalid input.

The modules, by concern: ``problems`` (Problem, ConfigError), ``network``, ``cluster`` (KMS, control plane, access,
add-ons), ``pools``, ``workloads`` (inference, training, checkpoints, alerts), ``deploy``, ``stack`` (StackConfig and
the check registry), ``checks`` and ``refusals`` (the neutral checks), ``parse`` (reading the stack's config). Every
public name is importable from this package.
"""

from gpu_cloud.components.catalog import Cloud
from gpu_cloud.components.spec import checks as checks
from gpu_cloud.components.spec import refusals as refusals
from gpu_cloud.components.spec.checks import REQUIRED_TAGS, SPOT_NOTICE_SECONDS, alert_problems, training_problems
from gpu_cloud.components.spec.cluster import (
    ALICLOUD_ROTATION_DAYS,
    AWS_ROTATION_DAYS,
    DEFAULT_SYSTEM_INSTANCE_TYPES,
    SYSTEM_POOL_NAME,
    AccessSpec,
    AddonsSpec,
    AlicloudMaintenanceWindowSpec,
    ClusterSpec,
    KmsKeySpec,
    system_pool_problems,
)
from gpu_cloud.components.spec.deploy import DeploySpec
from gpu_cloud.components.spec.network import ACK_SERVICE_CIDR, EgressMode, NetworkSpec, PeeringSpec, SubnetSpec
from gpu_cloud.components.spec.parse import load_stack_config, parse_stack_config, validation_problems
from gpu_cloud.components.spec.pools import (
    AwsCapacityReservationSpec,
    GpuNodePoolSpec,
    PoolPurpose,
    SpotGroupSpec,
    max_nodes,
    pool_gpus,
    pool_memory_gib,
    pool_problems,
    spot_problems,
)
from gpu_cloud.components.spec.problems import (
    CONFIG_NAMESPACE,
    ConfigError,
    Problem,
    StackConfigError,
    config_error,
)
from gpu_cloud.components.spec.provisioner import NodeProvisioner
from gpu_cloud.components.spec.stack import StackConfig, cloud_problems, item_check, stack_check
from gpu_cloud.components.spec.workloads import (
    AWS_TLS13_SSL_POLICIES,
    AlertReceiverKind,
    AlertsSpec,
    CheckpointBucketSpec,
    GpuMetric,
    InferenceServiceSpec,
    ModelServer,
    QueueSpec,
    TrainingJobSpec,
    TrainingSpec,
)

__all__ = [
    "ACK_SERVICE_CIDR",
    "ALICLOUD_ROTATION_DAYS",
    "AWS_ROTATION_DAYS",
    "AWS_TLS13_SSL_POLICIES",
    "CONFIG_NAMESPACE",
    "DEFAULT_SYSTEM_INSTANCE_TYPES",
    "REQUIRED_TAGS",
    "SPOT_NOTICE_SECONDS",
    "SYSTEM_POOL_NAME",
    "AccessSpec",
    "AddonsSpec",
    "AlertReceiverKind",
    "AlertsSpec",
    "AlicloudMaintenanceWindowSpec",
    "AwsCapacityReservationSpec",
    "CheckpointBucketSpec",
    "Cloud",
    "ClusterSpec",
    "ConfigError",
    "DeploySpec",
    "EgressMode",
    "GpuMetric",
    "GpuNodePoolSpec",
    "InferenceServiceSpec",
    "KmsKeySpec",
    "ModelServer",
    "NetworkSpec",
    "NodeProvisioner",
    "PeeringSpec",
    "PoolPurpose",
    "Problem",
    "QueueSpec",
    "SpotGroupSpec",
    "StackConfig",
    "StackConfigError",
    "SubnetSpec",
    "TrainingJobSpec",
    "TrainingSpec",
    "alert_problems",
    "cloud_problems",
    "config_error",
    "item_check",
    "load_stack_config",
    "max_nodes",
    "parse_stack_config",
    "pool_gpus",
    "pool_memory_gib",
    "pool_problems",
    "spot_problems",
    "stack_check",
    "system_pool_problems",
    "training_problems",
    "validation_problems",
]
