"""Every custom object of every environment's plan is valid for the CRD of the chart version that installs it."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
import pytest

from gpu_cloud.components import versions
from tests.crds import crd_for, errors, vendored
from tests.stacks.test_environments import STACKS, plan

PULUMI_TYPES = {"kubernetes:helm.sh/v3:Release"}
"""Kubernetes-provider types that are not objects sent to the API server."""

KUBERNETES_VERSION = f"{versions.DEFAULT_KUBERNETES_VERSION}.0"
"""The schemas built-in kinds are validated against: the clusters' default Kubernetes version (kubernetes-validate)."""

CHARTS = {
    c.name: c.version
    for c in (
        versions.KUEUE_CHART,
        versions.JOBSET_CHART,
        versions.KUBE_PROMETHEUS_STACK_CHART,
        versions.KARPENTER_CRD_CHART,
    )
}
"""The pinned chart of each vendored CRD."""


def _custom(stack: str) -> list[tuple[str, dict[str, object]]]:
    """The objects of ``stack``'s plan that are not of a built-in kind (kubernetes-validate has no schema for them)."""
    found = []
    for r in plan(stack).resources:
        if not r.type.startswith("kubernetes:") or r.type in PULUMI_TYPES:
            continue
        try:
            kubernetes_validate.validate(r.inputs, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.SchemaNotFoundError:
            found.append((r.name, r.inputs))
        except kubernetes_validate.ValidationError:
            # A built-in kind (it has a schema) whose plan value is partly a placeholder, e.g. a Secret's stringData,
            # which the Kubernetes SDK always marks secret; its component tests validate it with real values.
            continue
    return found


@pytest.mark.parametrize("stack", STACKS)
def test_every_custom_object_of_the_plan_is_valid_for_its_vendored_crd(stack: str) -> None:
    objects = _custom(stack)
    assert objects, "no custom object planned"
    problems = {}
    for name, obj in objects:
        crd = crd_for(str(obj["apiVersion"]), str(obj["kind"]))
        assert crd is not None, f"{name}: no vendored CRD for {obj['apiVersion']} {obj['kind']}"
        metadata = obj["metadata"]
        assert isinstance(metadata, dict)
        assert ("namespace" in metadata) == (crd["scope"] == "Namespaced"), f"{name}: scope {crd['scope']}"
        found = errors(dict(obj))
        if found:
            problems[name] = found
    assert problems == {}


def test_every_vendored_crd_names_its_source_and_the_pinned_chart_version() -> None:
    for (group, kind), crd in vendored().items():
        assert crd["source"].startswith("https://github.com/"), (group, kind)
        assert "2026-12-02" <= crd["read"] <= "2026-12-03", (group, kind)
        assert CHARTS[crd["chart"]] == crd["version"], (group, kind, crd["chart"])


def test_an_undeclared_field_is_an_error() -> None:
    flavor = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ResourceFlavor",
        "metadata": {"name": "f"},
        "spec": {"nodeLabels": {"a": "b"}, "nodeLabel": {"a": "b"}},
    }
    assert errors(flavor) == ["spec: Additional properties are not allowed ('nodeLabel' was unexpected)"]


def test_a_wrongly_typed_field_is_an_error() -> None:
    queue = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "LocalQueue",
        "metadata": {"name": "q", "namespace": "n"},
        "spec": {"clusterQueue": 3},
    }
    assert errors(queue) == ["spec.clusterQueue: 3 is not of type 'string'"]


def _node_pool(requirements: list[dict[str, Any]]) -> dict[str, Any]:
    node_class = {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "c"}
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "p"},
        "spec": {"template": {"spec": {"nodeClassRef": node_class, "requirements": requirements}}},
    }


def test_the_crds_cel_rules_are_evaluated_where_they_stand() -> None:
    """Rules on a list (``requirements``), on each item's field (``key``, with Kubernetes' ``find``) and on a spec."""
    allowed = {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}
    assert errors(_node_pool([allowed])) == []
    assert errors(_node_pool([allowed, {"key": "karpenter.sh/zone", "operator": "In", "values": []}])) == [
        'spec.template.spec.requirements.1.key: label domain "karpenter.sh" is restricted',
        "spec.template.spec.requirements: requirements with operator 'In' must have a value defined",
    ]
    node_class = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "c"},
        "spec": {
            "role": "r",
            "instanceProfile": "p",
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"k": "v"}}],
            "securityGroupSelectorTerms": [{"tags": {"k": ""}}],
        },
    }
    assert errors(node_class) == [
        "spec.securityGroupSelectorTerms.0.tags: empty tag keys or values aren't supported",
        "spec: must specify exactly one of ['role', 'instanceProfile']",
    ]


def test_transition_rules_are_left_to_updates() -> None:
    """``oldSelf`` rules (here: a NodePool keeps or never has ``replicas``) do not apply to a create."""
    pool = _node_pool([])
    spec = pool["spec"]
    assert isinstance(spec, dict)
    assert errors({**pool, "spec": {**spec, "replicas": 1}}) == []
