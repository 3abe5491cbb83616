"""Cron schedules with a next run: what a CronFederatedHPA rule's `schedule` means in time.

The syntax is the one the API server accepts for the field (kube's CronJob syntax, robfig/cron's
standard parser): five fields — minute, hour, day of month, month, day of week — each `*`/`?`, a
value, a range `a-b`, with an optional step `/n`, or a comma list of those; month and weekday
names; the descriptors `@yearly`/`@annually`, `@monthly`, `@weekly`, `@daily`/`@midnight`,
`@hourly` and `@every <Go duration>`. As in robfig/cron, when both day fields are restricted a
day matches either of them; when one is `*` (unstepped), both must match.

`next_run` walks forward field by field (month, day, hour, minute) in the rule's time zone, never
minute by minute, and gives up after five years (a schedule such as `0 0 30 2 *` never runs), so
a call costs at most a few thousand cheap steps. Wall times are those of the zone: a time skipped
by a daylight-saving change is not run; a repeated one runs once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from flotilla.api.duration import parse_go_duration

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_SEARCH_YEARS = 5


class CronSyntaxError(ValueError):
    """A schedule that is not valid cron syntax; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class _Field:
    minimum: int
    maximum: int
    names: tuple[str, ...] = ()
    name_base: int = 0


_FIELDS = (
    _Field(0, 59),
    _Field(0, 23),
    _Field(1, 31),
    _Field(1, 12, _MONTHS, 1),
    _Field(0, 6, _WEEKDAYS, 0),
)


@dataclass(frozen=True, slots=True)
class CronSchedule:
    """A parsed schedule: the allowed values of each field, or a constant delay (`@every`)."""

    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days_of_month: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    days_of_week: frozenset[int] = frozenset()
    any_day: bool = False
    """One of the day fields is an unstepped `*`: a day must match both fields."""
    every: timedelta | None = None

    def next_run(self, after: datetime, zone: tzinfo = UTC) -> datetime | None:
        """The first run strictly after `after` (aware), in UTC; None if none within five years."""
        if self.every is not None:
            return (after + self.every).replace(microsecond=0).astimezone(UTC)
        local = after.astimezone(zone).replace(tzinfo=None, second=0, microsecond=0) + timedelta(minutes=1)
        limit = local.year + _SEARCH_YEARS
        while local.year <= limit:
            if local.month not in self.months:
                local = _first_of_next_month(local)
            elif not self._day_matches(local):
                local = local.replace(hour=0, minute=0) + timedelta(days=1)
            elif local.hour not in self.hours:
                local = local.replace(minute=0) + timedelta(hours=1)
            elif local.minute not in self.minutes:
                local += timedelta(minutes=1)
            else:
                moment = local.replace(tzinfo=zone)
                if moment.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == local:
                    candidate = moment.astimezone(UTC)
                    if candidate > after:
                        return candidate
                local += timedelta(minutes=1)  # skipped by a clock change, or already past
        return None

    def _day_matches(self, moment: datetime) -> bool:
        in_month = moment.day in self.days_of_month
        in_week = (moment.isoweekday() % 7) in self.days_of_week
        return (in_month and in_week) if self.any_day else (in_month or in_week)


def _first_of_next_month(moment: datetime) -> datetime:
    start = moment.replace(day=1, hour=0, minute=0)
    if moment.month == 12:
        return start.replace(year=moment.year + 1, month=1)
    return start.replace(month=moment.month + 1)


def parse_cron(schedule: str) -> CronSchedule:
    """Parse a schedule; `CronSyntaxError` when it is not one."""
    text = schedule.strip()
    if not text:
        raise CronSyntaxError("empty spec string")
    if text.startswith("@every"):
        return _every(text)
    if text.startswith("@"):
        expanded = _DESCRIPTORS.get(text)
        if expanded is None:
            raise CronSyntaxError(f"unrecognized descriptor: {text}")
        text = expanded
    parts = text.split()
    if len(parts) != len(_FIELDS):
        raise CronSyntaxError(f"expected exactly 5 fields, found {len(parts)}: [{' '.join(parts)}]")
    values: list[frozenset[int]] = []
    stars: list[bool] = []
    for part, field in zip(parts, _FIELDS, strict=True):
        allowed: set[int] = set()
        star = False
        for expression in part.split(","):
            numbers, is_star = _expression(expression, field)
            allowed |= numbers
            star = star or is_star
        values.append(frozenset(allowed))
        stars.append(star)
    return CronSchedule(
        minutes=values[0],
        hours=values[1],
        days_of_month=values[2],
        months=values[3],
        days_of_week=values[4],
        any_day=stars[2] or stars[4],
    )


def _every(text: str) -> CronSchedule:
    duration = text.removeprefix("@every").strip()
    try:
        seconds = parse_go_duration(duration)
    except ValueError as error:
        raise CronSyntaxError(f"failed to parse duration {text}: {error}") from error
    # robfig/cron runs a constant delay at whole seconds, at least one second apart.
    return CronSchedule(every=timedelta(seconds=max(1, int(seconds))))


def _expression(expression: str, field: _Field) -> tuple[set[int], bool]:
    """The values of one comma-separated item, and whether it is an unstepped `*`."""
    range_and_step = expression.split("/")
    if len(range_and_step) > 2:
        raise CronSyntaxError(f"too many slashes: {expression}")
    bounds = range_and_step[0]
    star = bounds in ("*", "?")
    if star:
        start, end = field.minimum, field.maximum
    else:
        low_and_high = bounds.split("-")
        if len(low_and_high) > 2:
            raise CronSyntaxError(f"too many hyphens: {expression}")
        start = _number(low_and_high[0], field)
        end = _number(low_and_high[1], field) if len(low_and_high) == 2 else start
        if len(low_and_high) == 1 and len(range_and_step) == 2:
            end = field.maximum  # "N/step" means "N-max/step"
    step = 1
    if len(range_and_step) == 2:
        step = _number(range_and_step[1], None)
        if step <= 0:
            raise CronSyntaxError(f"step of range should be a positive number: {expression}")
        star = star and step == 1
    if start < field.minimum:
        raise CronSyntaxError(f"beginning of range ({start}) below minimum ({field.minimum}): {expression}")
    if end > field.maximum:
        raise CronSyntaxError(f"end of range ({end}) above maximum ({field.maximum}): {expression}")
    if start > end:
        raise CronSyntaxError(f"beginning of range ({start}) beyond end of range ({end}): {expression}")
    return set(range(start, end + 1, step)), star


def _number(text: str, field: _Field | None) -> int:
    if field is not None and text.lower() in field.names:
        return field.names.index(text.lower()) + field.name_base
    if not text.isascii() or not text.isdigit():
        raise CronSyntaxError(
            f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax'
        )
    return int(text)
