"""Timestamps as Kubernetes writes them (`metav1.Time`, `metav1.MicroTime`) and reads them (RFC 3339)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flotilla.api.times import (
    ZERO_TIME,
    InvalidTimestampError,
    format_micro_time,
    format_rfc3339_nano,
    format_time,
    format_time_in,
    parse_timestamp,
    reencode_micro_time,
    reencode_time,
    rfc3339,
    timestamp,
)

MOMENT = datetime(2024, 5, 1, 10, 0, 3, 123456, tzinfo=UTC)


def test_a_time_is_utc_to_the_second() -> None:
    """`metav1.Time` drops the fraction and writes UTC with `Z`, whatever zone the moment is in."""
    assert format_time(MOMENT) == "2024-05-01T10:00:03Z"
    assert format_time(MOMENT.astimezone(timezone(timedelta(hours=-7)))) == "2024-05-01T10:00:03Z"


def test_a_micro_time_always_has_six_fractional_digits() -> None:
    """`metav1.MicroTime` keeps microseconds, zeros included, as Lease renewals and audit entries do."""
    assert format_micro_time(MOMENT) == "2024-05-01T10:00:03.123456Z"
    assert format_micro_time(MOMENT.replace(microsecond=0)) == "2024-05-01T10:00:03.000000Z"


def test_a_naive_moment_is_taken_as_utc_and_early_years_are_padded() -> None:
    """Nothing in Kubernetes is local time; Go pads the year to four digits (the zero time)."""
    assert format_time(datetime(2024, 5, 1, 10, 0, 3)) == "2024-05-01T10:00:03Z"  # noqa: DTZ001 - the case under test
    assert format_time(datetime(1, 1, 1, tzinfo=UTC)) == ZERO_TIME


def test_rfc3339_nano_drops_the_fractions_trailing_zeros() -> None:
    """Go's RFC3339Nano layout (CEL's `string(timestamp)`): `.5`, `.123456`, nothing on a whole second."""
    assert format_rfc3339_nano(MOMENT.replace(microsecond=500000)) == "2024-05-01T10:00:03.5Z"
    assert format_rfc3339_nano(MOMENT) == "2024-05-01T10:00:03.123456Z"
    assert format_rfc3339_nano(MOMENT.replace(microsecond=0)) == "2024-05-01T10:00:03Z"


def test_a_time_in_a_zone_carries_its_offset_and_z_at_zero() -> None:
    """Go's RFC 3339 format in a location, as the CronJob scheduled-timestamp annotation is written."""
    assert format_time_in(MOMENT, ZoneInfo("Europe/Berlin")) == "2024-05-01T12:00:03+02:00"
    assert format_time_in(MOMENT, UTC) == "2024-05-01T10:00:03Z"


@pytest.mark.parametrize(
    ("value", "moment"),
    [
        ("2024-05-01T10:00:03Z", datetime(2024, 5, 1, 10, 0, 3, tzinfo=UTC)),
        ("2024-05-01T10:00:03.123456789Z", datetime(2024, 5, 1, 10, 0, 3, 123456, tzinfo=UTC)),
        ("2024-05-01T10:00:03,5Z", datetime(2024, 5, 1, 10, 0, 3, 500000, tzinfo=UTC)),
        ("2024-05-01T9:00:03Z", datetime(2024, 5, 1, 9, 0, 3, tzinfo=UTC)),
        ("2024-05-01T12:00:03+02:00", datetime(2024, 5, 1, 10, 0, 3, tzinfo=UTC)),
        ("2024-05-01T00:00:03-01:30", datetime(2024, 5, 1, 1, 30, 3, tzinfo=UTC)),
    ],
)
def test_parse_timestamp_reads_what_go_time_parse_accepts(value: str, moment: datetime) -> None:
    """Go's RFC 3339 layout: a fraction (`.` or `,`) and a one-digit hour are read; offsets to UTC."""
    assert parse_timestamp(value) == moment


def test_timestamp_reads_a_stored_field_leniently() -> None:
    """Absent, empty, non-string and unreadable fields are all None (Go's zero time)."""
    assert timestamp("2024-05-01T10:00:03Z") == datetime(2024, 5, 1, 10, 0, 3, tzinfo=UTC)
    for value in (None, "", 17, "2024-05-01T10:00:03"):
        assert timestamp(value) is None


def test_parse_timestamp_reads_rfc3339_with_fraction_and_offset() -> None:
    """Fractional seconds and numeric offsets are accepted and normalised to UTC."""
    parsed = parse_timestamp("2025-03-01T13:30:00.5+01:30")
    assert parsed == datetime(2025, 3, 1, 12, 0, 0, 500_000, tzinfo=UTC)


@pytest.mark.parametrize("value", ["", "null"])
def test_parse_timestamp_treats_empty_and_null_as_zero_time(value: str) -> None:
    """Go's metav1.Time reads an empty string or `null` as the zero time."""
    assert parse_timestamp(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "2025-03-01",
        "2025-03-01 12:00:00Z",
        "2025-13-01T00:00:00Z",
        "yesterday",
        "2025-03-01T12:00:00",  # zone-less: Go's RFC 3339 layout needs Z or an offset
        "2025-03-01t12:00:00z",
        "2025-02-29T12:00:00Z",
        "2025-03-01T24:00:00Z",
        "2025-03-01T12:00:60Z",
        "2025-03-01T12:00:00+25:00",
        "2025-03-01T12:00:00.Z",
        "2025-03-01T12:00:00+0100",
        "\u0662025-03-01T12:00:00Z",
    ],
)
def test_parse_timestamp_rejects_what_rfc3339_does_not_allow(value: str) -> None:
    """Dates without time or zone, a space separator, impossible dates and offsets are refused."""
    with pytest.raises(InvalidTimestampError):
        parse_timestamp(value)


def test_rfc3339_normalises_to_utc_whole_seconds_and_zero_time() -> None:
    """The default table's Created At cell is UTC without fraction; unset is Go's zero time."""
    assert rfc3339("2025-03-01T13:00:00.75+01:00") == "2025-03-01T12:00:00Z"
    assert rfc3339(None) == "0001-01-01T00:00:00Z"


@given(st.datetimes(timezones=st.just(UTC)))
def test_written_stamps_read_back_to_the_same_moment(moment: datetime) -> None:
    """Both forms parse back: Time to the second, MicroTime to the microsecond."""
    assert parse_timestamp(format_time(moment)) == moment.replace(microsecond=0)
    assert parse_timestamp(format_micro_time(moment)) == moment


@given(st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.just(UTC)))  # noqa: DTZ001 - bound only
def test_stamps_are_what_strftime_wrote(moment: datetime) -> None:
    """The copies this replaces wrote `strftime("%Y-%m-%dT%H:%M:%SZ")` and `"….%fZ"`; so does this."""
    assert format_time(moment) == moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert format_micro_time(moment) == moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def test_a_sent_time_is_reencoded_as_kube_stores_it() -> None:
    """What a client sent for a Time or MicroTime comes back in UTC with `Z`, in that type's precision."""
    assert reencode_time("2026-01-01T10:00:00+02:00") == "2026-01-01T08:00:00Z"
    assert reencode_time("2026-01-01T10:00:00.999999+00:00") == "2026-01-01T10:00:00Z"
    assert reencode_micro_time("2026-01-01T10:00:00+00:00") == "2026-01-01T10:00:00.000000Z"
    assert reencode_micro_time("2026-01-01T10:00:00.1234567-01:30") == "2026-01-01T11:30:00.123456Z"


@pytest.mark.parametrize("value", ["", "null", "2026-01-01", "2026-01-01T10:00:00"])
def test_reencoding_refuses_what_go_cannot_parse(value: str) -> None:
    """Unlike `parse_timestamp`, a sent value has no zero form: "" and "null" are not times to Go."""
    with pytest.raises(InvalidTimestampError):
        reencode_time(value)
    with pytest.raises(InvalidTimestampError):
        reencode_micro_time(value)
