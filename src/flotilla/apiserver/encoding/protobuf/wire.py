"""The protocol-buffers wire format, read only: tags, varints, fixed-width and length-delimited values.

Kubernetes' typed clients (client-go, hence kubectl's generators) send request bodies as protobuf.
Their messages are proto2 with plain `optional`/`repeated` fields, so a reader needs only the four
wire types a field can use: varint (0), 64-bit (1), length-delimited (2) and 32-bit (5). Groups (3, 4)
are obsolete and never produced by Kubernetes; they are skipped like any unknown field.

A message is a flat sequence of `(field number, wire type, value)` records; `iter_fields` yields them
in order without interpreting them, which is the schema's job (`decode.py`). Integers come out
unsigned as on the wire; `as_int32`/`as_int64` reinterpret them the way Go does (a negative int32 is
sent as a ten-byte varint of its 64-bit two's complement). Every malformed input — truncation, a
varint longer than ten bytes, an unknown wire type, field number zero — raises `ProtobufError`,
whose message is fit to show a client in a 400 response.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Iterator
from dataclasses import dataclass

_MAX_VARINT_BYTES = 10
_UINT64_MASK = (1 << 64) - 1


class ProtobufError(ValueError):
    """The body is not a protobuf message this server can decode; the message says why."""


class WireType(enum.IntEnum):
    VARINT = 0
    FIXED64 = 1
    LENGTH_DELIMITED = 2
    START_GROUP = 3
    END_GROUP = 4
    FIXED32 = 5


@dataclass(frozen=True, slots=True)
class WireField:
    """One field record: its number, how it is encoded, and its raw value.

    `value` is an unsigned int for varint and fixed-width fields, the payload bytes for
    length-delimited ones, and empty bytes for a skipped group.
    """

    number: int
    wire_type: WireType
    value: int | bytes


def read_varint(buffer: bytes, position: int) -> tuple[int, int]:
    """Decode the base-128 varint at `position`; return its unsigned value and the next position."""
    result = 0
    shift = 0
    for offset in range(_MAX_VARINT_BYTES):
        index = position + offset
        if index >= len(buffer):
            raise ProtobufError(f"truncated protobuf: varint at byte {position} runs past the end")
        byte = buffer[index]
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & _UINT64_MASK, index + 1
        shift += 7
    raise ProtobufError(f"malformed protobuf: varint at byte {position} is longer than 10 bytes")


def iter_fields(buffer: bytes) -> Iterator[WireField]:
    """Yield the field records of one message, in wire order, until the buffer ends."""
    position = 0
    end = len(buffer)
    while position < end:
        tag_position = position
        tag, position = read_varint(buffer, position)
        number = tag >> 3
        if number == 0:
            raise ProtobufError(f"malformed protobuf: field number 0 at byte {tag_position}")
        try:
            wire_type = WireType(tag & 0x7)
        except ValueError:
            raise ProtobufError(
                f"malformed protobuf: unknown wire type {tag & 0x7} for field {number} at byte {tag_position}"
            ) from None
        value: int | bytes
        if wire_type is WireType.VARINT:
            value, position = read_varint(buffer, position)
        elif wire_type is WireType.LENGTH_DELIMITED:
            length, position = read_varint(buffer, position)
            value, position = _take(buffer, position, length, number)
        elif wire_type is WireType.FIXED64:
            raw, position = _take(buffer, position, 8, number)
            value = int.from_bytes(raw, "little")
        elif wire_type is WireType.FIXED32:
            raw, position = _take(buffer, position, 4, number)
            value = int.from_bytes(raw, "little")
        elif wire_type is WireType.START_GROUP:
            position = _skip_group(buffer, position, number)
            value = b""
        else:
            raise ProtobufError(
                f"malformed protobuf: unexpected end of group {number} at byte {tag_position}"
            )
        yield WireField(number, wire_type, value)


def _take(buffer: bytes, position: int, length: int, number: int) -> tuple[bytes, int]:
    end = position + length
    if end > len(buffer):
        raise ProtobufError(
            f"truncated protobuf: field {number} needs {length} bytes at byte {position}, "
            f"only {len(buffer) - position} left"
        )
    return buffer[position:end], end


def _skip_group(buffer: bytes, position: int, number: int) -> int:
    """Skip a (deprecated) group's contents up to and including its matching end tag."""
    depth = 1
    while depth:
        if position >= len(buffer):
            raise ProtobufError(f"truncated protobuf: group {number} is not closed")
        tag, position = read_varint(buffer, position)
        wire_type = tag & 0x7
        if wire_type == WireType.START_GROUP:
            depth += 1
        elif wire_type == WireType.END_GROUP:
            depth -= 1
        elif wire_type == WireType.VARINT:
            _, position = read_varint(buffer, position)
        elif wire_type == WireType.LENGTH_DELIMITED:
            length, position = read_varint(buffer, position)
            _, position = _take(buffer, position, length, tag >> 3)
        elif wire_type == WireType.FIXED64:
            _, position = _take(buffer, position, 8, tag >> 3)
        elif wire_type == WireType.FIXED32:
            _, position = _take(buffer, position, 4, tag >> 3)
        else:
            raise ProtobufError(f"malformed protobuf: unknown wire type {wire_type} inside group {number}")
    return position


def as_int64(value: int) -> int:
    """Reinterpret an unsigned 64-bit wire value as Go's int64 (two's complement)."""
    value &= _UINT64_MASK
    return value - (1 << 64) if value >= 1 << 63 else value


def as_int32(value: int) -> int:
    """Reinterpret a wire varint as Go's int32: keep the low 32 bits, two's complement."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def as_uint32(value: int) -> int:
    """Keep the low 32 bits of a wire varint, as Go's uint32 conversion does."""
    return value & 0xFFFFFFFF


def as_double(value: int) -> float:
    """Reinterpret a 64-bit wire value as an IEEE-754 double."""
    result: float = struct.unpack("<d", value.to_bytes(8, "little"))[0]
    return result


def as_float(value: int) -> float:
    """Reinterpret a 32-bit wire value as an IEEE-754 single-precision float."""
    result: float = struct.unpack("<f", value.to_bytes(4, "little"))[0]
    return result


def unpack_varints(payload: bytes) -> list[int]:
    """Split a packed repeated varint field's payload into its unsigned values."""
    values: list[int] = []
    position = 0
    while position < len(payload):
        value, position = read_varint(payload, position)
        values.append(value)
    return values


def unpack_fixed(payload: bytes, width: int) -> list[int]:
    """Split a packed repeated fixed-width field's payload (4 or 8 bytes each) into unsigned values."""
    if len(payload) % width:
        raise ProtobufError(
            f"truncated protobuf: packed field of {len(payload)} bytes is not a multiple of {width}"
        )
    return [int.from_bytes(payload[i : i + width], "little") for i in range(0, len(payload), width)]
