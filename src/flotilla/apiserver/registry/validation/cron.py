"""CronJob schedules in the syntax kube accepts (robfig/cron's standard parser), with its error messages.

A schedule is five space-separated fields — minute, hour, day of month, month, day of week — each a
`*` or `?`, a value, a range `a-b`, any of those with a step `/n`, or a comma-separated list of
them; months and weekdays may be written as three-letter names. Descriptors (`@hourly`, `@daily`,
`@midnight`, `@weekly`, `@monthly`, `@yearly`, `@annually`, `@every <duration>`) stand for a whole
schedule. A leading `TZ=` or `CRON_TZ=` names a time zone (which CronJob validation then forbids).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DESCRIPTORS = frozenset({"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
_MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1
    )
}
_WEEKDAYS = {name: number for number, name in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
_DURATION = re.compile(r"([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+\Z")


class ScheduleError(ValueError):
    """A schedule the cron parser rejects; the message is the parser's."""


@dataclass(frozen=True, slots=True)
class _Bounds:
    minimum: int
    maximum: int
    names: dict[str, int]


_FIELDS = (
    _Bounds(0, 59, {}),
    _Bounds(0, 23, {}),
    _Bounds(1, 31, {}),
    _Bounds(1, 12, _MONTHS),
    _Bounds(0, 6, _WEEKDAYS),
)


def parse_schedule(schedule: str) -> None:
    """Raise `ScheduleError` unless `schedule` is a valid standard cron schedule."""
    if not schedule:
        raise ScheduleError("empty spec string")
    text = schedule
    if text.startswith(("TZ=", "CRON_TZ=")):
        zone, _, text = text.partition(" ")
        del zone
        text = text.strip()
    if text.startswith("@"):
        _descriptor(text)
        return
    parts = text.split()
    if len(parts) != len(_FIELDS):
        raise ScheduleError(f"expected exactly 5 fields, found {len(parts)}: [{' '.join(parts)}]")
    for part, bounds in zip(parts, _FIELDS, strict=True):
        for expression in part.split(","):
            _range(expression, bounds)


def _descriptor(text: str) -> None:
    if text in DESCRIPTORS:
        return
    if text.startswith("@every "):
        duration = text.removeprefix("@every ")
        if not _DURATION.match(duration) or duration in ("", "."):
            raise ScheduleError(f'failed to parse duration {text}: time: invalid duration "{duration}"')
        return
    raise ScheduleError(f"unrecognized descriptor: {text}")


def _range(expression: str, bounds: _Bounds) -> None:
    range_and_step = expression.split("/")
    low_and_high = range_and_step[0].split("-")
    if range_and_step[0] in ("*", "?"):
        start, end = bounds.minimum, bounds.maximum
    else:
        start = _number(low_and_high[0], bounds.names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _number(low_and_high[1], bounds.names)
        else:
            raise ScheduleError(f"too many hyphens: {expression}")
    if len(range_and_step) == 2:
        step = _number(range_and_step[1], {})
        if step <= 0:
            raise ScheduleError(f"step of range should be a positive number: {expression}")
        if len(low_and_high) == 1 and range_and_step[0] not in ("*", "?"):
            end = bounds.maximum
    elif len(range_and_step) > 2:
        raise ScheduleError(f"too many slashes: {expression}")
    if start < bounds.minimum:
        raise ScheduleError(f"beginning of range ({start}) below minimum ({bounds.minimum}): {expression}")
    if end > bounds.maximum:
        raise ScheduleError(f"end of range ({end}) above maximum ({bounds.maximum}): {expression}")
    if start > end:
        raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {expression}")


def _number(text: str, names: dict[str, int]) -> int:
    named = names.get(text.lower())
    if named is not None:
        return named
    if not text.isascii() or not text.lstrip("-").isdigit():
        raise ScheduleError(
            f'failed to parse int from {text}: strconv.Atoi: parsing "{text}": invalid syntax'
        )
    number = int(text)
    if number < 0:
        raise ScheduleError(f"negative number ({number}) not allowed: {text}")
    return number
