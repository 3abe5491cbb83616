"""Durations and timestamps exactly as Kubernetes prints them (`5m`, `3h12m`, `2d4h`, `<invalid>`).

Ages are rendered server-side in tables and client-side by the CLI (the Events of `describe`, the
AGE of `accept --list`, the TTL of `token list`), and both must agree with kubectl, so the rules
live here, in the pure layer both may import.

`human_duration` is apimachinery's `duration.HumanDuration`: about two significant figures, the
second unit dropped when it is zero. `short_human_duration` is its `ShortHumanDuration` (one unit:
`45s`, `23h`, `6d`), which kubeadm uses for token TTLs and certificate residual times. Durations
shorter than -1s are `<invalid>` (a clock far in the future); -1s..0s is rounded to `0s` to tolerate
small clock skew. Timestamps are read by `flotilla.api.times`; a missing or unreadable timestamp is
the zero time, printed `<unknown>`.

Arithmetic is done on whole microseconds so that boundaries (119s vs 2m) never suffer float rounding.

`parse_go_duration` reads Go's `time.ParseDuration` syntax (`15s`, `1m30s`, `1.5h`, `-2s`, `0`), which
kubectl-style flags (`--ttl`, `--leader-elect-*`, `--request-timeout`) and CronJob's `@every` take.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from flotilla.api.times import timestamp

__all__ = [
    "UNKNOWN",
    "between",
    "human_duration",
    "parse_go_duration",
    "short_human_duration",
    "since",
    "timestamp",  # re-exported for the CLI, which imports it from here; its home is `api.times`
]

_MICROS_PER_SECOND = 1_000_000
_MICROS_PER_MINUTE = 60 * _MICROS_PER_SECOND
_MICROS_PER_HOUR = 60 * _MICROS_PER_MINUTE

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_UNIT_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # Go accepts the micro sign
    "μs": 1e-6,  # and the Greek mu
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
UNKNOWN = "<unknown>"
"""What Kubernetes prints for the zero time."""


def _micros(delta: timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * _MICROS_PER_SECOND + delta.microseconds


def _whole_seconds(micros: int) -> int:
    """Go's `int(d.Seconds())`, which truncates toward zero."""
    return micros // _MICROS_PER_SECOND if micros >= 0 else -(-micros // _MICROS_PER_SECOND)


def human_duration(delta: timedelta) -> str:
    """`delta` as Kubernetes' `duration.HumanDuration` writes it."""
    micros = _micros(delta)
    seconds = _whole_seconds(micros)
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 120:
        return f"{seconds}s"
    minutes = micros // _MICROS_PER_MINUTE
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = micros // _MICROS_PER_HOUR
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h" if rest == 0 else f"{hours}h{rest}m"
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 24 * 8:
        rest = hours % 24
        return f"{days}d" if rest == 0 else f"{days}d{rest}h"
    if hours < 24 * 365 * 2:
        return f"{days}d"
    years = days // 365
    if hours < 24 * 365 * 8:
        rest = days % 365
        return f"{years}y" if rest == 0 else f"{years}y{rest}d"
    return f"{years}y"


def short_human_duration(delta: timedelta) -> str:
    """`delta` as apimachinery's `duration.ShortHumanDuration` writes it: one unit, truncated."""
    seconds = _whole_seconds(_micros(delta))
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    hours = seconds // 3600
    if hours < 24:
        return f"{hours}h"
    if hours < 24 * 365:
        return f"{hours // 24}d"
    return f"{hours // (24 * 365)}y"


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def since(value: object, now: datetime) -> str:
    """How long ago a stored timestamp was (Go's `translateTimestampSince`); `<unknown>` when unset."""
    moment = timestamp(value)
    if moment is None:
        return UNKNOWN
    return human_duration(_aware(now) - moment)


def between(start: datetime, end: datetime) -> str:
    """The human duration from `start` to `end`."""
    return human_duration(_aware(end) - _aware(start))


def parse_go_duration(text: str) -> float:
    """Seconds of a Go duration (`32s`, `1m30s`, `1.5h`, `-2s`, `0`); ValueError worded as Go's."""
    body = text[1:] if text[:1] in "+-" else text
    sign = -1.0 if text.startswith("-") else 1.0
    if body == "0":
        return 0.0
    position, total = 0, 0.0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        if match is None:
            raise ValueError(f'time: invalid duration "{text}"')
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        position = match.end()
    if not body:
        raise ValueError(f'time: invalid duration "{text}"')
    return sign * total
