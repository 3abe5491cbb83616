"""Durations and timestamps as Kubernetes prints them, for the server's tables and the CLI alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from flotilla.api.duration import human_duration, parse_go_duration, short_human_duration, since

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("delta", "expected"),
    [
        (timedelta(seconds=-3), "<invalid>"),
        (timedelta(seconds=-2), "<invalid>"),
        (timedelta(seconds=-1.5), "0s"),
        (timedelta(seconds=-1), "0s"),
        (timedelta(milliseconds=-300), "0s"),
        (timedelta(0), "0s"),
        (timedelta(milliseconds=999), "0s"),
        (timedelta(seconds=59), "59s"),
        (timedelta(seconds=119), "119s"),
        (timedelta(seconds=119, microseconds=999_999), "119s"),
        (timedelta(seconds=120), "2m"),
        (timedelta(seconds=121), "2m1s"),
        (timedelta(minutes=9, seconds=59), "9m59s"),
        (timedelta(minutes=10), "10m"),
        (timedelta(minutes=10, seconds=59), "10m"),
        (timedelta(minutes=179), "179m"),
        (timedelta(hours=3), "3h"),
        (timedelta(hours=3, minutes=1), "3h1m"),
        (timedelta(hours=7, minutes=59), "7h59m"),
        (timedelta(hours=8), "8h"),
        (timedelta(hours=8, minutes=30), "8h"),
        (timedelta(hours=47, minutes=59), "47h"),
        (timedelta(hours=48), "2d"),
        (timedelta(hours=49), "2d1h"),
        (timedelta(days=7, hours=23), "7d23h"),
        (timedelta(days=8), "8d"),
        (timedelta(days=729), "729d"),
        (timedelta(days=730), "2y"),
        (timedelta(days=731), "2y1d"),
        (timedelta(days=365 * 8 - 1), "7y364d"),
        (timedelta(days=365 * 8), "8y"),
        (timedelta(days=365 * 20 + 100), "20y"),
    ],
)
def test_human_duration_matches_kubernetes_at_every_unit_boundary(delta: timedelta, expected: str) -> None:
    """Each range switches unit at Kubernetes' boundary and drops a zero second unit."""
    assert human_duration(delta) == expected


@pytest.mark.parametrize(
    ("delta", "expected"),
    [
        (timedelta(seconds=-10), "<invalid>"),
        (timedelta(seconds=-1), "0s"),
        (timedelta(seconds=45), "45s"),
        (timedelta(seconds=59), "59s"),
        (timedelta(minutes=5), "5m"),
        (timedelta(minutes=59), "59m"),
        (timedelta(hours=5), "5h"),
        (timedelta(hours=23), "23h"),
        (timedelta(days=3), "3d"),
        (timedelta(days=364), "364d"),
        (timedelta(days=800), "2y"),
    ],
)
def test_short_human_duration_keeps_one_unit(delta: timedelta, expected: str) -> None:
    """ShortHumanDuration (kubeadm's TTL and residual time): the largest whole unit only."""
    assert short_human_duration(delta) == expected


def test_since_prints_unknown_for_a_missing_timestamp() -> None:
    """An object without creationTimestamp has age `<unknown>`, as kubectl shows."""
    assert since(None, NOW) == "<unknown>"
    assert since("not a time", NOW) == "<unknown>"


def test_since_reads_offsets_and_fractions_as_the_api_writes_them() -> None:
    """`Z`, numeric offsets and fractional seconds all give the age kubectl shows."""
    now = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)
    assert since("2026-01-01T00:05:00Z", now) == "5m"
    assert since("2026-01-01T01:05:00.123456+01:00", now) == "4m59s"


def test_since_accepts_a_naive_now_as_utc() -> None:
    """A clock without a zone is taken as UTC rather than failing."""
    assert since("2025-03-01T11:55:00Z", NOW.replace(tzinfo=None)) == "5m"


def test_since_computes_age_across_time_zones() -> None:
    """`now` in another zone gives the same age as in UTC."""
    eastern = NOW.astimezone(timezone(timedelta(hours=-5)))
    assert since("2025-03-01T09:00:00Z", eastern) == "3h"


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("15s", 15.0),
        ("1m30s", 90.0),
        ("500ms", 0.5),
        ("1h", 3600.0),
        ("0", 0.0),
        ("1.5s", 1.5),
        ("-2s", -2.0),
    ],
)
def test_go_durations_are_read_as_seconds(text: str, seconds: float) -> None:
    """Go's time.ParseDuration syntax: number-unit pairs, an optional sign, a bare 0."""
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "s", "15", "15x", "1d", "one", "15s junk", "1m 30s", "-"])
def test_malformed_go_durations_are_refused_as_go_words_it(text: str) -> None:
    """Anything but a sequence of number-unit pairs is Go's `time: invalid duration` error."""
    with pytest.raises(ValueError, match="time: invalid duration"):
        parse_go_duration(text)
