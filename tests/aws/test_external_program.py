"""The AWS components work from another Pulumi program, outside this repository's stacks/."""

from __future__ import annotations

import textwrap
from pathlib import Path

from gpu_cloud.planner.engine import Plan, run_program
from gpu_cloud.planner.project import load_project, load_stack
from tests.physical import physical_names

PROGRAM = """
import pulumi
import pulumi_aws as aws

from gpu_cloud.components.aws import (
    GpuCluster, GpuClusterArgs, GpuNodePool, GpuNodePoolArgs, KmsKey, KmsKeyArgs, NodeGroupTarget,
    PrivateNetwork, PrivateNetworkArgs,
)
from gpu_cloud.components.spec import ClusterSpec, GpuNodePoolSpec, KmsKeySpec, NetworkSpec

provider = aws.Provider("aws", region="us-west-2")
opts = pulumi.ResourceOptions(provider=provider)
key = KmsKey("team-kms", KmsKeyArgs(spec=KmsKeySpec(), alias="team-gpu", protect=False), opts=opts)
network = PrivateNetwork(
    "team-net",
    PrivateNetworkArgs(
        spec=NetworkSpec.model_validate({
            "vpcCidr": "10.50.0.0/16",
            "egress": "endpoints-only",
            "privateSubnets": [
                {"zone": "us-west-2a", "cidr": "10.50.0.0/18"},
                {"zone": "us-west-2b", "cidr": "10.50.64.0/18"},
            ],
        }),
        kms_key_arn=key.key_arn,
    ),
    opts=opts,
)
cluster = GpuCluster(
    "team-gpu",
    GpuClusterArgs(spec=ClusterSpec(), subnet_ids=network.private_subnet_ids, kms_key_arn=key.key_arn,
                   kms_key_alias=key.alias_name),
    opts=opts,
)
GpuNodePool(
    "team-infer",
    GpuNodePoolArgs(
        spec=GpuNodePoolSpec(name="infer", purpose="inference", instance_types=("g6.xlarge",), min_size=0,
                             desired_size=0, max_size=2),
        target=NodeGroupTarget(
            cluster_name=cluster.cluster_name, kubernetes_version=cluster.kubernetes_version,
            cluster_security_group_id=cluster.security_group_id, kms_key_arn=key.key_arn,
            subnets=network.subnet_ids_by_zone,
        ),
    ),
    opts=opts,
)
pulumi.export("clusterName", cluster.cluster_name)
"""


def _plan(tmp_path: Path, stack: str) -> Plan:
    (tmp_path / "Pulumi.yaml").write_text("name: team-gpu\nruntime: python\n", encoding="utf-8")
    (tmp_path / "__main__.py").write_text(textwrap.dedent(PROGRAM), encoding="utf-8")
    project = load_project(tmp_path)
    return run_program(project, load_stack(project, stack))


def test_components_run_from_a_program_outside_the_repository(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "dev")
    components = {r.name: r.type for r in plan.resources if r.type.startswith("gpucloud:")}
    assert components == {
        "team-kms": "gpucloud:aws:KmsKey",
        "team-net": "gpucloud:aws:PrivateNetwork",
        "team-gpu": "gpucloud:aws:GpuCluster",
        "team-infer": "gpucloud:aws:GpuNodePool",
    }
    node_group = next(r for r in plan.resources if r.name == "team-infer-nodes")
    assert node_group.inputs["instanceTypes"] == ["g6.xlarge"]
    assert node_group.inputs["labels"]["gpucloud.io/gpu-class"] == "nvidia-l4"
    assert node_group.provider.startswith("urn:pulumi:dev::team-gpu::pulumi:providers:aws::aws::")
    endpoint = next(r for r in plan.resources if r.name == "team-net-sts")
    assert endpoint.inputs["serviceName"] == "com.amazonaws.us-west-2.sts"
    assert plan.outputs == {"clusterName": "team-gpu-dev"}


def test_dev_and_staging_of_one_program_can_share_an_account(tmp_path: Path) -> None:
    dev, staging = _plan(tmp_path, "dev"), _plan(tmp_path, "staging")
    assert physical_names(dev) == {
        "aws:eks/cluster:Cluster team-gpu-dev",
        "aws:kms/alias:Alias alias/team-gpu-dev",
        "aws:cloudwatch/logGroup:LogGroup /aws/eks/team-gpu-dev/cluster",
        "aws:cloudwatch/logGroup:LogGroup /gpucloud/team-net-dev/vpc-flow-logs",
    }
    assert physical_names(dev).isdisjoint(physical_names(staging))
    assert len(physical_names(staging)) == len(physical_names(dev))
