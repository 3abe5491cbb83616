"""What an `/openapi/v2` document can hold of a custom resource's schema.

A CRD's `openAPIV3Schema` may say what Swagger 2.0 cannot (`nullable`, `anyOf`, `oneOf`,
`allOf`, `not`), and kubectl 1.27 and 1.28 parse the whole v2 document on every validating
command with kube-openapi's `proto` package, which refuses shapes it cannot model: an array
without exactly one item schema, a reference, more than one type or an unknown type name. One
refused schema fails the whole document — every kind breaks, not only that CRD's. So, like
apiextensions-apiserver's `ToStructuralOpenAPIV2` (applied to every CRD it publishes in v2):

- the junctors (`allOf`, `anyOf`, `oneOf`, `not`) go;
- a `nullable` schema loses its type, items and properties (kubectl reads an untyped value as
  "anything"), and its field is no longer required by its parent;
- a schema that keeps unknown fields loses its items and properties, and an object one its type;
- an array left without an item schema loses its type;
- defaults go (kube prunes them from the v2 document);

and, beyond kube (whose CRD validation already forbids them), whatever else Swagger 2.0's
Schema Object cannot hold is dropped rather than published — a keyword it does not know, a value
of the wrong JSON type, a type name that is not one of the six — so the document always encodes
and always parses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PRESERVE_UNKNOWN_FIELDS = "x-kubernetes-preserve-unknown-fields"

_TYPES = frozenset({"object", "array", "string", "integer", "number", "boolean"})
_STRINGS = frozenset({"format", "title", "description", "pattern", "discriminator"})
_NUMBERS = frozenset({"multipleOf", "maximum", "minimum"})
_INTEGERS = frozenset({"maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"})
_BOOLEANS = frozenset({"exclusiveMaximum", "exclusiveMinimum", "uniqueItems", "readOnly"})


def swagger2_schema(source: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a CRD schema that Swagger 2.0 can hold and kubectl's v2 parser accepts."""
    schema: dict[str, Any] = {}
    for key, value in source.items():
        kept = _kept_value(key, value)
        if kept is not None:
            schema[key] = kept
    if source.get("nullable") is True:
        for key in ("type", "items", "properties"):
            schema.pop(key, None)
    if source.get(PRESERVE_UNKNOWN_FIELDS) is True:
        schema.pop("items", None)
        schema.pop("properties", None)
        if schema.get("type") == "object":
            del schema["type"]
    if schema.get("type") == "array" and "items" not in schema:
        del schema["type"]
    _drop_nullable_requirements(source, schema)
    return schema


def _kept_value(key: str, value: Any) -> Any:
    """The v2 form of one keyword's value, or None where v2 has no place for it."""
    if key.startswith("x-"):
        return _copy(value)
    if key == "type":
        return value if isinstance(value, str) and value in _TYPES else None
    if key == "properties":
        if not isinstance(value, Mapping):
            return None
        return {str(name): swagger2_schema(sub) for name, sub in value.items() if isinstance(sub, Mapping)}
    if key == "items":
        return swagger2_schema(value) if isinstance(value, Mapping) else None
    if key == "additionalProperties":
        if isinstance(value, Mapping):
            return swagger2_schema(value)
        return value if isinstance(value, bool) else None
    if key == "required":
        if not isinstance(value, list):
            return None
        return [name for name in value if isinstance(name, str)] or None
    return _kept_scalar(key, value)


def _kept_scalar(key: str, value: Any) -> Any:
    if key in _STRINGS:
        return value if isinstance(value, str) else None
    if key in _NUMBERS:
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if key in _INTEGERS:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if key in _BOOLEANS:
        return value if isinstance(value, bool) else None
    if key == "enum":
        return _copy(value) if isinstance(value, list) else None
    if key == "example":
        return _copy(value)
    return None


def _drop_nullable_requirements(source: Mapping[str, Any], schema: dict[str, Any]) -> None:
    """A nullable field is not required in v2 (its value may be null, which v2 cannot say)."""
    required = schema.get("required")
    if required is None:
        return
    additional = source.get("additionalProperties")
    if isinstance(additional, Mapping) and additional.get("nullable") is True:
        del schema["required"]
        return
    properties = source.get("properties")
    if not isinstance(properties, Mapping):
        return
    nullable = {
        name for name, sub in properties.items() if isinstance(sub, Mapping) and sub.get("nullable") is True
    }
    kept = [name for name in required if name not in nullable]
    if kept:
        schema["required"] = kept
    else:
        del schema["required"]


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _copy(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(item) for item in value]
    return value
