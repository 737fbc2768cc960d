"""GpuCluster: private endpoint, encrypted secrets, all control-plane logs, API auth, IRSA, pinned add-ons."""

from __future__ import annotations

import json

import pulumi
import pytest

from components.aws.cluster import GpuCluster, GpuClusterArgs
from components.spec import ClusterSpec, ConfigError
from tests.aws.helpers import assert_policies_lint_clean, named, of_type, run, statements, type_counts

KEY_ARN = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def _cluster(spec: ClusterSpec | None = None, subnets: tuple[str, ...] = ("subnet-a", "subnet-b")) -> GpuCluster:
    args = GpuClusterArgs(
        spec=spec or ClusterSpec(), subnet_ids=list(subnets), kms_key_arn=KEY_ARN, kms_key_alias="alias/gpucloud-test"
    )
    return GpuCluster("gpu", args)


def test_children() -> None:
    assert type_counts(run(_cluster)) == {
        "aws:iam/role:Role": 1,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 1,
        "aws:iam/rolePolicy:RolePolicy": 1,
        "aws:cloudwatch/logGroup:LogGroup": 1,
        "aws:eks/cluster:Cluster": 1,
        "aws:iam/openIdConnectProvider:OpenIdConnectProvider": 1,
        "aws:eks/addon:Addon": 4,
    }


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
        "name": "/aws/eks/gpu/cluster",
        "retentionInDays": 90,
    }
    assert named(plan, "gpu-control-plane-logs").urn in cluster.dependencies


def test_authentication_mode_is_api_and_version_pinned() -> None:
    inputs = named(run(_cluster), "gpu-cluster").inputs
    assert inputs["accessConfig"]["authenticationMode"] == "API"
    assert inputs["version"] == "1.31"
    assert inputs["name"] == "gpu"


def test_cluster_role_has_only_the_eks_cluster_policy() -> None:
    plan = run(_cluster)
    (attachment,) = of_type(plan, "aws:iam/rolePolicyAttachment:RolePolicyAttachment")
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
    assert {name: a["addonVersion"] for name, a in addons.items()} == {
        "vpc-cni": "v1.20.1-eksbuild.3",
        "coredns": "v1.11.4-eksbuild.22",
        "kube-proxy": "v1.31.3-eksbuild.2",
        "eks-pod-identity-agent": "v1.3.8-eksbuild.2",
    }
    assert {a["clusterName"] for a in addons.values()} == {"gpu"}


def test_kubeconfig_document() -> None:
    from components.aws._iam import Account
    from components.aws.cluster import kubeconfig

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
    assert assert_policies_lint_clean(run(_cluster)) == 2


def test_kubernetes_version_without_pinned_addons_is_rejected() -> None:
    with pytest.raises(
        ConfigError, match=r"^kubernetesVersion: no EKS add-on versions pinned for it \(have 1\.31\) \(got 1\.29\)$"
    ):
        _cluster(ClusterSpec(kubernetes_version="1.29"))


def test_one_subnet_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"^subnetIds: EKS needs subnets in at least two zones \(got 1\)$"):
        _cluster(subnets=("subnet-a",))
