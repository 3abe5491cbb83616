"""Renderers for apimachinery's hand-marshalled types: times, durations, quantities, raw JSON."""

from __future__ import annotations

import pytest

from flotilla.apiserver.encoding.protobuf.wellknown import (
    go_duration,
    render_duration,
    render_int_or_string,
    render_micro_time,
    render_quantity,
    render_raw_json,
    render_time,
)
from flotilla.apiserver.encoding.protobuf.wire import ProtobufError
from tests.unit.apiserver.encoding.protobuf.encoder import bytes_field, string_field, varint_field

JAN_2_2024_030405 = 1704164645
GO_ZERO_TIME = -62135596800


def test_time_renders_whole_seconds_in_utc() -> None:
    """metav1.Time prints RFC 3339 with a Z and no fraction."""
    assert render_time(varint_field(1, JAN_2_2024_030405)) == "2024-01-02T03:04:05Z"


def test_time_drops_nanos_like_go_unmarshal_does() -> None:
    """Kubernetes discards Time nanos when unmarshalling protobuf, so they never reach JSON."""
    assert (
        render_time(varint_field(1, JAN_2_2024_030405) + varint_field(2, 999_000_000))
        == "2024-01-02T03:04:05Z"
    )


def test_empty_time_is_go_zero_time_and_prints_null() -> None:
    """Go marshals a zero Time as an empty message, and its JSON is null."""
    assert render_time(b"") is None
    assert render_time(varint_field(1, GO_ZERO_TIME)) is None


def test_time_before_1970_is_negative_seconds() -> None:
    """Seconds are signed int64; negative values are dates before the epoch."""
    assert render_time(varint_field(1, -1)) == "1969-12-31T23:59:59Z"


def test_time_outside_years_1_to_9999_is_rejected() -> None:
    """Go cannot marshal such a time to JSON, so the body is refused."""
    with pytest.raises(ProtobufError, match="outside years 1-9999"):
        render_time(varint_field(1, 300_000_000_000))


def test_time_with_wrong_wire_type_is_rejected() -> None:
    """seconds must be a varint."""
    with pytest.raises(ProtobufError, match="malformed Time"):
        render_time(bytes_field(1, b"x"))


@pytest.mark.parametrize(
    ("nanos", "text"),
    [
        (0, "2024-01-02T03:04:05.000000Z"),
        (1_000, "2024-01-02T03:04:05.000001Z"),
        (999_999_999, "2024-01-02T03:04:05.999999Z"),
    ],
)
def test_micro_time_prints_exactly_six_fractional_digits(nanos: int, text: str) -> None:
    """MicroTime keeps microseconds, padded to six digits and truncated below them."""
    assert render_micro_time(varint_field(1, JAN_2_2024_030405) + varint_field(2, nanos)) == text


def test_empty_micro_time_prints_null() -> None:
    """A zero MicroTime is null in JSON, like Time."""
    assert render_micro_time(b"") is None


@pytest.mark.parametrize(
    ("nanoseconds", "text"),
    [
        (0, "0s"),
        (1, "1ns"),
        (999, "999ns"),
        (1_500, "1.5µs"),
        (1_000_000, "1ms"),
        (100_000_000, "100ms"),
        (1_500_000_000, "1.5s"),
        (90_000_000_000, "1m30s"),
        (3_600_000_000_000, "1h0m0s"),
        (3_723_500_000_000, "1h2m3.5s"),
        (-1_000_000_000, "-1s"),
        (-1_500, "-1.5µs"),
    ],
)
def test_go_duration_matches_time_duration_string(nanoseconds: int, text: str) -> None:
    """Durations print like Go's time.Duration.String: small units below a second, else h/m/s."""
    assert go_duration(nanoseconds) == text


def test_duration_message_reads_signed_nanoseconds() -> None:
    """metav1.Duration {1 duration} holds int64 nanoseconds; absent is 0s."""
    assert render_duration(varint_field(1, 300_000_000_000)) == "5m0s"
    assert render_duration(varint_field(1, -2_000_000_000)) == "-2s"
    assert render_duration(b"") == "0s"


@pytest.mark.parametrize("text", ["1", "500m", "1Gi", "1.5", "2e3", "-1", "+3k", ".5", "100n", "8Ei"])
def test_quantity_passes_its_string_through(text: str) -> None:
    """A Quantity is its string in JSON."""
    assert render_quantity(string_field(1, text)) == text


@pytest.mark.parametrize("text", ["", "1.2.3", "5 Gi", "one", "1Gb"])
def test_malformed_quantity_is_rejected(text: str) -> None:
    """Go's ParseQuantity refuses these, so kube-apiserver would refuse the body."""
    with pytest.raises(ProtobufError, match="quantities must match the regular expression"):
        render_quantity(string_field(1, text))


def test_absent_quantity_is_zero() -> None:
    """A zero Quantity prints as "0"."""
    assert render_quantity(b"") == "0"


def test_int_or_string_picks_the_side_its_type_names() -> None:
    """Type 0 is an int (even a negative one), type 1 a string; empty is the int 0."""
    assert render_int_or_string(varint_field(2, 8080)) == 8080
    assert render_int_or_string(varint_field(2, -1)) == -1
    assert render_int_or_string(varint_field(1, 1) + string_field(3, "25%")) == "25%"
    assert render_int_or_string(b"") == 0


def test_raw_json_embeds_the_document() -> None:
    """FieldsV1 and RawExtension carry JSON bytes that become the JSON value itself."""
    assert render_raw_json(bytes_field(1, b'{"f:metadata":{"f:labels":{}}}')) == {
        "f:metadata": {"f:labels": {}}
    }
    assert render_raw_json(b"") is None


def test_raw_json_that_is_not_json_is_rejected() -> None:
    """Bytes that are not JSON cannot be shown as JSON."""
    with pytest.raises(ProtobufError, match="not JSON"):
        render_raw_json(bytes_field(1, b"\x00\x01"))
