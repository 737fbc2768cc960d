"""WorkloadIdentityGuard: no user of a GPU namespace runs a workload under another workload's ServiceAccount (its cloud
identity). The policy is validated with kubernetes-validate at the clusters' version, and its CEL is evaluated with
cel-python as the API server evaluates it: the variables in order, then the validation, over the admission request's
``object`` and ``request`` (kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy)."""

from __future__ import annotations

from typing import Any

import celpy
import pytest

from gpu_cloud.components.k8s.rbac import (
    IDENTITY_POLICY,
    JOBSET_CONTROLLER,
    WorkloadIdentityGuard,
    WorkloadIdentityGuardArgs,
    identity_policy_spec,
)
from gpu_cloud.components.k8s.training_job import jobset_manifest
from gpu_cloud.components.spec import Cloud, TrainingJobSpec, TrainingSpec
from tests.k8s.conftest import assert_valid, efa_training_pool, kinds, one, run

IDENTITIES = {"gpu-training/llm": ["example.com/train:1"], "gpu-inference/resnet": []}
SPEC = identity_policy_spec(IDENTITIES)
ENV = celpy.Environment()


def admitted(obj: dict[str, Any], user: str = "alice", namespace: str = "gpu-training") -> bool:
    """Whether the policy admits ``obj`` created by ``user`` in ``namespace``."""
    context: dict[str, Any] = {
        "object": celpy.json_to_cel(obj),
        "request": celpy.json_to_cel({"namespace": namespace, "userInfo": {"username": user}}),
    }
    variables: dict[Any, Any] = {}
    for variable in SPEC["variables"]:
        context["variables"] = celpy.celtypes.MapType(variables)
        variables[celpy.celtypes.StringType(variable["name"])] = _evaluate(variable["expression"], context)
    context["variables"] = celpy.celtypes.MapType(variables)
    [validation] = SPEC["validations"]
    return bool(_evaluate(validation["expression"], context))


def _evaluate(expression: str, context: dict[str, Any]) -> Any:
    return ENV.program(ENV.compile(expression)).evaluate(context)


def _pod(account: str | None, image: str = "example.com/train:1", deprecated: bool = False) -> dict[str, Any]:
    pod: dict[str, Any] = {"containers": [{"name": "c", "image": image}]}
    if account is not None:
        pod["serviceAccount" if deprecated else "serviceAccountName"] = account
    return pod


def jobset(name: str, pod: dict[str, Any]) -> dict[str, Any]:
    template = {"spec": {"template": {"spec": pod}}}
    return {
        "kind": "JobSet",
        "metadata": {"name": name},
        "spec": {"replicatedJobs": [{"name": "n", "template": template}]},
    }


def job(name: str, pod: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "Job", "metadata": {"name": name}, "spec": {"template": {"spec": pod}}}


def test_the_jobs_own_jobset_and_its_submitted_runs_may_use_its_identity() -> None:
    assert admitted(jobset("llm", _pod("llm")))
    # kubectl create of the rendered manifest: generateName llm- completed by the API server before admission.
    assert admitted(jobset("llm-x7k2p", _pod("llm")))


def test_the_stacks_own_manifest_is_admitted() -> None:
    manifest = jobset_manifest(
        TrainingJobSpec(
            name="llm",
            queue="research",
            pool="train-h100",
            nodes=2,
            image="example.com/train:1",
            command=("/workspace/train.py",),
            checkpoint_prefix="jobs/llm/",
        ),
        efa_training_pool(name="train-h100"),
        TrainingSpec(),
        Cloud.AWS,
        "s3://b/jobs/llm/",
        "us-east-1",
    )
    assert admitted(manifest)


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(jobset("mine", _pod("llm")), id="another JobSet with the job's ServiceAccount"),
        pytest.param(jobset("mine", _pod("llm", deprecated=True)), id="the same through the deprecated field"),
        pytest.param(jobset("llm", _pod("llm", image="example.com/mine:1")), id="the job's name with another image"),
        pytest.param(job("llm-node-0", _pod("llm")), id="a Job a user makes with the job's ServiceAccount"),
    ],
)
def test_a_users_workload_cannot_borrow_a_jobs_identity(obj: dict[str, Any]) -> None:
    assert not admitted(obj)


def test_no_user_workload_may_run_as_an_inference_service() -> None:
    assert not admitted(jobset("resnet", _pod("resnet")), namespace="gpu-inference")
    assert not admitted(job("resnet", _pod("resnet")), namespace="gpu-inference")


def test_the_jobset_controllers_jobs_of_an_admitted_jobset_pass() -> None:
    assert admitted(job("llm-node-0", _pod("llm")), user=JOBSET_CONTROLLER)


@pytest.mark.parametrize("account", [None, "default", "training"])
def test_other_service_accounts_are_left_alone(account: str | None) -> None:
    assert admitted(jobset("mine", _pod(account, image="example.com/mine:1")))
    assert admitted(job("mine", _pod(account, image="example.com/mine:1")))


def test_init_containers_count_too() -> None:
    pod = _pod("llm") | {"initContainers": [{"name": "i", "image": "example.com/other:1"}]}
    assert not admitted(jobset("llm", pod))


def test_the_component_declares_a_valid_policy_and_its_denying_binding() -> None:
    plan = run(lambda opts: WorkloadIdentityGuard("guard", WorkloadIdentityGuardArgs(IDENTITIES), opts=opts))
    assert sorted(kinds(plan)) == [
        ("gpucloud:k8s:WorkloadIdentityGuard", "guard"),
        ("kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy", "guard-policy"),
        ("kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding", "guard-binding"),
    ]
    policy, binding = one(plan, "guard-policy"), one(plan, "guard-binding")
    assert policy.inputs["spec"] == SPEC
    assert binding.inputs["spec"] == {"policyName": IDENTITY_POLICY, "validationActions": ["Deny"]}
    assert policy.urn in binding.dependencies
    assert_valid(policy)
    assert_valid(binding)


def test_the_policy_applies_to_jobsets_and_jobs_of_the_gpu_namespaces() -> None:
    constraints = SPEC["matchConstraints"]
    assert constraints["namespaceSelector"] == {"matchLabels": {"gpucloud.io/gpu-namespace": "true"}}
    assert {(r["apiGroups"][0], r["resources"][0]) for r in constraints["resourceRules"]} == {
        ("jobset.x-k8s.io", "jobsets"),
        ("batch", "jobs"),
    }
    assert SPEC["failurePolicy"] == "Fail"
