"""When a CronJob's schedule fires: standard cron fields, evaluated in a time zone.

Five fields (minute, hour, day of month, month, day of week), each `*`/`?`, a value, a range
`a-b`, a step `/n` of either, or a list of those; months and weekdays may be names. As in the cron
library kube uses, when both day fields are restricted a day matching either one fires, and
descriptors stand for whole schedules (`@hourly`, `@daily`/`@midnight`, `@weekly`, `@monthly`,
`@yearly`/`@annually`, `@every <duration>`). The API server has validated the text already.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

from flotilla.api.duration import parse_go_duration

_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_BOUNDS: tuple[tuple[int, int, dict[str, int]], ...] = (
    (0, 59, {}),
    (0, 23, {}),
    (1, 31, {}),
    (1, 12, {name: number for number, name in enumerate(_MONTHS, start=1)}),
    (0, 6, {name: number for number, name in enumerate(_WEEKDAYS)}),
)
_SEARCH_YEARS = 5


def _number(text: str, names: dict[str, int]) -> int:
    return names[text.lower()] if text.lower() in names else int(text)


def _values(field: str, minimum: int, maximum: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    """(the values a field allows, whether it is an unrestricted `*`)."""
    allowed: set[int] = set()
    star = False
    for expression in field.split(","):
        base, _, step_text = expression.partition("/")
        step = int(step_text) if step_text else 1
        if base in ("*", "?"):
            start, end = minimum, maximum
            star = star or step == 1
        else:
            low, _, high = base.partition("-")
            start = _number(low, names)
            end = _number(high, names) if high else start
            if step_text and not high:
                end = maximum
        allowed.update(range(start, end + 1, step))
    return frozenset(allowed), star


def _parse_duration(text: str) -> timedelta:
    return timedelta(seconds=parse_go_duration(text))


@dataclass(frozen=True, slots=True)
class CronSchedule:
    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    weekdays: frozenset[int] = frozenset()
    any_day: bool = True
    """At least one day field is `*`: a day must match both (else either)."""
    every: timedelta | None = None

    @staticmethod
    def parse(text: str) -> CronSchedule:
        text = text.strip()
        if text.startswith(("TZ=", "CRON_TZ=")):
            text = text.partition(" ")[2].strip()
        if text.startswith("@every "):
            return CronSchedule(every=_parse_duration(text.removeprefix("@every ").strip()))
        text = _DESCRIPTORS.get(text, text)
        fields = text.split()
        if len(fields) != len(_BOUNDS):
            raise ValueError(f"expected exactly 5 fields, found {len(fields)}: {text!r}")
        parsed = [_values(field, *bounds) for field, bounds in zip(fields, _BOUNDS, strict=True)]
        return CronSchedule(
            minutes=parsed[0][0],
            hours=parsed[1][0],
            days=parsed[2][0],
            months=parsed[3][0],
            weekdays=parsed[4][0],
            any_day=parsed[2][1] or parsed[4][1],
        )

    def _day_matches(self, moment: datetime) -> bool:
        in_month = moment.day in self.days
        in_week = (moment.isoweekday() % 7) in self.weekdays
        return (in_month and in_week) if self.any_day else (in_month or in_week)

    def next_after(self, moment: datetime, zone: tzinfo) -> datetime | None:
        """The first firing strictly after `moment` (None if there is none within five years)."""
        if self.every is not None:
            step = max(self.every, timedelta(seconds=1))
            return moment.replace(microsecond=0) + step
        local = moment.astimezone(zone).replace(second=0, microsecond=0, tzinfo=None) + timedelta(minutes=1)
        limit = local.year + _SEARCH_YEARS
        while local.year <= limit:
            if local.month not in self.months:
                local = (local.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
            elif not self._day_matches(local):
                local = local.replace(hour=0, minute=0) + timedelta(days=1)
            elif local.hour not in self.hours:
                local = local.replace(minute=0) + timedelta(hours=1)
            elif local.minute not in self.minutes:
                local += timedelta(minutes=1)
            else:
                return local.replace(tzinfo=zone)
        return None

    def most_recent(self, earliest: datetime, now: datetime, zone: tzinfo) -> tuple[datetime | None, int]:
        """(the latest firing in (earliest, now], how many firings that range holds, roughly).

        Like kube, a long gap is not walked firing by firing: the count is estimated from the
        distance between the first two firings.
        """
        first = self.next_after(earliest, zone)
        if first is None or first > now:
            return None, 0
        second = self.next_after(first, zone)
        if second is None or second > now:
            return first, 1
        interval = (second - first).total_seconds()
        missed = int((now - first).total_seconds() // max(interval, 1)) + 1
        cursor = max(first, now - timedelta(seconds=2 * interval))
        latest = first
        candidate = self.next_after(cursor - timedelta(minutes=1), zone) if cursor > first else first
        while candidate is not None and candidate <= now:
            latest = candidate
            candidate = self.next_after(candidate, zone)
        return latest, missed
