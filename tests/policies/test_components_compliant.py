"""Every component's default output is compliant: build each with default specs, run the whole pack over it.

One program builds every AWS, Alibaba Cloud and Kubernetes-layer component with the smallest valid input
(plain ids where another component's output would go); the pack then runs once over everything, through
the real analyzer protocol. A finding here is a component whose defaults break a policy.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import pulumi_kubernetes as k8s
import pytest

from gpu_cloud.components import alicloud as ali
from gpu_cloud.components import aws as amz
from gpu_cloud.components import k8s as kube
from gpu_cloud.components.alicloud.identity import KeyScope, checkpoint_policy
from gpu_cloud.components.aws.expander import expander_priorities
from gpu_cloud.components.aws.identity import cluster_autoscaler_statements
from gpu_cloud.components.spec import (
    AccessSpec,
    AddonsSpec,
    CheckpointBucketSpec,
    Cloud,
    ClusterSpec,
    EgressMode,
    GpuNodePoolSpec,
    InferenceServiceSpec,
    KmsKeySpec,
    NetworkSpec,
    PeeringSpec,
    QueueSpec,
    SpotGroupSpec,
    TrainingJobSpec,
    TrainingSpec,
)
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.planner.model import Violation
from gpu_cloud.planner.policy import run_policy_pack

PACK = Path(__file__).resolve().parents[2] / "gpu_cloud" / "policies"
TAGS = {"environment": "prod", "owner": "ml-platform", "cost-center": "ml"}

AWS_NETWORK = NetworkSpec.model_validate(
    {
        "vpcCidr": "10.0.0.0/16",
        "privateSubnets": [
            {"zone": "us-east-1a", "cidr": "10.0.0.0/18"},
            {"zone": "us-east-1b", "cidr": "10.0.64.0/18"},
        ],
        "natSubnets": [
            {"zone": "us-east-1a", "cidr": "10.0.255.0/28"},
            {"zone": "us-east-1b", "cidr": "10.0.255.16/28"},
        ],
    }
)
ALI_NETWORK = NetworkSpec.model_validate(
    {
        "vpcCidr": "10.30.0.0/16",
        "privateSubnets": [
            {"zone": "cn-hangzhou-h", "cidr": "10.30.0.0/18"},
            {"zone": "cn-hangzhou-i", "cidr": "10.30.64.0/18"},
        ],
    }
)
ACCESS = AccessSpec(
    admin_principals=("arn:aws:iam::123456789012:role/platform",),
    user_principals=("arn:aws:iam::123456789012:role/researcher",),
)
ALI_ACCESS = AccessSpec(
    admin_principals=("acs:ram::1234567890123456:role/platform",),
    user_principals=("acs:ram::1234567890123456:role/researcher",),
)


def _pool(name: str, purpose: str, types: list[str], **extra: object) -> GpuNodePoolSpec:
    spec = {"name": name, "purpose": purpose, "instanceTypes": types, "minSize": 0, "desiredSize": 0, "maxSize": 2}
    return GpuNodePoolSpec.model_validate(spec | extra)


def _spot(types: list[str]) -> SpotGroupSpec:
    return SpotGroupSpec.model_validate({"name": "batch", "purpose": "training", "instanceTypes": types, "maxSize": 4})


def _aws() -> None:
    provider = aws.Provider("aws", region="us-east-1", default_tags=aws.ProviderDefaultTagsArgs(tags=TAGS))
    opts = pulumi.ResourceOptions(provider=provider)
    key = amz.KmsKey("key", amz.KmsKeyArgs(spec=KmsKeySpec(), alias="gpucloud-test"), opts=opts)
    amz.PrivateNetwork("net", amz.PrivateNetworkArgs(spec=AWS_NETWORK, kms_key_arn=key.key_arn), opts=opts)
    closed = AWS_NETWORK.model_copy(update={"egress": EgressMode.ENDPOINTS_ONLY, "nat_subnets": ()})
    amz.PrivateNetwork("closed", amz.PrivateNetworkArgs(spec=closed, kms_key_arn=key.key_arn), opts=opts)
    amz.DeployRunner(
        "runner",
        amz.DeployRunnerArgs(
            vpc_id="vpc-1",
            subnet_ids=["subnet-1", "subnet-2"],
            state_bucket="gpucloud-state-123456789012-us-east-1",
            state_key_alias=key.alias_name,
            state_key_arn=key.key_arn,
            environments=["dev"],
            deployer_policy_arns=["arn:aws:iam::123456789012:policy/deploy"],
        ),
        opts=opts,
    )
    peering = PeeringSpec.model_validate({"peerRegion": "us-west-2", "peerVpcCidr": "10.1.0.0/16", "peerStack": "d"})
    amz.PrivateVpcPeering(
        "peering",
        amz.PrivateVpcPeeringArgs(
            spec=peering,
            vpc_id="vpc-1",
            vpc_cidr=AWS_NETWORK.vpc_cidr,
            route_table_ids=["rtb-1", "rtb-2"],
            peer_vpc_id="vpc-2",
            peer_route_table_ids=["rtb-3"],
        ),
        opts=opts,
    )
    amz.GpuCluster(
        "gpu",
        amz.GpuClusterArgs(
            spec=ClusterSpec(),
            subnet_ids=["subnet-a", "subnet-b"],
            kms_key_arn=key.key_arn,
            kms_key_alias="alias/gpucloud-test",
        ),
        opts=opts,
    )
    target = amz.NodeGroupTarget(
        cluster_name="gpu",
        kubernetes_version="1.35",
        cluster_security_group_id="sg-1",
        kms_key_arn=key.key_arn,
        subnets={"us-east-1a": ["subnet-a"], "us-east-1b": ["subnet-b"]},
    )
    training = _pool("train", "training", ["p5.48xlarge"], efa=True, placementGroup=True, zones=["us-east-1a"])
    amz.GpuNodePool("train", amz.GpuNodePoolArgs(spec=training, target=target), opts=opts)
    inference = _pool("infer", "inference", ["g5.xlarge"])
    amz.GpuNodePool("infer", amz.GpuNodePoolArgs(spec=inference, target=target), opts=opts)
    amz.SpotGpuGroup("batch", amz.SpotGpuGroupArgs(spec=_spot(["g5.xlarge"]), target=target), opts=opts)
    cluster = pulumi.ResourceOptions(providers=[provider, k8s.Provider("karpenter-cluster", kubeconfig="{}")])
    karpenter = amz.Karpenter(
        "karpenter", amz.KarpenterArgs("gpu", "https://gpu.example", "alias/gpucloud-test", key.key_arn), opts=cluster
    )
    nodes = amz.KarpenterTarget(
        "gpu", "1.35", karpenter.instance_profile, key.key_arn, ("us-east-1a", "us-east-1b"), TAGS, karpenter.releases
    )
    for spec in (training, inference, _spot(["g5.xlarge"])):
        amz.KarpenterGpuPool(f"k-{spec.name}", amz.KarpenterGpuPoolArgs(spec=spec, target=nodes), opts=cluster)
    amz.GpuAdminAccess("access", amz.GpuAdminAccessArgs(spec=ACCESS, cluster_name="gpu"), opts=opts)
    amz.CheckpointBucket(
        "ckpt",
        amz.CheckpointBucketArgs(spec=CheckpointBucketSpec(), kms_key_arn=key.key_arn, name_prefix="gpucloud-test"),
        opts=opts,
    )
    amz.PodIdentityRole(
        "autoscaler",
        amz.PodIdentityRoleArgs(
            cluster_name="gpu",
            namespace="kube-system",
            service_account="cluster-autoscaler",
            statements=cluster_autoscaler_statements,
        ),
        opts=opts,
    )
    amz.EbsCsiDriver(
        "ebs-csi",
        amz.EbsCsiDriverArgs(cluster_name="gpu", kubernetes_version="1.35", key_alias=key.alias_name),
        opts=opts,
    )


def _alicloud() -> None:
    provider = alicloud.Provider("alicloud", region="cn-hangzhou")
    peer_provider = alicloud.Provider("alicloud-peer", region="cn-shanghai")
    opts = pulumi.ResourceOptions(provider=provider)
    # The spec requires the KMS instance on Alibaba Cloud (only its keys rotate on their interval).
    key = ali.KmsKey(
        "key", ali.KmsKeyArgs(spec=KmsKeySpec(alicloud_kms_instance_id="kst-hzz0123456789"), tags=TAGS), opts=opts
    )
    ali.PrivateNetwork("net", ali.PrivateNetworkArgs(spec=ALI_NETWORK, tags=TAGS), opts=opts)
    peering = PeeringSpec.model_validate(
        {"peerRegion": "cn-shanghai", "peerVpcCidr": "10.40.0.0/16", "peerStack": "data"}
    )
    ali.PrivateVpcPeering(
        "peering",
        ali.PrivateVpcPeeringArgs(
            spec=peering,
            vpc_cidr=ALI_NETWORK.vpc_cidr,
            vpc_id="vpc-1",
            route_table_ids=["vtb-1"],
            peer_vpc_id="vpc-2",
            peer_route_table_ids=["vtb-2"],
            peer_provider=peer_provider,
            account_id="1234567890123456",
            tags=TAGS,
        ),
        opts=opts,
    )
    ali.GpuCluster(
        "gpu",
        ali.GpuClusterArgs(
            spec=ClusterSpec(), network=ALI_NETWORK, vswitch_ids=["vsw-h", "vsw-i"], kms_key_id=key.key_id, tags=TAGS
        ),
        opts=opts,
    )
    placement = {"cluster_id": "c-1", "vswitch_ids_by_zone": {"cn-hangzhou-h": ["vsw-h"]}, "kms_key_id": "k"}
    inference = _pool("infer", "inference", ["ecs.gn7i-c8g1.2xlarge"])
    ali.GpuNodePool("infer", ali.GpuNodePoolArgs(spec=inference, tags=TAGS, **placement), opts=opts)
    spot = _spot(["ecs.gn7i-c8g1.2xlarge", "ecs.gn7i-c16g1.4xlarge"])
    group = ali.SpotGpuGroup("batch", ali.SpotGpuGroupArgs(spec=spot, tags=TAGS, **placement), opts=opts)
    ali.GpuSharing("sharing", ali.GpuSharingArgs(cluster_id="c-1"), opts=opts)
    ali.ClusterAutoscaling(
        "autoscaling",
        ali.ClusterAutoscalingArgs(
            cluster_id="c-1", spot_groups=[(group.spot_scaling_group_id, group.fallback_scaling_group_id)]
        ),
        opts=opts,
    )
    ali.GpuAdminAccess(
        "access", ali.GpuAdminAccessArgs(spec=ALI_ACCESS, cluster_id="c-1", cluster_name="gpu", tags=TAGS), opts=opts
    )
    ali.CheckpointBucket(
        "ckpt",
        ali.CheckpointBucketArgs(
            spec=CheckpointBucketSpec(), name_prefix="gpucloud", account_id="1234567890", kms_key_id="k", tags=TAGS
        ),
        opts=opts,
    )
    ali.Tls13ListenerPolicy("tls13", ali.Tls13ListenerPolicyArgs(tags=TAGS), opts=opts)
    ali.RrsaRole(
        "training",
        ali.RrsaRoleArgs(
            role_name="gpu-training",
            namespace="gpu-training",
            service_account="training",
            oidc_provider_arn="acs:ram::1234567890123456:oidc-provider/ack-rrsa-c1",
            oidc_issuer_url="https://oidc-ack-cn-hangzhou.oss-cn-hangzhou-internal.aliyuncs.com/c1",
            policy_document=checkpoint_policy(
                KeyScope("cn-hangzhou", "1234567890123456", "alias/gpucloud-test"), "gpucloud-test"
            ),
            tags=TAGS,
        ),
        opts=opts,
    )


def _kubernetes() -> None:
    opts = pulumi.ResourceOptions(provider=k8s.Provider("cluster", kubeconfig="{}"))
    inference = _pool("infer", "inference", ["g5.xlarge"])
    kube.PriorityClasses("priorities", kube.PriorityClassesArgs(), opts=opts)
    kube.GpuRbac("rbac", kube.GpuRbacArgs(access=ACCESS, cloud=Cloud.AWS), opts=opts)
    kube.GpuAddons(
        "addons",
        kube.GpuAddonsArgs(
            addons=AddonsSpec(),
            cloud=Cloud.AWS,
            pools=[inference],
            cluster_name="gpu",
            region="us-east-1",
            expander_priorities=expander_priorities([]),
        ),
        opts=opts,
    )
    service = InferenceServiceSpec(name="resnet", pool="infer", model_source="models/resnet")
    store = {"model_bucket": "models", "region": "us-east-1"}
    kube.InferenceService(
        "resnet", kube.InferenceServiceArgs(service=service, pool=inference, cloud=Cloud.AWS, **store), opts=opts
    )
    internal = service.model_copy(
        update={"name": "internal", "internal_load_balancer": True, "tls_certificate": "arn:aws:acm:cert"}
    )
    clients = ["10.0.0.0/16"]  # the VPC: the NodePort opens to it only
    kube.InferenceService(
        "internal",
        kube.InferenceServiceArgs(service=internal, pool=inference, cloud=Cloud.AWS, client_cidrs=clients, **store),
        opts=opts,
    )
    kube.TrainingDefaults(
        "training", kube.TrainingDefaultsArgs(training=TrainingSpec(), access=ACCESS, cloud=Cloud.AWS), opts=opts
    )
    kube.TrainingDefaults(
        "ack-training",
        kube.TrainingDefaultsArgs(
            training=TrainingSpec(), access=ALI_ACCESS, cloud=Cloud.ALICLOUD, checkpoint_role="gpu-training"
        ),
        opts=opts,
    )
    training = _pool("train", "training", ["g5.12xlarge"])
    queues = TrainingSpec(queues=(QueueSpec(name="team", gpus={"train": 8}),))
    kube.TrainingQueues("queues", kube.TrainingQueuesArgs(training=queues, pools=[training]), opts=opts)
    job = TrainingJobSpec(
        name="job",
        queue="team",
        pool="train",
        nodes=1,
        image="example.com/t:1",
        command=("t.py",),
        checkpoint_prefix="j/",
    )
    kube.TrainingJob(
        "job",
        kube.TrainingJobArgs(
            job=job, pool=training, training=queues, cloud=Cloud.AWS, checkpoint_uri="s3://b/j/", region="us-east-1"
        ),
        opts=opts,
    )
    kube.PoolAcceptanceTest(
        "accept", kube.PoolAcceptanceTestArgs(pool=training, training=queues, cloud=Cloud.AWS), opts=opts
    )


@pytest.fixture(scope="module")
def plan() -> Plan:
    def program() -> None:
        _aws()
        _alicloud()
        _kubernetes()

    return record(program, project="gpu-cloud", stack="prod")


@pytest.fixture(scope="module")
def violations(plan: Plan) -> tuple[Violation, ...]:
    return run_policy_pack(PACK, plan.resources, project=plan.project, stack=plan.stack).violations


# The environments and the Kubernetes layer only compose the components built here; the pack runs over each
# environment they build in tests/stacks/test_environments.py (no mandatory violation).
COMPOSITIONS = {"GpuEnvironment", "KubernetesLayer", "ClusterHandle"}


def test_every_component_was_built(plan: Plan) -> None:
    components = Counter(r.type for r in plan.resources if r.type.startswith("gpucloud:"))
    built = {c for c in [*amz.__all__, *ali.__all__, *kube.__all__] if c not in COMPOSITIONS}
    assert set(components) == {
        *(
            f"gpucloud:aws:{c}"
            for c in amz.__all__
            if c in built and not c.endswith("Args") and c not in ("NodeGroupTarget", "KarpenterTarget")
        ),
        *(f"gpucloud:alicloud:{c}" for c in ali.__all__ if c in built and not c.endswith("Args")),
        *(f"gpucloud:k8s:{c}" for c in kube.__all__ if c in built and not c.endswith("Args") and c != "cuda_problems"),
    }


def test_the_defaults_break_no_policy(violations: tuple[Violation, ...]) -> None:
    assert [(v.policy, v.level, v.type, v.name, v.message) for v in violations] == []
