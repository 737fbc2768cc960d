"""The gpucloud component provider (provider/, gpu_cloud.provider): the schema Pulumi's own Python host infers (its
Analyzer and ComponentProvider, pulumi 3.272) holds every public component; a hosted wrapper builds the component
from schema-shaped inputs and refuses bad ones as the component does; the YAML example uses only what the schema
has."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
from collections import Counter
from functools import cache
from typing import Any

import pulumi
import pulumi_aws as aws
import pytest
import yaml
from pulumi.provider.experimental.analyzer import Analyzer
from pulumi.provider.experimental.component import ComponentProvider

import gpu_cloud.components.alicloud
import gpu_cloud.components.aws
import gpu_cloud.components.k8s
from gpu_cloud.components.aws import GpuEnvironment, GpuEnvironmentArgs
from gpu_cloud.components.spec import ConfigError, parse_stack_config
from gpu_cloud.planner.engine import Plan, record
from gpu_cloud.provider import PACKAGE, hosted_components, token
from tests.packaging.conftest import ROOT

EXAMPLE = ROOT / "examples" / "yaml-environment" / "Pulumi.yaml"
PREFIXES = {gpu_cloud.components.aws: "Aws", gpu_cloud.components.alicloud: "Alicloud", gpu_cloud.components.k8s: ""}


def _public_components() -> dict[str, type[pulumi.ComponentResource]]:
    """Every ComponentResource in ``__all__`` of the three components packages, by its hosted type name."""
    return {
        f"{prefix}{name}": getattr(module, name)
        for module, prefix in PREFIXES.items()
        for name in module.__all__
        if inspect.isclass(getattr(module, name)) and issubclass(getattr(module, name), pulumi.ComponentResource)
    }


@cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(ComponentProvider(hosted_components(), PACKAGE, version="0.0.0").schema)
    return schema


def _wrappers() -> dict[str, type[pulumi.ComponentResource]]:
    return {wrapper.__name__: wrapper for wrapper in hosted_components()}


def test_the_sdk_analyzer_finds_every_public_component() -> None:
    public = _public_components()
    assert len(public) >= 33
    result = Analyzer(PACKAGE).analyze(hosted_components())
    assert set(result["component_definitions"]) == set(public)
    assert {token(w) for w in hosted_components()} == {f"{PACKAGE}:index:{name}" for name in public}


def _named(text: str) -> set[str]:
    """The capitalised names a passage of a page writes as code: ``Name``."""
    return set(re.findall(r"`([A-Z][A-Za-z0-9]+)`", text))


def test_the_pages_name_every_public_component_and_no_other() -> None:
    # docs/provider.md lists the hosted types, docs/components.md the Python ones per package: both kept in step
    # with the packages' __all__ (components added by later merges were missing from both).
    provider_page = (ROOT / "docs" / "provider.md").read_text(encoding="utf-8")
    offered = provider_page.split("## What it offers", 1)[1].split("`tests/packaging/test_provider.py`", 1)[0]
    assert _named(offered) == set(_public_components())
    components_page = (ROOT / "docs" / "components.md").read_text(encoding="utf-8")
    bullets = components_page.split("\n- `")[1:4]
    for module, prefix in PREFIXES.items():
        [bullet] = [b for b in bullets if b.startswith(f"{module.__name__}`")]
        if prefix:  # the page's first sentence names the environments, the bullets their parts
            assert f"`{module.__name__}.GpuEnvironment`" in components_page.split("\n- `", 1)[0]
            public = {name[len(prefix) :] for name in _public_components() if name.startswith(prefix)}
            public.remove("GpuEnvironment")
        else:
            public = {name for name in _public_components() if not name.startswith(("Aws", "Alicloud"))}
        assert _named(bullet.split("```", 1)[0]) - {"ClusterHandle"} == public, module.__name__


def test_each_components_inputs_are_its_args_fields_required_as_in_python() -> None:
    resources = _schema()["resources"]
    for name, component in _public_components().items():
        args = inspect.get_annotations(component.__init__, eval_str=True, locals={"Output": pulumi.Output})["args"]
        args = next(a for a in getattr(args, "__args__", (args,)) if a is not type(None))
        fields = dataclasses.fields(args)
        resource = resources[f"{PACKAGE}:index:{name}"]
        assert resource["isComponent"] is True
        assert set(resource.get("inputProperties", {})) == {_camel(f.name) for f in fields}, name
        required = {_camel(f.name) for f in fields if f.default is f.default_factory is dataclasses.MISSING}
        assert set(resource.get("requiredInputs", [])) == required, name


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def test_the_plugin_runs_the_host_with_the_python_runtime() -> None:
    plugin = yaml.safe_load((ROOT / "provider" / "PulumiPlugin.yaml").read_text(encoding="utf-8"))
    assert plugin["runtime"]["name"] == "python"
    main = (ROOT / "provider" / "__main__.py").read_text(encoding="utf-8")
    assert "component_provider_host(components=hosted_components(), name=PACKAGE" in main


def _dev_config() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8"))["config"]
    return {key.split(":", 1)[1]: value for key, value in config.items()}


def _custom(plan: Plan) -> Counter[tuple[str, str]]:
    return Counter((r.type, r.name) for r in plan.resources if r.custom and not r.type.startswith("pulumi:"))


def test_a_hosted_environment_builds_what_the_python_component_builds() -> None:
    config = _dev_config()

    def hosted() -> None:
        args = {"config": config, "runner_vpc_id": "vpc-1", "runner_route_table_ids": ["rtb-1", "rtb-2"]}
        provider = aws.Provider("aws", region="us-east-1")
        _wrappers()["AwsGpuEnvironment"]("dev", args, pulumi.ResourceOptions(providers=[provider]))

    def python() -> None:
        args = GpuEnvironmentArgs(parse_stack_config(config), "vpc-1", ["rtb-1", "rtb-2"])
        GpuEnvironment("dev", args, pulumi.ResourceOptions(provider=aws.Provider("aws", region="us-east-1")))

    through_schema, direct = record(hosted, stack="dev"), record(python, stack="dev")
    assert _custom(through_schema) == _custom(direct)
    assert sum(_custom(direct).values()) > 100
    wrapper = next(r for r in through_schema.resources if r.type == f"{PACKAGE}:index:AwsGpuEnvironment")
    inner = next(r for r in through_schema.resources if r.type == "gpucloud:aws:GpuEnvironment")
    assert inner.parent == wrapper.urn


@pytest.mark.parametrize(
    ("name", "args", "problem"),
    [
        ("AwsKmsKey", {"spec": {"rotationDays": "90"}}, "spec.rotationDays: input should be a valid integer (got 90)"),
        ("AwsKmsKey", {"spec": {"rotationDays": 30}}, "rotationDays: aws rotates keys every 90..2560 days (got 30)"),
        ("AwsKmsKey", {}, "spec: required (got null)"),
        (
            "AwsGpuEnvironment",
            {"config": {"cloud": "aws"}, "runner_vpc_id": "v", "runner_route_table_ids": []},
            "region: field required (got null)",
        ),
    ],
)
def test_a_bad_input_is_a_config_error_naming_the_field(name: str, args: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError) as caught:
        record(lambda: _wrappers()[name]("bad", args))
    assert problem in [str(p) for p in caught.value.problems]


def test_a_spec_from_another_resources_output_is_refused() -> None:
    def program() -> None:
        _wrappers()["AwsKmsKey"]("k", {"spec": pulumi.Output.from_input({"rotationDays": 90})})

    with pytest.raises(ConfigError, match=r"^spec: must be known when the program runs"):
        record(program)


def test_the_yaml_example_uses_only_hosted_components_and_their_inputs() -> None:
    program = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    assert program["packages"][PACKAGE] == "../../provider"
    assert (EXAMPLE.parent / program["packages"][PACKAGE] / "PulumiPlugin.yaml").is_file()
    used = {key: r for key, r in program["resources"].items() if r["type"].startswith(f"{PACKAGE}:")}
    assert {r["type"] for r in used.values()} == {
        f"{PACKAGE}:index:AwsGpuEnvironment",
        f"{PACKAGE}:index:AwsKmsKey",
        f"{PACKAGE}:index:AwsCheckpointBucket",
    }
    header = EXAMPLE.read_text(encoding="utf-8").split("\nname:", 1)[0]
    for resource in used.values():
        schema = _schema()["resources"][resource["type"]]
        assert resource["type"] in header  # the example lists what it uses
        assert set(resource["properties"]) <= set(schema["inputProperties"])
        assert set(schema.get("requiredInputs", [])) <= set(resource["properties"])
    # The environment's config is a valid gpu-cloud config.
    assert parse_stack_config(used["environment"]["properties"]["config"]).environment == "ml"


def test_every_hosted_input_is_described() -> None:
    # The host reads property descriptions only from a class's source; a wrapper's description lists its inputs.
    for name, resource in _schema()["resources"].items():
        for key in resource.get("inputProperties", {}):
            line = next(line for line in resource["description"].splitlines() if line.startswith(f"- {key}:"))
            assert len(line) > len(f"- {key}: "), (name, key)
