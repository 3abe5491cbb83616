"""The `components.schemas` of an `/openapi/v3` document, in the shape kube-apiserver publishes.

Built-in kinds come from kubernetes-validate's JSON-schema definitions, which differ from what a
real API server publishes in a few ways that clients notice:

- references point at `#/$defs/<name>`; OpenAPI wants `#/components/schemas/<name>`;
- optional fields are typed `["string", "null"]`; OpenAPI 3.0 has no null type, and kubectl's
  explain templates compare `type` with a string;
- `apiVersion` and `kind` carry an `enum` kube never publishes;
- IntOrString and Quantity are bare `oneOf`s without kube's description and format;
- OpenAPI 3.0 ignores the siblings of a `$ref`, so kube wraps a reference that carries a
  description or an extension as `{"allOf": [{"$ref": ...}], "description": ...}` — kubectl's
  explain reads the description from the wrapper and the type from inside it.

`component_schemas` converts the definitions reachable from a set of root names (following
references transitively) and nothing else, so a document only carries what its kinds use. The walk
is schema-aware: only keywords that hold schemas are descended into, so a property *named* `$ref`
(JSONSchemaProps has one) is not mistaken for a reference.

Custom resources get their kind schema from the CRD version's `openAPIV3Schema`, completed the way
apiextensions-apiserver completes it (`custom_resource_schema`, `custom_resource_list_schema`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.scheme import GroupVersionKind

SCHEMA_REF_PREFIX = "#/components/schemas/"
SOURCE_REF_PREFIX = "#/$defs/"

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

GVK_EXTENSION = "x-kubernetes-group-version-kind"

_SCHEMA_MAPS = frozenset({"properties", "patternProperties"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
_SCHEMA_VALUES = frozenset({"items", "additionalProperties", "not"})
_TYPE_META_FIELDS = ("apiVersion", "kind")

_SCALAR_DEFINITIONS: Mapping[str, Mapping[str, Any]] = {
    INT_OR_STRING: {
        "description": (
            "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML "
            "marshalling and unmarshalling, it produces or consumes the inner type.  This allows you "
            "to have, for example, a JSON field that can accept a name or number."
        ),
        "format": "int-or-string",
        "oneOf": [{"type": "integer"}, {"type": "string"}],
    },
    QUANTITY: {
        "description": (
            "Quantity is a fixed-point representation of a number. It provides convenient "
            "marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors."
        ),
        "oneOf": [{"type": "string"}, {"type": "number"}],
    },
}
"""kube-apiserver's own spelling of the two scalar types kubernetes-validate reduces to `oneOf`s."""

OBJECT_META_DESCRIPTION = (
    "Standard object's metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
LIST_META_DESCRIPTION = (
    "Standard list metadata. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)
_EMBEDDED_API_VERSION_DESCRIPTION = (
    "apiVersion defines the versioned schema of this representation of an object. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
)
_EMBEDDED_KIND_DESCRIPTION = (
    "kind is a string value representing the type of this object. In CamelCase. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
)


def schema_ref(name: str) -> dict[str, Any]:
    """A reference to the component schema `name`."""
    return {"$ref": SCHEMA_REF_PREFIX + name}


def gvk_extension(gvk: GroupVersionKind) -> list[dict[str, str]]:
    """The `x-kubernetes-group-version-kind` value of a kind's schema."""
    return [{"group": gvk.group, "kind": gvk.kind, "version": gvk.version}]


def component_schemas(
    definitions: Mapping[str, Mapping[str, Any]], roots: Iterable[str]
) -> dict[str, dict[str, Any]]:
    """The converted definitions named in `roots` and every definition they reference, by name."""
    schemas: dict[str, dict[str, Any]] = {}
    pending = list(roots)
    while pending:
        name = pending.pop()
        if name in schemas:
            continue
        source = definitions.get(name)
        if source is None:
            raise ValueError(f"schema definition {name!r} is referenced but not defined")
        references: set[str] = set()
        schemas[name] = convert_definition(name, source, references)
        pending.extend(references.difference(schemas))
    return schemas


def convert_definition(name: str, source: Mapping[str, Any], references: set[str]) -> dict[str, Any]:
    """One kubernetes-validate definition in kube's v3 form; adds the names it references."""
    scalar = _SCALAR_DEFINITIONS.get(name)
    if scalar is not None:
        return {key: _copy_plain(value) for key, value in scalar.items()}
    converted = convert_schema(source, references)
    properties = converted.get("properties")
    if isinstance(properties, dict):
        for field in _TYPE_META_FIELDS:
            # kubernetes-validate pins apiVersion/kind to the kind's own values; kube publishes none.
            field_schema = properties.get(field)
            if isinstance(field_schema, dict):
                field_schema.pop("enum", None)
    return converted


def convert_schema(source: Mapping[str, Any], references: set[str]) -> dict[str, Any]:
    """A kubernetes-validate schema in OpenAPI 3.0 form; adds the definition names it references."""
    converted: dict[str, Any] = {}
    for key, value in source.items():
        if key == "$ref" and isinstance(value, str):
            name = value.removeprefix(SOURCE_REF_PREFIX)
            references.add(name)
            converted[key] = SCHEMA_REF_PREFIX + name
        elif key == "type":
            converted[key] = _without_null(value)
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            converted[key] = {field: convert_schema(sub, references) for field, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            converted[key] = [convert_schema(sub, references) for sub in value]
        elif key in _SCHEMA_VALUES and isinstance(value, Mapping):
            converted[key] = convert_schema(value, references)
        else:
            converted[key] = _copy_plain(value)
    return wrap_reference(converted)


def wrap_reference(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with a `$ref` that has siblings moved into a one-element `allOf`, as kube does."""
    if "$ref" not in schema or len(schema) == 1:
        return schema
    wrapped = {"allOf": [{"$ref": schema.pop("$ref")}]}
    wrapped.update(schema)
    return wrapped


def custom_resource_schema_name(gvk: GroupVersionKind) -> str:
    """The component name kube gives a custom kind: reversed group, version, kind.

    `widgets.example.com/v1 Widget` → `com.example.v1.Widget`.
    """
    reversed_group = ".".join(reversed(gvk.group.split("."))) if gvk.group else ""
    return ".".join(part for part in (reversed_group, gvk.version, gvk.kind) if part)


def custom_resource_schema(
    gvk: GroupVersionKind,
    crd_schema: Mapping[str, Any] | None,
    type_meta: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The component schema of a custom kind, from its CRD version's `openAPIV3Schema`.

    Like apiextensions-apiserver: the CRD schema with `x-kubernetes-int-or-string` and
    `x-kubernetes-embedded-resource` unfolded, plus `apiVersion`, `kind` (`type_meta`: their
    property schemas) and `metadata` (a reference to ObjectMeta) and the GVK extension. Without a
    schema the kind is published as a bare object, so clients accept any field.
    """
    if crd_schema is None:
        return {"type": "object", GVK_EXTENSION: gvk_extension(gvk)}
    schema = _unfold(crd_schema)
    schema.setdefault("type", "object")
    properties = schema.setdefault("properties", {})
    properties["metadata"] = _object_meta_property()
    for field in _TYPE_META_FIELDS:
        properties[field] = _copy_plain(type_meta.get(field, {"type": "string"}))
    schema[GVK_EXTENSION] = gvk_extension(gvk)
    return schema


def custom_resource_list_schema(
    list_gvk: GroupVersionKind,
    item_schema_name: str,
    kind: str,
    plural: str,
    type_meta: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """The component schema of a custom kind's list, shaped like apiextensions-apiserver's."""
    properties: dict[str, Any] = {
        "items": {
            "description": (
                f"List of {plural}. More info: "
                "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
            ),
            "items": schema_ref(item_schema_name),
            "type": "array",
        },
        "metadata": wrap_reference({**schema_ref(LIST_META), "description": LIST_META_DESCRIPTION}),
    }
    for field in _TYPE_META_FIELDS:
        properties[field] = _copy_plain(type_meta.get(field, {"type": "string"}))
    return {
        "description": f"{list_gvk.kind} is a list of {kind}",
        "properties": properties,
        "required": ["items"],
        "type": "object",
        GVK_EXTENSION: gvk_extension(list_gvk),
    }


def _object_meta_property() -> dict[str, Any]:
    return wrap_reference({**schema_ref(OBJECT_META), "description": OBJECT_META_DESCRIPTION})


def _unfold(source: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a CRD schema with the two shorthand extensions spelled out, as kube publishes them."""
    schema: dict[str, Any] = {}
    for key, value in source.items():
        if key in _SCHEMA_MAPS and isinstance(value, Mapping):
            schema[key] = {field: _unfold(sub) for field, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            schema[key] = [_unfold(sub) if isinstance(sub, Mapping) else _copy_plain(sub) for sub in value]
        elif key in _SCHEMA_VALUES and isinstance(value, Mapping):
            schema[key] = _unfold(value)
        else:
            schema[key] = _copy_plain(value)
    if schema.get("x-kubernetes-int-or-string") is True and "anyOf" not in schema:
        schema["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if schema.get("x-kubernetes-embedded-resource") is True:
        properties = schema.setdefault("properties", {})
        properties["apiVersion"] = {"description": _EMBEDDED_API_VERSION_DESCRIPTION, "type": "string"}
        properties["kind"] = {"description": _EMBEDDED_KIND_DESCRIPTION, "type": "string"}
        properties["metadata"] = _object_meta_property()
        required = schema.setdefault("required", [])
        required.extend(field for field in ("kind", "apiVersion") if field not in required)
    return schema


def _without_null(schema_type: Any) -> Any:
    """`["string", "null"]` → `"string"`: OpenAPI 3.0 expresses optional fields by omission."""
    if not isinstance(schema_type, list):
        return schema_type
    types = [name for name in schema_type if name != "null"]
    return types[0] if len(types) == 1 else types


def _copy_plain(value: Any) -> Any:
    """A deep copy of JSON data (much faster than `copy.deepcopy` for these small values)."""
    if isinstance(value, Mapping):
        return {key: _copy_plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copy_plain(item) for item in value]
    return value
