"""GpuCluster: private endpoint, encrypted secrets, all control-plane logs, API auth, IRSA, pinned add-ons."""

from __future__ import annotations

import json

import pulumi
import pytest

from gpu_cloud.components.aws.cluster import GpuCluster, GpuClusterArgs
from gpu_cloud.components.spec import ClusterSpec, ConfigError
from tests.aws.helpers import assert_policies_lint_clean, named, of_type, run, statements, type_counts

KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _cluster(spec: ClusterSpec | None = None, subnets: tuple[str, ...] = ("subnet-a", "subnet-b")) -> GpuCluster:
    args = GpuClusterArgs(
        spec=spec or ClusterSpec(), subnet_ids=list(subnets), kms_key_arn=KEY_ARN, kms_key_alias="alias/gpucloud-test"
    )
    return GpuCluster("gpu", args)


def test_children() -> None:
    assert type_counts(run(_cluster)) == {
        "aws:iam/role:Role": 2,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 4,
        "aws:iam/rolePolicy:RolePolicy": 1,
        "aws:cloudwatch/logGroup:LogGroup": 1,
        "aws:eks/cluster:Cluster": 1,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:ec2/launchTemplate:LaunchTemplate": 1,
        "aws:eks/nodeGroup:NodeGroup": 1,
        "aws:eks/addon:Addon": 5,
    }


def test_system_node_group_is_untainted_cpu_capacity_on_the_standard_ami() -> None:
    group = named(run(_cluster), "gpu-system").inputs
    assert group["nodeGroupNamePrefix"] == "system-"
    assert "nodeGroupName" not in group
    assert group["instanceTypes"] == ["m6i.xlarge"]
    assert group["amiType"] == "AL2023_x86_64_STANDARD"
    assert group["capacityType"] == "ON_DEMAND"
    assert group["scalingConfig"] == {"minSize": 2, "desiredSize": 2, "maxSize": 4}
    assert group["subnetIds"] == ["subnet-a", "subnet-b"]
    assert group["labels"] == {"gpucloud.io/purpose": "system", "gpucloud.io/capacity": "on-demand"}
    assert "taints" not in group or group["taints"] == []
    assert "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu" not in group["tags"]


def test_system_node_group_sizes_and_types_come_from_the_spec() -> None:
    spec = ClusterSpec(system_instance_types=("m7g.xlarge",), system_min_size=3, system_max_size=6)
    group = named(run(lambda: _cluster(spec)), "gpu-system").inputs
    assert group["instanceTypes"] == ["m7g.xlarge"]
    assert group["amiType"] == "AL2023_ARM_64_STANDARD"
    assert group["scalingConfig"] == {"minSize": 3, "desiredSize": 3, "maxSize": 6}


def test_system_launch_template_requires_imdsv2_no_public_ip_and_encrypts_the_root_volume() -> None:
    template = named(run(_cluster), "gpu-system-lt").inputs
    assert template["metadataOptions"]["httpTokens"] == "required"
    assert [i["associatePublicIpAddress"] for i in template["networkInterfaces"]] == ["false"]
    (volume,) = template["blockDeviceMappings"]
    assert volume["ebs"] == {
        "volumeType": "gp3",
        "volumeSize": 100,
        "encrypted": "true",
        "kmsKeyId": KEY_ARN,
        "deleteOnTermination": "true",
    }


def test_addons_wait_for_the_system_nodes() -> None:
    plan = run(_cluster)
    system = named(plan, "gpu-system").urn
    assert all(system in addon.dependencies for addon in of_type(plan, "aws:eks/addon:Addon"))


def test_gpu_system_types_are_rejected() -> None:
    with pytest.raises(ConfigError) as err:
        _cluster(ClusterSpec(system_instance_types=("g5.xlarge", "m6i")))
    assert str(err.value) == (
        "systemInstanceTypes.0: a GPU or accelerated type; the system pool runs CPU types only (got g5.xlarge)\n"
        "systemInstanceTypes.1: not a aws instance type name (got m6i)"
    )


def test_endpoint_is_private_only() -> None:
    vpc = named(run(_cluster), "gpu-cluster").inputs["vpcConfig"]
    assert vpc == {"endpointPrivateAccess": True, "endpointPublicAccess": False, "subnetIds": ["subnet-a", "subnet-b"]}


def test_secrets_are_encrypted_with_the_key() -> None:
    assert named(run(_cluster), "gpu-cluster").inputs["encryptionConfig"] == {
        "provider": {"keyArn": KEY_ARN},
        "resources": ["secrets"],
    }


def test_every_control_plane_log_type_is_on_and_kept_encrypted() -> None:
    plan = run(_cluster)
    cluster = named(plan, "gpu-cluster")
    assert cluster.inputs["enabledClusterLogTypes"] == [
        "api",
        "audit",
        "authenticator",
        "controllerManager",
        "scheduler",
    ]
    assert named(plan, "gpu-control-plane-logs").inputs == {
        "kmsKeyId": KEY_ARN,
        "name": "/aws/eks/gpu-test/cluster",
        "retentionInDays": 90,
    }
    assert named(plan, "gpu-control-plane-logs").urn in cluster.dependencies


def test_authentication_mode_is_api_and_version_pinned() -> None:
    inputs = named(run(_cluster), "gpu-cluster").inputs
    assert inputs["accessConfig"]["authenticationMode"] == "API"
    assert inputs["version"] == "1.35"
    assert inputs["name"] == "gpu-test"
    # Upgraded at the end of standard support instead of entering paid extended support (API default EXTENDED).
    assert inputs["upgradePolicy"] == {"supportType": "STANDARD"}


def test_cluster_role_has_only_the_eks_cluster_policy() -> None:
    plan = run(_cluster)
    attachment = named(plan, "gpu-cluster-policy")
    assert attachment.inputs["policyArn"] == "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"
    (trust,) = statements(named(plan, "gpu-cluster-role").inputs["assumeRolePolicy"])
    assert trust["Principal"] == {"Service": "eks.amazonaws.com"}


def test_cluster_role_uses_the_secrets_key_through_its_alias() -> None:
    (statement,) = statements(named(run(_cluster), "gpu-cluster-kms").inputs["policy"])
    assert statement == {
        "Effect": "Allow",
        "Action": ["kms:Decrypt", "kms:DescribeKey", "kms:Encrypt", "kms:ListGrants"],
        "Resource": "arn:aws:kms:us-east-1:123456789012:key/*",
        "Condition": {"ForAnyValue:StringEquals": {"kms:ResourceAliases": "alias/gpucloud-test"}},
    }


def test_oidc_provider_serves_sts() -> None:
    oidc = named(run(_cluster), "gpu-oidc")
    assert oidc.inputs["clientIdLists"] == ["sts.amazonaws.com"]
    assert named(run(_cluster), "gpu-cluster").urn in oidc.dependencies


def test_addons_are_pinned_from_versions() -> None:
    addons = {r.inputs["addonName"]: r.inputs for r in of_type(run(_cluster), "aws:eks/addon:Addon")}
    assert {name: a.get("addonVersion") for name, a in addons.items()} == {
        "vpc-cni": "v1.22.4-eksbuild.3",
        "coredns": "v1.14.3-eksbuild.3",
        "kube-proxy": "v1.35.3-eksbuild.13",
        "eks-pod-identity-agent": "v1.3.10-eksbuild.3",
        # Node auto repair acts on GPU faults only through this agent's AcceleratedHardwareReady condition.
        "eks-node-monitoring-agent": "v1.7.0-eksbuild.1",
    }
    assert {a["clusterName"] for a in addons.values()} == {"gpu-test"}


def test_a_136_cluster_gets_the_136_addons() -> None:
    plan = run(lambda: _cluster(ClusterSpec(kubernetes_version="1.36")))
    assert named(plan, "gpu-cluster").inputs["version"] == "1.36"
    addons = {r.inputs["addonName"]: r.inputs.get("addonVersion") for r in of_type(plan, "aws:eks/addon:Addon")}
    assert (addons["kube-proxy"], addons["coredns"]) == ("v1.36.0-eksbuild.14", "v1.14.3-eksbuild.3")


def test_kubeconfig_document() -> None:
    from gpu_cloud.components.aws._iam import Account
    from gpu_cloud.components.aws.cluster import kubeconfig

    config = json.loads(kubeconfig("gpu", "https://x.eks.amazonaws.com", "Q0E=", Account("1", "aws", "us-east-1", "x")))
    assert config["current-context"] == "gpu"
    assert config["clusters"][0]["cluster"] == {
        "server": "https://x.eks.amazonaws.com",
        "certificate-authority-data": "Q0E=",
    }
    assert config["users"][0]["user"]["exec"] == {
        "apiVersion": "client.authentication.k8s.io/v1beta1",
        "command": "aws",
        "args": ["eks", "get-token", "--cluster-name", "gpu", "--region", "us-east-1", "--output", "json"],
    }


def test_kubeconfig_output_is_marked_secret() -> None:
    plan = run(lambda: pulumi.export("kubeconfig", _cluster().kubeconfig))
    assert plan.outputs == {"kubeconfig": "[secret]"}


def test_policies_lint_clean() -> None:
    assert assert_policies_lint_clean(run(_cluster)) == 3


def test_kubernetes_version_without_pins_is_rejected_with_the_supported_choices() -> None:
    with pytest.raises(
        ConfigError,
        match=(
            r"^kubernetesVersion: no pins for this Kubernetes version on aws \(supported: 1\.35, 1\.36\) "
            r"\(got 1\.31\)$"
        ),
    ):
        _cluster(ClusterSpec(kubernetes_version="1.31"))


def test_one_subnet_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^subnetIds: EKS needs subnets in at least two zones \(got 1\)$"):
        _cluster(subnets=("subnet-a",))


DEPLOYERS = ("arn:aws:iam::123456789012:role/gpucloud-deployer-prod-shared", "arn:aws:iam::123456789012:role/other")


def _administered() -> GpuCluster:
    args = GpuClusterArgs(
        spec=ClusterSpec(),
        subnet_ids=["subnet-a", "subnet-b"],
        kms_key_arn=KEY_ARN,
        kms_key_alias="alias/gpucloud-test",
        admin_role_arns=DEPLOYERS,
    )
    return GpuCluster("gpu", args)


def test_every_admin_role_is_cluster_admin_by_its_own_access_entry_not_by_having_created_the_cluster() -> None:
    plan = run(_administered)
    access = named(plan, "gpu-cluster").inputs["accessConfig"]
    assert access == {"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": False}
    entries = {r.name: r.inputs for r in of_type(plan, "aws:eks/accessEntry:AccessEntry")}
    assert entries == {
        f"gpu-admin-{i}": {"clusterName": "gpu-test", "principalArn": arn, "type": "STANDARD"}
        for i, arn in enumerate(DEPLOYERS)
    }
    associations = {r.name: r.inputs for r in of_type(plan, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")}
    assert associations == {
        f"gpu-admin-{i}-policy": {
            "clusterName": "gpu-test",
            "principalArn": arn,
            "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
            "accessScope": {"type": "cluster"},
        }
        for i, arn in enumerate(DEPLOYERS)
    }


def test_without_admin_roles_the_creator_alone_is_admin() -> None:
    access = named(run(_cluster), "gpu-cluster").inputs["accessConfig"]
    assert access["bootstrapClusterCreatorAdminPermissions"] is True
