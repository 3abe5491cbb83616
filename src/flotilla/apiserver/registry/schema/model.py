"""One schema node type for built-in kinds and custom resources alike.

Kubernetes describes both with OpenAPI: built-ins through their generated definitions (which
`kubernetes-validate` ships with `$ref`s and nullable types), CRDs through `openAPIV3Schema`. The
server needs the same facts from either — types, properties, list and map semantics, merge keys,
defaults, enums — so both are converted into `Schema` nodes once, and validation, pruning,
defaulting, strategic merge and server-side apply walk those nodes.

Nodes are shared and may form cycles (JSONSchemaProps refers to itself); treat them as immutable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

NO_DEFAULT: Any = object()
"""Sentinel: the node declares no default (None is a legitimate default)."""


@dataclass(eq=False, slots=True)
class Schema:
    types: frozenset[str] = frozenset()
    """Allowed JSON types: object, array, string, integer, number, boolean. Empty: anything."""
    nullable: bool = False
    properties: dict[str, Schema] = field(default_factory=dict)
    additional_properties: Schema | None = None
    """The schema of map values (`additionalProperties` with a schema)."""
    any_properties: bool = False
    """Unknown properties are kept as they are (`additionalProperties: true`, preserve-unknown-fields)."""
    items: Schema | None = None
    required: frozenset[str] = frozenset()
    enum: tuple[Any, ...] | None = None
    format: str | None = None
    pattern: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    min_length: int | None = None
    max_length: int | None = None
    min_items: int | None = None
    max_items: int | None = None
    min_properties: int | None = None
    max_properties: int | None = None
    unique_items: bool = False
    default: Any = NO_DEFAULT
    description: str = ""
    int_or_string: bool = False
    preserve_unknown_fields: bool = False
    embedded_resource: bool = False
    list_type: str | None = None
    """SSA list semantics: atomic, set or map."""
    list_map_keys: tuple[str, ...] = ()
    map_type: str | None = None
    """SSA map/struct semantics: atomic or granular."""
    patch_strategy: tuple[str, ...] = ()
    """Strategic-merge directives of this field: merge, replace, retainKeys."""
    patch_merge_key: str | None = None
    validations: tuple[dict[str, Any], ...] = ()
    """CEL rules (`x-kubernetes-validations`)."""
    any_of: tuple[Schema, ...] = ()
    one_of: tuple[Schema, ...] = ()
    all_of: tuple[Schema, ...] = ()
    not_: Schema | None = None
    ref: str | None = None
    """The definition this node was built from, when it came from a named definition."""

    @property
    def is_object(self) -> bool:
        return "object" in self.types

    @property
    def is_array(self) -> bool:
        return "array" in self.types

    @property
    def is_map(self) -> bool:
        """An object whose keys are data, not field names (labels, ConfigMap data, resource lists)."""
        return self.additional_properties is not None and not self.properties

    def property(self, name: str) -> Schema | None:
        """The schema of field `name`, or of a map value; None when the field is unknown."""
        found = self.properties.get(name)
        if found is not None:
            return found
        return self.additional_properties

    def merges_list(self) -> bool:
        """Whether strategic merge patch merges this list instead of replacing it."""
        return "merge" in self.patch_strategy

    def retains_keys(self) -> bool:
        return "retainKeys" in self.patch_strategy


ANY = Schema(any_properties=True, preserve_unknown_fields=True)
"""A node that accepts and keeps anything (unknown kinds, embedded raw JSON)."""
