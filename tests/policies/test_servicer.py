"""The pack's servicer (`sdk.share_decoding`) answers every call exactly as pulumi-policy's own servicer does.

Both servicers run in-process over the same policies, config and requests: every resource of the
protocol cases and of the ``dev`` and ``prod-cn`` plans (providers with inputs, components, the stack),
under configs that disable, downgrade, remediate and exempt. Each response must be the SDK's, message for
message and in the same order.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pulumi_policy.policy as sdk_policy
import pytest
from google.protobuf import empty_pb2, json_format, struct_pb2
from hypothesis import given, settings
from hypothesis import strategies as st
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy

import gpu_cloud.policies.gpucloud_rules as rules_package
from gpu_cloud.planner.engine import run_program
from gpu_cloud.planner.model import RecordedResource
from gpu_cloud.planner.offline import load_offline_answers
from gpu_cloud.planner.policy import _LEVEL_TO_PROTO, _normalize_config, _reconcile_config, _Session, _struct
from gpu_cloud.planner.project import load_project, load_stack
from gpu_cloud.policies.gpucloud_rules import sdk
from gpu_cloud.policies.gpucloud_rules.rule import ResourceRule, StackRule
from tests.policies import test_rules_through_protocol as cases
from tests.policies.wire import stack_resource, urn

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "defaults": {},
    "levels": {
        "gpu-cost-guard": "disabled",
        "required-tags": "advisory",
        "no-public-ip": "remediate",
        "protect-stateful": "remediate",
        "encryption-at-rest": {
            "exemptions": [{"urn": urn("dev", "aws:ebs/volume:Volume", "ebs-plain"), "reason": "test"}]
        },
    },
    "all advisory": {"all": "advisory"},
}


def _policies() -> list[Any]:
    rules = []
    for module in pkgutil.iter_modules(rules_package.__path__):
        rule = getattr(importlib.import_module(f"{rules_package.__name__}.{module.name}"), "RULE", None)
        if isinstance(rule, ResourceRule | StackRule):
            rules.append(rule)
    return [sdk.to_policy(rule) for rule in rules]


@pytest.fixture
def servicers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[type, type]]:
    """(the SDK's servicer class, the pack's), the module restored afterwards."""
    monkeypatch.setattr(sdk_policy, "_PolicyAnalyzerServicer", sdk_policy._PolicyAnalyzerServicer)
    original = sdk_policy._PolicyAnalyzerServicer
    assert sdk.share_decoding() is True
    yield original, sdk_policy._PolicyAnalyzerServicer


@pytest.fixture(scope="module")
def stacks() -> dict[str, list[RecordedResource]]:
    """Stack name -> recorded resources: the protocol cases (as stack dev) and two planned environments."""
    project = load_project(ROOT)
    answers = load_offline_answers(project.config_dir)
    planned = {
        name: list(run_program(project, load_stack(project, name), answers).resources) for name in ("dev", "prod-cn")
    }
    return {"cases": [stack_resource("dev"), *(cases.build(case) for case in cases.CASES)], **planned}


def _serve(kind: type, config: dict[str, Any]) -> Any:
    servicer = kind("gpu-cloud-policies", "0.0.1", _policies(), EnforcementLevel.MANDATORY)
    reconciled = _reconcile_config(servicer.GetAnalyzerInfo(empty_pb2.Empty(), None), _normalize_config(config, "test"))
    servicer.Configure(
        analyzer_pb2.ConfigureAnalyzerRequest(
            policyConfig={
                name: analyzer_pb2.PolicyConfig(enforcementLevel=_LEVEL_TO_PROTO[level], properties=_struct(props))
                for name, (level, props) in reconciled.items()
            }
        ),
        None,
    )
    return servicer


def _responses(servicer: Any, resources: Sequence[RecordedResource]) -> list[Any]:
    session = _Session(None, resources)
    answers = [servicer.Analyze(session._analyze_request(r), None) for r in resources]
    stack = analyzer_pb2.AnalyzeStackRequest(resources=[session._stack_resource(r) for r in resources])
    return [*answers, servicer.AnalyzeStack(stack, None)]


@pytest.mark.parametrize("config", CONFIGS, ids=str)
@pytest.mark.parametrize("stack", ["cases", "dev", "prod-cn"])
def test_every_response_is_the_sdks(
    servicers: tuple[type, type],
    stacks: dict[str, list[RecordedResource]],
    monkeypatch: pytest.MonkeyPatch,
    stack: str,
    config: str,
) -> None:
    monkeypatch.setenv("PULUMI_PROJECT", "gpu-cloud")
    monkeypatch.setenv("PULUMI_STACK", "dev" if stack == "cases" else stack)
    monkeypatch.setenv("PULUMI_DRY_RUN", "true")
    original, pack = (_serve(kind, CONFIGS[config]) for kind in servicers)
    expected = _responses(original, stacks[stack])
    assert stack != "cases" or any(response.diagnostics for response in expected)  # the comparison has findings
    assert _responses(pack, stacks[stack]) == expected


def test_a_pack_with_policies_of_its_own_is_served_as_the_sdk_serves(servicers: tuple[type, type]) -> None:
    """Policies that are not a rule's (no `to_policy`) get the SDK's handling: each decodes for itself."""
    seen: list[Any] = []
    policies = [
        ResourceValidationPolicy(name, "records its props", lambda args, report: seen.append(args.props))
        for name in ("first", "second")
    ]
    servicer = servicers[1]("p", "0.0.1", policies, EnforcementLevel.MANDATORY)
    request = analyzer_pb2.AnalyzeRequest(type="aws:ec2/vpc:Vpc", urn="urn:pulumi:s::p::aws:ec2/vpc:Vpc::v")
    request.properties.update({"cidrBlock": "10.0.0.0/16"})
    servicer.Analyze(request, None)
    assert [dict(props) for props in seen] == [{"cidrBlock": "10.0.0.0/16"}] * 2


_JSON = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _JSON, max_size=6))
def test_the_packs_struct_decoding_is_json_formats(values: dict[str, Any]) -> None:
    # The pack decodes properties in one pass (sdk._struct_json); the SDK with json_format.MessageToDict.
    struct = struct_pb2.Struct()
    struct.update(values)
    decoded = sdk._struct_json(struct)
    assert decoded == json_format.MessageToDict(struct)
    assert json.dumps(decoded) == json.dumps(json_format.MessageToDict(struct))  # same order, same types


def test_the_packs_struct_decoding_refuses_what_json_format_refuses() -> None:
    struct = struct_pb2.Struct()
    struct.fields["x"].number_value = float("inf")
    with pytest.raises(ValueError, match="Fail to serialize"):
        json_format.MessageToDict(struct)
    with pytest.raises(ValueError, match="Fail to serialize"):
        sdk._struct_json(struct)
