"""Resource transforms applied as the Pulumi engine applies them, before a resource is registered.

A program's ``ResourceOptions(transforms=[...])`` and ``pulumi.runtime.register_resource_transform`` (or the
deprecated ``register_stack_transform``) do not run in the program: the SDK serves each transform on its
callbacks server and sends a reference to it, in ``RegisterResourceRequest.transforms`` or in a
``RegisterStackTransform`` call, and the engine invokes it over gRPC before it registers the resource. This
module is that engine part, following the Pulumi engine's resource monitor (pkg/resource/deploy/source_eval.go,
``RegisterResource``, ``wrapTransformCallback``, ``upgradeOutputValues``, ``downgradeOutputValues``;
https://github.com/pulumi/pulumi, read 2026-12-02):

- the transforms run in order: the resource's own, then each ancestor's own (parent first), then the stack's
  in the order they were registered; each gets the properties and options the previous one returned;
- a ``TransformRequest`` carries the type, name, custom flag, parent, the properties (secrets and unknowns as
  output values; when the resource has transforms of its own, each property's dependencies too) and the
  ``TransformResourceOptions``; a response field that is absent leaves that part unchanged;
- afterwards output values are downgraded again to secrets, unknowns or plain values; when the resource had
  transforms of its own, its dependencies are re-read from the options' ``dependsOn`` and the properties'
  output values.

Invoke transforms (``register_invoke_transform``) are not applied here: the engine (gpucloud.engine) fails
the plan of a program that registers one, naming it, rather than planning it without.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc
from google.protobuf import struct_pb2
from pulumi.runtime import rpc
from pulumi.runtime.proto import alias_pb2, callback_pb2, callback_pb2_grpc, resource_pb2

from gpu_cloud.planner.model import PlanError

__all__ = ["StackTransforms"]

_SIG = rpc._special_sig_key
_SECRET_SIG = rpc._special_secret_sig
_OUTPUT_SIG = rpc._special_output_value_sig
_UNKNOWN = rpc.UNKNOWN


class StackTransforms:
    """The transforms of one program run: the stack's, and each registered resource's own."""

    def __init__(self) -> None:
        self._stack: list[callback_pb2.Callback] = []
        self._own: dict[str, tuple[callback_pb2.Callback, ...]] = {}
        self._parents: dict[str, str] = {}
        self._channels: dict[str, grpc.Channel] = {}

    def register_stack_transform(self, callback: callback_pb2.Callback) -> None:
        """A ``RegisterStackTransform`` call: the transform applies to every resource registered after it."""
        self._stack.append(callback)

    def apply(self, request: Any, urn: str) -> Any:
        """The ``RegisterResourceRequest`` after every transform that applies to it, in the engine's order."""
        own = tuple(request.transforms)
        self._own[urn] = own
        self._parents[urn] = request.parent
        chain = list(own)
        ancestor = request.parent
        while ancestor:
            chain += self._own.get(ancestor, ())
            ancestor = self._parents.get(ancestor, "")
        chain += self._stack
        if not chain:
            return request
        properties = _upgraded(request, with_dependencies=bool(own))
        options = _options(request)
        for callback in chain:
            properties, options = self._invoke(callback, request, properties, options)
        return _transformed(request, properties, options, reread_dependencies=bool(own))

    def close(self) -> None:
        """Close the connections to the program's callbacks server."""
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()

    def _invoke(
        self,
        callback: callback_pb2.Callback,
        request: Any,
        properties: struct_pb2.Struct,
        options: resource_pb2.TransformResourceOptions,
    ) -> tuple[struct_pb2.Struct, resource_pb2.TransformResourceOptions]:
        channel = self._channels.get(callback.target)
        if channel is None:
            channel = self._channels[callback.target] = grpc.insecure_channel(callback.target)
        transform_request = resource_pb2.TransformRequest(
            type=request.type,
            name=request.name,
            custom=request.custom,
            parent=request.parent,
            properties=properties,
            options=options,
        )
        try:
            answer = callback_pb2_grpc.CallbacksStub(channel).Invoke(
                callback_pb2.CallbackInvokeRequest(token=callback.token, request=transform_request.SerializeToString())
            )
        except grpc.RpcError as err:  # the transform raised: the registration fails, as under the engine
            details = str(err.details()).removeprefix(f"Invoke callback {callback.token} error: ")
            raise PlanError(f"a transform of {request.type} {request.name!r} failed: {details}") from None
        response = resource_pb2.TransformResponse.FromString(answer.response)
        return (
            response.properties if response.HasField("properties") else properties,
            response.options if response.HasField("options") else options,
        )


def _options(request: Any) -> resource_pb2.TransformResourceOptions:
    """The options a transform sees, built from the request as the engine builds them."""
    options = resource_pb2.TransformResourceOptions(
        depends_on=list(request.dependencies),
        ignore_changes=list(request.ignoreChanges),
        replace_on_changes=list(request.replaceOnChanges),
        version=request.version,
        aliases=[alias_pb2.Alias(urn=u) for u in request.aliasURNs] + list(request.aliases),
        provider=request.provider,
        providers=dict(request.providers),
        plugin_download_url=request.pluginDownloadURL,
        deleted_with=request.deletedWith,
        additional_secret_outputs=list(request.additionalSecretOutputs),
        plugin_checksums=dict(request.pluginChecksums),
    )
    if request.HasField("protect"):
        options.protect = request.protect
    if request.HasField("retainOnDelete"):
        options.retain_on_delete = request.retainOnDelete
    if request.HasField("customTimeouts"):
        options.custom_timeouts.CopyFrom(request.customTimeouts)
    if request.deleteBeforeReplaceDefined or request.deleteBeforeReplace:
        options.delete_before_replace = request.deleteBeforeReplace
    return options


def _transformed(
    request: Any,
    properties: struct_pb2.Struct,
    options: resource_pb2.TransformResourceOptions,
    *,
    reread_dependencies: bool,
) -> Any:
    """A copy of ``request`` with the transformed properties and options."""
    result = type(request)()
    result.CopyFrom(request)
    plain = struct_pb2.Struct()
    dependencies: dict[str, set[str]] = {}
    for key, value in properties.fields.items():
        dependencies[key] = set()
        plain.fields[key].CopyFrom(_downgraded(value, dependencies[key]))
    result.object.CopyFrom(plain)
    if reread_dependencies:
        result.ClearField("dependencies")
        result.dependencies.extend(sorted(set(options.depends_on).union(*dependencies.values())))
        result.ClearField("propertyDependencies")
        for key, urns in dependencies.items():
            result.propertyDependencies[key].urns.extend(sorted(urns))
    _set_list(result.ignoreChanges, options.ignore_changes)
    _set_list(result.replaceOnChanges, options.replace_on_changes)
    _set_list(result.additionalSecretOutputs, options.additional_secret_outputs)
    result.ClearField("aliasURNs")
    result.ClearField("aliases")
    result.aliases.extend(options.aliases)
    result.provider = options.provider
    result.ClearField("providers")
    result.providers.update(options.providers)
    result.deletedWith = options.deleted_with
    result.version = options.version
    result.ClearField("protect")
    if options.HasField("protect"):
        result.protect = options.protect
    result.ClearField("retainOnDelete")
    if options.HasField("retain_on_delete"):
        result.retainOnDelete = options.retain_on_delete
    result.deleteBeforeReplace = options.delete_before_replace
    result.deleteBeforeReplaceDefined = options.HasField("delete_before_replace")
    return result


def _set_list(target: Any, values: Iterable[str]) -> None:
    del target[:]
    target.extend(values)


def _upgraded(request: Any, *, with_dependencies: bool) -> struct_pb2.Struct:
    """The request's properties with secrets and unknowns as output values, and (if asked) their dependencies."""
    if not request.propertyDependencies:
        per_key = {key: set(request.dependencies) for key in request.object.fields}
    else:
        per_key = {key: set(deps.urns) for key, deps in request.propertyDependencies.items()}
    properties = struct_pb2.Struct()
    for key, value in request.object.fields.items():
        upgraded = _as_output_values(value)
        deps = per_key.get(key, set()) if with_dependencies else set()
        if not deps <= _output_dependencies(upgraded):
            upgraded = _with_dependencies(upgraded, deps)
        properties.fields[key].CopyFrom(upgraded)
    return properties


def _signature(value: struct_pb2.Value) -> str:
    if value.WhichOneof("kind") != "struct_value":
        return ""
    sig = value.struct_value.fields.get(_SIG)
    return sig.string_value if sig is not None else ""


def _output(inner: struct_pb2.Value | None, *, secret: bool = False, deps: Iterable[str] = ()) -> struct_pb2.Value:
    output: dict[str, Any] = {_SIG: _OUTPUT_SIG}
    if secret:
        output["secret"] = True
    if deps:
        output["dependencies"] = sorted(deps)
    value = struct_pb2.Value()
    value.struct_value.update(output)
    if inner is not None:
        value.struct_value.fields["value"].CopyFrom(inner)
    return value


def _as_output_values(value: struct_pb2.Value) -> struct_pb2.Value:
    """Secrets and unknowns, at any depth, as output values (the engine's UpgradeToOutputValues)."""
    kind = value.WhichOneof("kind")
    if kind == "string_value" and value.string_value == _UNKNOWN:
        return _output(None)
    sig = _signature(value)
    if sig == _SECRET_SIG:
        inner = _as_output_values(value.struct_value.fields["value"])
        if _signature(inner) == _OUTPUT_SIG:
            inner.struct_value.fields["secret"].bool_value = True
            return inner
        return _output(inner, secret=True)
    if sig:
        return value  # an output value already, a resource reference, an asset or an archive
    result = struct_pb2.Value()
    result.CopyFrom(value)
    if kind == "struct_value":
        for key, item in value.struct_value.fields.items():
            result.struct_value.fields[key].CopyFrom(_as_output_values(item))
    elif kind == "list_value":
        for i, item in enumerate(value.list_value.values):
            result.list_value.values[i].CopyFrom(_as_output_values(item))
    return result


def _output_dependencies(value: struct_pb2.Value) -> set[str]:
    deps: set[str] = set()
    _downgraded(value, deps)
    return deps


def _with_dependencies(value: struct_pb2.Value, deps: set[str]) -> struct_pb2.Value:
    if _signature(value) != _OUTPUT_SIG:
        return _output(value, deps=deps)
    fields = value.struct_value.fields
    merged = (
        deps | {d.string_value for d in fields["dependencies"].list_value.values} if "dependencies" in fields else deps
    )
    inner = fields.get("value")
    return _output(inner, secret="secret" in fields and fields["secret"].bool_value, deps=merged)


def _downgraded(value: struct_pb2.Value, deps: set[str]) -> struct_pb2.Value:
    """Output values, at any depth, as secrets, unknowns or plain values; their dependencies go to ``deps``."""
    sig = _signature(value)
    kind = value.WhichOneof("kind")
    if sig == _OUTPUT_SIG:
        fields = value.struct_value.fields
        if "dependencies" in fields:
            deps.update(d.string_value for d in fields["dependencies"].list_value.values)
        plain = _downgraded(fields["value"], deps) if "value" in fields else struct_pb2.Value(string_value=_UNKNOWN)
        if "secret" in fields and fields["secret"].bool_value:
            secret = struct_pb2.Value()
            secret.struct_value.update({_SIG: _SECRET_SIG})
            secret.struct_value.fields["value"].CopyFrom(plain)
            return secret
        return plain
    result = struct_pb2.Value()
    result.CopyFrom(value)
    if kind == "struct_value":
        for key, item in value.struct_value.fields.items():
            result.struct_value.fields[key].CopyFrom(_downgraded(item, deps))
    elif kind == "list_value":
        for i, item in enumerate(value.list_value.values):
            result.list_value.values[i].CopyFrom(_downgraded(item, deps))
    return result
