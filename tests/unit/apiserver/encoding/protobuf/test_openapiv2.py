"""The `/openapi/v2` document as gnostic protobuf: read back independently, it is the JSON document."""

from __future__ import annotations

import functools
import struct
from typing import Any

import pytest

from flotilla.apiserver.encoding.protobuf.jsonmessages import Message, encode, string
from flotilla.apiserver.encoding.protobuf.openapiv2 import encode_document
from flotilla.apiserver.encoding.protobuf.wire import WireField, WireType, iter_fields, read_varint
from flotilla.apiserver.encoding.protobuf.writer import MessageWriter, varint
from tests.unit.apiserver.http.openapi.swagger2_fixtures import swagger_document

from .gnostic import read_document

_FREE_FORM = frozenset({"default", "example", "enum"})
"""gnostic `Any`s: kept whole, whatever they hold."""
_MAPS = frozenset({"paths", "definitions", "properties", "responses", "securityDefinitions"})
"""JSON objects whose keys are names, not keywords."""


def expected(message: dict[str, Any]) -> dict[str, Any]:
    """What a proto3 message keeps of a JSON object: scalars equal to their default are not written."""
    kept: dict[str, Any] = {}
    for key, value in message.items():
        if (
            key.startswith("x-")
            or key in _FREE_FORM
            or key == "security"
            or (isinstance(value, bool) and key == "additionalProperties")
        ):
            kept[key] = value
        elif key in _MAPS:
            kept[key] = {name: expected(sub) for name, sub in value.items()}
        elif isinstance(value, dict):
            kept[key] = expected(value)
        elif isinstance(value, list):
            if value:
                kept[key] = [expected(item) if isinstance(item, dict) else item for item in value]
        elif value not in ("", 0, False) or value is None:
            kept[key] = value
    return kept


@functools.cache
def decoded_document() -> dict[str, Any]:
    """The fixture document encoded by the server's encoder and read back by the independent reader."""
    return read_document(encode_document(swagger_document()))


def test_the_document_reads_back_as_its_json() -> None:
    """Every built-in kind and a custom kind with every awkward shape: protobuf and JSON agree."""
    assert decoded_document() == expected(swagger_document())


def test_maps_keep_the_documents_order() -> None:
    document = swagger_document()
    decoded = decoded_document()
    assert list(decoded["paths"]) == list(document["paths"])
    assert list(decoded["definitions"]) == list(document["definitions"])


def test_vendor_extensions_hold_yaml_kubectl_can_read() -> None:
    """The group-version-kind extension reads back (with a YAML parser) as the list of maps it was."""
    decoded = decoded_document()
    deployment = decoded["definitions"]["io.k8s.api.apps.v1.Deployment"]
    assert deployment["x-kubernetes-group-version-kind"] == [
        {"group": "apps", "kind": "Deployment", "version": "v1"}
    ]
    patch = decoded["paths"]["/api/v1/namespaces/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "", "kind": "Namespace", "version": "v1"}
    assert "fieldValidation" in [parameter.get("name") for parameter in patch["parameters"]]


def test_a_false_additional_properties_is_written() -> None:
    """A oneof boolean is present even when false: `additionalProperties: false` must survive."""
    document = {
        "swagger": "2.0",
        "definitions": {"closed": {"type": "object", "additionalProperties": False}},
    }
    decoded = read_document(encode_document(document))
    assert decoded["definitions"]["closed"]["additionalProperties"] is False


def test_an_empty_properties_object_is_present() -> None:
    """An object with no declared fields differs from a map: the empty message is written."""
    document = {"swagger": "2.0", "definitions": {"empty": {"type": "object", "properties": {}}}}
    assert read_document(encode_document(document))["definitions"]["empty"] == {
        "type": "object",
        "properties": {},
    }


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(ValueError, match="Schema has no field 'nullable'"):
        encode_document({"definitions": {"a": {"nullable": True}}})
    with pytest.raises(TypeError, match="expected a string"):
        encode_document({"swagger": 2})


def test_fields_are_written_in_field_number_order() -> None:
    message = Message("M", {"b": (2, string), "a": (1, string)})
    assert [field.number for field in iter_fields(encode(message, {"b": "x", "a": "y"}))] == [1, 2]


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**63 - 1, -1, -(2**63)])
def test_varints_read_back(value: int) -> None:
    decoded, end = read_varint(varint(value), 0)
    assert decoded == value & (2**64 - 1)
    assert end == len(varint(value))
    assert len(varint(-1)) == 10


def test_proto3_defaults_are_left_out_and_messages_kept() -> None:
    writer = MessageWriter()
    writer.string(1, "")
    writer.boolean(2, False)
    writer.int64(3, 0)
    writer.double(4, 0.0)
    writer.message(5, b"")
    writer.double(6, 1.5)
    assert list(iter_fields(writer.getvalue())) == [
        WireField(5, WireType.LENGTH_DELIMITED, b""),
        WireField(6, WireType.FIXED64, int.from_bytes(struct.pack("<d", 1.5), "little")),
    ]
