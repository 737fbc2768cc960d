"""What a program reads from outside itself, answered offline as the documented deployment leaves it.

Two kinds of reads leave a Pulumi program:

- **Stack references.** The engine resolves ``pulumi.StackReference(name)`` only through the backend the running
  stack lives in: pulumi/pulumi ``pkg/resource/deploy/builtins.go`` ``readStackReference`` asks
  ``p.backendClient.GetStackOutputs``, and ``pkg/backend/backend.go`` answers ``unknown stack`` for a stack that
  backend does not hold (pulumi/pulumi#3395: "you still cannot reference stacks across backends"; read 2026-12-03).
  So the answers say which stacks each backend holds (``backends``), and a reference the running stack's backend
  cannot answer is refused, never given a canned value.
- **Cloud parameters.** What an account's bootstrap publishes for its environments
  (``gpu_cloud.components.bootstrap_facts``: AWS Systems Manager parameters, Alibaba Cloud OOS parameters), read with
  the cloud's data source in a given region. A name the answers do not list in that region is refused, as the cloud
  refuses it (SSM GetParameter ``ParameterNotFound``).

The answers of ``gpucloud plan`` come from ``offline-answers.yaml`` beside the stack config files (or
``--offline-answers FILE``); the rehearsal of the deployment sequence (``tests/lifecycle``) builds them from
docs/deploy.md and the bootstrap's plan instead, and checks the shipped file against them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpu_cloud.planner.files import load_yaml
from gpu_cloud.planner.model import PlanError

__all__ = [
    "ANSWERS_FILE",
    "ORGANIZATION",
    "PARAMETER_READS",
    "OfflineAnswers",
    "config_field",
    "load_offline_answers",
    "parameter_read",
]

ANSWERS_FILE = "offline-answers.yaml"
"""The offline answers of a project, beside its stack config files."""

ORGANIZATION = "organization"
"""The organization part of every stack name in a self-managed (DIY) backend (pulumi/pulumi#20239)."""

PARAMETER_READS = {
    "aws:ssm/getParameter:getParameter": "aws",
    "alicloud:oos/getParameters:getParameters": "alicloud",
}
"""The data sources that read a cloud parameter, and their cloud."""

PUBLIC_PREFIXES = {"aws": ("/aws/service/",), "alicloud": ()}
"""Parameters the cloud itself publishes in every account (AWS public parameters such as the EKS AMI ids, Systems
Manager User Guide "Discovering public parameters"): these keep their canned answers (gpucloud.canned)."""


@dataclass(frozen=True)
class OfflineAnswers:
    """The stacks of each backend and the published cloud parameters a plan may read.

    Attributes:
        source: Where the answers come from (a file, or a description of how they were built), for messages.
        backends: Backend URL -> qualified stack name (``org/project/stack``) -> that stack's outputs.
        parameters: ``(cloud, region)`` -> parameter name -> value.
    """

    source: str
    backends: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    parameters: Mapping[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)

    def backend_of(self, stack: str) -> str | None:
        """The backend URL that holds ``stack`` (a qualified name), or None."""
        return next((url for url, stacks in self.backends.items() if stack in stacks), None)

    def resolve(self, running: str, referenced: str) -> Mapping[str, Any] | str:
        """The outputs of ``referenced`` as a StackReference from stack ``running`` reads them, or why it cannot."""
        home = self.backend_of(running)
        if home is None:
            return f"{self.source} puts the running stack {running} in no backend, so no reference from it resolves"
        stacks = self.backends[home]
        if referenced in stacks:
            return stacks[referenced]
        elsewhere = self.backend_of(referenced)
        where = f"it is in {elsewhere}" if elsewhere is not None else f"no backend of {self.source} holds it"
        return (
            f"{running} runs in {home}, which holds no stack {referenced} ({where}); Pulumi resolves a stack "
            "reference only in the running stack's backend (pulumi/pulumi#3395)"
        )

    def parameter(self, cloud: str, region: str, name: str) -> Any | None:
        """The value of parameter ``name`` of ``cloud`` in ``region``, or None when it is not published there."""
        return self.parameters.get((cloud, region), {}).get(name)

    def regions_with(self, cloud: str, name: str) -> list[str]:
        """The regions of ``cloud`` where parameter ``name`` is published, sorted (for messages)."""
        return sorted(region for (c, region), values in self.parameters.items() if c == cloud and name in values)


def parameter_read(token: str, args: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(cloud, name)`` when the invoke ``token`` with ``args`` reads a parameter that is not public, else None."""
    cloud = PARAMETER_READS.get(token)
    if cloud is None:
        return None
    if cloud == "aws":
        name = args.get("name")
    else:
        ids = args.get("ids")
        name = ids[0] if isinstance(ids, list) and len(ids) == 1 else args.get("parameterName")
    if not isinstance(name, str) or name.startswith(PUBLIC_PREFIXES[cloud]):
        return None
    return cloud, name


def parameter_answer(token: str, name: str, region: str, value: Any) -> dict[str, Any]:
    """The data source's result for a published parameter (the fields the SDKs' result types read)."""
    text = value if isinstance(value, str) else ",".join(str(v) for v in value)
    kind = "String" if isinstance(value, str) else "StringList"
    if PARAMETER_READS[token] == "aws":
        return {
            "id": name,
            "name": name,
            "arn": f"arn:aws:ssm:{region}::parameter{name}",
            "type": kind,
            "value": text,
            "insecureValue": text,
            "version": 1,
        }
    parameter = {"id": name, "parameterName": name, "type": kind, "value": text, "parameterVersion": 1}
    return {"id": region, "ids": [name], "names": [name], "parameters": [parameter]}


def config_field(config: Mapping[str, str], value: str) -> str | None:
    """The config key (``namespace:path.to.field``) whose value is ``value``, for messages; None when none is."""
    for key, text in sorted(config.items()):
        try:
            data: Any = json.loads(text)
        except ValueError:
            data = text
        for path in _paths_of(data, value):
            return ".".join((key, *path)) if path else key
    return None


def _paths_of(data: Any, value: str) -> Iterator[tuple[str, ...]]:
    if data == value:
        yield ()
    elif isinstance(data, dict):
        for key, item in data.items():
            yield from ((str(key), *path) for path in _paths_of(item, value))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from ((str(i), *path) for path in _paths_of(item, value))


def load_offline_answers(config_dir: Path, path: Path | None = None) -> OfflineAnswers:
    """The offline answers in ``path``, else in ``config_dir``'s offline-answers.yaml; none when it is absent.

    Raises:
        PlanError: the file is not ``{backends: {url: {stack: {outputs}}}, parameters: {"cloud:region": {...}}}``.
    """
    if path is None:
        path = config_dir / ANSWERS_FILE
        if not path.is_file():
            return OfflineAnswers(source=f"{path} (absent)")
    data = load_yaml(path) or {}
    if not isinstance(data, dict) or set(data) - {"backends", "parameters"}:
        raise PlanError(f"{path}: expected a mapping with the keys backends and parameters")
    backends = data.get("backends") or {}
    if not isinstance(backends, dict) or not all(
        isinstance(stacks, dict) and all(isinstance(outputs, dict) for outputs in stacks.values())
        for stacks in backends.values()
    ):
        raise PlanError(f"{path}: backends: expected backend URL -> stack name -> mapping of outputs")
    parameters: dict[tuple[str, str], dict[str, Any]] = {}
    for where, values in (data.get("parameters") or {}).items():
        cloud, _, region = str(where).partition(":")
        if cloud not in PUBLIC_PREFIXES or not region or not isinstance(values, dict):
            raise PlanError(f"{path}: parameters: {where!r}: expected '<aws|alicloud>:<region>' -> name -> value")
        parameters[(cloud, region)] = {str(name): value for name, value in values.items()}
    return OfflineAnswers(
        source=str(path),
        backends={str(url): {str(s): dict(o) for s, o in stacks.items()} for url, stacks in backends.items()},
        parameters=parameters,
    )
