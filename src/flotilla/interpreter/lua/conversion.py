"""JSON values ↔ Lua tables, with the rules Karmada's scripts were written against.

Into Lua (as Karmada's `decodeValue`): objects and arrays become tables (arrays from index 1),
numbers become Lua numbers (doubles), null becomes nil (so a null field reads as absent, and a null
in an array is skipped, as gopher-lua's `Append` skips nil).

Out of Lua (as gopher-json's encoder): a table whose keys are all the numbers 1..n is an array, one
whose keys are all strings is an object; an empty table is an empty array; mixed keys, a sparse
array, a function or a table that contains itself are errors. A number with no fractional part is
an integer (Go marshals such a float64 without a decimal point).

An empty table cannot tell `{}` from `[]`, so Karmada repairs the result against reference objects
(`repair_empty`, after `convertEmptySliceToEmptyStructPartly`): an empty array where a reference has
an empty object at the same path (array indexes ignored) becomes `{}`; one where a reference has an
empty array stays; any other empty array is dropped. A whole result that is an empty table is `{}`
when the operation expects an object.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import orjson
from lupa import lua51

_MAX_SAFE_INTEGER = 2**63
_MAX_DEPTH = 200
"""Deeper than any Kubernetes object; lupa gives a new wrapper per access, so a table containing
itself is found by its depth rather than its identity."""


class ConversionError(ValueError):
    """A Lua value that has no JSON form."""


def to_lua(runtime: lua51.LuaRuntime, value: Any) -> Any:
    """A JSON value as a Lua value (tables built in C by lupa)."""
    if isinstance(value, Mapping | list | tuple):
        # A fresh tree through orjson (in C): lupa's `table_from` turns a dict met twice (shared
        # by two parents) into an empty table, and objects built in Python may share parts. Nulls
        # are seldom there; the encoded text says whether a pass to drop them is needed.
        encoded = orjson.dumps(value)
        tree = orjson.loads(encoded)
        if b"null" in encoded:
            tree = _without_nulls(tree)
        return runtime.table_from(tree, recursive=True)
    return value


def _without_nulls(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_without_nulls(item) for item in value if item is not None]
    return value


def from_lua(value: Any) -> Any:
    """A Lua value as a JSON value, by gopher-json's rules."""
    return _encode(value, 0)


_LUA_TABLE = type(lua51.LuaRuntime(register_eval=False, register_builtins=False).table())
"""lupa's (private) table class: testing a value's type against it is the cheapest way to spot a
table, and most values met here are tables."""


def _encode(value: Any, depth: int) -> Any:
    kind_of = type(value)
    if value is None or kind_of is str or kind_of is bool or kind_of is int:
        return value
    if kind_of is _LUA_TABLE:
        if depth > _MAX_DEPTH:
            raise ConversionError("cannot encode recursively nested tables to JSON")
        return _encode_table(value, depth + 1)
    kind = lua51.lua_type(value)
    if kind is None:
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
        if isinstance(value, int | float):
            return _number(value)
        raise ConversionError(f"cannot encode {type(value).__name__} to JSON")
    if kind != "table":
        raise ConversionError(f"cannot encode {kind} to JSON")
    if depth > _MAX_DEPTH:
        raise ConversionError("cannot encode recursively nested tables to JSON")
    return _encode_table(value, depth + 1)


def _encode_table(table: Any, depth: int) -> Any:
    items = list(table.items())
    if not items:
        return []
    first = items[0][0]
    # The usual array: keys 1..n in order (checked, not assumed).
    if (
        first == 1
        and items[-1][0] == len(items)
        and all(key == index for index, (key, _) in enumerate(items, start=1))
    ):
        return [_encode(item, depth) for _, item in items]
    if type(first) is int or type(first) is float:
        ordered = sorted(items, key=_number_key)
        if [key for key, _ in ordered] != list(range(1, len(ordered) + 1)):
            raise ConversionError("cannot encode sparse array")
        return [_encode(item, depth) for _, item in ordered]
    out: dict[str, Any] = {}
    for key, item in items:
        if type(key) is str:
            out[key] = _encode(item, depth)
        elif type(key) is bytes:
            out[_key(key)] = _encode(item, depth)
        else:
            raise ConversionError("cannot encode mixed or invalid key types")
    return out


def _number_key(item: tuple[Any, Any]) -> float:
    key = item[0]
    if type(key) is not int and type(key) is not float:
        raise ConversionError("cannot encode mixed or invalid key types")
    return float(key)


def _key(key: str | bytes) -> str:
    return key.decode("utf-8", errors="replace") if isinstance(key, bytes) else key


def _number(value: int | float) -> int | float:
    if isinstance(value, int):
        return value
    if math.isnan(value) or math.isinf(value):
        raise ConversionError(f"cannot encode the number {value} to JSON")
    if value.is_integer() and abs(value) < _MAX_SAFE_INTEGER:
        return int(value)
    return value


def repair_empty(result: Any, references: Sequence[Any], *, expect_object: bool) -> Any:
    """Karmada's repair of empty tables in a script's result (see the module docstring)."""
    if result == []:
        return {} if expect_object else []
    empty_arrays: set[str] = set()
    empty_objects: set[str] = set()
    for reference in references:
        for path, empty in _empty_fields(reference, ()):
            (empty_arrays if isinstance(empty, list) else empty_objects).add(path)
    return _repaired(result, (), empty_arrays, empty_objects)


def _empty_fields(value: Any, path: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    children: Iterator[tuple[str | None, Any]]
    if isinstance(value, Mapping):
        children = iter(value.items())
    elif isinstance(value, list):
        children = ((None, item) for item in value)
    else:
        return
    for key, item in children:
        child = path if key is None else (*path, key)
        if item in ([], {}):
            yield ".".join(child), item
        elif isinstance(item, Mapping | list):
            yield from _empty_fields(item, child)


def _repaired(value: Any, path: tuple[str, ...], arrays: set[str], objects: set[str]) -> Any:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            child = (*path, key)
            if item == []:
                joined = ".".join(child)
                if joined in objects:
                    out[key] = {}
                elif joined in arrays:
                    out[key] = []
                continue
            out[key] = _repaired(item, child, arrays, objects)
        return out
    if isinstance(value, list):
        kept: list[Any] = []
        for item in value:
            if item == []:
                joined = ".".join(path)
                if joined in objects:
                    kept.append({})
                elif joined in arrays:
                    kept.append([])
                continue
            kept.append(_repaired(item, path, arrays, objects))
        return kept
    return value
