"""What `/openapi/v2` keeps of a CRD schema: apiextensions-apiserver's ToStructuralOpenAPIV2, and no more."""

from __future__ import annotations

from flotilla.apiserver.http.openapi.structuralv2 import swagger2_schema


def test_junctors_go() -> None:
    schema = {"type": "object", "anyOf": [{}], "allOf": [{}], "oneOf": [{}], "not": {}}
    assert swagger2_schema(schema) == {"type": "object"}


def test_a_nullable_schema_loses_its_type_items_and_properties() -> None:
    nullable = {"type": "array", "nullable": True, "items": {"type": "string"}, "description": "d"}
    assert swagger2_schema(nullable) == {"description": "d"}


def test_a_nullable_field_is_not_required() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {"a": {"type": "string", "nullable": True}, "b": {"type": "string"}},
    }
    assert swagger2_schema(schema)["required"] == ["b"]
    schema["required"] = ["a"]
    assert "required" not in swagger2_schema(schema)


def test_nullable_additional_properties_drop_every_requirement() -> None:
    schema = {
        "type": "object",
        "required": ["a"],
        "additionalProperties": {"type": "string", "nullable": True},
    }
    assert "required" not in swagger2_schema(schema)


def test_unknown_fields_kept_mean_no_items_properties_or_object_type() -> None:
    kept = {
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": True,
        "properties": {"a": {"type": "string"}},
    }
    assert swagger2_schema(kept) == {"x-kubernetes-preserve-unknown-fields": True}
    listed = {"type": "array", "x-kubernetes-preserve-unknown-fields": True, "items": {"type": "string"}}
    assert swagger2_schema(listed) == {"x-kubernetes-preserve-unknown-fields": True}


def test_an_array_without_items_loses_its_type() -> None:
    assert swagger2_schema({"type": "array"}) == {}
    assert swagger2_schema({"type": "array", "items": [{"type": "string"}]}) == {}


def test_defaults_and_keywords_swagger_2_lacks_are_dropped() -> None:
    schema = {
        "type": "string",
        "default": "x",
        "patternProperties": {"a": {}},
        "$ref": "#/x",
        "maxLength": True,
        "title": 3,
    }
    assert swagger2_schema(schema) == {"type": "string"}


def test_an_unknown_type_name_is_dropped() -> None:
    assert swagger2_schema({"type": "null"}) == {}
    assert swagger2_schema({"type": ["string", "integer"]}) == {}


def test_validations_and_extensions_stay() -> None:
    schema = {
        "type": "integer",
        "minimum": 0,
        "maximum": 10,
        "exclusiveMaximum": True,
        "enum": [1, 2],
        "x-kubernetes-validations": [{"rule": "self > 0"}],
        "example": 1,
    }
    assert swagger2_schema(schema) == schema


def test_nested_schemas_are_converted_too() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"type": "object", "nullable": True, "properties": {}}}
        },
        "additionalProperties": {"oneOf": [{}], "type": "string"},
    }
    assert swagger2_schema(schema) == {
        "type": "object",
        "properties": {"a": {"type": "array", "items": {}}},
        "additionalProperties": {"type": "string"},
    }
