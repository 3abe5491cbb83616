"""Cron schedules: parsing as robfig/cron's standard parser, and the next run in a time zone."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from flotilla.controllers.autoscaling.cronschedule import CronSyntaxError, parse_cron


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("schedule", "after", "expected"),
    [
        ("* * * * *", "2026-01-01T10:00:00", "2026-01-01T10:01:00"),
        ("* * * * *", "2026-01-01T10:00:30", "2026-01-01T10:01:00"),
        ("*/15 * * * *", "2026-01-01T10:01:00", "2026-01-01T10:15:00"),
        ("5 * * * *", "2026-01-01T10:05:00", "2026-01-01T11:05:00"),
        ("0 9 * * 1-5", "2026-01-02T09:00:00", "2026-01-05T09:00:00"),  # Friday → Monday
        ("0 0 1 * *", "2026-01-15T00:00:00", "2026-02-01T00:00:00"),
        ("0 0 31 * *", "2026-02-01T00:00:00", "2026-03-31T00:00:00"),
        ("0 0 29 2 *", "2026-03-01T00:00:00", "2028-02-29T00:00:00"),
        ("30 8 * jan,jul mon", "2026-01-06T00:00:00", "2026-01-12T08:30:00"),
        ("0 0 1 * sun", "2026-01-02T00:00:00", "2026-01-04T00:00:00"),  # day of month OR weekday
        ("0 0 */2 * sun", "2026-01-02T00:00:00", "2026-01-03T00:00:00"),  # a stepped star restricts
        ("0 0 * * sun", "2026-01-02T00:00:00", "2026-01-04T00:00:00"),  # star day of month: AND
        ("10-20/5 3 * * *", "2026-01-01T03:16:00", "2026-01-01T03:20:00"),
        ("10/20 * * * *", "2026-01-01T03:31:00", "2026-01-01T03:50:00"),
        ("@hourly", "2026-01-01T03:00:00", "2026-01-01T04:00:00"),
        ("@daily", "2026-01-01T03:00:00", "2026-01-02T00:00:00"),
        ("@weekly", "2026-01-01T03:00:00", "2026-01-04T00:00:00"),
        ("@monthly", "2026-01-01T03:00:00", "2026-02-01T00:00:00"),
        ("@yearly", "2026-01-01T03:00:00", "2027-01-01T00:00:00"),
        ("@every 90s", "2026-01-01T03:00:00", "2026-01-01T03:01:30"),
        ("? ? ? ? ?", "2026-12-31T23:59:00", "2027-01-01T00:00:00"),
    ],
)
def test_next_run_in_utc(schedule: str, after: str, expected: str) -> None:
    """The next run is the first matching minute strictly after the given time."""
    assert parse_cron(schedule).next_run(at(after)) == at(expected)


def test_next_run_follows_the_time_zone() -> None:
    """A schedule runs at the wall time of its zone: 9:00 in Shanghai is 1:00 UTC."""
    shanghai = ZoneInfo("Asia/Shanghai")
    assert parse_cron("0 9 * * *").next_run(at("2026-01-01T02:00:00"), shanghai) == at("2026-01-02T01:00:00")


def test_a_time_skipped_by_daylight_saving_does_not_run() -> None:
    """02:30 does not exist in New York on 2026-03-08: the next run is the day after."""
    new_york = ZoneInfo("America/New_York")
    run = parse_cron("30 2 * * *").next_run(at("2026-03-07T12:00:00"), new_york)
    assert run is not None
    assert run.astimezone(new_york).isoformat() == "2026-03-09T02:30:00-04:00"


def test_a_schedule_that_never_runs_has_no_next_run() -> None:
    """February 30th never comes: the search gives up after five years."""
    assert parse_cron("0 0 30 2 *").next_run(at("2026-01-01T00:00:00")) is None


def test_consecutive_runs_of_every_minute_are_a_minute_apart() -> None:
    """Each next run, taken from the previous one, moves by one minute."""
    schedule = parse_cron("* * * * *")
    run = at("2026-01-01T00:00:00")
    runs = []
    for _ in range(3):
        next_run = schedule.next_run(run)
        assert next_run is not None
        runs.append(next_run)
        run = next_run
    assert [b - a for a, b in itertools.pairwise(runs)] == [timedelta(minutes=1)] * 2


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        ("", "empty spec string"),
        ("* * * *", "expected exactly 5 fields, found 4"),
        ("60 * * * *", "end of range (60) above maximum (59)"),
        ("* 24 * * *", "end of range (24) above maximum (23)"),
        ("* * 0 * *", "beginning of range (0) below minimum (1)"),
        ("5-1 * * * *", "beginning of range (5) beyond end of range (1)"),
        ("*/0 * * * *", "step of range should be a positive number"),
        ("1-2-3 * * * *", "too many hyphens"),
        ("*/2/3 * * * *", "too many slashes"),
        ("x * * * *", "failed to parse int from x"),
        ("* * * foo *", "failed to parse int from foo"),
        ("@often", "unrecognized descriptor: @often"),
        ("@every soon", "failed to parse duration"),
    ],
)
def test_invalid_schedules_say_what_is_wrong(schedule: str, message: str) -> None:
    """Bad syntax is refused with the parser's reason."""
    with pytest.raises(CronSyntaxError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_cron(schedule)
