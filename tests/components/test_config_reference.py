"""docs/config.md is the stack config reference generated from the specs' models: current, covering every field,
each with a description."""

from __future__ import annotations

from pathlib import Path

from gpu_cloud.components.spec import StackConfig
from gpu_cloud.components.spec._base import Spec
from gpu_cloud.components.spec.reference import missing_descriptions, render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "config.md"
REGENERATE = "stale: python -m gpu_cloud.components.spec.reference docs/config.md"


def test_the_page_is_the_one_the_models_generate() -> None:
    assert PAGE.read_text(encoding="utf-8") == render(), REGENERATE


def test_every_field_has_a_description() -> None:
    assert missing_descriptions() == []


def test_a_field_without_a_docstring_is_found() -> None:
    class Undocumented(Spec):
        """A spec whose second field has no docstring."""

        size: int = 1
        """How many."""
        colour: str = "red"

    assert missing_descriptions(Undocumented) == ["Undocumented.colour"]


def test_the_page_has_a_row_for_every_key_of_every_spec() -> None:
    page = PAGE.read_text(encoding="utf-8")
    schema = StackConfig.model_json_schema(by_alias=True)
    assert all(f"| `gpu-cloud:{key}` |" in page for key in schema["properties"])
    for name, model in schema["$defs"].items():
        if "properties" in model:
            section = page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
            assert all(f"| `{key}` |" in section for key in model["properties"]), name
