"""Ages as kubectl prints them: `45s`, `2m3s`, `10m`, `3h4m`, `20h`, `2d3h`, `45d`, `2y100d`.

Tables from the server already carry their AGE cells; the CLI computes ages itself only for what
it renders on its own (the Events of `describe`). It follows apimachinery's `HumanDuration`: about
two significant units, the second dropped when it is zero, `0s` for a clock slightly ahead and
`<invalid>` for a timestamp more than a second in the future; a missing timestamp is `<unknown>`.

The API server has the same rules in its table printer; the CLI may not import the server, so the
few lines live here too.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

UNKNOWN = "<unknown>"
_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
_YEAR = 365 * _DAY


def _two_units(major: int, major_unit: str, minor: int, minor_unit: str) -> str:
    return f"{major}{major_unit}" if minor == 0 else f"{major}{major_unit}{minor}{minor_unit}"


def human_duration(delta: timedelta) -> str:
    """`delta` rounded the way kubectl shows an age."""
    seconds = int(delta.total_seconds())  # truncates toward zero, as Go's int(d.Seconds())
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 2 * _MINUTE:
        return f"{seconds}s"
    if seconds < 10 * _MINUTE:
        return _two_units(seconds // _MINUTE, "m", seconds % _MINUTE, "s")
    if seconds < 3 * _HOUR:
        return f"{seconds // _MINUTE}m"
    if seconds < 8 * _HOUR:
        return _two_units(seconds // _HOUR, "h", seconds % _HOUR // _MINUTE, "m")
    if seconds < 2 * _DAY:
        return f"{seconds // _HOUR}h"
    if seconds < 8 * _DAY:
        return _two_units(seconds // _DAY, "d", seconds % _DAY // _HOUR, "h")
    if seconds < 2 * _YEAR:
        return f"{seconds // _DAY}d"
    if seconds < 8 * _YEAR:
        return _two_units(seconds // _YEAR, "y", seconds % _YEAR // _DAY, "d")
    return f"{seconds // _YEAR}y"


def parse_timestamp(value: object) -> datetime | None:
    """An RFC 3339 timestamp as the API stores it, or None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def age(value: object, now: datetime) -> str:
    """How long before `now` the stored timestamp `value` was; `<unknown>` when it is not set."""
    moment = parse_timestamp(value)
    if moment is None:
        return UNKNOWN
    return human_duration(now - moment)
