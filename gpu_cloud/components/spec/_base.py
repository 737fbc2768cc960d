"""What every spec shares: the frozen pydantic base (camelCase keys in config, snake_case in Python, unknown
fields refused) and the Kubernetes name type."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from gpu_cloud.components.spec.problems import ConfigError, validation_problems

__all__ = ["K8sName", "Spec"]

_K8S_NAME = r"^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$"

K8sName = Annotated[str, Field(pattern=_K8S_NAME)]
"""A DNS-1123 label of at most 40 characters (the field's own docstring describes it: a description here would
replace every such field's in the schema and docs/config.md)."""


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

    def __init__(self, /, **data: Any) -> None:
        """Validate ``data`` (a spec built in code): invalid, it is a ConfigError listing every problem with its field
        and value, not pydantic's ValidationError with the validators' internal encoding of problems."""
        try:
            super().__init__(**data)
        except ValidationError as err:
            raise ConfigError(validation_problems(err, shape=type(self), in_code=True)) from None

    # Pydantic calls a model's own __init__ for every nested validation too (custom_init), which would bypass the
    # strict JSON validation of the stack config; marked as the base's, it is called only when code calls the class
    # (pydantic 2.14.4 _internal/_model_construction.py sets __pydantic_custom_init__ from this marker, as RootModel
    # marks its own __init__). tests/components/test_spec_errors.py fails if pydantic stops honouring it.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]
