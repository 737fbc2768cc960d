# TEMPORARY STUB (not committed) until the catalog branch lands
from dataclasses import dataclass
from enum import StrEnum


class Cloud(StrEnum):
    AWS = "aws"
    ALICLOUD = "alicloud"


@dataclass(frozen=True)
class InstanceType:
    cloud: Cloud
    name: str
    family: str
    gpu_model: str
    gpu_count: int
    efa_interfaces: int
    arch: str = "x86_64"

    @property
    def gpu_class(self) -> str:
        return self.gpu_model

    @property
    def has_efa(self) -> bool:
        return self.efa_interfaces > 0


_T = {
    ("aws", "g5.xlarge"): InstanceType(Cloud.AWS, "g5.xlarge", "g5", "NVIDIA A10G", 1, 0),
    ("aws", "g5.2xlarge"): InstanceType(Cloud.AWS, "g5.2xlarge", "g5", "NVIDIA A10G", 1, 0),
    ("aws", "g5.48xlarge"): InstanceType(Cloud.AWS, "g5.48xlarge", "g5", "NVIDIA A10G", 8, 1),
    ("aws", "p5.48xlarge"): InstanceType(Cloud.AWS, "p5.48xlarge", "p5", "NVIDIA H100", 8, 32),
    ("aws", "p4d.24xlarge"): InstanceType(Cloud.AWS, "p4d.24xlarge", "p4d", "NVIDIA A100", 8, 4),
    ("aws", "g6.xlarge"): InstanceType(Cloud.AWS, "g6.xlarge", "g6", "NVIDIA L4", 1, 0),
    ("aws", "g4dn.xlarge"): InstanceType(Cloud.AWS, "g4dn.xlarge", "g4dn", "NVIDIA T4", 1, 0),
    ("alicloud", "ecs.gn7i-c8g1.2xlarge"): InstanceType(
        Cloud.ALICLOUD, "ecs.gn7i-c8g1.2xlarge", "gn7i", "NVIDIA A10", 1, 0
    ),
    ("alicloud", "ecs.gn7i-c16g1.4xlarge"): InstanceType(
        Cloud.ALICLOUD, "ecs.gn7i-c16g1.4xlarge", "gn7i", "NVIDIA A10", 1, 0
    ),
}


def lookup(cloud: Cloud, name: str) -> InstanceType | None:
    return _T.get((cloud.value, name))
