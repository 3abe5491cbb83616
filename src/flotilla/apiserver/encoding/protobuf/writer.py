"""The protocol-buffers wire format, written: tags, varints, doubles and length-delimited values.

`wire.py` reads what clients send; this writes what the server sends in protobuf (so far the
`/openapi/v2` document, `openapiv2.py`). Fields follow proto3's rules, as Go's `proto.Marshal`
does for the messages in question: a scalar equal to its default (empty string, false, zero) is
left out, while a message field that is present is written even when empty — an empty
`properties` still says "an object with no declared fields".
"""

from __future__ import annotations

import struct

from flotilla.apiserver.encoding.protobuf.wire import WireType

_UINT64_MASK = (1 << 64) - 1


def varint(value: int) -> bytes:
    """The base-128 varint of `value`; a negative one as its 64-bit two's complement (ten bytes)."""
    value &= _UINT64_MASK
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire_type: WireType) -> bytes:
    return varint(number << 3 | wire_type)


class MessageWriter:
    """Collects one message's fields in the order they are written; `getvalue` gives its bytes."""

    __slots__ = ("_parts",)

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def string(self, number: int, value: str) -> None:
        if value:
            self.length_delimited(number, value.encode())

    def boolean(self, number: int, value: bool) -> None:
        if value:
            self._parts += (_tag(number, WireType.VARINT), b"\x01")

    def oneof_boolean(self, number: int, value: bool) -> None:
        """A boolean in a oneof: written even when false, since being set is what it says."""
        self._parts += (_tag(number, WireType.VARINT), b"\x01" if value else b"\x00")

    def int64(self, number: int, value: int) -> None:
        if value:
            self._parts += (_tag(number, WireType.VARINT), varint(value))

    def double(self, number: int, value: float) -> None:
        if value:
            self._parts += (_tag(number, WireType.FIXED64), struct.pack("<d", value))

    def message(self, number: int, payload: bytes) -> None:
        """An embedded message, written even when `payload` is empty (the field is present)."""
        self.length_delimited(number, payload)

    def length_delimited(self, number: int, payload: bytes) -> None:
        self._parts += (_tag(number, WireType.LENGTH_DELIMITED), varint(len(payload)), payload)

    def getvalue(self) -> bytes:
        return b"".join(self._parts)
