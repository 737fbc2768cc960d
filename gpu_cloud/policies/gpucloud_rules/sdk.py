"""The one place rules meet pulumi-policy: wrap `ResourceRule`/`StackRule` as SDK policies.

Responsibilities, in order, for every evaluation:

1. apply the config schema defaults (the SDK passes only what the engine sent);
2. hand the rule plain wire values (the SDK's unknown-checking proxies unwrapped), so a rule itself
   decides which unknowns matter and says "could not decide" for those -- reported at the policy's
   level with the resource's URN, never the SDK's URN-less advisory note;
3. run the rule through the guard of ``rule`` (`run_resource_rule`, `run_stack_rule`): a check that
   raises is that resource's "could not decide" violation;
4. report findings: at the policy's level, or as an advisory note when the URN is exempted (the note
   carries the reason) or the rule marks the finding advisory.

Speed (`share_decoding`): for every call pulumi-policy's servicer configures the runtime from the
environment, then for *every* policy decodes the resource's properties, options and provider again
(``MessageToDict``, ``deserialize_properties``, ``unknown_checking_proxy``) before the policy can look at
the type; ``AnalyzeStack`` rebuilds every resource of the stack once per stack policy. The pack's servicer
configures once per environment, decodes once per call, builds the stack once per call and calls a
resource policy only for the types its rule checks; what each policy is given and reports is the SDK's
(tests/policies/test_servicer.py compares every response with the SDK's servicer).

Should this adapter itself fail (a bug, or an SDK that changed), it raises `PolicyFailed` naming the
policy, so the engine (or ``gpucloud plan``, exit status 2) says which policy failed and why.

Advisory notes from a mandatory policy: the SDK's ``report_violation`` is bound to the policy's level,
and the engine honours the level of each diagnostic it receives. So the note is reported through the
SDK's own reporter factory, asked for the advisory level, for the same response (`_advisory_reporter`).
That reaches into pulumi-policy's servicer (pinned by requirements.txt and covered by the tests); if it
is ever unavailable the note is written with ``pulumi.log.warn`` instead (stderr under the CLI), so an
exemption still never blocks.
"""

from __future__ import annotations

import contextvars
import inspect
import json
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from typing import Any, TypeVar

import pulumi
import pulumi_policy.policy as sdk_policy
from pulumi.runtime.proto import analyzer_pb2
from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyProviderResource,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import deserialize_properties, serialize_properties
from pulumi_policy.proxy import unknown_checking_proxy

from .rule import (
    Finding,
    ResourceRule,
    StackResource,
    StackRule,
    config_schema,
    effective_config,
    exemption_reasons,
    run_resource_rule,
    run_stack_rule,
)

__all__ = ["PolicyFailed", "share_decoding", "to_policy"]


class PolicyFailed(RuntimeError):
    """The adapter failed while evaluating a policy: the message names the policy and the error."""


@contextmanager
def _failing_as(name: str) -> Iterator[None]:
    try:
        yield
    except Exception as error:
        raise PolicyFailed(f"policy {name} failed: {type(error).__name__}: {error}") from error


class _RulePolicy(ResourceValidationPolicy):
    """A resource rule's policy; it knows the types it checks, so the servicer calls it for those only."""

    def __init__(self, rule: ResourceRule, **policy: Any) -> None:
        super().__init__(validate=_resource_validation(rule), **policy)
        self.resource_types = rule.resource_types


class _RuleStackPolicy(StackValidationPolicy):
    """A stack rule's policy (synchronous, never raising the SDK's unknown or not-applicable errors)."""


def to_policy(rule: ResourceRule | StackRule) -> Policy:
    """The pulumi-policy `Policy` that evaluates ``rule``."""
    schema = PolicyConfigSchema(properties={k: dict(v) for k, v in config_schema(rule).items()})
    level = EnforcementLevel(rule.level)
    if isinstance(rule, ResourceRule):
        return _RulePolicy(
            rule,
            name=rule.name,
            description=rule.description,
            enforcement_level=level,
            config_schema=schema,
        )
    return _RuleStackPolicy(
        name=rule.name,
        description=rule.description,
        validate=_stack_validation(rule),
        enforcement_level=level,
        config_schema=schema,
    )


def _resource_validation(rule: ResourceRule) -> Any:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type not in rule.resource_types:
            return
        with _failing_as(rule.name):
            config = effective_config(rule, args.get_config())
            provider = _provider_props(args.resource_type, args.provider)
            messages = run_resource_rule(rule, args.resource_type, _plain(args.props), config, provider)
            _report([Finding(args.urn, message) for message in messages], config, report_violation)

    return validate


def _stack_validation(rule: StackRule) -> Any:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        with _failing_as(rule.name):
            _validate_stack(rule, args, report_violation)

    return validate


def _validate_stack(rule: StackRule, args: StackValidationArgs, report_violation: ReportViolation) -> None:
    config = effective_config(rule, args.get_config())
    resources = [
        StackResource(
            urn=r.urn,
            type=r.resource_type,
            props=_plain(r.props),
            protect=bool(r.opts.protect),
            property_dependencies={
                key: tuple(dep.urn for dep in deps) for key, deps in r.property_dependencies.items()
            },
            provider=_provider_props(r.resource_type, r.provider),
        )
        for r in args.resources
        if r.resource_type in rule.resource_types
    ]
    _report(run_stack_rule(rule, resources, config, pulumi.get_stack() or ""), config, report_violation)


def _report(findings: list[Finding], config: Mapping[str, Any], report_violation: ReportViolation) -> None:
    exempt = exemption_reasons(config)
    advisory: ReportViolation | None = None
    for finding in findings:
        reason = exempt.get(finding.urn)
        if reason is None and not finding.advisory:
            report_violation(finding.message, finding.urn)
            continue
        message = finding.message if reason is None else f"exempted ({reason}): {finding.message}"
        advisory = advisory or _advisory_reporter(report_violation)
        advisory(message, finding.urn)


def _advisory_reporter(report_violation: ReportViolation) -> ReportViolation:
    """The SDK's reporter for the same policy and response, at the advisory level."""
    bound = inspect.getclosurevars(report_violation).nonlocals
    try:
        factory = bound["self"]._create_report_violation
        reporter: ReportViolation = factory(
            bound["response"],
            bound["policy_name"],
            bound["policy_description"],
            EnforcementLevel.ADVISORY,
            bound.get("severity"),
        )
    except (KeyError, AttributeError, TypeError):
        return _warn
    return reporter


def _warn(message: str, urn: str | None = None) -> None:
    pulumi.log.warn(f"advisory: {urn or ''}: {message}")


def _plain(props: Mapping[str, Any]) -> dict[str, Any]:
    """Props as plain wire values: the SDK's unknown-checking proxies unwrapped, unknowns kept (once per
    call for every policy that reads the same props; rules only read them)."""
    return _shared(props, _unwrapped)


def _unwrapped(props: Mapping[str, Any]) -> dict[str, Any]:
    return dict(_unwrap(props))


_PROXIES = (type(unknown_checking_proxy({})), type(unknown_checking_proxy([])))  # type: ignore[arg-type]
"""The SDK's proxy types; ``proxy["__target"]`` is what each wraps (as ``serialize_properties`` unwraps)."""
_SCALARS = (str, bool, int, float, type(None))


def _unwrap(value: Any) -> Any:
    # The fast path of ``serialize_properties`` for what Analyze hands a policy (proxies around plain
    # JSON values): it runs for every checked resource. Anything else (assets, archives) goes to the SDK.
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind in _PROXIES:
        value = value["__target"]
        kind = type(value)
    if kind is dict:
        return {key: _unwrap(item) for key, item in value.items()}
    if kind is list:
        return [_unwrap(item) for item in value]
    return serialize_properties(value)


# The settings of a default provider that rules read (required-tags, gpu-cost-guard), from stack config.
_DEFAULT_PROVIDER_SETTINGS = ("defaultTags", "region")


def _provider_props(resource_type: str, provider: PolicyProviderResource | None) -> dict[str, Any]:
    """The inputs of a resource's provider; for a default provider, its settings from stack config."""
    if provider is not None:
        return _shared(provider.props, _provider_inputs)
    package = sys.intern(resource_type.split(":", 1)[0])  # one object per package: shared by identity
    return _shared(package, _default_provider_settings)


def _provider_inputs(props: Mapping[str, Any]) -> dict[str, Any]:
    return _decoded_objects(_unwrapped(props))


def _default_provider_settings(package: str) -> dict[str, Any]:
    config = pulumi.Config(package)
    return _decoded_objects({key: config.get(key) for key in _DEFAULT_PROVIDER_SETTINGS})


def _decoded_objects(props: Mapping[str, Any]) -> dict[str, Any]:
    # Provider inputs that are objects may travel as JSON strings (provider config is stringly typed).
    return {key: _json_object(value) for key, value in props.items() if value is not None}


def _json_object(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


_V = TypeVar("_V")
_T = TypeVar("_T")
_call = threading.local()
"""Per servicer thread: ``memo``, the values decoded during the current Analyze or AnalyzeStack call."""


def _shared(value: _V, build: Callable[[_V], _T]) -> _T:
    """``build(value)``, computed once per Analyze/AnalyzeStack call for the same ``value`` object.

    The entry keeps ``value`` alive, so its ``id`` cannot be reused within the call. Outside a call (and so wherever
    `share_decoding` is not installed) it simply builds.
    """
    memo: dict[tuple[int, int], tuple[Any, Any]] | None = getattr(_call, "memo", None)
    if memo is None:
        return build(value)
    key = (id(build), id(value))
    entry = memo.get(key)
    if entry is None or entry[0] is not value:
        entry = memo[key] = (value, build(value))
    result: _T = entry[1]
    return result


def _within_call(method: Callable[..., Any]) -> Callable[..., Any]:
    def handle(self: Any, request: Any, context: Any) -> Any:
        _call.memo = {}
        try:
            return self._configured_context().run(method, self, request, context)
        finally:
            _call.memo = None

    return handle


_RUNTIME_ENVIRONMENT = ("PULUMI_CONFIG", "PULUMI_PROJECT", "PULUMI_STACK", "PULUMI_DRY_RUN", "PULUMI_ORGANIZATION")
"""What the SDK's ``_configure_runtime_settings`` reads (besides the signature of ``pulumi.runtime.Settings``)."""
_CONFIGURED_FOR: contextvars.ContextVar[tuple[str | None, ...] | None] = contextvars.ContextVar(
    "gpucloud_configured_for", default=None
)
_STATE = ("_PolicyAnalyzerServicer__policies", "_PolicyAnalyzerServicer__stack_tags")
"""The servicer's private attributes the calls read: the policies in order, the stack's tags."""


class _StackResource(PolicyResource):
    """A resource of an AnalyzeStack call as the SDK builds it, but its properties and provider are decoded
    when first read: each stack rule reads those of its own types only."""

    def __init__(self, message: Any, servicer: Any) -> None:  # the attributes PolicyResource sets
        self.resource_type, self.urn, self.name = message.type, message.urn, message.name
        self.opts = servicer._get_resource_options(message)
        self.parent: PolicyResource | None = None
        self.dependencies: list[PolicyResource] = []
        self.property_dependencies: dict[str, list[PolicyResource]] = {}
        self._message = message
        self._servicer = servicer

    @cached_property
    def props(self) -> Mapping[str, Any]:  # type: ignore[override]
        decoded: Mapping[str, Any] = self._servicer._decoded(self._message.properties)
        return decoded

    @cached_property
    def provider(self) -> PolicyProviderResource | None:  # type: ignore[override]
        provider: PolicyProviderResource | None = self._servicer._get_provider_resource(self._message)
        return provider


def _serve_calls_once(base: type[Any]) -> type[Any]:
    """``base`` (the SDK's servicer) with Analyze and AnalyzeStack doing each call's shared work once.

    The SDK does, for every call, then for every policy: configure the runtime from the environment
    (``inspect.signature`` included), decode the properties, options and provider, and in AnalyzeStack
    build every resource of the stack with its links. Here the runtime is configured once per environment
    (each gRPC call runs in a fresh ``contextvars.Context``, so each call runs in a copy of one configured
    context), each call decodes once for all policies, AnalyzeStack builds the stack's resources once, and
    Analyze runs only the policies whose rule checks the resource's type (the others return without
    reporting anything). What each policy is given and reports, and its enforcement level, are the SDK's.
    """

    class Servicer(base):  # type: ignore[misc]
        _decodes_once = True

        def _configure_runtime_settings(self) -> None:
            key = tuple(os.environ.get(name) for name in _RUNTIME_ENVIRONMENT)
            if _CONFIGURED_FOR.get() != key:
                super()._configure_runtime_settings()
                _CONFIGURED_FOR.set(key)

        def _configured_context(self) -> contextvars.Context:
            key = tuple(os.environ.get(name) for name in _RUNTIME_ENVIRONMENT)
            contexts: dict[tuple[str | None, ...], contextvars.Context] = self.__dict__.setdefault("_contexts", {})
            configured = contexts.get(key)
            if configured is None:
                configured = contexts[key] = contextvars.Context()
                configured.run(self._configure_runtime_settings)
            return configured.copy()

        def Configure(self, request: Any, context: Any) -> Any:
            self.__dict__.pop("_chosen_policies", None)  # the levels may change: choose again on the next call
            return super().Configure(request, context)

        def _chosen(self, kind: type, resource_type: str | None = None) -> list[Any]:
            """`_policies` of ``kind`` (that check ``resource_type``, if given), chosen once per configuration."""
            chosen: dict[tuple[type, str | None], list[Any]] = self.__dict__.setdefault("_chosen_policies", {})
            key = (kind, resource_type)
            if key not in chosen:
                chosen[key] = [
                    (policy, level)
                    for policy, level in self._policies(kind)
                    if resource_type is None or resource_type in policy.resource_types
                ]
            return chosen[key]

        def _policies(self, kind: type) -> list[Any]:
            """The policies of ``kind`` to run, in the pack's order, each with its enforcement level."""
            chosen = []
            for policy in getattr(self, _STATE[0]):
                level = self._get_enforcement_level(policy)
                if level != EnforcementLevel.DISABLED and isinstance(policy, kind):
                    # As the SDK: a policy configured "remediate" that still finds a violation reports it mandatory.
                    chosen.append(
                        (policy, EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level)
                    )
            return chosen

        def _run(self, policy: Any, level: EnforcementLevel, args: Any, response: Any) -> None:
            # A rule's validation is synchronous and raises neither UnknownValueError (it reads unwrapped
            # props) nor the not-applicable error, so the SDK's handling of those is not needed here.
            policy.validate(
                args, self._create_report_violation(response, policy.name, policy.description, level, policy.severity)
            )

        @cached_property
        def _rules_only(self) -> bool:
            """Whether every policy is a rule's (`to_policy`); a pack with others is served as the SDK serves."""
            return all(isinstance(policy, _RulePolicy | _RuleStackPolicy) for policy in getattr(self, _STATE[0]))

        def Analyze(self, request: Any, context: Any) -> Any:
            if not self._rules_only:
                return super().Analyze(request, context)
            response = analyzer_pb2.AnalyzeResponse()
            chosen = self._chosen(ResourceValidationPolicy, request.type)
            if not chosen:
                return response
            props = self._decoded(request.properties)
            options = self._get_resource_options(request)
            provider = self._get_provider_resource(request)
            tags = getattr(self, _STATE[1])
            for policy, level in chosen:
                config = self._get_policy_config(policy.name)
                args = ResourceValidationArgs(
                    request.type, props, request.urn, request.name, options, provider, config, tags
                )
                self._run(policy, level, args, response)
            return response

        def AnalyzeStack(self, request: Any, context: Any) -> Any:
            if not self._rules_only:
                return super().AnalyzeStack(request, context)
            response = analyzer_pb2.AnalyzeResponse()
            chosen = self._chosen(StackValidationPolicy)
            if not chosen:
                return response
            resources = self._stack_resources(request)
            tags = getattr(self, _STATE[1])
            for policy, level in chosen:
                args = StackValidationArgs(resources, self._get_policy_config(policy.name), tags)
                self._run(policy, level, args, response)
            return response

        def _decoded(self, properties: Any) -> Any:
            """Properties as the SDK hands them to a policy."""
            return unknown_checking_proxy(deserialize_properties(_struct_json(properties)))

        def _stack_resources(self, request: Any) -> list[PolicyResource]:
            """The stack's resources as the SDK builds them for each stack policy, with parents and dependencies."""
            by_urn: dict[str, PolicyResource] = {}
            links = []
            for r in request.resources:
                resource = _StackResource(r, self)
                by_urn[resource.urn] = resource
                links.append((resource, r))
            for resource, r in links:
                if r.parent in by_urn:
                    resource.parent = by_urn[r.parent]
                resource.dependencies = [by_urn[d] for d in r.dependencies if d in by_urn]
                resource.property_dependencies = {
                    key: [by_urn[d] for d in deps.urns if d in by_urn] for key, deps in r.propertyDependencies.items()
                }
            return [resource for resource, _ in links]

    Servicer.Analyze = _within_call(Servicer.Analyze)  # type: ignore[method-assign]
    Servicer.AnalyzeStack = _within_call(Servicer.AnalyzeStack)  # type: ignore[method-assign]
    Servicer.__name__ = Servicer.__qualname__ = base.__name__
    return Servicer


def _struct_json(struct: Any) -> dict[str, Any]:
    """``json_format.MessageToDict`` of a ``google.protobuf.Struct``, as the SDK decodes properties, in one pass.

    What json_format does for a Struct (protobuf 5.29 ``_StructMessageToJsonObject``, ``_ValueMessageToJsonObject``,
    ``_FieldToJsonObject``): each field in the map's order; null or unset -> None; a number -> the double itself
    (infinity and NaN refused); a string, a bool as is; a struct or list recursively.
    """
    return {key: _value_json(value) for key, value in struct.fields.items()}


def _value_json(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "struct_value":
        return _struct_json(value.struct_value)
    if kind == "list_value":
        return [_value_json(item) for item in value.list_value.values]
    if kind == "number_value":
        number = value.number_value
        if math.isinf(number) or math.isnan(number):
            raise ValueError(f"Fail to serialize {number} for Value.number_value, which would parse as string_value")
        return number
    if kind == "bool_value":
        return value.bool_value
    return None


def share_decoding() -> bool:
    """Make the pack do each Analyze/AnalyzeStack call's shared work once instead of once per policy.

    Call it before constructing the `PolicyPack`: it replaces ``pulumi_policy.policy``'s servicer class with
    `_serve_calls_once` of it. If that module is not laid out as expected (another pulumi-policy version),
    nothing changes: same results, at the SDK's speed.

    Returns:
        Whether it was installed.
    """
    servicer = getattr(sdk_policy, "_PolicyAnalyzerServicer", None)
    if servicer is None or not hasattr(sdk_policy, "json_format") or getattr(servicer, "_decodes_once", False):
        return servicer is not None and hasattr(sdk_policy, "json_format")
    methods = ("_configure_runtime_settings", "_get_enforcement_level", "_create_report_violation")
    readers = ("_get_resource_options", "_get_provider_resource", "_get_policy_config")
    annotations = getattr(servicer, "__annotations__", {})
    if not all(hasattr(servicer, name) for name in (*methods, *readers)) or not all(a in annotations for a in _STATE):
        return False
    sdk_policy._PolicyAnalyzerServicer = _serve_calls_once(servicer)  # type: ignore[misc]
    return True
