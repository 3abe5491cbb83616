"""Timestamps as Kubernetes writes and reads them: `metav1.Time`, `metav1.MicroTime`, RFC 3339.

Every component stamps objects — creation and deletion times, condition transitions, Events, Lease
renewals, audit entries, managedFields — and reads stamps back to compare or print them. They all
do it here, so a stamp written by the API server, a controller or a simulated kubelet reads the
same everywhere:

- `format_time` is `metav1.Time`: UTC, whole seconds, `Z` (`2024-05-01T10:00:00Z`); it is what
  objects carry (creationTimestamp, lastTransitionTime, Event times).
- `format_micro_time` is `metav1.MicroTime`: always six fractional digits
  (`2024-05-01T10:00:00.123456Z`); kube uses it where ordering within a second matters (Lease
  acquire and renew times, an Event's `eventTime`, audit stages).
- `format_time_in` is Go's `Format(time.RFC3339)` of a time in a zone (`2024-05-01T12:00:00+02:00`,
  `Z` at offset zero), as the CronJob controller writes its scheduled-timestamp annotation.
- `format_rfc3339_nano` is Go's `Format(time.RFC3339Nano)`: the fraction's trailing zeros dropped
  (none at all on a whole second), as CEL's `string(timestamp)` writes it.
- `parse_timestamp` reads what `metav1.Time` accepts (Go's `time.Parse(time.RFC3339, …)`): a
  date, `T`, a time whose hour may have one digit, an optional fraction (`.` or `,`, truncated to
  microseconds here), and `Z` or a `±hh:mm` offset; ASCII digits only, nothing zone-less. `""` and
  `"null"` are the zero time (None). `timestamp` is the lenient reader of a stored field: None
  when it is absent or unreadable.
- `reencode_time` and `reencode_micro_time` are what kube-apiserver stores for a `metav1.Time` or
  `metav1.MicroTime` field of a built-in kind a client sent: the value decoded and formatted again,
  so `2026-01-01T10:00:00+02:00` is stored as `2026-01-01T08:00:00Z`. What they cannot read, `""`
  and `"null"` included (Go's `time.Parse` reads neither), raises `InvalidTimestampError`;
  `TIME_LAYOUT` and `MICRO_TIME_LAYOUT` are the Go layouts kube names when it refuses one.

A naive `datetime` is taken as UTC (Flotilla's clocks are aware; nothing in Kubernetes is local).
Formatting is done with f-strings: `strftime` costs several times more, and managedFields stamps
every write.
"""

from __future__ import annotations

import functools
import re
from datetime import UTC, datetime, timedelta, tzinfo

ZERO_TIME = "0001-01-01T00:00:00Z"
"""Go's zero `time.Time` as RFC 3339, which is what an unset timestamp prints as."""

TIME_LAYOUT = "2006-01-02T15:04:05Z07:00"
"""Go's `time.RFC3339`, the layout `metav1.Time` is read and written with."""

MICRO_TIME_LAYOUT = "2006-01-02T15:04:05.000000Z07:00"
"""kube's `RFC3339Micro`, the layout of `metav1.MicroTime`."""

_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?(Z|[+-][0-9]{2}:[0-9]{2})"
)


class InvalidTimestampError(ValueError):
    """A timestamp string that is not RFC 3339 as Kubernetes reads it."""


def _utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment if moment.tzinfo is UTC else moment.astimezone(UTC)


def format_time(moment: datetime) -> str:
    """`metav1.Time`: UTC, whole seconds, `Z`."""
    utc = _utc(moment)
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"


def format_micro_time(moment: datetime) -> str:
    """`metav1.MicroTime`: UTC with exactly six fractional digits."""
    utc = _utc(moment)
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}"
        f".{utc.microsecond:06d}Z"
    )


def format_time_in(moment: datetime, zone: tzinfo) -> str:
    """Go's `Format(time.RFC3339)` of `moment` in `zone`: whole seconds, the offset, `Z` when it is zero."""
    local = _utc(moment).astimezone(zone)
    text = local.isoformat(timespec="seconds")
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def format_rfc3339_nano(moment: datetime) -> str:
    """Go's `Format(time.RFC3339Nano)`: UTC, the fraction without trailing zeros (none if whole)."""
    utc = _utc(moment)
    fraction = f".{utc.microsecond:06d}".rstrip("0") if utc.microsecond else ""
    return format_time(utc)[:-1] + fraction + "Z"


@functools.lru_cache(maxsize=1024)
def parse_timestamp(value: str) -> datetime | None:
    """An RFC 3339 timestamp as `metav1.Time` reads it, in UTC; `""` and `"null"` are the zero time (None).

    Remembered: one write reads the same few stamps several times (managedFields are validated,
    decoded and sorted by time), and a `datetime` is immutable."""
    if value in ("", "null"):
        return None
    match = _RFC3339.fullmatch(value)
    if match is None:
        raise InvalidTimestampError(value)
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        parsed = datetime(int(year), int(month), int(day), int(hour), int(minute), int(second), micros, UTC)
    except ValueError as error:
        raise InvalidTimestampError(value) from error
    if zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        hours, minutes = int(zone[1:3]), int(zone[4:6])
        if hours > 24 or minutes > 60:  # the bounds Go's parser checks
            raise InvalidTimestampError(value)
        try:
            parsed -= sign * timedelta(hours=hours, minutes=minutes)
        except OverflowError as error:
            raise InvalidTimestampError(value) from error
    return parsed


def timestamp(value: object) -> datetime | None:
    """A stored timestamp field, or None when it is absent, empty or unreadable (the zero time)."""
    if not isinstance(value, str):
        return None
    try:
        return parse_timestamp(value)
    except InvalidTimestampError:
        return None


def rfc3339(value: object) -> str:
    """A stored timestamp normalised as Go writes `metav1.Time` (UTC, whole seconds); zero time if unset."""
    moment = timestamp(value)
    return ZERO_TIME if moment is None else format_time(moment)


def reencode_time(value: str) -> str:
    """A `metav1.Time` a client sent, as kube-apiserver stores it: UTC, whole seconds, `Z`."""
    return format_time(_required(value))


def reencode_micro_time(value: str) -> str:
    """A `metav1.MicroTime` a client sent, as kube-apiserver stores it: UTC, six fractional digits.

    Read as leniently as `parse_timestamp` (kube's parser wants exactly six digits; a client that
    sends fewer or none loses nothing here)."""
    return format_micro_time(_required(value))


def _required(value: str) -> datetime:
    moment = parse_timestamp(value)
    if moment is None:
        raise InvalidTimestampError(value)
    return moment
