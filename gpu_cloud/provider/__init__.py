"""gpu-cloud's components for every Pulumi language: the component provider ``gpucloud``.

Pulumi's Python component host (``pulumi.provider.experimental.component_provider_host``; pulumi 3.272
``provider/experimental/{analyzer,component,host}.py``) infers the provider's schema from each component's type
annotations, and accepts less than the Python components use: no ``from __future__ import annotations`` (string
annotations), no unions, tuples or pydantic models, resource types only in the ``index`` module and no type name
twice (AWS and Alibaba Cloud both have a ``KmsKey``). So the provider hosts a wrapper per public component (every
ComponentResource in ``__all__`` of ``gpu_cloud.components.aws``, ``.alicloud`` and ``.k8s``), made from it here
rather than copied:

- the type token is ``gpucloud:index:<Cloud><Name>`` (``AwsKmsKey``, ``AlicloudKmsKey``; the Kubernetes layer's
  keep their names: ``GpuRbac``);
- its inputs are the component's Args fields (camelCase in the schema), with the types the host accepts: a spec
  (pydantic model, or a union of them) is an object with the spec's camelCase keys, validated by the same model as
  the stack config (``StackConfig`` by :func:`~gpu_cloud.components.spec.parse_stack_config`, every problem at
  once), an ``IPv4Network`` a string, a tuple or sequence a list, a dataclass a type of its own, a resource
  (a provider, what to wait for) any value, a statements builder the statements;
- its outputs are the component's outputs that are values (a nested component or a Kubernetes object is not);
- it builds the Python component, as its child of the same name, from the converted inputs.

Python programs keep using the components themselves (their type tokens ``gpucloud:aws:KmsKey`` and URNs are
unchanged); the wrappers are for other languages (``pulumi package add``, docs/provider.md).
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import inspect
import ipaddress
import itertools
import json
import re
import textwrap
import types
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, NotRequired, Required, TypedDict

import pulumi
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from gpu_cloud.components.spec import ConfigError, Problem, StackConfig, parse_stack_config, validation_problems

__all__ = ["PACKAGE", "hosted_components", "token"]

PACKAGE = "gpucloud"
"""The provider's package name: the first part of every type token."""

_PREFIXES = {"aws": "Aws", "alicloud": "Alicloud", "k8s": ""}
"""Type-name prefix of each components package (``gpu_cloud.components.<key>``)."""
_NAMESPACE = {"Output": pulumi.Output, "T": Any}
"""What ``pulumi.Input``'s own forward reference needs to evaluate in a module's annotations."""


def hosted_components() -> list[type[pulumi.ComponentResource]]:
    """A wrapper for every public component of the three packages, for ``component_provider_host``."""
    import gpu_cloud.components.alicloud
    import gpu_cloud.components.aws
    import gpu_cloud.components.k8s

    wrappers = []
    for module in (gpu_cloud.components.aws, gpu_cloud.components.alicloud, gpu_cloud.components.k8s):
        prefix = _PREFIXES[module.__name__.rsplit(".", 1)[1]]
        for name in module.__all__:
            component = getattr(module, name)
            if inspect.isclass(component) and issubclass(component, pulumi.ComponentResource):
                wrappers.append(_wrapper(component, prefix))
    return wrappers


def token(wrapper: type[pulumi.ComponentResource]) -> str:
    """The type token of a hosted wrapper."""
    return f"{PACKAGE}:index:{wrapper.__name__}"


# A field's type, as the host's analyzer accepts it, and the conversion of a given value back to the component's type.
_Converter = Callable[[Any, str], Any]


@dataclasses.dataclass(frozen=True)
class _Mapped:
    schema: Any
    convert: _Converter


def _wrapper(component: type[pulumi.ComponentResource], prefix: str) -> type[pulumi.ComponentResource]:
    args_type = _annotations(component.__init__)["args"]
    optional_args = _none_in(args_type)
    args_type = _without_none(args_type)
    mapped = _dataclass(args_type, prefix, f"{prefix}{component.__name__}Args")
    outputs = {name: t for name, t in _own_annotations(component).items() if _is_value(t)}
    token_name = f"{prefix}{component.__name__}"

    def __init__(
        self: pulumi.ComponentResource, name: str, args: Any, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        pulumi.ComponentResource.__init__(self, f"{PACKAGE}:index:{token_name}", name, None, opts)
        given = mapped.convert(args or {}, "")
        # The providers the caller gave (the engine passes them to a remote component) reach the component's children.
        providers = opts.providers if opts is not None else None
        child = pulumi.ResourceOptions(
            parent=self, providers=dict(providers) if isinstance(providers, Mapping) else list(providers or [])
        )
        build: Any = component
        built = build(name, None if optional_args and not args else given, child)
        values = {attribute: getattr(built, attribute, None) for attribute in outputs}
        for attribute, value in values.items():
            setattr(self, attribute, value)
        self.register_outputs(values)

    __init__.__annotations__ = {"name": str, "args": mapped.schema, "opts": pulumi.ResourceOptions | None}
    namespace: dict[str, Any] = {
        "__init__": __init__,
        "__doc__": _description(component, args_type),
        "__module__": __name__,
        "__annotations__": {name: _output_schema(t) for name, t in outputs.items()},
    }
    return types.new_class(token_name, (pulumi.ComponentResource,), {}, lambda ns: ns.update(namespace))


def _description(component: type, args_type: type) -> str:
    """The component's docstring and its inputs' (the host reads attribute docstrings from a class's source, which a
    wrapper made here has not)."""
    lines = [inspect.cleandoc(component.__doc__ or component.__name__), "", "Inputs (camelCase in the schema):"]
    docs = {
        k: v
        for base in reversed(args_type.__mro__)
        if base is not object
        for k, v in (_documented_attributes(base) | _attribute_docs(base)).items()
    }
    for field in dataclasses.fields(args_type):
        doc = docs.get(field.name, "")
        lines.append(f"- {to_camel(field.name)}: {' '.join(doc.split())}")
    return "\n".join(lines)


def _documented_attributes(cls: type) -> dict[str, str]:
    """The ``Attributes:`` section of ``cls``'s docstring (Google style: ``name: text``, continued indented)."""
    doc = inspect.cleandoc(cls.__dict__.get("__doc__") or "")
    section = doc.split("Attributes:\n", 1)[1] if "Attributes:\n" in doc else ""
    return dict(re.findall(r"^    (\w+): (.*(?:\n        .*)*)", section, re.MULTILINE))


def _attribute_docs(cls: type) -> dict[str, str]:
    """The attribute docstrings of ``cls`` (a string right after an annotated attribute), read from its source."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
    return {
        node.target.id: after.value.value
        for node, after in itertools.pairwise(body)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(after, ast.Expr)
        and isinstance(after.value, ast.Constant)
        and isinstance(after.value.value, str)
    }


def _annotations(obj: Any) -> dict[str, Any]:
    """``obj``'s own annotations, evaluated in its module (the components' modules use string annotations)."""
    return inspect.get_annotations(obj, eval_str=True, locals=_NAMESPACE)


def _own_annotations(cls: type) -> dict[str, Any]:
    """The annotations ``cls`` and its bases outside the pulumi SDK declare, evaluated, private ones left out."""
    found: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        if base is object or base.__module__.split(".")[0] == "pulumi":
            continue
        found |= {k: v for k, v in _annotations(base).items() if not k.startswith("_")}
    return found


def _none_in(tp: Any) -> bool:
    return typing.get_origin(tp) in (typing.Union, types.UnionType) and type(None) in typing.get_args(tp)


def _without_none(tp: Any) -> Any:
    if not _none_in(tp):
        return tp
    rest = [t for t in typing.get_args(tp) if t is not type(None)]
    return rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007 - built from a list


def _input_value(tp: Any) -> Any | None:
    """``X`` of ``pulumi.Input[X]`` (a union of X, Awaitable[X] and Output[X]), else None."""
    if typing.get_origin(tp) not in (typing.Union, types.UnionType):
        return None
    for member in typing.get_args(tp):
        if typing.get_origin(member) is Awaitable:
            return typing.get_args(member)[0]
    return None


def _known(value: Any, path: str) -> None:
    """Refuse an Output where the component needs a value when the program runs (a spec, a name, a network)."""
    if isinstance(value, pulumi.Output):
        raise ConfigError([Problem(path, "must be known when the program runs, not another resource's output", None)])


def _plain(value: Any, path: str) -> Any:
    _known(value, path)
    return value


def _same(value: Any, path: str) -> Any:
    return value


def _is_model(tp: Any) -> bool:
    members = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    return all(inspect.isclass(m) and issubclass(m, BaseModel) for m in members)


def _spec(tp: Any) -> _Converter:
    """A spec from its camelCase mapping, validated as the stack config is (strictly, as JSON)."""
    adapter: TypeAdapter[Any] = TypeAdapter(tp)

    def convert(value: Any, path: str) -> Any:
        _known(value, path)
        if tp is StackConfig:
            return parse_stack_config(value)
        try:
            return adapter.validate_json(json.dumps(value, default=str), strict=True)
        except ValidationError as err:
            raise ConfigError(validation_problems(err, path)) from None

    return convert


def _map(tp: Any, prefix: str) -> _Mapped:
    """``tp`` (a type of a component's Args) as the host accepts it, with the conversion back."""
    if tp in (str, int, float, bool):
        return _Mapped(tp, _plain)
    if tp is Any or (inspect.isclass(tp) and issubclass(tp, pulumi.Resource)):
        return _Mapped(Any, _same)
    if _none_in(tp):
        inner = _map(_without_none(tp), prefix)
        return _Mapped(_of(typing.Optional, inner.schema), functools.partial(_optional, inner.convert))
    value_type = _input_value(tp)
    if value_type is not None:
        inner = _map(value_type, prefix)
        return _Mapped(_of(pulumi.Input, inner.schema), functools.partial(_input, inner.convert))
    if _is_model(tp):
        return _Mapped(_of(dict, str, Any), _spec(tp))
    if inspect.isclass(tp) and issubclass(tp, enum.Enum):
        return _Mapped(tp, functools.partial(_call, tp))
    if tp is ipaddress.IPv4Network:
        return _Mapped(str, functools.partial(_call, ipaddress.IPv4Network))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        return _dataclass(tp, prefix, f"{prefix}{tp.__name__}")
    origin, arguments = typing.get_origin(tp), typing.get_args(tp)
    if origin is tuple and not (len(arguments) == 2 and arguments[1] is Ellipsis):
        members = [_map(a, prefix).convert for a in arguments]
        return _Mapped(_of(list, Any), functools.partial(_record, members))
    if origin in (tuple, list, Sequence):
        item = _map(arguments[0], prefix)
        return _Mapped(_of(list, item.schema), functools.partial(_items, item.convert, origin is tuple))
    if origin in (dict, Mapping):
        item = _map(arguments[1], prefix)
        return _Mapped(_of(dict, str, item.schema), functools.partial(_entries, item.convert))
    if origin is Callable:
        result = _map(arguments[-1], prefix)
        return _Mapped(result.schema, functools.partial(_builder, result.convert))
    raise TypeError(f"no schema type for {tp!r}")


def _optional(convert: _Converter, value: Any, path: str) -> Any:
    return None if value is None else convert(value, path)


def _input(convert: _Converter, value: Any, path: str) -> Any:
    return value if isinstance(value, pulumi.Output) else convert(value, path)


def _call(build: Callable[[Any], Any], value: Any, path: str) -> Any:
    return build(_plain(value, path))


def _record(members: list[_Converter], value: Any, path: str) -> tuple[Any, ...]:
    given = _plain(value, path)
    if len(given) != len(members):
        raise ConfigError([Problem(path, f"expected {len(members)} items", given)])
    return tuple(convert(x, f"{path}.{i}") for i, (convert, x) in enumerate(zip(members, given, strict=True)))


def _items(convert: _Converter, as_tuple: bool, value: Any, path: str) -> Any:
    items = [convert(x, f"{path}.{i}") for i, x in enumerate(_plain(value, path))]
    return tuple(items) if as_tuple else items


def _entries(convert: _Converter, value: Any, path: str) -> dict[str, Any]:
    return {k: convert(x, f"{path}.{k}") for k, x in _plain(value, path).items()}


def _builder(convert: _Converter, value: Any, path: str) -> Any:
    return functools.partial(_constant, convert(value, path))


def _constant(value: Any, *_: Any) -> Any:
    """A builder (e.g. a role's statements from the account and cluster) given as its result."""
    return value


def _dataclass(tp: type, prefix: str, type_name: str) -> _Mapped:
    """A dataclass of Args as a TypedDict of its fields (required: those without a default) and its construction."""
    hints = _own_annotations(tp)
    fields = {f.name: (f, _map(hints[f.name], prefix)) for f in dataclasses.fields(tp)}
    required = {
        name
        for name, (f, _) in fields.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    annotations = {
        name: _of(Required if name in required else NotRequired, mapped.schema) for name, (_, mapped) in fields.items()
    }
    schema = _TYPED_DICT(type_name, annotations, total=False)
    schema.__doc__ = inspect.cleandoc(tp.__doc__ or type_name)
    schema.__module__ = __name__

    def convert(value: Any, path: str) -> Any:
        _known(value, path)
        missing = [Problem(_join(path, name), "required", None) for name in sorted(required) if value.get(name) is None]
        if missing:
            raise ConfigError(missing)
        given = {name: fields[name][1].convert(v, _join(path, name)) for name, v in value.items() if v is not None}
        return tp(**given)

    return _Mapped(schema, convert)


_TYPED_DICT: Any = TypedDict
"""A TypedDict made at run time (its name and fields are the wrapped Args')."""


def _of(generic: Any, *arguments: Any) -> Any:
    """``generic[arguments]``, a type made at run time for the host's analyzer."""
    return generic[arguments if len(arguments) > 1 else arguments[0]]


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _is_value(tp: Any) -> bool:
    """Whether an output of this type is a value the schema can carry (not a component or a Kubernetes object)."""
    try:
        _output_schema(tp)
    except TypeError:
        return False
    return True


def _output_schema(tp: Any) -> Any:
    if tp in (str, int, float, bool) or tp is Any:
        return tp
    if _none_in(tp):
        return _of(typing.Optional, _output_schema(_without_none(tp)))
    origin, arguments = typing.get_origin(tp), typing.get_args(tp)
    if origin is pulumi.Output:
        return _of(pulumi.Output, _output_schema(arguments[0]))
    if origin in (list, Sequence):
        return _of(list, _output_schema(arguments[0]))
    if origin in (dict, Mapping) and arguments[0] is str:
        return _of(dict, str, _output_schema(arguments[1]))
    raise TypeError(f"not a value type: {tp!r}")
