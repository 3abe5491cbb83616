"""The base of Flotilla's typed Karmada objects, and the Kubernetes types they embed.

Karmada objects travel as plain JSON; our controllers read them through pydantic models so a typo
in a field name is a type error, not a silent `None`. Three rules keep the models faithful to the
wire format:

* field names are Python's, JSON keys are Karmada's: camelCase by default (`alias_generator`),
  spelled out where Karmada's differ (`exclude`, `proxyURL`);
* unknown fields are kept (`extra="allow"`), so a round trip through a model never drops what a
  newer Karmada, or a user, put there;
* `to_object()` writes what Go's `omitempty` would: no `null`s, and no empty lists, maps or
  objects that came from defaults — an empty list the input spelled out, or one a caller
  assigned, stays.

Times and quantities stay strings as they are on the wire; raw embedded objects (manifests,
statuses) stay dicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)
from pydantic.alias_generators import to_camel

Quantity = str | int | float
"""A resource quantity as JSON carries it: `"500m"`, `"1Gi"`, or a bare number."""
ResourceList = dict[str, Quantity]


def json_name(name: str) -> Any:
    """A field whose JSON key is not the camelCase of its Python name (`exclude_clusters` → `exclude`)."""
    return Field(default=None, validation_alias=name, serialization_alias=name)


def json_list(name: str) -> Any:
    """A list field whose JSON key is not the camelCase of its Python name."""
    return Field(default_factory=list, validation_alias=name, serialization_alias=name)


class KarmadaModel(BaseModel):
    """A JSON object of the Karmada API: camelCase keys, unknown keys kept, `omitempty` output."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

    @classmethod
    def from_object(cls, obj: Mapping[str, Any]) -> Self:
        """The model of a decoded JSON object (raises pydantic's `ValidationError` on bad types)."""
        return cls.model_validate(obj)

    def to_object(self) -> dict[str, Any]:
        """The JSON object, with Karmada's field names, ready to send."""
        return self.model_dump(by_alias=True)

    @model_serializer(mode="wrap")
    def _omit_empty(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        for name, field in type(self).model_fields.items():
            key = (field.serialization_alias or field.alias or name) if info.by_alias else name
            value = data.get(key)
            if value is None or (value in ([], {}) and name not in self.model_fields_set):
                data.pop(key, None)
        return data


# --- apimachinery and core/v1 types that Karmada embeds -------------------------------------------


class OwnerReference(KarmadaModel):
    api_version: str = ""
    kind: str = ""
    name: str = ""
    uid: str = ""
    controller: bool | None = None
    block_owner_deletion: bool | None = None


class ObjectMeta(KarmadaModel):
    name: str = ""
    generate_name: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resource_version: str | None = None
    generation: int | None = None
    creation_timestamp: str | None = None
    deletion_timestamp: str | None = None
    deletion_grace_period_seconds: int | None = None
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    finalizers: list[str] = Field(default_factory=list)
    owner_references: list[OwnerReference] = Field(default_factory=list)
    managed_fields: list[dict[str, Any]] = Field(default_factory=list)


class Condition(KarmadaModel):
    """A `metav1.Condition`."""

    type: str = ""
    status: str = ""
    reason: str = ""
    message: str = ""
    last_transition_time: str | None = None
    observed_generation: int | None = None


class LabelSelectorRequirement(KarmadaModel):
    key: str = ""
    operator: str = ""
    values: list[str] = Field(default_factory=list)


class LabelSelector(KarmadaModel):
    match_labels: dict[str, str] = Field(default_factory=dict)
    match_expressions: list[LabelSelectorRequirement] = Field(default_factory=list)


class NodeSelectorRequirement(KarmadaModel):
    """A `key operator values` test; Karmada reuses it for cluster field selectors."""

    key: str = ""
    operator: str = ""
    values: list[str] = Field(default_factory=list)


class NodeSelectorTerm(KarmadaModel):
    match_expressions: list[NodeSelectorRequirement] = Field(default_factory=list)
    match_fields: list[NodeSelectorRequirement] = Field(default_factory=list)


class NodeSelector(KarmadaModel):
    node_selector_terms: list[NodeSelectorTerm] = Field(default_factory=list)


class Toleration(KarmadaModel):
    key: str | None = None
    operator: str | None = None
    value: str | None = None
    effect: str | None = None
    toleration_seconds: int | None = None


class Taint(KarmadaModel):
    key: str = ""
    value: str | None = None
    effect: str = ""
    time_added: str | None = None


def find_condition(conditions: list[Condition], condition_type: str) -> Condition | None:
    """The condition of `condition_type` in a status's list, if present."""
    return next((c for c in conditions if c.type == condition_type), None)
