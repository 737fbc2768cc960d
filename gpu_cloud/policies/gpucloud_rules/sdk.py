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

Speed (`share_decoding`): pulumi-policy's servicer decodes a resource's properties (``MessageToDict``,
``deserialize_properties``, ``unknown_checking_proxy``) and its provider's again for *every* policy,
before any policy can look at the type, and ``AnalyzeStack`` decodes every resource of the stack once per
stack policy. Within one Analyze or AnalyzeStack call the pack decodes each message once and hands every
policy the same (read-only) values; what each policy is given, and so what it reports, is unchanged.

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

import inspect
import json
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

import pulumi
import pulumi_policy.policy as sdk_policy
from pulumi_policy import (
    EnforcementLevel,
    Policy,
    PolicyConfigSchema,
    PolicyProviderResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import serialize_properties
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


def to_policy(rule: ResourceRule | StackRule) -> Policy:
    """The pulumi-policy `Policy` that evaluates ``rule``."""
    schema = PolicyConfigSchema(properties={k: dict(v) for k, v in config_schema(rule).items()})
    level = EnforcementLevel(rule.level)
    if isinstance(rule, ResourceRule):
        return ResourceValidationPolicy(
            name=rule.name,
            description=rule.description,
            validate=_resource_validation(rule),
            enforcement_level=level,
            config_schema=schema,
        )
    return StackValidationPolicy(
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


def _shared(value: _V, build: Callable[[_V], _T], kind: object = None) -> _T:
    """``build(value)``, computed once per Analyze/AnalyzeStack call for the same ``value`` object.

    ``kind`` (default: ``build`` itself) tells apart what is built from the same value. The entry keeps
    ``value`` alive, so its ``id`` cannot be reused within the call. Outside a call (and so wherever
    `share_decoding` is not installed) it simply builds.
    """
    memo: dict[tuple[int, int], tuple[Any, Any]] | None = getattr(_call, "memo", None)
    if memo is None:
        return build(value)
    key = (id(build if kind is None else kind), id(value))
    entry = memo.get(key)
    if entry is None or entry[0] is not value:
        entry = memo[key] = (value, build(value))
    result: _T = entry[1]
    return result


def _once_per_call(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, decoding each value once per call when it is given that one argument only."""

    def decode(value: Any, *rest: Any, **options: Any) -> Any:
        if rest or options:
            return function(value, *rest, **options)
        return _shared(value, function)

    return decode


def _once_per_request_part(method: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A servicer method of one request (or one resource of it), computed once per call for all policies."""

    def read(self: Any, part: Any) -> Any:
        return _shared(part, partial(method, self), kind=method)

    return read


def _within_call(method: Callable[..., Any]) -> Callable[..., Any]:
    def handle(self: Any, request: Any, context: Any) -> Any:
        _call.memo = {}
        try:
            return method(self, request, context)
        finally:
            _call.memo = None

    return handle


_DECODERS = ("deserialize_properties", "unknown_checking_proxy")
"""The functions of ``pulumi_policy.policy`` that decode a value its servicer read with ``MessageToDict``."""
_READERS = ("_get_resource_options", "_get_provider_resource")
"""The servicer's methods that read a resource's options and provider, once per policy."""


def share_decoding() -> bool:
    """Make the pack decode each resource once per Analyze/AnalyzeStack call instead of once per policy.

    Call it before constructing the `PolicyPack`. It replaces, in ``pulumi_policy.policy`` only, the three
    decoding functions its servicer calls with ones that reuse a value decoded earlier in the same call,
    and the servicer class with a subclass that scopes that reuse to each call. If that module is not laid
    out as expected (another pulumi-policy version), nothing changes: same results, at the SDK's speed.

    Returns:
        Whether it was installed.
    """
    servicer = getattr(sdk_policy, "_PolicyAnalyzerServicer", None)
    if servicer is None or not all(hasattr(sdk_policy, name) for name in ("json_format", *_DECODERS)):
        return False
    if not all(hasattr(servicer, name) for name in ("Analyze", "AnalyzeStack", *_READERS)):
        return False
    if getattr(servicer, "_decodes_once", False):
        return True
    json_format = sdk_policy.json_format  # type: ignore[attr-defined]
    shim = types.ModuleType(json_format.__name__)
    shim.__dict__.update(vars(json_format), MessageToDict=_once_per_call(json_format.MessageToDict))
    replacements = {
        "json_format": shim,
        **{name: _once_per_call(getattr(sdk_policy, name)) for name in _DECODERS},
        "_PolicyAnalyzerServicer": type(
            servicer.__name__,
            (servicer,),
            {
                "_decodes_once": True,
                "Analyze": _within_call(servicer.Analyze),
                "AnalyzeStack": _within_call(servicer.AnalyzeStack),
                **{name: _once_per_request_part(getattr(servicer, name)) for name in _READERS},
            },
        ),
    }
    for name, value in replacements.items():
        setattr(sdk_policy, name, value)
    return True
