"""required-tags: every taggable AWS and Alibaba Cloud resource carries the required tags.

A provider's default tags count (AWS ``defaultTags.tags``). Which types are taggable comes from
``taggable_types.json``, generated from the provider SDKs by ``policies/scripts/generate_taggable_types.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from .rule import Config, Props, ResourceRule, string_list
from .values import Findings, Undecided, as_object, is_unknown

__all__ = ["RULE", "TAGGABLE_TYPES", "check"]

TAGGABLE_TYPES: frozenset[str] = frozenset(
    json.loads((Path(__file__).with_name("taggable_types.json")).read_text(encoding="utf-8"))["types"]
)
DEFAULT_REQUIRED_TAGS = ["environment", "owner", "cost-center"]


def _tag_keys(tags: object, path: str) -> set[str]:
    return set(as_object(tags, path))


def _missing(props: Props, provider: Props, required: list[str]) -> list[str]:
    missing = [tag for tag in required if tag not in _tag_keys(props.get("tags"), "tags")]
    if not missing:
        return []
    default_tags = as_object(provider.get("defaultTags"), "provider.defaultTags").get("tags")
    if is_unknown(default_tags):
        raise Undecided("provider.defaultTags.tags")
    return [tag for tag in missing if tag not in _tag_keys(default_tags, "provider.defaultTags.tags")]


def check(resource_type: str, props: Props, config: Config, provider: Props) -> list[str]:
    """Violation messages of ``required-tags`` for one taggable resource."""
    del resource_type
    required = [str(tag) for tag in config["requiredTags"]]
    findings = Findings()

    def problem() -> str | None:
        missing = _missing(props, provider, required)
        return f"missing required tags: {', '.join(missing)}" if missing else None

    findings.explain(problem)
    return findings.messages


RULE = ResourceRule(
    name="required-tags",
    description="Taggable AWS and Alibaba Cloud resources must carry the required tags.",
    level="advisory",
    resource_types=TAGGABLE_TYPES,
    check=check,
    config={
        "requiredTags": string_list(
            DEFAULT_REQUIRED_TAGS, "Tag keys every taggable resource must carry (provider default tags count)."
        )
    },
)
