"""EbsCsiDriver: the EBS CSI add-on at its pinned build, after its Pod Identity role for
kube-system/ebs-csi-controller-sa with AWS's managed driver policy and grants on the environment key only; the policies
lint clean (parliament)."""

from __future__ import annotations

from gpu_cloud.components.aws.ebs_csi import EbsCsiDriver, EbsCsiDriverArgs
from tests.aws.helpers import assert_policies_lint_clean, named, run, statements, type_counts


def _driver(version: str = "1.35") -> EbsCsiDriver:
    return EbsCsiDriver(
        "ebs", EbsCsiDriverArgs(cluster_name="prod-gpu", kubernetes_version=version, key_alias="alias/gpucloud-prod")
    )


def test_children_are_the_role_its_policies_the_association_and_the_addon() -> None:
    assert type_counts(run(_driver)) == {
        "aws:iam/role:Role": 1,
        "aws:iam/rolePolicy:RolePolicy": 1,
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment": 1,
        "aws:eks/podIdentityAssociation:PodIdentityAssociation": 1,
        "aws:eks/addon:Addon": 1,
    }


def test_the_addon_is_the_pinned_build_and_waits_for_its_identity() -> None:
    plan = run(_driver)
    addon = named(plan, "ebs-addon")
    assert (addon.inputs["addonName"], addon.inputs["addonVersion"]) == ("aws-ebs-csi-driver", "v1.66.0-eksbuild.1")
    assert named(plan, "ebs-identity-association").urn in addon.dependencies


def test_the_controller_service_account_gets_the_managed_driver_policy() -> None:
    plan = run(_driver)
    association = named(plan, "ebs-identity-association").inputs
    assert (association["namespace"], association["serviceAccount"]) == ("kube-system", "ebs-csi-controller-sa")
    assert named(plan, "ebs-identity-managed-0").inputs["policyArn"] == (
        "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
    )


def test_the_key_is_used_through_its_alias_and_grants_only_for_aws_resources() -> None:
    grants, data = statements(named(run(_driver), "ebs-identity-policy").inputs["policy"])
    assert grants["Action"] == ["kms:CreateGrant", "kms:ListGrants", "kms:RevokeGrant"]
    assert grants["Condition"] == {
        "ForAnyValue:StringEquals": {"kms:ResourceAliases": "alias/gpucloud-prod"},
        "Bool": {"kms:GrantIsForAWSResource": "true"},
    }
    assert "kms:GenerateDataKey*" in data["Action"]
    assert data["Condition"] == {"ForAnyValue:StringEquals": {"kms:ResourceAliases": "alias/gpucloud-prod"}}


def test_policies_lint_clean() -> None:
    assert_policies_lint_clean(run(_driver))
