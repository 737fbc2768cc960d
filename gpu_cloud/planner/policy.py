"""Run a Pulumi policy pack over recorded resources, speaking the analyzer protocol as the Pulumi CLI does.

What the CLI does, and so what this does (pulumi/pulumi ``sdk/go/common/resource/plugin/analyzer_plugin.go``,
``pkg/resource/deploy/step_generator.go``, ``pkg/resource/analyzer/config.go``):

1. Start the pack: ``python -u -m pulumi.policy <engine address> .`` in the pack folder, with
   ``PULUMI_PROJECT``, ``PULUMI_STACK``, ``PULUMI_DRY_RUN`` and ``PULUMI_CONFIG`` (the stack config as a
   JSON object of strings) in its environment; it prints the port it serves on.
2. ``Handshake`` (the Python SDK does not implement it), ``ConfigureStack``, ``GetAnalyzerInfo``; then
   reconcile the policy config: each policy's schema defaults, the pack's initial config, then the given
   config (``all`` sets every level), validated against the policies' JSON schemas; then ``Configure``.
3. ``Analyze`` for every registered resource -- the stack, components and providers included (the step
   generator analyzes each RegisterResource goal, with no custom-only filter) -- with its properties
   marshalled keeping unknowns and secrets and skipping internal ``__`` keys, its options and its
   provider. ``Remediate`` runs first only when a policy is configured ``remediate``.
4. ``AnalyzeStack`` once with every resource, its parent, dependencies and property dependencies.

Differences that remain: the CLI analyzes inputs after the provider's ``Check`` (provider defaults
filled in) and ``AnalyzeStack`` sees the preview outputs; offline, both see the inputs as registered.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent import futures
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import jsonschema  # type: ignore[import-untyped]
import yaml
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2, analyzer_pb2_grpc, engine_pb2, engine_pb2_grpc

from gpu_cloud.planner.files import load_json, read_text
from gpu_cloud.planner.model import PlanError, PolicyPackError, RecordedResource, Violation

__all__ = ["PolicyPack", "PolicyPackError", "PolicyReport", "load_policy_config", "run_policy_pack"]

ENFORCEMENT_LEVELS = ("advisory", "mandatory", "remediate", "disabled")
_LEVEL_TO_PROTO = {
    "advisory": analyzer_pb2.ADVISORY,
    "mandatory": analyzer_pb2.MANDATORY,
    "remediate": analyzer_pb2.REMEDIATE,
    "disabled": analyzer_pb2.DISABLED,
}
_LEVEL_FROM_PROTO = {v: k for k, v in _LEVEL_TO_PROTO.items()}
# How long the pack may take to print its port, and to exit once asked to.
_START_TIMEOUT_SECONDS = 60.0
_STOP_TIMEOUT_SECONDS = 5.0
# Analyze requests in flight at once. The Python SDK's server has 4 worker threads; a few more requests
# queued behind them keep its polling thread busy (bench/: 16 beat 4 and 8 by 10-40%, 32 and 64 gained no more).
_IN_FLIGHT = 16
_GRPC_OPTIONS = [("grpc.max_receive_message_length", 400 * 1024 * 1024)]
_SEVERITY = {
    engine_pb2.DEBUG: "debug",
    engine_pb2.INFO: "info",
    engine_pb2.WARNING: "warning",
    engine_pb2.ERROR: "error",
}


@dataclass(frozen=True)
class PolicyReport:
    """What a policy pack reported.

    Attributes:
        violations: Violations sorted by (policy, urn, message); disabled policies never appear.
        messages: Log lines from the pack: to the engine service, then its stderr.
    """

    violations: tuple[Violation, ...]
    messages: tuple[str, ...]


def load_policy_config(path: Path) -> dict[str, Any]:
    """Read a policy pack config file, the format of ``pulumi preview --policy-pack-config FILE``.

    Args:
        path: A JSON object mapping policy names (or ``all``) to an enforcement level string, or to an
            object of config properties with an optional ``enforcementLevel``.

    Returns:
        Policy name -> ``{"enforcementLevel": ..., **properties}`` (the level only when given).

    Raises:
        PlanError: The file cannot be read, is not JSON, or an entry or level is invalid.
    """
    if not read_text(path).strip():
        return {}
    document = load_json(path)
    if not isinstance(document, dict):
        raise PlanError(f"{path}: policy config must be a JSON object of policy names (got {_kind(document)})")
    return _normalize_config(document, str(path))


def _normalize_config(document: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Policy name -> ``{"enforcementLevel"?, **properties}``; a bare level string becomes an object."""
    result: dict[str, Any] = {}
    for name, value in document.items():
        if isinstance(value, str):
            value = {"enforcementLevel": value}
        elif not isinstance(value, Mapping):
            raise PlanError(
                f"{source}: {name}: must be an enforcement level or an object of config (got {_kind(value)})"
            )
        level = value.get("enforcementLevel")
        if "enforcementLevel" in value and level not in ENFORCEMENT_LEVELS:
            raise PlanError(
                f"{source}: {name}.enforcementLevel: must be one of {', '.join(ENFORCEMENT_LEVELS)} "
                f"(got {json.dumps(level)})"
            )
        if value:
            result[name] = dict(value)
    return result


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), f"a {type(value).__name__}"
    )


def run_policy_pack(
    pack_dir: Path,
    resources: Sequence[RecordedResource],
    *,
    project: str,
    stack: str,
    config: Mapping[str, Any] | None = None,
    dry_run: bool = True,
    stack_config: Mapping[str, Any] | None = None,
) -> PolicyReport:
    """Run the policy pack in ``pack_dir`` over ``resources`` as ``pulumi preview --policy-pack`` does.

    Args:
        pack_dir: The policy pack folder (with ``PulumiPolicy.yaml``).
        resources: The recorded resources in registration order, the stack resource first.
        project: The project name (``PULUMI_PROJECT``).
        stack: The stack name (``PULUMI_STACK``).
        config: Policy config as returned by `load_policy_config` (bare level strings are accepted too).
        dry_run: True for a preview (``PULUMI_DRY_RUN``).
        stack_config: The stack's config (``"<namespace>:<key>" -> value``), given to the pack as the CLI
            does (``PULUMI_CONFIG`` and ``ConfigureStack``).

    Returns:
        The violations and the pack's log messages.

    Raises:
        PlanError: The pack folder is not a policy pack, or the config is invalid for its policies.
        PolicyPackError: The pack failed to start or a policy failed.
    """
    with PolicyPack.start(pack_dir, project=project, stack=stack, dry_run=dry_run, stack_config=stack_config) as pack:
        return pack.analyze(resources, config)


class PolicyPack:
    """A policy pack process, started as the Pulumi CLI starts it, that analyzes one plan.

    Starting takes the pack's interpreter a while (imports of pulumi and pulumi-policy): start it first
    and run the program meanwhile, then `analyze` the recorded resources.
    """

    def __init__(
        self, pack_dir: Path, target: _Target, engine: _EngineService, engine_address: str, process: _PackProcess
    ) -> None:
        self._pack_dir = pack_dir
        self._target = target
        self._engine = engine
        self._engine_address = engine_address
        self._process = process

    @classmethod
    @contextmanager
    def start(
        cls,
        pack_dir: Path,
        *,
        project: str,
        stack: str,
        dry_run: bool = True,
        stack_config: Mapping[str, Any] | None = None,
    ) -> Iterator[PolicyPack]:
        """Start the pack in ``pack_dir`` without waiting for it; it is stopped when the block exits.

        Args: as for `run_policy_pack`.

        Raises:
            PlanError: The pack folder is not a policy pack.
        """
        pack_dir = pack_dir.resolve()
        if not (pack_dir / "PulumiPolicy.yaml").is_file():
            raise PlanError(f"{pack_dir}: not a policy pack (no PulumiPolicy.yaml)")
        config_strings = {key: _config_string(value) for key, value in (stack_config or {}).items()}
        target = _Target(project, stack, dry_run, config_strings)
        engine = _EngineService()
        with engine.serving() as engine_address, _pack_process(pack_dir, engine_address, target) as process:
            yield cls(pack_dir, target, engine, engine_address, process)

    def analyze(self, resources: Sequence[RecordedResource], config: Mapping[str, Any] | None = None) -> PolicyReport:
        """Configure the pack, analyze every resource and the stack, then stop the pack.

        Args:
            resources: The recorded resources in registration order, the stack resource first.
            config: Policy config as returned by `load_policy_config` (bare level strings are accepted too).

        Returns:
            The violations and the pack's log messages.

        Raises:
            PlanError: The config is invalid for the pack's policies.
            PolicyPackError: The pack failed to start or a policy failed.
        """
        policy_config = _normalize_config(config or {}, "policy config")
        port = self._process.wait_for_port()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}", options=_GRPC_OPTIONS)
        try:
            grpc.channel_ready_future(channel).result(timeout=_START_TIMEOUT_SECONDS)
            session = _Session(analyzer_pb2_grpc.AnalyzerStub(channel), resources)
            try:
                session.start(self._engine_address, self._pack_dir, self._target, policy_config)
                violations = session.analyze()
            except grpc.RpcError as exc:
                raise PolicyPackError(f"policy pack {self._pack_dir} failed: {_rpc_error(exc)}") from None
        finally:
            channel.close()
            self._process.stop()
        violations.sort(key=lambda v: (v.policy, v.urn, v.message))
        stderr = [line for line in self._process.stderr if line.strip()]
        return PolicyReport(tuple(violations), tuple(self._engine.messages + stderr))


# How a Python gRPC server reports an exception its handler raised (grpc/_server.py).
_HANDLER_EXCEPTION = "Exception calling application: "


def _rpc_error(error: grpc.RpcError) -> str:
    """What failed, from an RPC error: the exception a pack's handler raised (it names the policy in this
    project's pack, `gpucloud_rules.sdk.PolicyFailed`), else the status."""
    details = str(error.details() or error.code())
    return details.removeprefix(_HANDLER_EXCEPTION)


def _last_line(lines: Sequence[str]) -> str:
    """The last non-empty line of a process's stderr: for a Python traceback, the exception itself."""
    return next((line.strip() for line in reversed(lines) if line.strip()), "no output")


def _config_string(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class _Target:
    """What the pack is told about the stack under analysis."""

    project: str
    stack: str
    dry_run: bool
    config: Mapping[str, str]


class _Session:
    """One conversation with a started pack."""

    def __init__(self, stub: Any, resources: Sequence[RecordedResource]) -> None:
        self.stub = stub
        self.resources = resources
        self.by_urn = {r.urn: r for r in resources}
        self.remediate = False
        # Built once, sent twice (Analyze, AnalyzeStack); a provider's once for all of its resources.
        self._properties: dict[str, struct_pb2.Struct] = {}
        self._providers: dict[str, analyzer_pb2.AnalyzerProviderResource | None] = {}

    def start(self, engine_address: str, pack_dir: Path, target: _Target, config: Mapping[str, Any]) -> None:
        _call_optional(
            self.stub.Handshake,
            analyzer_pb2.AnalyzerHandshakeRequest(
                engine_address=engine_address, root_directory=str(pack_dir), program_directory=str(pack_dir)
            ),
        )
        _call_optional(
            self.stub.ConfigureStack,
            analyzer_pb2.AnalyzerStackConfigureRequest(
                stack=target.stack, project=target.project, dry_run=target.dry_run, config=dict(target.config)
            ),
        )
        info = self.stub.GetAnalyzerInfo(empty_pb2.Empty())
        reconciled = _reconcile_config(info, config)
        self.remediate = any(level == "remediate" for level, _ in reconciled.values())
        self.stub.Configure(
            analyzer_pb2.ConfigureAnalyzerRequest(
                policyConfig={
                    name: analyzer_pb2.PolicyConfig(
                        enforcementLevel=_LEVEL_TO_PROTO[level], properties=_struct(properties)
                    )
                    for name, (level, properties) in reconciled.items()
                }
            )
        )

    def analyze(self) -> list[Violation]:
        """``Analyze`` every resource, then ``AnalyzeStack``: every violation reported."""
        return self.analyze_each(self.resources) + self.analyze_stack()

    def analyze_each(self, resources: Sequence[RecordedResource]) -> list[Violation]:
        """``Analyze`` (after ``Remediate`` when a policy remediates) each of ``resources``, in order, with up to
        `_IN_FLIGHT` requests at once."""
        violations: list[Violation] = []
        pending: deque[tuple[RecordedResource, Any]] = deque()
        for resource in resources:
            request = self._analyze_request(resource)
            if self.remediate:
                self._remediate(resource, request, violations)
            pending.append((resource, self.stub.Analyze.future(request)))
            if len(pending) >= _IN_FLIGHT:
                done, future = pending.popleft()
                violations += self._violations(future.result().diagnostics, done.urn)
        for done, future in pending:
            violations += self._violations(future.result().diagnostics, done.urn)
        return violations

    def analyze_stack(self) -> list[Violation]:
        """``AnalyzeStack`` with every resource of the session."""
        response = self.stub.AnalyzeStack(
            analyzer_pb2.AnalyzeStackRequest(resources=[self._stack_resource(r) for r in self.resources])
        )
        return self._violations(response.diagnostics, None)

    def _remediate(self, resource: RecordedResource, request: Any, violations: list[Violation]) -> None:
        for remediation in self.stub.Remediate(request).remediations:
            if remediation.diagnostic:
                violations.append(
                    self._violation(remediation.policyName, "advisory", resource.urn, remediation.diagnostic)
                )
            elif remediation.HasField("properties"):
                request.properties.CopyFrom(remediation.properties)

    def _options(self, resource: RecordedResource) -> analyzer_pb2.AnalyzerResourceOptions:
        return analyzer_pb2.AnalyzerResourceOptions(
            protect=resource.protect,
            ignoreChanges=list(resource.ignore_changes),
            deleteBeforeReplace=resource.delete_before_replace,
            deleteBeforeReplaceDefined=resource.delete_before_replace,
            aliases=list(resource.aliases),
            customTimeouts=analyzer_pb2.AnalyzerResourceOptions.CustomTimeouts(),
            parent=resource.parent,
        )

    def _public_properties(self, resource: RecordedResource) -> struct_pb2.Struct:
        properties = self._properties.get(resource.urn)
        if properties is None:
            properties = self._properties[resource.urn] = _public(resource.properties)
        return properties

    def _provider(self, resource: RecordedResource) -> analyzer_pb2.AnalyzerProviderResource | None:
        if resource.provider not in self._providers:
            provider = self.by_urn.get(resource.provider.rsplit("::", 1)[0]) if resource.provider else None
            self._providers[resource.provider] = (
                None
                if provider is None
                else analyzer_pb2.AnalyzerProviderResource(
                    urn=provider.urn,
                    type=provider.type,
                    name=provider.name,
                    properties=self._public_properties(provider),
                )
            )
        return self._providers[resource.provider]

    def _analyze_request(self, resource: RecordedResource) -> analyzer_pb2.AnalyzeRequest:
        return analyzer_pb2.AnalyzeRequest(
            type=resource.type,
            properties=self._public_properties(resource),
            urn=resource.urn,
            name=resource.name,
            options=self._options(resource),
            provider=self._provider(resource),
        )

    def _stack_resource(self, resource: RecordedResource) -> analyzer_pb2.AnalyzerResource:
        options = self._options(resource)
        options.ClearField("parent")  # the engine sends the parent beside the options here
        return analyzer_pb2.AnalyzerResource(
            type=resource.type,
            properties=self._public_properties(resource),
            urn=resource.urn,
            name=resource.name,
            options=options,
            provider=self._provider(resource),
            parent=resource.parent,
            dependencies=list(resource.dependencies),
            propertyDependencies={
                key: analyzer_pb2.AnalyzerPropertyDependencies(urns=list(urns))
                for key, urns in resource.property_dependencies.items()
                if urns
            },
        )

    def _violations(self, diagnostics: Any, urn: str | None) -> list[Violation]:
        result = []
        for diagnostic in diagnostics:
            level = _LEVEL_FROM_PROTO.get(diagnostic.enforcementLevel, "mandatory")
            if level == "disabled":
                continue
            # Like the engine: Analyze diagnostics belong to the analyzed resource, whatever URN they name.
            result.append(
                self._violation(
                    diagnostic.policyName,
                    "mandatory" if level == "remediate" else level,
                    diagnostic.urn if urn is None else urn,
                    diagnostic.message,
                )
            )
        return result

    def _violation(self, policy: str, level: str, urn: str, message: str) -> Violation:
        resource = self.by_urn.get(urn)
        name = resource.name if resource else (urn.rsplit("::", 1)[-1] if urn else "")
        kind = resource.type if resource else (urn.rsplit("::", 2)[-2].rsplit("$", 1)[-1] if urn else "")
        return Violation(
            policy=policy,
            level="advisory" if level == "advisory" else "mandatory",
            urn=urn,
            name=name,
            type=kind,
            message=message,
        )


def _call_optional(method: Any, request: Any) -> None:
    """Call an RPC the pack may not implement (as the CLI tolerates UNIMPLEMENTED)."""
    try:
        method(request)
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.UNIMPLEMENTED:
            raise


def _reconcile_config(info: Any, given: Mapping[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Policy name -> (level, properties): schema defaults, then initial config, then ``given``; validated.

    Mirrors ``ReconcilePolicyPackConfig`` in pulumi/pulumi ``pkg/resource/analyzer/config.go``.
    """
    schemas: dict[str, dict[str, Any]] = {}
    result: dict[str, tuple[str, dict[str, Any]]] = {}
    for policy in info.policies:
        schema = json_format.MessageToDict(policy.configSchema) if info.supportsConfig else {}
        properties = dict(schema.get("properties", {}))
        properties["enforcementLevel"] = {"type": "string", "enum": list(ENFORCEMENT_LEVELS)}
        schemas[policy.name] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
            **_required(schema),
        }
        defaults = {k: v["default"] for k, v in properties.items() if isinstance(v, dict) and "default" in v}
        result[policy.name] = (_LEVEL_FROM_PROTO[policy.enforcementLevel], defaults)
    initial = {
        name: {
            "enforcementLevel": _LEVEL_FROM_PROTO[c.enforcementLevel],
            **json_format.MessageToDict(c.properties),
        }
        for name, c in info.initialConfig.items()
    }
    for layer in (initial, given):
        _apply_config(result, layer)
    unknown = [f"{name}: not a policy of the pack" for name in given if name != "all" and name not in schemas]
    errors = unknown + [
        f"{name}: {error.json_path.removeprefix('$.').removeprefix('$') or '(root)'}: {error.message}"
        for name, schema in schemas.items()
        for error in jsonschema.Draft7Validator(schema).iter_errors(result[name][1])
    ]
    if errors:
        raise PlanError("policy config is invalid:\n  " + "\n  ".join(sorted(errors)))
    return result


def _required(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {"required": list(schema["required"])} if schema.get("required") else {}


def _apply_config(result: dict[str, tuple[str, dict[str, Any]]], layer: Mapping[str, Any]) -> None:
    every = layer.get("all", {}).get("enforcementLevel")
    if every in ENFORCEMENT_LEVELS:
        for name, (_, properties) in result.items():
            result[name] = (every, properties)
    for name, value in layer.items():
        level, properties = result.get(name, ("advisory", {}))
        given = dict(value)
        level = given.pop("enforcementLevel", level)
        result[name] = (level, {**properties, **given})


def _struct(values: Mapping[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


def _public(properties: struct_pb2.Struct) -> struct_pb2.Struct:
    """The properties without internal ``__`` keys, as the engine marshals them for analyzers."""
    # A key that starts with "__" puts those bytes in the wire form, so their absence (the usual case)
    # proves there is none, at the cost of one serialization in C instead of a walk in Python.
    if b"__" not in properties.SerializeToString() or not _has_internal_keys(properties):
        return properties
    clean = struct_pb2.Struct()
    for key, value in properties.fields.items():
        if not key.startswith("__"):
            clean.fields[key].CopyFrom(_public_value(value))
    return clean


def _public_value(value: struct_pb2.Value) -> struct_pb2.Value:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return struct_pb2.Value(struct_value=_public(value.struct_value))
    if kind == "list_value":
        return struct_pb2.Value(
            list_value=struct_pb2.ListValue(values=[_public_value(v) for v in value.list_value.values])
        )
    return value


def _has_internal_keys(properties: struct_pb2.Struct) -> bool:
    return any(key.startswith("__") or _value_has_internal_keys(v) for key, v in properties.fields.items())


def _value_has_internal_keys(value: struct_pb2.Value) -> bool:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return _has_internal_keys(value.struct_value)
    if kind == "list_value":
        return any(_value_has_internal_keys(v) for v in value.list_value.values)
    return False


class _EngineService(engine_pb2_grpc.EngineServicer):
    """The engine end the pack is given: collects log messages, holds the root resource."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.root_urn = ""
        self._lock = threading.Lock()

    def Log(self, request: engine_pb2.LogRequest, context: Any) -> empty_pb2.Empty:
        severity = _SEVERITY.get(request.severity, "info")
        with self._lock:
            self.messages.append(f"{severity}: {request.urn + ': ' if request.urn else ''}{request.message}")
        return empty_pb2.Empty()

    def GetRootResource(self, request: Any, context: Any) -> engine_pb2.GetRootResourceResponse:
        return engine_pb2.GetRootResourceResponse(urn=self.root_urn)

    def SetRootResource(self, request: Any, context: Any) -> engine_pb2.SetRootResourceResponse:
        self.root_urn = request.urn
        return engine_pb2.SetRootResourceResponse()

    @contextmanager
    def serving(self) -> Iterator[str]:
        """Serve on a free local port; yields the address."""
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), options=_GRPC_OPTIONS)
        engine_pb2_grpc.add_EngineServicer_to_server(self, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        try:
            yield f"127.0.0.1:{port}"
        finally:
            server.stop(0)


class _PackProcess:
    """A started pack process: its port once it prints it, its stderr lines so far."""

    def __init__(self, process: subprocess.Popen[str], pack_dir: Path) -> None:
        self.process = process
        self.pack_dir = pack_dir
        self.stderr: list[str] = []
        self._stdout: list[str] = []
        self._port_line = threading.Event()
        self._readers = [
            threading.Thread(target=_drain, args=(process.stderr, self.stderr, None), daemon=True),
            threading.Thread(target=_drain, args=(process.stdout, self._stdout, self._port_line), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def wait_for_port(self) -> int:
        """The port the pack serves on, once it has printed it.

        Raises:
            PolicyPackError: The pack exited or printed something else first (its stderr is quoted).
        """
        self._port_line.wait(_START_TIMEOUT_SECONDS)
        if not self._stdout or not self._stdout[0].strip().isdigit():
            self.stop()
            raise PolicyPackError(
                f"policy pack {self.pack_dir} did not start (exit status {self.process.poll()}): "
                + _last_line(self.stderr)
            )
        return int(self._stdout[0])

    def stop(self) -> None:
        """Stop the pack (idempotent) and collect the rest of its output."""
        _stop(self.process)
        for reader in self._readers:
            if reader.is_alive():
                reader.join(_STOP_TIMEOUT_SECONDS)


@contextmanager
def _pack_process(pack_dir: Path, engine_address: str, target: _Target) -> Iterator[_PackProcess]:
    """Start the pack as the CLI does, without waiting for it; always stop it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")}
    env.update(
        PULUMI_PROJECT=target.project, PULUMI_STACK=target.stack, PULUMI_DRY_RUN="true" if target.dry_run else "false"
    )
    config = json.dumps(dict(target.config), sort_keys=True) if target.config else ""
    # Linux refuses one environment string longer than MAX_ARG_STRLEN (execve(2)); a larger config goes through
    # stdin into the same variable, set by the pack's interpreter before it runs the entry point.
    piped = len(f"PULUMI_CONFIG={config}".encode()) >= _MAX_ENV_STRING
    if config and not piped:
        env["PULUMI_CONFIG"] = config
    entry = ["-c", _CONFIG_FROM_STDIN] if piped else ["-m", "pulumi.policy"]
    process = subprocess.Popen(
        [_pack_python(pack_dir), "-u", *entry, engine_address, "."],
        cwd=pack_dir,
        env=env,
        stdin=subprocess.PIPE if piped else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if piped:
        threading.Thread(target=_feed, args=(process.stdin, config), daemon=True).start()
    started = _PackProcess(process, pack_dir)
    try:
        yield started
    finally:
        started.stop()


_MAX_ENV_STRING = 32 * 4096
"""MAX_ARG_STRLEN of Linux: the longest single argument or environment string execve(2) accepts (man execve,
"Limits on size of arguments and environment", read 2026-12-02)."""
_CONFIG_FROM_STDIN = (
    "import os, runpy, sys; os.environ['PULUMI_CONFIG'] = sys.stdin.read(); "
    "runpy.run_module('pulumi.policy', run_name='__main__', alter_sys=True)"
)


def _feed(stream: Any, text: str) -> None:
    try:
        with stream:
            stream.write(text)
    except OSError:
        pass  # the pack exited first; its stderr says why


def _pack_python(pack_dir: Path) -> str:
    """The pack's interpreter: that of the virtualenv its PulumiPolicy.yaml declares, once the CLI has made it.

    The Pulumi CLI runs a Python pack with ``<virtualenv>/bin/python`` (the pack's runtime options, as for a
    program); until that virtualenv exists, the plan uses its own interpreter, which has the pack's requirements.
    """
    runtime = (yaml.safe_load((pack_dir / "PulumiPolicy.yaml").read_text(encoding="utf-8")) or {}).get("runtime")
    options = runtime.get("options") if isinstance(runtime, dict) else None
    virtualenv = options.get("virtualenv") if isinstance(options, dict) else None
    python = pack_dir / str(virtualenv) / "bin" / "python"
    return str(python) if virtualenv and python.is_file() else sys.executable


def _drain(stream: Any, lines: list[str], first_line: threading.Event | None) -> None:
    for line in stream:
        lines.append(line.rstrip("\n"))
        if first_line is not None:
            first_line.set()
    if first_line is not None:
        first_line.set()


def _stop(process: subprocess.Popen[str]) -> None:
    """Terminate the pack; kill it if it does not exit quickly."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(_STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
