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
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pulumi
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

__all__ = ["PolicyFailed", "to_policy"]


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
    """Props as plain wire values: the SDK's unknown-checking proxies unwrapped, unknowns kept."""
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
        props = _plain(provider.props)
    else:
        config = pulumi.Config(resource_type.split(":", 1)[0])
        props = {key: config.get(key) for key in _DEFAULT_PROVIDER_SETTINGS}
    # Provider inputs that are objects may travel as JSON strings (provider config is stringly typed).
    return {key: _json_object(value) for key, value in props.items() if value is not None}


def _json_object(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
