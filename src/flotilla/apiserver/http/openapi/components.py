"""The schemas of the OpenAPI documents, in the shape kube-apiserver publishes them.

One source, two spellings (`Dialect`): an `/openapi/v3` document's `components.schemas` and the
`definitions` of `/openapi/v2` (Swagger 2.0) are converted from the same definitions by the same
walk; the dialect decides where references point, whether a reference with siblings is wrapped,
and how the two scalar types are spelled.

Built-in kinds come from kubernetes-validate's JSON-schema definitions, which differ from what a
real API server publishes in a few ways that clients notice:

- references point at `#/$defs/<name>`; OpenAPI wants `#/components/schemas/<name>`;
- optional fields are typed `["string", "null"]`; OpenAPI 3.0 has no null type, and kubectl's
  explain templates compare `type` with a string;
- `apiVersion` and `kind` carry an `enum` kube never publishes;
- IntOrString and Quantity are bare `oneOf`s without kube's description and format;
- OpenAPI 3.0 ignores the siblings of a `$ref`, so kube wraps a reference that carries a
  description or an extension as `{"allOf": [{"$ref": ...}], "description": ...}` — kubectl's
  explain reads the description from the wrapper and the type from inside it. Its v2 document
  keeps the siblings beside the `$ref`, which is what kubectl's v2 parser expects.

`component_schemas` converts the definitions reachable from a set of root names (following
references transitively) and nothing else, so a document only carries what its kinds use. The walk
is schema-aware: only keywords that hold schemas are descended into, so a property *named* `$ref`
(JSONSchemaProps has one) is not mistaken for a reference.

Custom resources get their kind schema from the CRD version's `openAPIV3Schema`, completed the way
apiextensions-apiserver completes it (`custom_resource_schema`, `custom_resource_list_schema`); for
v2 it first goes through `structuralv2.swagger2_schema`, which keeps what Swagger 2.0 can hold.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.scheme import GroupVersionKind

from .structuralv2 import PRESERVE_UNKNOWN_FIELDS, swagger2_schema

SCHEMA_REF_PREFIX = "#/components/schemas/"
DEFINITION_REF_PREFIX = "#/definitions/"
SOURCE_REF_PREFIX = "#/$defs/"


class Dialect(enum.Enum):
    """Which document a schema is written for; the value is where its references point."""

    OPENAPI_V3 = SCHEMA_REF_PREFIX
    SWAGGER_2 = DEFINITION_REF_PREFIX


OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

GVK_EXTENSION = "x-kubernetes-group-version-kind"

_SCHEMA_MAPS = frozenset({"properties", "patternProperties"})
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
_SCHEMA_VALUES = frozenset({"items", "additionalProperties", "not"})
_TYPE_META_FIELDS = ("apiVersion", "kind")

_INT_OR_STRING_DESCRIPTION = (
    "IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML "
    "marshalling and unmarshalling, it produces or consumes the inner type.  This allows you "
    "to have, for example, a JSON field that can accept a name or number."
)
_QUANTITY_DESCRIPTION = (
    "Quantity is a fixed-point representation of a number. It provides convenient "
    "marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors."
)
_SCALAR_DEFINITIONS: Mapping[Dialect, Mapping[str, Mapping[str, Any]]] = {
    Dialect.OPENAPI_V3: {
        INT_OR_STRING: {
            "description": _INT_OR_STRING_DESCRIPTION,
            "format": "int-or-string",
            "oneOf": [{"type": "integer"}, {"type": "string"}],
        },
        QUANTITY: {
            "description": _QUANTITY_DESCRIPTION,
            "oneOf": [{"type": "string"}, {"type": "number"}],
        },
    },
    Dialect.SWAGGER_2: {
        INT_OR_STRING: {
            "description": _INT_OR_STRING_DESCRIPTION,
            "format": "int-or-string",
            "type": "string",
        },
        QUANTITY: {"description": _QUANTITY_DESCRIPTION, "type": "string"},
    },
}
"""kube-apiserver's own spelling of the two scalar types kubernetes-validate reduces to `oneOf`s
(Swagger 2.0 has no `oneOf`: there they are strings)."""

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


def schema_ref(name: str, dialect: Dialect = Dialect.OPENAPI_V3) -> dict[str, Any]:
    """A reference to the component schema (v2: definition) `name`."""
    return {"$ref": dialect.value + name}


def gvk_extension(gvk: GroupVersionKind) -> list[dict[str, str]]:
    """The `x-kubernetes-group-version-kind` value of a kind's schema."""
    return [{"group": gvk.group, "kind": gvk.kind, "version": gvk.version}]


def component_schemas(
    definitions: Mapping[str, Mapping[str, Any]],
    roots: Iterable[str],
    dialect: Dialect = Dialect.OPENAPI_V3,
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
        schemas[name] = convert_definition(name, source, references, dialect)
        pending.extend(references.difference(schemas))
    return schemas


def convert_definition(
    name: str,
    source: Mapping[str, Any],
    references: set[str],
    dialect: Dialect = Dialect.OPENAPI_V3,
) -> dict[str, Any]:
    """One kubernetes-validate definition in kube's form; adds the names it references."""
    scalar = _SCALAR_DEFINITIONS[dialect].get(name)
    if scalar is not None:
        return {key: _copy_plain(value) for key, value in scalar.items()}
    converted = convert_schema(source, references, dialect)
    properties = converted.get("properties")
    if isinstance(properties, dict):
        for field in _TYPE_META_FIELDS:
            # kubernetes-validate pins apiVersion/kind to the kind's own values; kube publishes none.
            field_schema = properties.get(field)
            if isinstance(field_schema, dict):
                field_schema.pop("enum", None)
    return converted


def convert_schema(
    source: Mapping[str, Any], references: set[str], dialect: Dialect = Dialect.OPENAPI_V3
) -> dict[str, Any]:
    """A kubernetes-validate schema in `dialect`'s form; adds the definition names it references.

    Swagger 2.0 has no `oneOf`/`anyOf`/`not`/`allOf`; the built-in definitions use them only for
    the two scalar types, which `convert_definition` spells for v2 directly.
    """
    converted: dict[str, Any] = {}
    for key, value in source.items():
        if key == "$ref" and isinstance(value, str):
            name = value.removeprefix(SOURCE_REF_PREFIX)
            references.add(name)
            converted[key] = dialect.value + name
        elif key == "type":
            converted[key] = _without_null(value)
        elif key in _SCHEMA_MAPS and isinstance(value, Mapping):
            converted[key] = {field: convert_schema(sub, references, dialect) for field, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            if dialect is Dialect.OPENAPI_V3:
                converted[key] = [convert_schema(sub, references, dialect) for sub in value]
        elif key in _SCHEMA_VALUES and isinstance(value, Mapping):
            if key != "not" or dialect is Dialect.OPENAPI_V3:
                converted[key] = convert_schema(value, references, dialect)
        else:
            converted[key] = _copy_plain(value)
    return wrap_reference(converted, dialect)


def wrap_reference(schema: dict[str, Any], dialect: Dialect = Dialect.OPENAPI_V3) -> dict[str, Any]:
    """`schema` with a `$ref` that has siblings moved into a one-element `allOf`, as kube does in
    v3 (its v2 document keeps them beside the `$ref`)."""
    if "$ref" not in schema or len(schema) == 1 or dialect is Dialect.SWAGGER_2:
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
    dialect: Dialect = Dialect.OPENAPI_V3,
) -> dict[str, Any]:
    """The component schema of a custom kind, from its CRD version's `openAPIV3Schema`.

    Like apiextensions-apiserver: the CRD schema with `x-kubernetes-int-or-string` and
    `x-kubernetes-embedded-resource` unfolded, plus `apiVersion`, `kind` (`type_meta`: their
    property schemas) and `metadata` (a reference to ObjectMeta) and the GVK extension. Without a
    schema the kind is published as a bare object, so clients accept any field; in v2 also when
    the schema keeps unknown fields at its root (kubectl's v2 validation would refuse them
    otherwise).
    """
    if crd_schema is None or (
        dialect is Dialect.SWAGGER_2 and crd_schema.get(PRESERVE_UNKNOWN_FIELDS) is True
    ):
        return {"type": "object", GVK_EXTENSION: gvk_extension(gvk)}
    if dialect is Dialect.SWAGGER_2:
        schema = swagger2_schema(crd_schema)
        _add_embedded_properties(schema, dialect)
    else:
        schema = _unfold(crd_schema)
    schema.setdefault("type", "object")
    properties = schema.setdefault("properties", {})
    properties["metadata"] = _object_meta_property(dialect)
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
    dialect: Dialect = Dialect.OPENAPI_V3,
) -> dict[str, Any]:
    """The component schema of a custom kind's list, shaped like apiextensions-apiserver's."""
    properties: dict[str, Any] = {
        "items": {
            "description": (
                f"List of {plural}. More info: "
                "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"
            ),
            "items": schema_ref(item_schema_name, dialect),
            "type": "array",
        },
        "metadata": wrap_reference(
            {**schema_ref(LIST_META, dialect), "description": LIST_META_DESCRIPTION}, dialect
        ),
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


def _object_meta_property(dialect: Dialect) -> dict[str, Any]:
    return wrap_reference(
        {**schema_ref(OBJECT_META, dialect), "description": OBJECT_META_DESCRIPTION}, dialect
    )


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
    _embed_resource_properties(schema, Dialect.OPENAPI_V3)
    return schema


def _add_embedded_properties(schema: dict[str, Any], dialect: Dialect) -> None:
    """Spell out every embedded resource below `schema` (in place), as kube does for v2: not where
    unknown fields are kept, since kubectl's v2 validation would then refuse the unknown ones."""
    for sub in schema.get("properties", {}).values():
        _add_embedded_properties(sub, dialect)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _add_embedded_properties(schema[key], dialect)
    if schema.get(PRESERVE_UNKNOWN_FIELDS) is not True:
        _embed_resource_properties(schema, dialect)


def _embed_resource_properties(schema: dict[str, Any], dialect: Dialect) -> None:
    """An `x-kubernetes-embedded-resource` schema gets apiVersion, kind and metadata, kind and
    apiVersion required."""
    if schema.get("x-kubernetes-embedded-resource") is not True:
        return
    properties = schema.setdefault("properties", {})
    properties["apiVersion"] = {"description": _EMBEDDED_API_VERSION_DESCRIPTION, "type": "string"}
    properties["kind"] = {"description": _EMBEDDED_KIND_DESCRIPTION, "type": "string"}
    properties["metadata"] = _object_meta_property(dialect)
    required = schema.setdefault("required", [])
    required.extend(field for field in ("kind", "apiVersion") if field not in required)


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
