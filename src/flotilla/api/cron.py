"""Cron schedules as kube reads a CronJob's: robfig/cron's standard parser, and when a schedule runs.

Three components need the same rule: the API server checks the syntax of CronJob and
CronFederatedHPA schedules, the CronFederatedHPA controller computes each rule's next run, and the
simulated CronJob controller finds the runs a CronJob missed. So the parser and the arithmetic
live here, once.

**Syntax** (robfig/cron v3's `ParseStandard`, which kube calls). Five whitespace-separated fields —
minute (0-59), hour (0-23), day of month (1-31), month (1-12 or `jan`…`dec`), day of week (0-6 or
`sun`…`sat`, any case). Each field is a comma list (empty items are dropped, as Go's
`strings.FieldsFunc` does) of `*` or `?`, a value, or a range `a-b`, each with an optional step
`/n`; `a/n` means `a-max/n`. Descriptors stand for whole schedules: `@yearly`/`@annually`,
`@monthly`, `@weekly`, `@daily`/`@midnight`, `@hourly`, and `@every <Go duration>` (whole seconds,
at least one). A leading `TZ=<zone>` or `CRON_TZ=<zone>` is read and kept as `time_zone`, not
loaded: kube's validation refuses it. Errors are robfig's messages word for word, because the API
server shows them to users.

**The day rule.** As in robfig/cron, when both day fields are restricted a day matching either one
runs; when either holds an unstepped `*` or `?`, a day must match both.

**Next run.** `CronSchedule.next_run` jumps field by field (month, day, hour, minute) to the next
allowed value in the schedule's time zone — never minute by minute — and gives up after five years
(`0 0 30 2 *` never runs). Wall times are the zone's: one skipped by a daylight-saving change does
not run, and one that happens twice runs once, at its first occurrence.

**Missed runs.** `CronSchedule.most_recent` is kube's `mostRecentScheduleTime`: the latest run in
`(earliest, now]` and how many runs that range holds, the count estimated from the distance of the
first two runs so that a controller that was down for years does not walk every run.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import NamedTuple

from flotilla.api.duration import parse_go_duration

__all__ = ["DESCRIPTORS", "CronSchedule", "CronSyntaxError", "MissedRuns", "parse_schedule"]

DESCRIPTORS: Mapping[str, str] = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
"""The named schedules and the five fields each stands for (`@every` aside)."""

_EVERY = "@every "
_SEARCH_YEARS = 5
_MINUTE = timedelta(minutes=1)
_HOUR = timedelta(hours=1)
_DAY = timedelta(days=1)
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
"""What Go's `strconv.Atoi` reads: an optional sign and ASCII digits."""
_INT64 = range(-(2**63), 2**63)
_MONTH_NAMES = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
    )
}
_WEEKDAY_NAMES = {
    name: number for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))
}


class CronSyntaxError(ValueError):
    """A schedule robfig/cron's standard parser refuses; the message is the parser's."""


@dataclass(frozen=True, slots=True)
class _Bounds:
    minimum: int
    maximum: int
    names: Mapping[str, int]


_FIELDS = (
    _Bounds(0, 59, {}),
    _Bounds(0, 23, {}),
    _Bounds(1, 31, {}),
    _Bounds(1, 12, _MONTH_NAMES),
    _Bounds(0, 6, _WEEKDAY_NAMES),
)


class MissedRuns(NamedTuple):
    """The runs a CronJob controller has not acted on."""

    latest: datetime | None
    """The latest run in `(earliest, now]`, in UTC; None when none came."""
    missed: int
    """How many runs that range holds: exact up to one, beyond that kube's estimate."""


@dataclass(frozen=True, slots=True)
class CronSchedule:
    """A parsed schedule: each field's allowed values in ascending order, or a constant delay."""

    minutes: tuple[int, ...] = ()
    hours: tuple[int, ...] = ()
    days_of_month: tuple[int, ...] = ()
    months: tuple[int, ...] = ()
    days_of_week: tuple[int, ...] = ()
    any_day: bool = False
    """A day field holds an unstepped `*` or `?`: a day must match both day fields, not either."""
    every: timedelta | None = None
    """`@every`'s delay (whole seconds, at least one); the fields are then unused."""
    time_zone: str | None = None
    """The zone a `TZ=`/`CRON_TZ=` prefix names, as written."""

    def next_run(self, after: datetime, zone: tzinfo = UTC) -> datetime | None:
        """The first run strictly after `after` (aware), in UTC; None if none within five years."""
        if self.every is not None:
            # robfig/cron's constant delay counts from the whole second.
            return after.replace(microsecond=0).astimezone(UTC) + self.every
        if not (self.minutes and self.hours and self.days_of_month and self.months and self.days_of_week):
            return None  # a field of empty list items (`,`) allows nothing
        start = after.astimezone(zone).replace(tzinfo=None, second=0, microsecond=0) + _MINUTE
        last_year = start.year + _SEARCH_YEARS
        wall = self._next_wall_time(start, last_year)
        while wall is not None:
            instant = wall.replace(tzinfo=zone).astimezone(UTC)
            # A wall time that does not round-trip was skipped by a clock change; one at or before
            # `after` is the first occurrence of a repeated hour that `after` is already past.
            if instant.astimezone(zone).replace(tzinfo=None) == wall and instant > after:
                return instant
            wall = self._next_wall_time(wall + _MINUTE, last_year)
        return None

    def most_recent(self, earliest: datetime, now: datetime, zone: tzinfo = UTC) -> MissedRuns:
        """The latest run in `(earliest, now]` and how many that range holds (kube's estimate)."""
        first = self.next_run(earliest, zone)
        if first is None or first > now:
            return MissedRuns(None, 0)
        second = self.next_run(first, zone)
        if second is None or second > now:
            return MissedRuns(first, 1)
        interval = max(1, round((second - first).total_seconds()))
        count = int((now - first).total_seconds()) // interval + 1
        # Like kube, start one interval before the estimated latest run, so that `@every` stays on
        # its grid. An irregular schedule (`30 6-16/4 * * 1-5`) can put that start past the latest
        # run; kube then reports none, here the start moves back until a run is found.
        cursor = first + timedelta(seconds=(count - 2) * interval)
        step_back = timedelta(seconds=interval)
        while True:
            latest = first if cursor <= first else None
            run = self.next_run(cursor, zone)
            while run is not None and run <= now:
                latest, run = run, self.next_run(run, zone)
            if latest is not None:
                return MissedRuns(latest, count)
            cursor = max(first, cursor - step_back)
            step_back *= 2

    def _next_wall_time(self, wall: datetime, last_year: int) -> datetime | None:
        """The first naive wall time at or after `wall` that the fields allow."""
        while wall.year <= last_year:
            if wall.month not in self.months:
                month = _at_least(self.months, wall.month)
                if month is None:
                    wall = datetime(wall.year + 1, self.months[0], 1)  # noqa: DTZ001 -- a wall time, the zone comes later
                else:
                    wall = datetime(wall.year, month, 1)  # noqa: DTZ001 -- a wall time, the zone comes later
                continue
            if not self._day_matches(wall):
                wall = datetime.combine(wall.date() + _DAY, time())
                continue
            hour = _at_least(self.hours, wall.hour)
            if hour is None:
                wall = datetime.combine(wall.date() + _DAY, time())
                continue
            if hour != wall.hour:
                wall = wall.replace(hour=hour, minute=0)
            minute = _at_least(self.minutes, wall.minute)
            if minute is None:
                wall = wall.replace(minute=0) + _HOUR
                continue
            return wall.replace(minute=minute)
        return None

    def _day_matches(self, wall: datetime) -> bool:
        in_month = wall.day in self.days_of_month
        in_week = wall.isoweekday() % 7 in self.days_of_week
        return (in_month and in_week) if self.any_day else (in_month or in_week)


def _at_least(values: tuple[int, ...], lowest: int) -> int | None:
    """The smallest of the ascending `values` that is ≥ `lowest`, if any."""
    index = bisect_left(values, lowest)
    return values[index] if index < len(values) else None


def parse_schedule(schedule: str) -> CronSchedule:
    """Parse a schedule as robfig/cron's `ParseStandard`; `CronSyntaxError` with its message if not one."""
    if not schedule:
        raise CronSyntaxError("empty spec string")
    text, time_zone = schedule, None
    if text.startswith(("TZ=", "CRON_TZ=")):
        prefix, _, text = text.partition(" ")
        time_zone = prefix.partition("=")[2]
        text = text.strip()
    if text.startswith("@"):
        return _descriptor(text, time_zone)
    parts = text.split()
    if len(parts) != len(_FIELDS):
        raise CronSyntaxError(
            f"expected exactly {len(_FIELDS)} fields, found {len(parts)}: [{' '.join(parts)}]"
        )
    minutes, hours, days_of_month, months, days_of_week = (
        _field(part, bounds) for part, bounds in zip(parts, _FIELDS, strict=True)
    )
    return CronSchedule(
        minutes=minutes[0],
        hours=hours[0],
        days_of_month=days_of_month[0],
        months=months[0],
        days_of_week=days_of_week[0],
        any_day=days_of_month[1] or days_of_week[1],
        time_zone=time_zone,
    )


def _descriptor(text: str, time_zone: str | None) -> CronSchedule:
    expansion = DESCRIPTORS.get(text)
    if expansion is not None:
        return replace(parse_schedule(expansion), time_zone=time_zone)
    if text.startswith(_EVERY):
        try:
            seconds = parse_go_duration(text.removeprefix(_EVERY))
        except ValueError as error:
            raise CronSyntaxError(f"failed to parse duration {text}: {error}") from error
        # robfig/cron's `Every`: at least a second, and truncated to whole seconds.
        return CronSchedule(every=timedelta(seconds=max(1, math.floor(seconds))), time_zone=time_zone)
    raise CronSyntaxError(f"unrecognized descriptor: {text}")


def _field(text: str, bounds: _Bounds) -> tuple[tuple[int, ...], bool]:
    """(the values a field allows, ascending; whether an item is an unstepped `*` or `?`)."""
    allowed: set[int] = set()
    star = False
    for expression in text.split(","):
        if expression:
            values, is_star = _range(expression, bounds)
            allowed |= values
            star = star or is_star
    return tuple(sorted(allowed)), star


def _range(expression: str, bounds: _Bounds) -> tuple[set[int], bool]:
    """One list item, checked in robfig/cron's `getRange` order so the first error is the same."""
    range_and_step = expression.split("/")
    low_and_high = range_and_step[0].split("-")
    star = low_and_high[0] in ("*", "?")
    if star:
        start, end = bounds.minimum, bounds.maximum
    else:
        start = _number(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _number(low_and_high[1], bounds.names)
        else:
            raise CronSyntaxError(f"too many hyphens: {expression}")
    step = 1
    if len(range_and_step) == 2:
        step = _number(range_and_step[1], {})
        if len(low_and_high) == 1:
            end = bounds.maximum  # "N/step" means "N-max/step"
        star = star and step <= 1
    elif len(range_and_step) > 2:
        raise CronSyntaxError(f"too many slashes: {expression}")
    if start < bounds.minimum:
        raise CronSyntaxError(f"beginning of range ({start}) below minimum ({bounds.minimum}): {expression}")
    if end > bounds.maximum:
        raise CronSyntaxError(f"end of range ({end}) above maximum ({bounds.maximum}): {expression}")
    if start > end:
        raise CronSyntaxError(f"beginning of range ({start}) beyond end of range ({end}): {expression}")
    if step == 0:
        raise CronSyntaxError(f"step of range should be a positive number: {expression}")
    return set(range(start, end + 1, step)), star


def _number(text: str, names: Mapping[str, int]) -> int:
    """robfig/cron's `parseIntOrName`: a name of the field, else Go's `strconv.Atoi`, not negative."""
    named = names.get(text.lower())
    if named is not None:
        return named
    if not _INTEGER.match(text):
        raise CronSyntaxError(
            f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax'
        )
    number = int(text)
    if number not in _INT64:
        raise CronSyntaxError(
            f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": value out of range'
        )
    if number < 0:
        raise CronSyntaxError(f"negative number ({number}) not allowed: {text}")
    return number
