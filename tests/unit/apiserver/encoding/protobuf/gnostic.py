"""An independent reader of gnostic's `openapi_v2` messages, back into Swagger 2.0 JSON.

Typed from `openapiv2/OpenAPIv2.proto` (github.com/google/gnostic) by field number, apart from the
encoder's tables, on the server's wire reader (`wire.iter_fields`); `Any` values are read with
PyYAML, as kubectl reads them with a YAML parser. It reads what the server writes, and inverts the
oneof wrappers the way the JSON had them (a one-name `TypeItem` is a string, a one-schema
`ItemsItem` a schema).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from flotilla.apiserver.encoding.protobuf.wire import WireType, as_double, as_int64, iter_fields

Reader = Callable[[Any], Any]
Table = dict[int, tuple[str, Reader, bool]]
"""A message: field number → (JSON key, reader, repeated)."""
BY_NAME = "<by name>"
"""The key of a field whose `Named…` pairs are entries of the object itself (extensions, paths, codes)."""


def _string(raw: Any) -> str:
    assert isinstance(raw, bytes)
    return raw.decode()


def _bool(raw: Any) -> bool:
    return bool(raw)


def _any(raw: bytes) -> Any:
    fields = {field.number: field.value for field in iter_fields(raw)}
    assert set(fields) == {2}, "an Any holds its value as YAML text (field 2)"
    return yaml.safe_load(_string(fields[2]))


def read(message: Table, raw: Any) -> dict[str, Any]:
    """One message's fields as a JSON object."""
    out: dict[str, Any] = {}
    for field in iter_fields(raw):
        if field.number not in message:
            raise AssertionError(f"unexpected field {field.number}")
        key, reader, repeated = message[field.number]
        value = reader(field.value)
        if key == BY_NAME:
            name, extension = value
            out[name] = extension
        elif repeated:
            out.setdefault(key, []).append(value)
        else:
            out[key] = value
    return out


def _message(table: Table) -> Reader:
    return lambda raw: read(table, raw)


def _named(value: Reader) -> Reader:
    """A `Named…` pair, as (name, value)."""

    def pair(raw: bytes) -> tuple[str, Any]:
        fields = {field.number: field.value for field in iter_fields(raw)}
        return _string(fields.get(1, b"")), value(fields.get(2, b""))

    return pair


def _map(value: Reader, number: int = 1) -> Reader:
    """A message of repeated `Named…` pairs in field `number`, as a JSON object."""

    def read_map(raw: bytes) -> dict[str, Any]:
        pairs = [_named(value)(field.value) for field in iter_fields(raw) if field.number == number]
        return dict(pairs)

    return read_map


_EXTENSION = (BY_NAME, _named(_any), False)
_SCHEMA: Table = {}


def _type_item(raw: bytes) -> Any:
    names = [_string(field.value) for field in iter_fields(raw)]
    return names[0] if len(names) == 1 else names


def _items_item(raw: bytes) -> Any:
    items = [read(_SCHEMA, field.value) for field in iter_fields(raw)]
    return items[0] if len(items) == 1 else items


def _additional_properties(raw: bytes) -> Any:
    (field,) = list(iter_fields(raw))
    return read(_SCHEMA, field.value) if field.number == 1 else bool(field.value)


_SCHEMA.update(
    {
        1: ("$ref", _string, False),
        2: ("format", _string, False),
        3: ("title", _string, False),
        4: ("description", _string, False),
        5: ("default", _any, False),
        6: ("multipleOf", as_double, False),
        7: ("maximum", as_double, False),
        8: ("exclusiveMaximum", _bool, False),
        9: ("minimum", as_double, False),
        10: ("exclusiveMinimum", _bool, False),
        11: ("maxLength", as_int64, False),
        12: ("minLength", as_int64, False),
        13: ("pattern", _string, False),
        14: ("maxItems", as_int64, False),
        15: ("minItems", as_int64, False),
        16: ("uniqueItems", _bool, False),
        17: ("maxProperties", as_int64, False),
        18: ("minProperties", as_int64, False),
        19: ("required", _string, True),
        20: ("enum", _any, True),
        21: ("additionalProperties", _additional_properties, False),
        22: ("type", _type_item, False),
        23: ("items", _items_item, False),
        24: ("allOf", lambda raw: read(_SCHEMA, raw), True),
        25: ("properties", _map(lambda raw: read(_SCHEMA, raw)), False),
        26: ("discriminator", _string, False),
        27: ("readOnly", _bool, False),
        30: ("example", _any, False),
        31: _EXTENSION,
    }
)
_NON_BODY_COMMON: Table = {
    1: ("required", _bool, False),
    2: ("in", _string, False),
    3: ("description", _string, False),
    4: ("name", _string, False),
}
_QUERY: Table = {
    **_NON_BODY_COMMON,
    6: ("type", _string, False),
    20: ("uniqueItems", _bool, False),
    23: _EXTENSION,
}
_PATH: Table = {
    **_NON_BODY_COMMON,
    5: ("type", _string, False),
    19: ("uniqueItems", _bool, False),
    22: _EXTENSION,
}
_BODY: Table = {
    1: ("description", _string, False),
    2: ("name", _string, False),
    3: ("in", _string, False),
    4: ("required", _bool, False),
    5: ("schema", _message(_SCHEMA), False),
    6: _EXTENSION,
}


def _one(raw: bytes) -> tuple[int, bytes]:
    (field,) = list(iter_fields(raw))
    assert field.wire_type is WireType.LENGTH_DELIMITED
    assert isinstance(field.value, bytes)
    return field.number, field.value


def _parameters_item(raw: bytes) -> Any:
    number, inner = _one(raw)
    if number == 2:
        reference: Table = {1: ("$ref", _string, False), 2: ("description", _string, False)}
        return read(reference, inner)
    number, parameter = _one(inner)
    if number == 1:
        return read(_BODY, parameter)
    number, sub_schema = _one(parameter)
    assert number in (3, 4), "only query (3) and path (4) parameters are expected"
    return read(_QUERY if number == 3 else _PATH, sub_schema)


def _response_value(raw: bytes) -> Any:
    number, inner = _one(raw)
    assert number == 1
    table: Table = {
        1: ("description", _string, False),
        2: ("schema", lambda item: read(_SCHEMA, _one(item)[1]), False),
        5: _EXTENSION,
    }
    return read(table, inner)


def _responses(raw: bytes) -> dict[str, Any]:
    return read({1: (BY_NAME, _named(_response_value), False), 2: _EXTENSION}, raw)


_OPERATION: Table = {
    1: ("tags", _string, True),
    2: ("summary", _string, False),
    3: ("description", _string, False),
    5: ("operationId", _string, False),
    6: ("produces", _string, True),
    7: ("consumes", _string, True),
    8: ("parameters", _parameters_item, True),
    9: ("responses", _responses, False),
    10: ("schemes", _string, True),
    11: ("deprecated", _bool, False),
    13: _EXTENSION,
}
_PATH_ITEM: Table = {
    **{number: (method, _message(_OPERATION), False) for number, method in enumerate(
        ("get", "put", "post", "delete", "options", "head", "patch"), start=2
    )},
    9: ("parameters", _parameters_item, True),
    10: _EXTENSION,
}  # fmt: skip


def _security_scheme(raw: bytes) -> Any:
    number, inner = _one(raw)
    assert number == 2, "only API key schemes (2) are expected"
    table: Table = {
        1: ("type", _string, False),
        2: ("name", _string, False),
        3: ("in", _string, False),
        4: ("description", _string, False),
    }
    return read(table, inner)


def _security_requirement(raw: bytes) -> Any:
    return _map(lambda names: [_string(field.value) for field in iter_fields(names)])(raw)


DOCUMENT: Table = {
    1: ("swagger", _string, False),
    2: ("info", _message({1: ("title", _string, False), 2: ("version", _string, False)}), False),
    8: (
        "paths",
        lambda raw: read({1: _EXTENSION, 2: (BY_NAME, _named(_message(_PATH_ITEM)), False)}, raw),
        False,
    ),
    9: ("definitions", _map(lambda raw: read(_SCHEMA, raw)), False),
    12: ("security", _security_requirement, True),
    13: ("securityDefinitions", _map(_security_scheme), False),
    16: _EXTENSION,
}


def read_document(raw: bytes) -> dict[str, Any]:
    """gnostic `openapi_v2.Document` bytes as the Swagger 2.0 JSON they were written from."""
    return read(DOCUMENT, raw)
