"""What every spec shares: the frozen pydantic base (camelCase keys in config, snake_case in Python, unknown
fields refused) and the Kubernetes name type."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = ["K8sName", "Spec"]

_K8S_NAME = r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$"

K8sName = Annotated[str, Field(pattern=_K8S_NAME, description="A DNS-1123 label of at most 40 characters.")]


class Spec(BaseModel):
    """The base of every spec: immutable, unknown fields refused, camelCase aliases, attribute docstrings as field
    descriptions, no NaN or infinity."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        use_attribute_docstrings=True,
        allow_inf_nan=False,
    )
