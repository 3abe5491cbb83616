"""A minimal protobuf wire-format writer, so tests can build exactly the bytes they need.

Tests state bodies field by field (`varint_field(3, 8080)`, `message_field(2, …)`) instead of
hiding them in opaque byte strings; the golden files cover what real kubectl sends.
"""

from __future__ import annotations

import struct

from flotilla.apiserver.encoding.protobuf.decode import MAGIC


def varint(value: int) -> bytes:
    """Base-128 varint; negative numbers as Go writes them: the 64-bit two's complement, ten bytes."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def varint_field(number: int, value: int) -> bytes:
    return tag(number, 0) + varint(value)


def bytes_field(number: int, payload: bytes) -> bytes:
    return tag(number, 2) + varint(len(payload)) + payload


def string_field(number: int, text: str) -> bytes:
    return bytes_field(number, text.encode())


def message_field(number: int, *fields: bytes) -> bytes:
    return bytes_field(number, b"".join(fields))


def double_field(number: int, value: float) -> bytes:
    return tag(number, 1) + struct.pack("<d", value)


def map_entry(number: int, key: str, value: bytes) -> bytes:
    """One entry of a `map<string, …>` field; `value` is the already-encoded field 2."""
    return message_field(number, string_field(1, key), value)


def envelope(
    api_version: str, kind: str, raw: bytes, *, content_type: str = "", content_encoding: str = ""
) -> bytes:
    """A complete request body: magic, then `runtime.Unknown{typeMeta, raw, contentEncoding, contentType}`."""
    unknown = message_field(1, string_field(1, api_version), string_field(2, kind)) + bytes_field(2, raw)
    if content_encoding:
        unknown += string_field(3, content_encoding)
    if content_type:
        unknown += string_field(4, content_type)
    return MAGIC + unknown
