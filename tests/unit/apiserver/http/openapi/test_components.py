"""Tests for the conversion of kubernetes-validate definitions and CRD schemas to kube's v3 form."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.http.openapi.components import (
    INT_OR_STRING,
    OBJECT_META,
    QUANTITY,
    component_schemas,
    convert_definition,
    convert_schema,
    custom_resource_list_schema,
    custom_resource_schema,
    custom_resource_schema_name,
)
from flotilla.apiserver.registry.schema.builtin import builtin_schemas

WIDGET = GroupVersionKind("example.com", "v1", "Widget")
TYPE_META = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}}


def test_nullable_types_become_plain_types() -> None:
    """`["integer", "null"]` is published as `integer`, since OpenAPI 3.0 has no null type."""
    converted = convert_schema({"type": ["integer", "null"], "format": "int32"}, set())
    assert converted == {"type": "integer", "format": "int32"}


def test_reference_with_description_is_wrapped_in_all_of() -> None:
    """A `$ref` with siblings becomes a one-element `allOf`, keeping the siblings beside it."""
    references: set[str] = set()
    converted = convert_schema({"$ref": "#/$defs/a.B", "description": "the b"}, references)
    assert converted == {"allOf": [{"$ref": "#/components/schemas/a.B"}], "description": "the b"}
    assert references == {"a.B"}


def test_bare_reference_stays_bare() -> None:
    """A `$ref` alone (like an array's items) is only re-pointed at `components/schemas`."""
    converted = convert_schema({"type": ["array", "null"], "items": {"$ref": "#/$defs/a.B"}}, set())
    assert converted == {"type": "array", "items": {"$ref": "#/components/schemas/a.B"}}


def test_property_named_ref_is_not_a_reference() -> None:
    """JSONSchemaProps' property called `$ref` stays a property schema, not a link."""
    name = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps"
    references: set[str] = set()
    converted = convert_definition(name, builtin_schemas().definitions[name], references)
    assert converted["properties"]["$ref"] == {"type": "string"}
    assert all(not ref.startswith("#") for ref in references)


def test_type_meta_enums_are_dropped() -> None:
    """kubernetes-validate's `enum` on apiVersion and kind is not published."""
    name = "io.k8s.api.apps.v1.Deployment"
    converted = convert_definition(name, builtin_schemas().definitions[name], set())
    assert "enum" not in converted["properties"]["apiVersion"]
    assert "enum" not in converted["properties"]["kind"]
    assert converted["properties"]["kind"]["type"] == "string"


def test_int_or_string_and_quantity_take_kubes_shape() -> None:
    """IntOrString has format int-or-string and Quantity a string-or-number oneOf, as kube publishes."""
    schemas = component_schemas(builtin_schemas().definitions, [INT_OR_STRING, QUANTITY])
    assert schemas[INT_OR_STRING]["format"] == "int-or-string"
    assert schemas[INT_OR_STRING]["oneOf"] == [{"type": "integer"}, {"type": "string"}]
    assert schemas[QUANTITY]["oneOf"] == [{"type": "string"}, {"type": "number"}]


def test_component_schemas_follow_references_transitively() -> None:
    """Converting Deployment pulls in DeploymentSpec, PodSpec, ObjectMeta and what they use."""
    schemas = component_schemas(builtin_schemas().definitions, ["io.k8s.api.apps.v1.Deployment"])
    assert {"io.k8s.api.apps.v1.DeploymentSpec", "io.k8s.api.core.v1.PodSpec", OBJECT_META} <= set(schemas)
    assert "io.k8s.api.batch.v1.Job" not in schemas


def test_component_schemas_reject_dangling_references() -> None:
    """A reference to a definition that does not exist is an error, not a broken document."""
    definitions: dict[str, Any] = {"a.A": {"properties": {"b": {"$ref": "#/$defs/a.Missing"}}}}
    with pytest.raises(ValueError, match=r"a\.Missing"):
        component_schemas(definitions, ["a.A"])


def test_custom_resource_schema_name_reverses_the_group() -> None:
    """Custom kinds are named like kube names them: `com.example.v1.Widget`."""
    assert custom_resource_schema_name(WIDGET) == "com.example.v1.Widget"


def test_custom_resource_schema_adds_type_meta_metadata_and_gvk() -> None:
    """The CRD schema gains apiVersion, kind, metadata (→ ObjectMeta) and the GVK extension."""
    crd_schema = {"type": "object", "properties": {"spec": {"type": "object"}}}
    schema = custom_resource_schema(WIDGET, crd_schema, TYPE_META)
    assert schema["properties"]["metadata"]["allOf"] == [{"$ref": f"#/components/schemas/{OBJECT_META}"}]
    assert schema["properties"]["apiVersion"] == {"type": "string"}
    assert schema["properties"]["spec"] == {"type": "object"}
    assert schema["x-kubernetes-group-version-kind"] == [
        {"group": "example.com", "kind": "Widget", "version": "v1"}
    ]
    assert set(crd_schema["properties"]) == {"spec"}, "the CRD's own schema must not be modified"


def test_custom_resource_schema_unfolds_int_or_string_and_embedded_resources() -> None:
    """`x-kubernetes-int-or-string` gains an integer|string anyOf; embedded resources gain type meta."""
    crd_schema = {
        "type": "object",
        "properties": {
            "port": {"x-kubernetes-int-or-string": True},
            "template": {"type": "object", "x-kubernetes-embedded-resource": True},
        },
    }
    schema = custom_resource_schema(WIDGET, crd_schema, TYPE_META)
    assert schema["properties"]["port"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    template = schema["properties"]["template"]
    assert set(template["properties"]) == {"apiVersion", "kind", "metadata"}
    assert template["required"] == ["kind", "apiVersion"]


def test_custom_resource_without_schema_is_a_bare_object() -> None:
    """Without a schema the kind is an object with only its GVK, so clients accept any field."""
    schema = custom_resource_schema(WIDGET, None, TYPE_META)
    assert schema == {
        "type": "object",
        "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Widget", "version": "v1"}],
    }


def test_custom_resource_list_schema_lists_the_kind() -> None:
    """The list schema's items refer to the kind and its GVK names the list kind."""
    list_gvk = GroupVersionKind("example.com", "v1", "WidgetList")
    schema = custom_resource_list_schema(list_gvk, "com.example.v1.Widget", "Widget", "widgets", TYPE_META)
    assert schema["properties"]["items"]["items"] == {"$ref": "#/components/schemas/com.example.v1.Widget"}
    assert schema["required"] == ["items"]
    assert schema["x-kubernetes-group-version-kind"][0]["kind"] == "WidgetList"
