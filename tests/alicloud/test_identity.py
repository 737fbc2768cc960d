"""RrsaRole: a RAM role for one ServiceAccount through RRSA, with a readable checkpoint policy."""

from __future__ import annotations

import json

from gpu_cloud.components.alicloud import RrsaRole, RrsaRoleArgs
from gpu_cloud.components.alicloud.identity import (
    KeyScope,
    checkpoint_policy,
    job_checkpoint_policy,
    model_read_policy,
    rrsa_trust_policy,
)
from tests.alicloud.support import component, custom, one, plan_of, registered, rejected

KEY = KeyScope("cn-hangzhou", "1234567890123456", "alias/gpucloud-prod-cn")
POLICY = checkpoint_policy(KEY, "prod-cn-gpu-checkpoints-1234567890123456")
ONLY_THE_ENVIRONMENTS_KEY = {
    "Resource": ["acs:kms:cn-hangzhou:1234567890123456:key/*"],
    "Condition": {"StringEquals": {"kms:tag/gpucloud-key": "alias/gpucloud-prod-cn"}},
}


def _args(**changes: str) -> RrsaRoleArgs:
    values = {"role_name": "prod-cn-training", "namespace": "gpu-training", "service_account": "training"}
    values.update(changes)
    return RrsaRoleArgs(
        oidc_provider_arn="acs:ram::1234567890123456:oidc-provider/ack-rrsa-c123",
        oidc_issuer_url="https://oidc-ack-cn-hangzhou.oss-cn-hangzhou-internal.aliyuncs.com/c123",
        policy_document=POLICY,
        tags={"owner": "ml"},
        **values,
    )


def test_children_are_the_role_its_policy_and_the_attachment() -> None:
    plan = plan_of(lambda: RrsaRole("train", _args()))
    component(plan, "gpucloud:alicloud:RrsaRole")
    assert sorted((r.type, r.name) for r in custom(plan)) == [
        ("alicloud:ram/policy:Policy", "train-policy"),
        ("alicloud:ram/role:Role", "train-role"),
        ("alicloud:ram/rolePolicyAttachment:RolePolicyAttachment", "train-policy-attachment"),
    ]
    attachment = one(plan, "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment").inputs
    assert (attachment["roleName"], attachment["policyName"], attachment["policyType"]) == (
        "prod-cn-training-test",
        "prod-cn-training-test",
        "Custom",
    )


def test_trust_lets_only_the_service_account_of_the_cluster_assume_the_role() -> None:
    (statement,) = json.loads(
        rrsa_trust_policy("acs:ram::1:oidc-provider/ack-rrsa-c1", "https://issuer/c1", "gpu-training", "training")
    )["Statement"]
    assert statement == {
        "Action": "sts:AssumeRole",
        "Effect": "Allow",
        "Principal": {"Federated": ["acs:ram::1:oidc-provider/ack-rrsa-c1"]},
        "Condition": {
            "StringEquals": {
                "oidc:aud": "sts.aliyuncs.com",
                "oidc:iss": "https://issuer/c1",
                "oidc:sub": "system:serviceaccount:gpu-training:training",
            }
        },
    }


def test_role_trust_comes_from_the_clusters_oidc_provider() -> None:
    role = one(plan_of(lambda: RrsaRole("train", _args())), "alicloud:ram/role:Role").inputs
    trust = json.loads(role["assumeRolePolicyDocument"])
    assert trust["Statement"][0]["Principal"] == {
        "Federated": ["acs:ram::1234567890123456:oidc-provider/ack-rrsa-c123"]
    }
    assert role["roleName"] == "prod-cn-training-test"


def test_checkpoint_policy_names_only_the_bucket_and_the_regions_keys() -> None:
    objects, keys = json.loads(POLICY)["Statement"]
    assert objects["Resource"] == [
        "acs:oss:*:1234567890123456:prod-cn-gpu-checkpoints-1234567890123456",
        "acs:oss:*:1234567890123456:prod-cn-gpu-checkpoints-1234567890123456/*",
    ]
    assert all(a.startswith("oss:") and "*" not in a for a in objects["Action"])
    # Only the environment's key, by its tag: not every key of the account in the region (review F8).
    assert keys == {"Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Effect": "Allow", **ONLY_THE_ENVIRONMENTS_KEY}


def test_a_jobs_policy_lists_reads_and_writes_only_its_checkpoint_prefix() -> None:
    bucket = "prod-cn-gpu-checkpoints-1234567890123456"
    listing, objects, keys = json.loads(job_checkpoint_policy(KEY, bucket, "jobs/llm/"))["Statement"]
    assert listing == {
        "Action": ["oss:ListObjects"],
        "Effect": "Allow",
        "Resource": [f"acs:oss:*:1234567890123456:{bucket}"],
        "Condition": {"StringLike": {"oss:Prefix": ["jobs/llm/", "jobs/llm/*"]}},
    }
    assert objects == {
        "Action": ["oss:AbortMultipartUpload", "oss:DeleteObject", "oss:GetObject", "oss:ListParts", "oss:PutObject"],
        "Effect": "Allow",
        "Resource": [f"acs:oss:*:1234567890123456:{bucket}/jobs/llm/*"],
    }
    assert keys == {"Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Effect": "Allow", **ONLY_THE_ENVIRONMENTS_KEY}


def test_a_model_readers_policy_may_only_decrypt_with_the_environments_key() -> None:
    *_, keys = json.loads(model_read_policy(KEY, "bucket", "models/resnet50"))["Statement"]
    assert keys == {"Action": ["kms:Decrypt"], "Effect": "Allow", **ONLY_THE_ENVIRONMENTS_KEY}


def test_the_policy_document_is_plain_text_in_the_plan() -> None:
    policy = one(plan_of(lambda: RrsaRole("train", _args())), "alicloud:ram/policy:Policy").inputs
    assert policy["policyDocument"] == POLICY


def test_an_empty_service_account_is_rejected_before_anything_registers() -> None:
    err, plan = rejected(lambda: RrsaRole("train", _args(service_account="")))
    assert str(err) == "serviceAccount: empty (got )"
    assert registered(plan) == []
