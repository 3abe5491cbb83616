"""CEL values over JSON: what a rule sees of an object, and CEL's equality, ordering and type names.

An object's JSON is used as it is — dicts, lists, strings, ints, floats, booleans, None — except
where its schema gives a field a CEL type JSON lacks: a `number` that arrived as `1` is the double
`1.0`, a `date-time` string a timestamp, a `duration` string a duration, a `byte` string bytes.
Such subtrees are wrapped in views that convert a field when it is read, so a rule on a large
object pays only for what it touches (as kube's `UnstructuredToVal` does). CEL's own types that
JSON never has (uint, type values, optionals) are small classes here.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.duration import parse_go_duration
from flotilla.api.times import InvalidTimestampError, parse_timestamp
from flotilla.apiserver.registry.schema.model import Schema


class EvalError(Exception):
    """A rule's evaluation failed (no such key, overflow, no matching overload…); CEL's wording."""


class Uint:
    """CEL's uint: a distinct type from int (`1u + 1` is no overload), 0 ≤ value < 2^64."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        if not 0 <= value < 2**64:
            raise EvalError("unsigned integer overflow")
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Uint) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"{self.value}u"


class CelType:
    """A type as a value (`type(x) == string`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __str__(self) -> str:
        return self.name


class Optional:
    """CEL's optional: `oldSelf` of a rule with optionalOldSelf, `optional.of(x)`, `optional.none()`."""

    __slots__ = ("present", "value")

    def __init__(self, value: Any = None, *, present: bool) -> None:
        self.present = present
        self.value = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Optional) or other.present != self.present:
            return False
        return not self.present or equal(self.value, other.value)

    __hash__ = None  # type: ignore[assignment]


NONE = Optional(present=False)


def type_name(value: Any) -> str:
    if value is None:
        return "null_type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, Uint):
        return "uint"
    if isinstance(value, datetime):
        return "google.protobuf.Timestamp"
    if isinstance(value, timedelta):
        return "google.protobuf.Duration"
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, Sequence):
        return "list"
    if isinstance(value, CelType):
        return "type"
    if isinstance(value, Optional):
        return "optional_type"
    return str(getattr(value, "cel_type", type(value).__name__))


def no_overload(function: str, *args: Any) -> EvalError:
    kinds = ", ".join(type_name(a) for a in args)
    return EvalError(f"no such overload: {function}({kinds})")


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Uint)) and not isinstance(value, bool)


def _numeric(value: Any) -> int | float:
    return value.value if isinstance(value, Uint) else value


def equal(left: Any, right: Any) -> bool:
    """CEL's heterogeneous equality: numbers compare by value across int, uint and double; other
    values of different types are unequal; lists and maps compare element by element."""
    if is_number(left) and is_number(right):
        a, b = _numeric(left), _numeric(right)
        if isinstance(a, float) and math.isnan(a):
            return False
        return a == b
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (str, bytes)) or isinstance(right, (str, bytes)):
        return type(left) is type(right) and left == right
    if isinstance(left, Mapping):
        if not isinstance(right, Mapping) or len(left) != len(right):
            return False
        for key in left:
            other_key = _find_key(right, key)
            if other_key is _MISSING or not equal(left[key], right[other_key]):
                return False
        return True
    if isinstance(left, Sequence):
        if not isinstance(right, Sequence) or isinstance(right, (str, bytes)) or len(left) != len(right):
            return False
        return all(equal(a, b) for a, b in zip(left, right, strict=True))
    if left is None or right is None:
        return left is None and right is None
    return type(left) is type(right) and bool(left == right)


_MISSING: Any = object()


def _find_key(mapping: Mapping[Any, Any], key: Any) -> Any:
    if key in mapping and (type(key) is not bool or any(k is key for k in mapping)):
        return key
    if is_number(key):
        for candidate in mapping:
            if is_number(candidate) and equal(candidate, key):
                return candidate
    return _MISSING


def compare(function: str, left: Any, right: Any) -> int:
    """-1, 0 or 1 as CEL orders two values of comparable types; EvalError otherwise."""
    a: Any
    b: Any
    if is_number(left) and is_number(right):
        a, b = _numeric(left), _numeric(right)
    elif type(left) is type(right) and isinstance(left, (str, bytes, bool, datetime, timedelta)):
        a, b = left, right
    elif hasattr(left, "compare_to") and type(left) is type(right):
        return int(left.compare_to(right))
    else:
        raise no_overload(function, left, right)
    return int(a > b) - int(a < b)


# -- schema-typed views -----------------------------------------------------------------------------

_CONVERTS: dict[Schema, bool] = {}
_SCALAR_FORMATS = frozenset({"date-time", "date", "duration", "byte"})


def converts(schema: Schema | None) -> bool:
    """Whether any value under `schema` reads differently in CEL than its JSON (numbers, formats)."""
    if schema is None:
        return False
    known = _CONVERTS.get(schema)
    if known is None:
        if len(_CONVERTS) > 65536:
            _CONVERTS.clear()
        _CONVERTS[schema] = False  # a cycle (never in CRDs) reads as "no conversion"
        known = (
            ("number" in schema.types and not schema.int_or_string)
            or ("string" in schema.types and schema.format in _SCALAR_FORMATS)
            or any(converts(sub) for sub in schema.properties.values())
            or converts(schema.additional_properties)
            or converts(schema.items)
        )
        _CONVERTS[schema] = known
    return known


def typed(value: Any, schema: Schema | None) -> Any:
    """`value` as a CEL rule under `schema` sees it."""
    if schema is None or value is None or isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return ObjectView(value, schema) if converts(schema) else value
    if isinstance(value, list):
        return ListView(value, schema.items) if converts(schema.items) else value
    if isinstance(value, int) and "number" in schema.types and not schema.int_or_string:
        return float(value)
    if isinstance(value, str) and schema.format in _SCALAR_FORMATS and "string" in schema.types:
        return _formatted(value, schema.format or "")
    return value


def _formatted(value: str, format_name: str) -> Any:
    try:
        if format_name in ("date-time", "date"):
            text = f"{value}T00:00:00Z" if format_name == "date" and "T" not in value else value
            return parse_timestamp(text)
        if format_name == "duration":
            return timedelta(seconds=parse_go_duration(value))
        return base64.b64decode(value, validate=True)
    except (InvalidTimestampError, ValueError):
        return value


class ObjectView(Mapping[str, Any]):
    """A JSON object read through its schema: fields convert when read."""

    __slots__ = ("_schema", "_value")

    def __init__(self, value: dict[str, Any], schema: Schema) -> None:
        self._value = value
        self._schema = schema

    def __getitem__(self, key: str) -> Any:
        sub = self._schema.properties.get(key) or self._schema.additional_properties
        return typed(self._value[key], sub)

    def __iter__(self) -> Iterator[str]:
        return iter(self._value)

    def __len__(self) -> int:
        return len(self._value)

    def __contains__(self, key: object) -> bool:
        return key in self._value


class ListView(Sequence[Any]):
    """A JSON array read through its item schema."""

    __slots__ = ("_items", "_value")

    def __init__(self, value: list[Any], items: Schema | None) -> None:
        self._value = value
        self._items = items

    def __getitem__(self, position: int) -> Any:  # type: ignore[override]
        return typed(self._value[position], self._items)

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self) -> Iterator[Any]:
        items = self._items
        return (typed(item, items) for item in self._value)


def plain(value: Any) -> Any:
    """A value as JSON-like Python data (views unwrapped), for messages and results."""
    if isinstance(value, ObjectView | dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, ListView | list):
        return [plain(v) for v in value]
    return value
