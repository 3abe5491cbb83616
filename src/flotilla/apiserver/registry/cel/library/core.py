"""CEL's standard functions: size, conversions, type, string tests, regular expressions, time.

`matches`, `find` and `findAll` use the project's Kubernetes regular expressions (RE2, linear time),
and charge for the text they scan as cel-go does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flotilla.api import regexes
from flotilla.api.duration import parse_go_duration
from flotilla.api.times import InvalidTimestampError, format_rfc3339_nano, parse_timestamp
from flotilla.apiserver.registry.cel.budget import Budget
from flotilla.apiserver.registry.cel.library import register
from flotilla.apiserver.registry.cel.values import (
    CelType,
    EvalError,
    Optional,
    Uint,
    no_overload,
    plain,
    type_name,
)

_INT64 = (-(2**63), 2**63 - 1)


def size(budget: Budget, value: Any) -> int:
    if isinstance(value, (str, bytes, Mapping, Sequence)):
        return len(value)
    raise no_overload("size", value)


def _type(budget: Budget, value: Any) -> CelType:
    return CelType(type_name(value))


def _dyn(budget: Budget, value: Any) -> Any:
    return value


def _int(budget: Budget, value: Any) -> int:
    if isinstance(value, bool):
        raise no_overload("int", value)
    if isinstance(value, int):
        return value
    if isinstance(value, Uint):
        result = value.value
    elif isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise EvalError("double out of range of int")
        result = int(value)
    elif isinstance(value, str):
        try:
            result = int(value)
        except ValueError:
            raise EvalError(f"cannot convert '{value}' to int") from None
    elif isinstance(value, datetime):
        result = int(value.timestamp())
    elif isinstance(value, timedelta):
        result = int(value.total_seconds() * 1e9)
    else:
        raise no_overload("int", value)
    if not _INT64[0] <= result <= _INT64[1]:
        raise EvalError("integer overflow")
    return result


def _uint(budget: Budget, value: Any) -> Uint:
    if isinstance(value, Uint):
        return value
    if isinstance(value, bool):
        raise no_overload("uint", value)
    try:
        return Uint(int(value))
    except (ValueError, OverflowError):
        raise EvalError(f"cannot convert '{value}' to uint") from None


def _double(budget: Budget, value: Any) -> float:
    if isinstance(value, bool):
        raise no_overload("double", value)
    if isinstance(value, Uint):
        return float(value.value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise EvalError(f"cannot convert '{value}' to double") from None
    raise no_overload("double", value)


def _string(budget: Budget, value: Any) -> str:
    budget.charge(_length(value) // 10)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Uint):
        return str(value.value)
    if isinstance(value, (int, float)):
        return _double_text(value) if isinstance(value, float) else str(value)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise EvalError("invalid UTF-8 in bytes, cannot convert to string") from None
    if isinstance(value, datetime):
        return format_rfc3339_nano(value)
    if isinstance(value, timedelta):
        return _duration_text(value)
    text = getattr(value, "cel_string", None)
    if text is not None:
        return str(text())
    raise no_overload("string", value)


def _double_text(value: float) -> str:
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def _duration_text(value: timedelta) -> str:
    seconds = value.total_seconds()
    return f"{_double_text(seconds)}s"


def _bytes(budget: Budget, value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise no_overload("bytes", value)


def _bool(budget: Budget, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if value in ("true", "True", "TRUE", "t", "1"):
            return True
        if value in ("false", "False", "FALSE", "f", "0"):
            return False
        raise EvalError(f"type conversion error from 'string' to 'bool': {value}")
    raise no_overload("bool", value)


def _length(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 1


def _text_pair(function: str, target: Any, argument: Any) -> tuple[str, str]:
    if not isinstance(target, str) or not isinstance(argument, str):
        raise no_overload(function, target, argument)
    return target, argument


def _contains(budget: Budget, target: Any, argument: Any) -> bool:
    text, part = _text_pair("contains", target, argument)
    budget.charge((len(text) * max(len(part), 1)) // 10)
    return part in text


def _starts_with(budget: Budget, target: Any, argument: Any) -> bool:
    text, part = _text_pair("startsWith", target, argument)
    budget.charge(len(part) // 10)
    return text.startswith(part)


def _ends_with(budget: Budget, target: Any, argument: Any) -> bool:
    text, part = _text_pair("endsWith", target, argument)
    budget.charge(len(part) // 10)
    return text.endswith(part)


def _compiled(pattern: str) -> Any:
    try:
        return regexes.compile_regex(pattern)
    except regexes.RegexError as error:
        raise EvalError(str(error)) from None


def _matches(budget: Budget, target: Any, pattern: Any) -> bool:
    text, expression = _text_pair("matches", target, pattern)
    budget.charge((len(text) * max(len(expression), 1)) // 10)
    return _compiled(expression).search(text) is not None


def _find(budget: Budget, target: Any, pattern: Any) -> str:
    text, expression = _text_pair("find", target, pattern)
    budget.charge((len(text) * max(len(expression), 1)) // 10)
    found = _compiled(expression).search(text)
    return "" if found is None else str(found.group(0))


def _find_all(budget: Budget, target: Any, pattern: Any, limit: Any = -1) -> list[str]:
    text, expression = _text_pair("findAll", target, pattern)
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise no_overload("findAll", target, pattern, limit)
    budget.charge((len(text) * max(len(expression), 1)) // 10)
    if limit == 0:
        return []
    found = [str(m.group(0)) for m in _compiled(expression).finditer(text)]
    return found if limit < 0 else found[:limit]


def _timestamp(budget: Budget, value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise no_overload("timestamp", value)
    try:
        parsed = parse_timestamp(value)
    except InvalidTimestampError:
        parsed = None
    if parsed is None:
        raise EvalError(f"timestamp conversion error: {value}")
    return parsed


def _duration(budget: Budget, value: Any) -> timedelta:
    if isinstance(value, timedelta):
        return value
    if not isinstance(value, str):
        raise no_overload("duration", value)
    try:
        return timedelta(seconds=parse_go_duration(value))
    except ValueError:
        raise EvalError(f"duration conversion error: {value}") from None


def _zone(name: Any) -> Any:
    if not isinstance(name, str):
        raise no_overload("timezone", name)
    if name[:1] in "+-" and ":" in name:
        sign = -1 if name[0] == "-" else 1
        hours, minutes = name[1:].split(":", 1)
        return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise EvalError(f"unknown timezone: {name}") from None


def _time_part(part: str) -> Any:
    def read(budget: Budget, value: Any, zone: Any = None) -> int:
        if isinstance(value, timedelta):
            total = value.total_seconds()
            return {
                "getHours": int(total // 3600),
                "getMinutes": int(total // 60),
                "getSeconds": int(total),
                "getMilliseconds": int(total * 1000),
            }.get(part, _missing(part, value))
        if not isinstance(value, datetime):
            raise no_overload(part, value)
        moment = value.astimezone(_zone(zone) if zone is not None else UTC)
        readers = {
            "getFullYear": lambda: moment.year,
            "getMonth": lambda: moment.month - 1,
            "getDate": lambda: moment.day,
            "getDayOfMonth": lambda: moment.day - 1,
            "getDayOfWeek": lambda: (moment.weekday() + 1) % 7,
            "getDayOfYear": lambda: moment.timetuple().tm_yday - 1,
            "getHours": lambda: moment.hour,
            "getMinutes": lambda: moment.minute,
            "getSeconds": lambda: moment.second,
            "getMilliseconds": lambda: moment.microsecond // 1000,
        }
        return int(readers[part]())

    return read


def _missing(part: str, value: Any) -> int:
    raise no_overload(part, value)


def _optional_of(budget: Budget, value: Any) -> Optional:
    return Optional(value, present=True)


def _optional_none(budget: Budget) -> Optional:
    return Optional(present=False)


def _optional_non_zero(budget: Budget, value: Any) -> Optional:
    empty = value in (None, False, 0, 0.0, "", b"") or (hasattr(value, "__len__") and len(value) == 0)
    return Optional(value, present=not empty)


def _has_value(budget: Budget, value: Any) -> bool:
    if not isinstance(value, Optional):
        raise no_overload("hasValue", value)
    return value.present


def _value(budget: Budget, value: Any) -> Any:
    if not isinstance(value, Optional):
        raise no_overload("value", value)
    if not value.present:
        raise EvalError("optional.none() dereference")
    return value.value


def _or_value(budget: Budget, value: Any, fallback: Any) -> Any:
    if not isinstance(value, Optional):
        raise no_overload("orValue", value, fallback)
    return value.value if value.present else fallback


def _or(budget: Budget, value: Any, other: Any) -> Any:
    if not isinstance(value, Optional) or not isinstance(other, Optional):
        raise no_overload("or", value, other)
    return value if value.present else other


for _name, _function, _global, _member in (
    ("size", size, (1,), (1,)),
    ("type", _type, (1,), ()),
    ("dyn", _dyn, (1,), ()),
    ("int", _int, (1,), ()),
    ("uint", _uint, (1,), ()),
    ("double", _double, (1,), ()),
    ("string", _string, (1,), ()),
    ("bytes", _bytes, (1,), ()),
    ("bool", _bool, (1,), ()),
    ("contains", _contains, (), (2,)),
    ("startsWith", _starts_with, (), (2,)),
    ("endsWith", _ends_with, (), (2,)),
    ("matches", _matches, (2,), (2,)),
    ("find", _find, (), (2,)),
    ("findAll", _find_all, (), (2, 3)),
    ("timestamp", _timestamp, (1,), ()),
    ("duration", _duration, (1,), ()),
    ("optional.of", _optional_of, (1,), ()),
    ("optional.none", _optional_none, (0,), ()),
    ("optional.ofNonZeroValue", _optional_non_zero, (1,), ()),
    ("hasValue", _has_value, (), (1,)),
    ("value", _value, (), (1,)),
    ("orValue", _or_value, (), (2,)),
    ("or", _or, (), (2,)),
):
    register(_name, _function, global_arities=_global, member_arities=_member)

for _part in (
    "getFullYear",
    "getMonth",
    "getDate",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
):
    register(_part, _time_part(_part), member_arities=(1, 2))

__all__ = ["plain", "size"]
