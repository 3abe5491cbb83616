"""Turn OpenAPI / JSON-schema dictionaries into `Schema` nodes.

Two dialects arrive here. kubernetes-validate's built-in definitions write optional fields as
`"type": ["integer", "null"]`, link types with `$ref: "#/$defs/<name>"` and spell IntOrString and
Quantity as `oneOf` of scalar types. CRDs' `openAPIV3Schema` is plain OpenAPI v3 with the
`x-kubernetes-*` extensions and no `$ref`. `SchemaConverter` handles both; `$ref`s are resolved
through a definitions table and memoised, so shared and recursive types become shared nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.apiserver.registry.schema.model import NO_DEFAULT, Schema

INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
REF_PREFIXES = ("#/$defs/", "#/definitions/", "#/components/schemas/")


class SchemaConverter:
    """Converts schema dictionaries, resolving `$ref`s against `definitions` (name → dict)."""

    def __init__(self, definitions: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self._definitions = definitions or {}
        self._named: dict[str, Schema] = {}

    def definition(self, name: str) -> Schema:
        """The node for a named definition, built once."""
        node = self._named.get(name)
        if node is not None:
            return node
        raw = self._definitions.get(name)
        if raw is None:
            raise KeyError(f"unknown schema definition {name!r}")
        node = Schema(ref=name)
        self._named[name] = node  # registered before filling, so recursive references resolve
        if name == INT_OR_STRING:
            node.types = frozenset({"integer", "string"})
            node.int_or_string = True
            node.description = str(raw.get("description", ""))
            return node
        if name == QUANTITY:
            node.types = frozenset({"integer", "number", "string"})
            node.int_or_string = True
            node.format = "quantity"
            node.description = str(raw.get("description", ""))
            return node
        self._fill(node, raw)
        if node.is_object and not node.properties and node.additional_properties is None:
            # A named object type without fields (FieldsV1, RawExtension) holds free-form JSON.
            node.any_properties = True
        return node

    def convert(self, raw: Mapping[str, Any]) -> Schema:
        """The node for an inline schema (a property, a CRD's openAPIV3Schema)."""
        ref = raw.get("$ref")
        if isinstance(ref, str):
            target = self.definition(_ref_name(ref))
            extra = {k: v for k, v in raw.items() if k.startswith("x-kubernetes-") or k == "default"}
            if not extra:
                return target
            # A property that adds its own directives to a shared type (e.g. a patch strategy on a
            # field whose type is shared) gets a shallow copy carrying them.
            node = _copy(target)
            node.ref = target.ref
            self._extensions(node, raw)
            if "default" in raw:
                node.default = raw["default"]
            return node
        all_of = raw.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], Mapping):
            merged = {k: v for k, v in raw.items() if k != "allOf"}
            inner = self.convert(all_of[0])
            node = _copy(inner)
            self._fill(node, merged, keep=True)
            return node
        node = Schema()
        self._fill(node, raw)
        return node

    def _fill(self, node: Schema, raw: Mapping[str, Any], *, keep: bool = False) -> None:
        types = raw.get("type")
        if isinstance(types, str):
            node.types = frozenset({types})
        elif isinstance(types, list):
            node.types = frozenset(t for t in types if t != "null")
            node.nullable = node.nullable or "null" in types
        elif not keep:
            node.types = frozenset()
        node.nullable = node.nullable or bool(raw.get("nullable", False))
        node.description = str(raw.get("description", node.description))
        props = raw.get("properties")
        if isinstance(props, Mapping):
            node.properties = {name: self.convert(sub) for name, sub in props.items()}
            if not node.types:
                node.types = frozenset({"object"})
        additional = raw.get("additionalProperties")
        if isinstance(additional, Mapping):
            node.additional_properties = self.convert(additional)
        elif additional is True:
            node.any_properties = True
        items = raw.get("items")
        if isinstance(items, Mapping):
            node.items = self.convert(items)
        required = raw.get("required")
        if isinstance(required, list):
            node.required = frozenset(str(r) for r in required)
        enum = raw.get("enum")
        if isinstance(enum, list):
            node.enum = tuple(enum)
        for key, attr in _SCALARS.items():
            if key in raw:
                setattr(node, attr, raw[key])
        if "default" in raw:
            node.default = raw["default"]
        for key, attr in _COMBINATORS.items():
            subs = raw.get(key)
            if isinstance(subs, list):
                setattr(node, attr, tuple(self.convert(s) for s in subs if isinstance(s, Mapping)))
        not_ = raw.get("not")
        if isinstance(not_, Mapping):
            node.not_ = self.convert(not_)
        if "oneOf" in raw and not node.types and _scalar_union(raw["oneOf"]):
            node.types = frozenset(_union_types(raw["oneOf"]))
            node.one_of = ()
            node.int_or_string = node.types >= {"integer", "string"}
        self._extensions(node, raw)

    @staticmethod
    def _extensions(node: Schema, raw: Mapping[str, Any]) -> None:
        if raw.get("x-kubernetes-int-or-string"):
            node.int_or_string = True
            node.types = frozenset({"integer", "string"})
        if raw.get("x-kubernetes-preserve-unknown-fields"):
            node.preserve_unknown_fields = True
            node.any_properties = True
        if raw.get("x-kubernetes-embedded-resource"):
            node.embedded_resource = True
        if "x-kubernetes-list-type" in raw:
            node.list_type = str(raw["x-kubernetes-list-type"])
        if "x-kubernetes-list-map-keys" in raw:
            node.list_map_keys = tuple(raw["x-kubernetes-list-map-keys"])
        if "x-kubernetes-map-type" in raw:
            node.map_type = str(raw["x-kubernetes-map-type"])
        if "x-kubernetes-patch-strategy" in raw:
            node.patch_strategy = tuple(str(raw["x-kubernetes-patch-strategy"]).split(","))
        if "x-kubernetes-patch-merge-key" in raw:
            node.patch_merge_key = str(raw["x-kubernetes-patch-merge-key"])
        if "x-kubernetes-validations" in raw:
            node.validations = tuple(raw["x-kubernetes-validations"])


_SCALARS = {
    "format": "format",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
    "exclusiveMinimum": "exclusive_minimum",
    "exclusiveMaximum": "exclusive_maximum",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
    "uniqueItems": "unique_items",
}
_COMBINATORS = {"anyOf": "any_of", "oneOf": "one_of", "allOf": "all_of"}


def _ref_name(ref: str) -> str:
    for prefix in REF_PREFIXES:
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref.rsplit("/", 1)[-1]


def _scalar_union(options: Any) -> bool:
    return isinstance(options, list) and all(isinstance(o, Mapping) and set(o) <= {"type"} for o in options)


def _union_types(options: list[Mapping[str, Any]]) -> set[str]:
    found: set[str] = set()
    for option in options:
        types = option["type"]
        found.update([types] if isinstance(types, str) else [t for t in types if t != "null"])
    return found


def _copy(node: Schema) -> Schema:
    clone = Schema()
    for name in Schema.__slots__:
        setattr(clone, name, getattr(node, name))
    return clone


__all__ = ["NO_DEFAULT", "SchemaConverter"]
