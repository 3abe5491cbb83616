"""Cron schedules: parsing as robfig/cron's standard parser, the next run in a zone, missed runs."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from flotilla.api.cron import CronSyntaxError, MissedRuns, parse_schedule

AT = datetime(2026, 1, 1, 10, 7, 30, tzinfo=UTC)  # a Thursday


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- syntax ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schedule",
    [
        "*/5 * * * *",
        "0 0 * * MON-FRI",
        "15 3 1 jan,jul *",
        "? * * * ?",
        "@hourly",
        "@every 1h30m",
        "0 0 1-15/2 * *",
        "*-5 * * * *",  # robfig reads only the `*` of a starred range
        "1,,2 * * * *",  # empty list items are dropped
        "+5 * * * *",  # strconv.Atoi takes a sign
        "@every -5m",  # a short or negative delay becomes one second
        "TZ=Europe/Berlin 0 9 * * *",
    ],
)
def test_standard_schedules_parse(schedule: str) -> None:
    """Steps, ranges, lists, names, descriptors and a zone prefix are all accepted."""
    parse_schedule(schedule)


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        ("", "empty spec string"),
        (" ", "expected exactly 5 fields, found 0: []"),
        ("* * * *", "expected exactly 5 fields, found 4: [* * * *]"),
        ("61 * * * *", "end of range (61) above maximum (59): 61"),
        ("60 * * * *", "end of range (60) above maximum (59): 60"),
        ("* 24 * * *", "end of range (24) above maximum (23): 24"),
        ("0 0 0 * *", "beginning of range (0) below minimum (1): 0"),
        ("5-1 * * * *", "beginning of range (5) beyond end of range (1): 5-1"),
        ("*/0 * * * *", "step of range should be a positive number: */0"),
        ("*/-1 * * * *", "negative number (-1) not allowed: -1"),
        ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
        ("*/2/3 * * * *", "too many slashes: */2/3"),
        ("x * * * *", 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'),
        ("* * * foo *", 'failed to parse int from foo: strconv.Atoi: parsing "foo": invalid syntax'),
        ("-5 * * * *", 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'),
        (
            "99999999999999999999 * * * *",
            "failed to parse int from 99999999999999999999: strconv.Atoi: parsing "
            '"99999999999999999999": value out of range',
        ),
        ("@fortnightly", "unrecognized descriptor: @fortnightly"),
        ("@often", "unrecognized descriptor: @often"),
        ("@every", "unrecognized descriptor: @every"),
        ("@every soon", 'failed to parse duration @every soon: time: invalid duration "soon"'),
        ("0 0 * * 7", "end of range (7) above maximum (6): 7"),
    ],
)
def test_malformed_schedules_are_refused_with_the_parsers_message(schedule: str, message: str) -> None:
    """Each malformed schedule raises with robfig/cron's wording."""
    with pytest.raises(CronSyntaxError) as raised:
        parse_schedule(schedule)
    assert str(raised.value) == message


def test_a_zone_prefix_is_kept_and_the_rest_parsed() -> None:
    """`CRON_TZ=` names the zone; the fields after it are the schedule."""
    schedule = parse_schedule("CRON_TZ=Asia/Tokyo @daily")
    assert schedule.time_zone == "Asia/Tokyo"
    assert schedule.next_run(at("2026-01-01T03:00:00")) == at("2026-01-02T00:00:00")


def test_every_keeps_whole_seconds_and_at_least_one() -> None:
    """`@every 1.5s` runs every second, as does `@every 0`; `@every 90s` every ninety."""
    assert parse_schedule("@every 1.5s").every == timedelta(seconds=1)
    assert parse_schedule("@every 0").every == timedelta(seconds=1)
    assert parse_schedule("@every 90s").every == timedelta(seconds=90)


# --- the next run ---------------------------------------------------------------------------------


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
        ("59 23 31 12 *", "2026-01-01T00:00:00", "2026-12-31T23:59:00"),
        ("@hourly", "2026-01-01T03:00:00", "2026-01-01T04:00:00"),
        ("@daily", "2026-01-01T03:00:00", "2026-01-02T00:00:00"),
        ("@weekly", "2026-01-01T03:00:00", "2026-01-04T00:00:00"),
        ("@monthly", "2026-01-01T03:00:00", "2026-02-01T00:00:00"),
        ("@yearly", "2026-01-01T03:00:00", "2027-01-01T00:00:00"),
        ("@every 90s", "2026-01-01T03:00:00", "2026-01-01T03:01:30"),
        ("@every 90s", "2026-01-01T03:00:00.700000", "2026-01-01T03:01:30"),
        ("? ? ? ? ?", "2026-12-31T23:59:00", "2027-01-01T00:00:00"),
    ],
)
def test_next_run_in_utc(schedule: str, after: str, expected: str) -> None:
    """The next run is the first matching minute strictly after the given time."""
    assert parse_schedule(schedule).next_run(at(after)) == at(expected)


def test_steps_ranges_and_names_select_the_next_run() -> None:
    """`*/15`, `9-17`, `mon-fri`, descriptors: the next run after a moment."""
    assert parse_schedule("*/15 * * * *").next_run(AT, UTC) == datetime(2026, 1, 1, 10, 15, tzinfo=UTC)
    assert parse_schedule("0 9-17 * * mon-fri").next_run(AT, UTC) == datetime(2026, 1, 1, 11, 0, tzinfo=UTC)
    assert parse_schedule("@daily").next_run(AT, UTC) == datetime(2026, 1, 2, 0, 0, tzinfo=UTC)
    assert parse_schedule("0 0 1 jan *").next_run(AT, UTC) == datetime(2027, 1, 1, 0, 0, tzinfo=UTC)


def test_restricted_day_fields_match_either_day() -> None:
    """`0 9 1 * MON` runs on the 1st and on Mondays (cron's OR of the day fields)."""
    schedule = parse_schedule("0 9 1 * MON")
    assert schedule.next_run(AT, UTC) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert schedule.next_run(datetime(2026, 1, 26, 10, 0, tzinfo=UTC), UTC) == datetime(
        2026, 2, 1, 9, 0, tzinfo=UTC
    )


def test_next_run_follows_the_time_zone() -> None:
    """A schedule runs at the wall time of its zone: 9:00 in Shanghai is 1:00 UTC."""
    shanghai = ZoneInfo("Asia/Shanghai")
    assert parse_schedule("0 9 * * *").next_run(at("2026-01-01T02:00:00"), shanghai) == at(
        "2026-01-02T01:00:00"
    )


def test_runs_are_computed_in_the_zone_and_given_in_utc() -> None:
    """09:00 in Berlin is 08:00 UTC in winter."""
    run = parse_schedule("0 9 * * *").next_run(AT, ZoneInfo("Europe/Berlin"))
    assert run == datetime(2026, 1, 2, 8, 0, tzinfo=UTC)
    assert run is not None and run.tzinfo is UTC


def test_a_time_skipped_by_daylight_saving_does_not_run() -> None:
    """02:30 does not exist in New York on 2026-03-08: the next run is the day after."""
    new_york = ZoneInfo("America/New_York")
    run = parse_schedule("30 2 * * *").next_run(at("2026-03-07T12:00:00"), new_york)
    assert run is not None
    assert run.astimezone(new_york).isoformat() == "2026-03-09T02:30:00-04:00"


def test_a_time_repeated_by_daylight_saving_runs_once() -> None:
    """01:30 happens twice in New York on 2026-11-01: it runs at the first, then the next day."""
    new_york = ZoneInfo("America/New_York")
    schedule = parse_schedule("30 1 * * *")
    first = schedule.next_run(at("2026-11-01T00:00:00"), new_york)
    assert first is not None
    assert first.astimezone(new_york).isoformat() == "2026-11-01T01:30:00-04:00"
    second = schedule.next_run(first, new_york)
    assert second is not None
    assert second.astimezone(new_york).isoformat() == "2026-11-02T01:30:00-05:00"
    after_the_repeat = schedule.next_run(at("2026-11-01T06:10:00"), new_york)  # 01:10 EST
    assert after_the_repeat == second


def test_a_schedule_that_never_runs_has_no_next_run() -> None:
    """February 30th never comes: the search gives up after five years."""
    assert parse_schedule("0 0 30 2 *").next_run(at("2026-01-01T00:00:00")) is None


def test_a_field_of_empty_items_never_runs() -> None:
    """`,` parses (robfig drops empty items) but allows no minute."""
    assert parse_schedule(", * * * *").next_run(AT) is None


def test_consecutive_runs_of_every_minute_are_a_minute_apart() -> None:
    """Each next run, taken from the previous one, moves by one minute."""
    schedule = parse_schedule("* * * * *")
    run = at("2026-01-01T00:00:00")
    runs = []
    for _ in range(3):
        next_run = schedule.next_run(run)
        assert next_run is not None
        runs.append(next_run)
        run = next_run
    assert [b - a for a, b in itertools.pairwise(runs)] == [timedelta(minutes=1)] * 2


# --- missed runs ----------------------------------------------------------------------------------


def test_the_most_recent_missed_run_is_found_and_misses_counted() -> None:
    """Every five minutes from 09:00 to 10:07:30: the latest is 10:05, 13 were missed."""
    latest, missed = parse_schedule("*/5 * * * *").most_recent(
        datetime(2026, 1, 1, 9, 0, tzinfo=UTC), AT, UTC
    )
    assert latest == datetime(2026, 1, 1, 10, 5, tzinfo=UTC) and missed == 13
    assert parse_schedule("0 0 * * *").most_recent(datetime(2026, 1, 1, 9, 0, tzinfo=UTC), AT, UTC) == (
        None,
        0,
    )


def test_one_run_since_earliest_is_counted_once() -> None:
    """Only 10:00 falls in (09:59, 10:07:30] for an hourly schedule."""
    assert parse_schedule("@hourly").most_recent(at("2026-01-01T09:59:00"), AT) == MissedRuns(
        at("2026-01-01T10:00:00"), 1
    )


def test_every_stays_on_its_grid_across_a_long_gap() -> None:
    """`@every 7m` from 00:00:10: the latest run before 10:07:30 is on the 7-minute grid."""
    latest, missed = parse_schedule("@every 7m").most_recent(at("2026-01-01T00:00:10"), AT)
    assert missed == 86
    assert latest == at("2026-01-01T00:00:10") + 86 * timedelta(minutes=7)


def test_an_irregular_schedule_still_finds_the_latest_run() -> None:
    """`30 6-16/4 * * 1-5`: first two runs 4 h apart overshoot the weekend; Friday 14:30 is found."""
    latest, missed = parse_schedule("30 6-16/4 * * 1-5").most_recent(
        at("2026-01-02T06:00:00"), at("2026-01-04T23:00:00")
    )
    assert latest == at("2026-01-02T14:30:00")
    assert missed > 1


def test_decades_of_missed_runs_are_estimated_not_walked() -> None:
    """Ten years of every minute: the count is an estimate, the latest run exact."""
    latest, missed = parse_schedule("* * * * *").most_recent(at("2016-01-01T00:00:00"), AT)
    assert latest == at("2026-01-01T10:07:00")
    assert missed > 5_000_000
