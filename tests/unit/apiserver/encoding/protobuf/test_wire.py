"""The wire-format reader: varints, field records, packed values and malformed input."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    read_varint,
    unpack_fixed,
    unpack_varints,
)
from tests.unit.apiserver.encoding.protobuf.encoder import (
    bytes_field,
    message_field,
    tag,
    varint,
    varint_field,
)


@pytest.mark.parametrize(
    ("encoded", "value"),
    [
        (b"\x00", 0),
        (b"\x01", 1),
        (b"\x7f", 127),
        (b"\x80\x01", 128),
        (b"\xac\x02", 300),
        (b"\xff\xff\xff\xff\x0f", 0xFFFFFFFF),
        (b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", (1 << 64) - 1),
    ],
)
def test_read_varint_decodes_base_128_little_endian_groups(encoded: bytes, value: int) -> None:
    """Each byte contributes seven bits, least significant group first, until a byte below 0x80."""
    assert read_varint(encoded, 0) == (value, len(encoded))


def test_read_varint_starts_at_the_given_position_and_returns_the_next() -> None:
    """Reading mid-buffer consumes only the varint's own bytes."""
    assert read_varint(b"\x05\xac\x02\x07", 1) == (300, 3)


def test_read_varint_rejects_a_varint_that_runs_past_the_end() -> None:
    """A continuation bit on the last byte means the input was cut short."""
    with pytest.raises(ProtobufError, match="truncated protobuf: varint at byte 0"):
        read_varint(b"\x80\x80", 0)


def test_read_varint_rejects_more_than_ten_bytes() -> None:
    """No 64-bit value needs an eleventh byte; such input is corrupt, not merely long."""
    with pytest.raises(ProtobufError, match="longer than 10 bytes"):
        read_varint(b"\xff" * 10 + b"\x01", 0)


@given(st.integers(min_value=0, max_value=(1 << 64) - 1))
def test_read_varint_inverts_the_encoder_for_every_uint64(value: int) -> None:
    """Whatever 64-bit value is written, the same value is read back."""
    assert read_varint(varint(value), 0)[0] == value


@pytest.mark.parametrize("value", [-1, -2, -300, -(1 << 31)])
def test_negative_int32_arrives_as_ten_byte_varint_and_converts_back(value: int) -> None:
    """Go sign-extends a negative int32 to 64 bits on the wire; as_int32 undoes it."""
    encoded = varint(value)
    assert len(encoded) == 10
    assert as_int32(read_varint(encoded, 0)[0]) == value


@pytest.mark.parametrize("value", [-1, -(1 << 63), (1 << 63) - 1, 0, 42])
def test_as_int64_reads_twos_complement(value: int) -> None:
    """Unsigned wire values at or above 2**63 are negative int64s."""
    assert as_int64(read_varint(varint(value), 0)[0]) == value


def test_as_int32_and_as_uint32_keep_the_low_32_bits() -> None:
    """Go's int32(x) and uint32(x) conversions truncate, they do not saturate."""
    assert as_int32(0x1_0000_0005) == 5
    assert as_int32(0xFFFF_FFFF) == -1
    assert as_uint32(0xFFFF_FFFF_FFFF_FFFF) == 0xFFFF_FFFF


def test_as_double_and_as_float_reinterpret_ieee_bits() -> None:
    """Fixed-width values are IEEE-754 bit patterns, little-endian."""
    assert as_double(int.from_bytes(struct.pack("<d", 2.5), "little")) == 2.5
    assert as_float(int.from_bytes(struct.pack("<f", -0.5), "little")) == -0.5


def test_iter_fields_yields_every_wire_type_in_order() -> None:
    """Varint, 64-bit, length-delimited and 32-bit records come out with number, type and value."""
    buffer = (
        varint_field(1, 150)
        + tag(2, 1)
        + (7).to_bytes(8, "little")
        + bytes_field(3, b"abc")
        + tag(4, 5)
        + (9).to_bytes(4, "little")
    )
    assert list(iter_fields(buffer)) == [
        WireField(1, WireType.VARINT, 150),
        WireField(2, WireType.FIXED64, 7),
        WireField(3, WireType.LENGTH_DELIMITED, b"abc"),
        WireField(4, WireType.FIXED32, 9),
    ]


def test_iter_fields_leaves_nested_messages_as_payload_bytes_for_the_schema() -> None:
    """A nested message is just a length-delimited payload that can be read again as a message."""
    inner = varint_field(1, 3) + bytes_field(2, b"x")
    (outer,) = iter_fields(message_field(5, inner))
    assert outer.number == 5
    assert isinstance(outer.value, bytes)
    assert [(f.number, f.value) for f in iter_fields(outer.value)] == [(1, 3), (2, b"x")]


def test_iter_fields_handles_large_field_numbers() -> None:
    """Field numbers above 15 need a multi-byte tag."""
    assert next(iter_fields(varint_field(1000, 1))).number == 1000


def test_iter_fields_skips_a_group_with_its_contents() -> None:
    """Obsolete groups are stepped over, including nested groups, and reading continues after them."""
    group = tag(7, 3) + varint_field(1, 5) + tag(8, 3) + tag(8, 4) + bytes_field(2, b"zz") + tag(7, 4)
    fields = list(iter_fields(group + varint_field(9, 1)))
    assert [(f.number, f.wire_type) for f in fields] == [(7, WireType.START_GROUP), (9, WireType.VARINT)]


@pytest.mark.parametrize(
    ("buffer", "message"),
    [
        (bytes_field(1, b"hello")[:-2], "truncated protobuf: field 1 needs 5 bytes"),
        (tag(1, 1) + b"\x00\x00\x00", "truncated protobuf: field 1 needs 8 bytes"),
        (tag(1, 5) + b"\x00", "truncated protobuf: field 1 needs 4 bytes"),
        (tag(1, 0), "truncated protobuf: varint"),
        (tag(1, 2) + b"\x85", "truncated protobuf: varint"),
        (tag(1, 3) + varint_field(2, 1), "group 1 is not closed"),
        (tag(3, 6), "unknown wire type 6 for field 3"),
        (tag(3, 7), "unknown wire type 7"),
        (tag(0, 0) + b"\x01", "field number 0"),
        (tag(2, 4), "unexpected end of group 2"),
    ],
)
def test_iter_fields_rejects_malformed_input_with_a_reason(buffer: bytes, message: str) -> None:
    """Truncation and impossible tags raise ProtobufError saying what is wrong and where."""
    with pytest.raises(ProtobufError, match=message):
        list(iter_fields(buffer))


def test_unpack_varints_splits_a_packed_payload() -> None:
    """A packed repeated varint field is the values' varints back to back."""
    assert unpack_varints(varint(1) + varint(300) + varint(-1)) == [1, 300, (1 << 64) - 1]


def test_unpack_fixed_splits_by_width_and_rejects_a_ragged_tail() -> None:
    """Packed fixed-width values divide evenly by their width, or the input is truncated."""
    assert unpack_fixed((1).to_bytes(4, "little") + (2).to_bytes(4, "little"), 4) == [1, 2]
    with pytest.raises(ProtobufError, match="not a multiple of 8"):
        unpack_fixed(b"\x00" * 12, 8)
