"""Ages as kubectl prints them (apimachinery's HumanDuration), for the CLI's own renderings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from flotilla.cli.duration import UNKNOWN, age, human_duration, parse_timestamp


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (-5, "<invalid>"),
        (-0.5, "0s"),
        (0, "0s"),
        (5, "5s"),
        (119, "119s"),
        (120, "2m"),
        (123, "2m3s"),
        (599, "9m59s"),
        (600, "10m"),
        (3 * 3600 - 1, "179m"),
        (3 * 3600, "3h"),
        (3 * 3600 + 4 * 60, "3h4m"),
        (8 * 3600, "8h"),
        (47 * 3600, "47h"),
        (2 * 86400 + 3 * 3600, "2d3h"),
        (8 * 86400, "8d"),
        (45 * 86400, "45d"),
        (2 * 365 * 86400 + 100 * 86400, "2y100d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_human_duration_matches_kubectl(seconds: float, expected: str) -> None:
    """Each boundary of HumanDuration gives kubectl's text."""
    assert human_duration(timedelta(seconds=seconds)) == expected


def test_age_of_a_missing_or_unreadable_timestamp_is_unknown() -> None:
    """No timestamp, or one that is not RFC 3339, prints `<unknown>`."""
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert age(None, now) == UNKNOWN
    assert age("yesterday", now) == UNKNOWN


def test_age_reads_rfc3339_with_zone_and_fraction() -> None:
    """Timestamps with `Z`, offsets and fractional seconds are read as the API writes them."""
    now = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)
    assert age("2026-01-01T00:05:00Z", now) == "5m"
    assert age("2026-01-01T01:05:00.123456+01:00", now) == "4m59s"
    assert parse_timestamp("2026-01-01T00:00:00.5Z") == datetime(2026, 1, 1, 0, 0, 0, 500000, tzinfo=UTC)
