"""apimachinery's hand-written types: protobuf messages whose JSON form is not their fields.

`metav1.Time`, `resource.Quantity`, `intstr.IntOrString` and friends have custom Go JSON marshallers,
so their JSON cannot be read off a field table. Each renderer here takes the message payload and
returns the JSON value Go would print:

- `meta.v1.Time` {1 seconds, 2 nanos}: RFC 3339 in UTC to the second (`2024-01-02T03:04:05Z`); Go
  drops the nanos when unmarshalling. An empty message is the zero time, which prints as `null`.
- `meta.v1.MicroTime`: the same with six fractional digits (`2024-01-02T03:04:05.123456Z`).
- `meta.v1.Duration` {1 duration in ns}: Go's `time.Duration` string (`1h2m3.5s`, `300ms`, `0s`).
- `resource.Quantity` {1 string}: the string, which Go parses (and refuses when malformed).
- `intstr.IntOrString` {1 type, 2 intVal, 3 strVal}: a JSON number or string depending on `type`.
- `meta.v1.FieldsV1` and `runtime.RawExtension` {1 raw}: the raw bytes are JSON, embedded as is.

Every renderer is also called with an empty payload for a value (non-pointer) field that is absent,
which yields Go's zero value: `null` for times, `"0"`, `0`, `"0s"`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import orjson

from flotilla.api.quantities import QuantityError, parse_quantity_string
from flotilla.api.times import format_micro_time, format_time
from flotilla.apiserver.encoding.protobuf.wire import ProtobufError, WireType, as_int32, as_int64, iter_fields

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_GO_ZERO_TIME_SECONDS = -62135596800
"""Unix seconds of Go's zero `time.Time` (year 1, January 1, 00:00:00 UTC)."""


def _varints(payload: bytes, what: str) -> dict[int, int]:
    """The last value of each varint field of a small fixed message; other fields are skipped."""
    values: dict[int, int] = {}
    for item in iter_fields(payload):
        if item.wire_type is WireType.VARINT and isinstance(item.value, int):
            values[item.number] = item.value
        elif item.number in (1, 2):
            raise ProtobufError(f"malformed {what}: field {item.number} has wire type {item.wire_type.value}")
    return values


def _strings(payload: bytes) -> dict[int, bytes]:
    """The last value of each length-delimited field of a small fixed message."""
    values: dict[int, bytes] = {}
    for item in iter_fields(payload):
        if isinstance(item.value, bytes) and item.wire_type is WireType.LENGTH_DELIMITED:
            values[item.number] = item.value
    return values


def _timestamp(payload: bytes, what: str, *, keep_nanos: bool) -> tuple[int, int] | None:
    """(seconds, nanos) of a Timestamp-shaped message, or None where Go ends up with the zero time."""
    if not payload:
        return None
    fields = _varints(payload, what)
    seconds = as_int64(fields.get(1, 0))
    nanos = as_int32(fields.get(2, 0)) if keep_nanos else 0
    if seconds == _GO_ZERO_TIME_SECONDS and nanos == 0:
        return None
    return seconds, nanos


def _utc(seconds: int, microseconds: int, what: str) -> datetime:
    try:
        return _EPOCH + timedelta(seconds=seconds, microseconds=microseconds)
    except OverflowError:
        raise ProtobufError(f"{what} seconds {seconds} is outside years 1-9999") from None


def render_time(payload: bytes) -> str | None:
    """`metav1.Time`: whole seconds in UTC, RFC 3339; the zero time is `null`."""
    stamp = _timestamp(payload, "Time", keep_nanos=False)
    if stamp is None:
        return None
    return format_time(_utc(stamp[0], 0, "Time"))


def render_micro_time(payload: bytes) -> str | None:
    """`metav1.MicroTime`: UTC, RFC 3339 with exactly six fractional digits; the zero time is `null`."""
    stamp = _timestamp(payload, "MicroTime", keep_nanos=True)
    if stamp is None:
        return None
    seconds, nanos = stamp
    return format_micro_time(_utc(seconds, nanos // 1000, "MicroTime"))


def go_duration(nanoseconds: int) -> str:
    """Format nanoseconds the way Go's `time.Duration.String` does."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    magnitude = abs(nanoseconds)
    if magnitude < 1_000:
        return f"{sign}{magnitude}ns"
    if magnitude < 1_000_000:
        return f"{sign}{_decimal(magnitude, 1_000)}µs"
    if magnitude < 1_000_000_000:
        return f"{sign}{_decimal(magnitude, 1_000_000)}ms"
    minutes, rest = divmod(magnitude, 60_000_000_000)
    text = f"{_decimal(rest, 1_000_000_000)}s"
    if minutes:
        hours, minutes = divmod(minutes, 60)
        text = f"{minutes}m{text}"
        if hours:
            text = f"{hours}h{text}"
    return sign + text


def _decimal(value: int, unit: int) -> str:
    """`value / unit` with the fraction's trailing zeros (and a bare point) removed."""
    whole, fraction = divmod(value, unit)
    if not fraction:
        return str(whole)
    digits = str(fraction).rjust(len(str(unit)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"


def render_duration(payload: bytes) -> str:
    """`metav1.Duration`: nanoseconds as a Go duration string (`90s` is `1m30s`)."""
    return go_duration(as_int64(_varints(payload, "Duration").get(1, 0)))


def render_quantity(payload: bytes) -> str:
    """`resource.Quantity`: its string form, refused when Go's `ParseQuantity` would refuse it."""
    raw = _strings(payload).get(1)
    if raw is None:
        return "0"
    text = raw.decode("utf-8", errors="replace")
    try:
        parse_quantity_string(text)
    except QuantityError as error:
        raise ProtobufError(f"{error}: {text!r}") from None
    return text


def render_int_or_string(payload: bytes) -> int | str:
    """`intstr.IntOrString`: `strVal` when `type` is 1 (String), else `intVal`."""
    kind, number, text = 0, 0, b""
    for item in iter_fields(payload):
        if item.number == 1 and isinstance(item.value, int):
            kind = as_int64(item.value)
        elif item.number == 2 and isinstance(item.value, int):
            number = as_int32(item.value)
        elif item.number == 3 and isinstance(item.value, bytes):
            text = item.value
    return text.decode("utf-8", errors="replace") if kind == 1 else number


def render_raw_json(payload: bytes) -> Any:
    """`FieldsV1`/`RawExtension`: field 1 holds JSON bytes, embedded as the value itself."""
    raw = _strings(payload).get(1)
    if not raw:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise ProtobufError(f"embedded raw object is not JSON: {error}") from None


RENDERERS: Final[Mapping[str, Callable[[bytes], Any]]] = {
    "meta.v1.Time": render_time,
    "meta.v1.MicroTime": render_micro_time,
    "meta.v1.Duration": render_duration,
    "meta.v1.FieldsV1": render_raw_json,
    "resource.Quantity": render_quantity,
    "intstr.IntOrString": render_int_or_string,
    "runtime.RawExtension": render_raw_json,
}
"""Message name → renderer, for every message whose JSON comes from a hand-written Go marshaller."""
