"""No value a policy reads can crash it or slip past it (POLICY_RULES.md, "Config and enforcement").

Every policy of the pack (every ``gpucloud_rules`` module with a ``RULE``, so a new rule is covered
without touching this file) is fed, for each of its types that has a compliant fixture, that resource
with the value at one path the policy reads replaced by something a sloppy program or an attacker could
send: an unknown sentinel, None, a value of the wrong type, an empty or a nested list. The paths are the
ones the policy really reads on that resource, recorded while it checks it.

Properties:
- no exception escapes the guard (`run_resource_rule` / `run_stack_rule`), however many values are junk;
- where the value decides the verdict (deleting it changes the verdict, or an unknown there is a
  violation), every unreadable replacement is a violation, never a silent pass; None reads as unset.

Bounded and derandomized, so CI runs the same examples every time, in a few seconds.
"""

from __future__ import annotations

import copy
import importlib
import pkgutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gpu_cloud.policies.gpucloud_rules as rules_package
from gpu_cloud.policies.gpucloud_rules.rule import (
    ResourceRule,
    StackResource,
    StackRule,
    effective_config,
    run_resource_rule,
    run_stack_rule,
)
from gpu_cloud.policies.gpucloud_rules.values import UNKNOWN_SENTINELS
from tests.policies.fixtures import COMPLIANT

Path = tuple[str | int, ...]
STACK = "dev"
URN = "urn:pulumi:dev::p::t::r"
ENGINE_UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # what the engine sends for any unknown value
PROVIDER = {"region": "us-east-1"}
_SERVICE = "kubernetes:core/v1:Service"
_TLS_PORTS = {"type": "LoadBalancer", "ports": [{"name": "https", "port": 443, "protocol": "TCP"}]}
_AWS = "service.beta.kubernetes.io/aws-load-balancer-"
_ALI = "service.beta.kubernetes.io/alibaba-cloud-loadbalancer-"
_AWS_TLS = {
    f"{_AWS}ssl-cert": "arn:aws:acm:us-east-1:1:certificate/x",
    f"{_AWS}ssl-ports": "https",
    f"{_AWS}ssl-negotiation-policy": "ELBSecurityPolicy-TLS13-1-3-2021-06",
}
_ALI_TLS = {f"{_ALI}address-type": "intranet", f"{_ALI}cert-id": "1-cn-hangzhou", f"{_ALI}tls-cipher-policy": "sp-1"}
# A compliant LoadBalancer Service for each controller that builds one (load_balancer_services.py).
_LOAD_BALANCER_SERVICES = [
    {"metadata": {"annotations": {**_AWS_TLS, f"{_AWS}type": "nlb", f"{_AWS}internal": "true"}}, "spec": _TLS_PORTS},
    {
        "metadata": {"annotations": {**_AWS_TLS, f"{_AWS}scheme": "internal"}},
        "spec": {**_TLS_PORTS, "loadBalancerClass": "service.k8s.aws/nlb"},
    },
    {"metadata": {"annotations": {**_ALI_TLS, f"{_ALI}protocol-port": "https:443"}}, "spec": _TLS_PORTS},
    {
        "metadata": {"annotations": {**_ALI_TLS, f"{_ALI}protocol-port": "tcpssl:443"}},
        "spec": {**_TLS_PORTS, "loadBalancerClass": "alibabacloud.com/nlb"},
    },
]
# Compliant resources beyond the fixtures: gpu-cost-guard's GPU pools must run on spot in a non-prod stack; a
# LoadBalancer Service for each of its controllers.
BASES: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("gpu-cost-guard", "aws:eks/nodeGroup:NodeGroup"): [
        {
            **COMPLIANT["aws:eks/nodeGroup:NodeGroup"],
            "capacityType": "SPOT",
            "instanceTypes": ["g5.xlarge"],
            "scalingConfig": {"minSize": 0, "desiredSize": 0, "maxSize": 2},
        },
    ],
    ("tls-1-3", _SERVICE): _LOAD_BALANCER_SERVICES,
    ("no-public-ip", _SERVICE): [COMPLIANT[_SERVICE], *_LOAD_BALANCER_SERVICES],
}
SETTINGS = settings(
    max_examples=600, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck)
)


def _rules() -> list[ResourceRule | StackRule]:
    found = []
    for module in pkgutil.iter_modules(rules_package.__path__):
        rule = getattr(importlib.import_module(f"{rules_package.__name__}.{module.name}"), "RULE", None)
        if isinstance(rule, ResourceRule | StackRule):
            found.append(rule)
    return found


def verdict(rule: ResourceRule | StackRule, resource_type: str, props: Any) -> list[str]:
    """The messages of ``rule`` for one resource, through the guard every policy runs through."""
    config = effective_config(rule, None)
    if isinstance(rule, ResourceRule):
        return run_resource_rule(rule, resource_type, props, config, PROVIDER)
    resource = StackResource(URN, resource_type, props, protect=True, property_dependencies={}, provider=PROVIDER)
    return [finding.message for finding in run_stack_rule(rule, [resource], config, STACK)]


class _ReadDict(dict[str, Any]):
    """A dict that records the paths read from it (``get`` and ``[]``) into ``reads``."""

    def __init__(self, value: dict[str, Any], path: Path, reads: set[Path]) -> None:
        super().__init__(value)
        self.path, self.reads = path, reads

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else self._note(key, default)

    def __getitem__(self, key: str) -> Any:
        return self._note(key, super().__getitem__(key))

    def _note(self, key: str, value: Any) -> Any:
        self.reads.add((*self.path, key))
        return _recording(value, (*self.path, key), self.reads)


class _ReadList(list[Any]):
    """A list that records the paths of the entries read from it."""

    def __init__(self, value: list[Any], path: Path, reads: set[Path]) -> None:
        super().__init__(value)
        self.path, self.reads = path, reads

    def __iter__(self) -> Iterator[Any]:
        for i, item in enumerate(super().__iter__()):
            self.reads.add((*self.path, i))
            yield _recording(item, (*self.path, i), self.reads)

    def __getitem__(self, index: Any) -> Any:
        if not isinstance(index, int):
            return super().__getitem__(index)
        self.reads.add((*self.path, index))
        return _recording(super().__getitem__(index), (*self.path, index), self.reads)


def _recording(value: Any, path: Path, reads: set[Path]) -> Any:
    if type(value) is dict:
        return _ReadDict(value, path, reads)
    if type(value) is list:
        return _ReadList(value, path, reads)
    return value


def paths_read(rule: ResourceRule | StackRule, resource_type: str, props: dict[str, Any]) -> list[Path]:
    reads: set[Path] = set()
    verdict(rule, resource_type, _recording(props, (), reads))
    return sorted(reads, key=str)


def replaced(props: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    """A copy of ``props`` with ``value`` at ``path`` (``_DELETE``: the key removed)."""
    result = copy.deepcopy(props)
    parent: Any = result
    for step in path[:-1]:
        parent = parent[step]
    if value is _DELETE:
        if isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = None
    else:
        parent[path[-1]] = value
    return result


_DELETE = object()


@dataclass(frozen=True)
class Case:
    """A policy, one of its types with a compliant resource, and the paths the policy reads on it."""

    rule: ResourceRule | StackRule
    type: str
    props: dict[str, Any]
    paths: tuple[Path, ...]

    def __repr__(self) -> str:
        return f"Case({self.rule.name}, {self.type})"


def _cases() -> list[Case]:
    cases = []
    for rule in _rules():
        for resource_type in sorted(rule.resource_types & COMPLIANT.keys()):
            for props in BASES.get((rule.name, resource_type), [COMPLIANT[resource_type]]):
                if verdict(rule, resource_type, props) == []:
                    cases.append(Case(rule, resource_type, props, tuple(paths_read(rule, resource_type, props))))
    return [case for case in cases if case.paths]


CASES = _cases()


def _value_at(props: Any, path: Path) -> Any:
    """The value at ``path`` (None where a key the policy read is absent)."""
    for step in path:
        props = props.get(step) if isinstance(props, dict) else props[step]
    return props


def unreadable(original: Any) -> st.SearchStrategy[Any]:
    """Values that cannot be read where ``original`` was: unknowns, nested lists, other types.

    Other types are judged by the original: an object with other keys is still an object, and a single
    value where a list is allowed is a one-element list, so those are not junk; where the policy read a
    key that is absent, the type is not known and only nested lists are wrong whatever it should be.
    """
    junk: list[Any] = [*sorted(UNKNOWN_SENTINELS), [[]], [[original]]]
    if isinstance(original, bool):
        junk += ["maybe", 7, {"unexpected": 1}]
    elif isinstance(original, int | float):
        junk += ["lots", True, {"unexpected": 1}]
    elif isinstance(original, str):
        junk += [{"unexpected": 1}, [{"unexpected": 1}]]
    elif isinstance(original, dict):
        junk += ["text", 7, True]
    return st.sampled_from(junk)


JUNK = st.one_of(
    st.sampled_from([ENGINE_UNKNOWN, None, [], {}, [[]], [None], "", 0, -1.5, True, "true", {"a": [[{}]]}]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
        lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2),
        max_leaves=4,
    ),
)


def test_every_policy_has_cases() -> None:
    names = {case.rule.name for case in CASES}
    assert names == {rule.name for rule in _rules()} - NO_COMPLIANT_FIXTURE


def test_every_extra_base_is_compliant() -> None:
    for (name, resource_type), bases in BASES.items():
        rule = next(rule for rule in _rules() if rule.name == name)
        for props in bases:
            assert verdict(rule, resource_type, props) == [], (name, resource_type, props)


# Policies without a compliant fixture of their types here (they have their own tests): gpu-sharing-isolation reads
# nothing outside production stacks (test_gpu_rules.py fuzzes it in one).
NO_COMPLIANT_FIXTURE: frozenset[str] = frozenset({"gpu-sharing-isolation"})


@SETTINGS
@given(st.data())
def test_junk_anywhere_never_crashes(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES))
    paths: Sequence[Path] = data.draw(st.lists(st.sampled_from(case.paths), min_size=1, max_size=4, unique=True))
    props = case.props
    for path in sorted(paths, key=len, reverse=True):
        try:
            props = replaced(props, path, data.draw(JUNK))
        except (KeyError, IndexError, TypeError):
            continue  # a shorter path already replaced its parent
    messages = verdict(case.rule, case.type, props)
    assert all(isinstance(m, str) and m for m in messages)


def deciding(case: Case, path: Path) -> bool:
    """Whether the value at ``path`` decides the verdict: unset it changes, or unknown it is a violation."""
    return verdict(case.rule, case.type, replaced(case.props, path, _DELETE)) != [] or (
        verdict(case.rule, case.type, replaced(case.props, path, ENGINE_UNKNOWN)) != []
    )


READ_PATHS = [(case, path) for case in CASES for path in case.paths]


@pytest.mark.parametrize(("case", "path"), READ_PATHS, ids=[f"{c.rule.name}-{c.type}-{p}" for c, p in READ_PATHS])
@settings(SETTINGS, max_examples=12)
@given(data=st.data())
def test_an_unreadable_deciding_value_is_a_violation(case: Case, path: Path, data: st.DataObject) -> None:
    junk = data.draw(unreadable(_value_at(case.props, path)))
    messages = verdict(case.rule, case.type, replaced(case.props, path, junk))
    if isinstance(junk, str) and junk in UNKNOWN_SENTINELS:
        # Every kind of unknown reads alike: where only presence counts (a key id) it counts as set.
        unknown = verdict(case.rule, case.type, replaced(case.props, path, ENGINE_UNKNOWN))
        assert bool(messages) == bool(unknown), f"{case.rule.name} on {case.type}: {path} = {junk!r}"
    elif deciding(case, path):
        assert messages, f"{case.rule.name} passed {case.type} with {path} = {junk!r}"


@SETTINGS
@given(st.data())
def test_none_reads_as_unset(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES))
    path = data.draw(st.sampled_from(case.paths))
    assert verdict(case.rule, case.type, replaced(case.props, path, None)) == verdict(
        case.rule, case.type, replaced(case.props, path, _DELETE)
    )
