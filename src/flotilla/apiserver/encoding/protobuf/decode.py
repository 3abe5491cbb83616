"""Decode a Kubernetes protobuf request body into the JSON object Kubernetes would show for it.

kubectl's generators and every Go typed client send `Content-Type: application/vnd.kubernetes.protobuf`
bodies. Such a body is the 4-byte magic `k8s\\x00` followed by a `runtime.Unknown` envelope:

    1 typeMeta {1 apiVersion, 2 kind}   2 raw (the object's own message)
    3 contentEncoding                   4 contentType

`decode_object` checks the magic, reads the envelope, looks up the message for `(apiVersion, kind)`
in the field tables, and decodes `raw` the way kube-apiserver would: protobuf into the Go struct,
then `encoding/json` out of it. So the result is the JSON a Go server would print, key for key:

- Fields absent from the wire take Go's zero value. Pointers, slices and maps stay nil (omitted
  when the JSON tag says `omitempty`, `null` otherwise); value scalars become `""`, `0`, `false`
  (omitted under `omitempty`); value structs always show (`"status": {}`), and a zero `metav1.Time`
  is `null` — hence kubectl's familiar `"creationTimestamp": null`.
- A present pointer field shows even when it holds a zero value (`"replicas": 0`).
- `bytes` fields are base64 strings; maps are JSON objects; `inline` structs merge their keys into
  the parent; apimachinery's special types render as `wellknown.py` describes.
- Proto semantics are kept: the last occurrence of a scalar wins, repeated occurrences of a message
  field merge, packed and unpacked repeated scalars are both accepted, unknown fields are skipped.

Malformed bodies raise `ProtobufError` (answer 400); a well-formed body of a kind without a table
raises its subclass `UnsupportedKindError` (answer 415).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import orjson

from flotilla.apiserver.encoding.protobuf.descriptors import KINDS, LIST_WRAPPERS, MESSAGES
from flotilla.apiserver.encoding.protobuf.model import (
    BYTES,
    INLINE,
    OMITEMPTY,
    POINTER,
    REPEATED,
    Field,
    MapOf,
    Scalar,
)
from flotilla.apiserver.encoding.protobuf.wellknown import RENDERERS
from flotilla.apiserver.encoding.protobuf.wire import (
    ProtobufError,
    WireField,
    WireType,
    as_double,
    as_float,
    as_int32,
    as_int64,
    as_uint32,
    iter_fields,
    unpack_fixed,
    unpack_varints,
)

MAGIC: Final = b"k8s\x00"
"""The four bytes every Kubernetes protobuf body starts with."""

PROTOBUF_CONTENT_TYPE: Final = "application/vnd.kubernetes.protobuf"

_SCALAR_WIRE_TYPES: Final[Mapping[Scalar, WireType]] = MappingProxyType(
    {
        Scalar.STRING: WireType.LENGTH_DELIMITED,
        Scalar.BYTES: WireType.LENGTH_DELIMITED,
        Scalar.BOOL: WireType.VARINT,
        Scalar.INT32: WireType.VARINT,
        Scalar.INT64: WireType.VARINT,
        Scalar.UINT32: WireType.VARINT,
        Scalar.UINT64: WireType.VARINT,
        Scalar.DOUBLE: WireType.FIXED64,
        Scalar.FLOAT: WireType.FIXED32,
    }
)

_SCALAR_ZEROS: Final[Mapping[Scalar, Any]] = MappingProxyType(
    {
        Scalar.STRING: "",
        Scalar.BYTES: "",
        Scalar.BOOL: False,
        Scalar.INT32: 0,
        Scalar.INT64: 0,
        Scalar.UINT32: 0,
        Scalar.UINT64: 0,
        Scalar.DOUBLE: 0.0,
        Scalar.FLOAT: 0.0,
    }
)

_FIELDS_BY_NUMBER: Final[Mapping[str, Mapping[int, Field]]] = MappingProxyType(
    {name: {field.number: field for field in fields} for name, fields in MESSAGES.items()}
)


class UnsupportedKindError(ProtobufError):
    """The body is well-formed protobuf, but this server has no table for its kind."""

    def __init__(self, api_version: str, kind: str) -> None:
        super().__init__(f"no protobuf decoding known for {api_version}, Kind={kind}")
        self.api_version = api_version
        self.kind = kind


def supported_kinds() -> frozenset[tuple[str, str]]:
    """Every `(apiVersion, kind)` whose protobuf body `decode_object` can read."""
    return frozenset(KINDS)


def decode_object(body: bytes) -> dict[str, Any]:
    """Decode a `k8s\\x00`-prefixed protobuf body into the object's JSON dict (`kind`, `apiVersion` first)."""
    if not body.startswith(MAGIC):
        raise ProtobufError(
            "protobuf body does not start with the Kubernetes magic bytes 6b 38 73 00 (k8s\\0)"
        )
    api_version, kind, raw, content_encoding, content_type = _read_envelope(body[len(MAGIC) :])
    if content_encoding:
        raise ProtobufError(f"unsupported contentEncoding {content_encoding!r} in protobuf envelope")
    if content_type.split(";", 1)[0].strip() == "application/json":
        return _embedded_json(raw, api_version, kind)
    if content_type not in ("", PROTOBUF_CONTENT_TYPE):
        raise ProtobufError(f"unsupported contentType {content_type!r} in protobuf envelope")
    message = KINDS.get((api_version, kind))
    if message is None:
        raise UnsupportedKindError(api_version, kind)
    decoded = decode_message(message, raw, path="")
    return {"kind": kind, "apiVersion": api_version, **decoded}


def _read_envelope(payload: bytes) -> tuple[str, str, bytes, str, str]:
    """(apiVersion, kind, raw, contentEncoding, contentType) of a `runtime.Unknown` message."""
    api_version = kind = content_encoding = content_type = ""
    raw = b""
    for item in iter_fields(payload):
        if item.number == 1:
            for meta in iter_fields(_payload(item, "typeMeta")):
                if meta.number == 1:
                    api_version = _text(_payload(meta, "typeMeta.apiVersion"))
                elif meta.number == 2:
                    kind = _text(_payload(meta, "typeMeta.kind"))
        elif item.number == 2:
            raw = _payload(item, "raw")
        elif item.number == 3:
            content_encoding = _text(_payload(item, "contentEncoding"))
        elif item.number == 4:
            content_type = _text(_payload(item, "contentType"))
    return api_version, kind, raw, content_encoding, content_type


def _embedded_json(raw: bytes, api_version: str, kind: str) -> dict[str, Any]:
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise ProtobufError(f"envelope says application/json but raw is not JSON: {error}") from None
    if not isinstance(document, dict):
        raise ProtobufError("envelope says application/json but raw is not a JSON object")
    return {"kind": kind, "apiVersion": api_version, **document}


def decode_message(name: str, payload: bytes, path: str) -> Any:
    """The JSON value of message `name` encoded in `payload`; `path` locates it for error messages."""
    renderer = RENDERERS.get(name)
    if renderer is not None:
        return renderer(payload)
    fields = MESSAGES.get(name)
    if fields is None:
        raise ProtobufError(f"no protobuf table for message {name} at {path or '<root>'}")
    by_number = _FIELDS_BY_NUMBER[name]
    occurrences: dict[int, list[WireField]] = {}
    for item in iter_fields(payload):
        if item.number in by_number:
            occurrences.setdefault(item.number, []).append(item)
    if name in LIST_WRAPPERS:
        (items,) = fields
        return _repeated(items, occurrences.get(items.number, []), path) or None  # Go: a nil slice
    result: dict[str, Any] = {}
    for field in fields:
        _set_field(result, field, occurrences.get(field.number), path)
    return result


def _set_field(result: dict[str, Any], field: Field, items: list[WireField] | None, path: str) -> None:
    """Put `field` into `result` as Go's encoding/json would after unmarshalling `items`."""
    where = f"{path}.{field.json_name}" if path else field.json_name
    if field.flags & INLINE:
        assert isinstance(field.type, str), "only structs are embedded inline"
        embedded = decode_message(field.type, b"".join(_payload(item, where) for item in items or ()), path)
        result.update(embedded)
        return
    omitempty = bool(field.flags & OMITEMPTY)
    nullable = field.nullable or field.type in LIST_WRAPPERS
    if not items:
        if nullable:
            if not omitempty:
                result[field.json_name] = None
        elif isinstance(field.type, Scalar):
            if not omitempty:
                result[field.json_name] = _SCALAR_ZEROS[field.type]
        else:
            assert isinstance(field.type, str)
            result[field.json_name] = decode_message(field.type, b"", where)
        return
    value: Any
    if isinstance(field.type, MapOf):
        value = _map(field.type, items, where)
        if omitempty and not value:
            return
    elif field.flags & REPEATED:
        value = _repeated(field, items, where) or None  # an empty packed record leaves the slice nil
        if omitempty and value is None:
            return
    elif isinstance(field.type, Scalar):
        value = _scalar(field.type, items[-1], where)
        if omitempty and not field.flags & POINTER and not _is_present_value(value):
            return
    else:
        # Repeated occurrences of a singular message merge; concatenated encodings merge the same way.
        value = decode_message(field.type, b"".join(_payload(item, where) for item in items), where)
        if omitempty and value is None and field.type in LIST_WRAPPERS:
            return  # a nil named slice; value structs are never omitted by encoding/json
    result[field.json_name] = value


def _is_present_value(value: Any) -> bool:
    """Whether encoding/json's omitempty keeps a scalar: false, 0, "" and empty bytes (as "") are dropped."""
    return bool(value)


def _repeated(field: Field, items: list[WireField], path: str) -> list[Any]:
    values: list[Any] = []
    for item in items:
        where = f"{path}[{len(values)}]"
        if isinstance(field.type, Scalar):
            values.extend(_scalar(field.type, element, where) for element in _unpacked(field.type, item))
        else:
            assert isinstance(field.type, str)
            values.append(decode_message(field.type, _payload(item, where), where))
    return values


def _unpacked(scalar: Scalar, item: WireField) -> list[WireField]:
    """A repeated numeric field may arrive packed in one length-delimited record; split it."""
    expected = _SCALAR_WIRE_TYPES[scalar]
    if item.wire_type is not WireType.LENGTH_DELIMITED or expected is WireType.LENGTH_DELIMITED:
        return [item]
    assert isinstance(item.value, bytes)
    if expected is WireType.VARINT:
        values = unpack_varints(item.value)
    else:
        values = unpack_fixed(item.value, 8 if expected is WireType.FIXED64 else 4)
    return [WireField(item.number, expected, value) for value in values]


def _map(map_type: MapOf, entries: list[WireField], path: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for entry in entries:
        key: Any = _SCALAR_ZEROS[map_type.key]
        value_items: list[WireField] = []
        for item in iter_fields(_payload(entry, path)):
            if item.number == 1:
                key = _scalar(map_type.key, item, f"{path} key")
            elif item.number == 2:
                value_items.append(item)
        where = f"{path}[{key}]"
        json_key = key if isinstance(key, str) else orjson.dumps(key).decode()
        if isinstance(map_type.value, Scalar):
            value = (
                _scalar(map_type.value, value_items[-1], where)
                if value_items
                else _SCALAR_ZEROS[map_type.value]
            )
        else:
            value = decode_message(
                map_type.value, b"".join(_payload(item, where) for item in value_items), where
            )
        result[json_key] = value
    return dict(sorted(result.items()))  # encoding/json writes map keys sorted


def _scalar(scalar: Scalar, item: WireField, path: str) -> Any:
    expected = _SCALAR_WIRE_TYPES[scalar]
    if item.wire_type is not expected:
        raise ProtobufError(
            f"wire-type mismatch at {path}: field {item.number} is {scalar.value} "
            f"(wire type {expected.value}), got wire type {item.wire_type.value}"
        )
    value = item.value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii") if scalar is BYTES else _text(value)
    if scalar is Scalar.BOOL:
        return value != 0
    if scalar is Scalar.INT32:
        return as_int32(value)
    if scalar is Scalar.INT64:
        return as_int64(value)
    if scalar is Scalar.UINT32:
        return as_uint32(value)
    if scalar is Scalar.UINT64:
        return value
    number = as_double(value) if scalar is Scalar.DOUBLE else as_float(value)
    if not math.isfinite(number):
        raise ProtobufError(f"{path}: {number} cannot be represented in JSON")
    return number


def _payload(item: WireField, path: str) -> bytes:
    if not isinstance(item.value, bytes) or item.wire_type is not WireType.LENGTH_DELIMITED:
        raise ProtobufError(
            f"wire-type mismatch at {path}: field {item.number} is length-delimited (wire type 2), "
            f"got wire type {item.wire_type.value}"
        )
    return item.value


def _text(raw: bytes) -> str:
    # Go strings may hold any bytes; encoding/json replaces invalid UTF-8 with U+FFFD, and so do we.
    return raw.decode("utf-8", errors="replace")
