"""Reading optional fields of decoded JSON objects without tripping over absent or null ones.

Objects reach validation and defaulting as plain dicts, already pruned and type-checked against the
OpenAPI schema, but any field may still be missing or `null`. These accessors answer "the object at
this key, or an empty one", "the list at this key, or an empty one", so rules read like the Go code
that reads zero values, and none of them inserts anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def mapping(obj: Mapping[str, Any] | None, name: str) -> dict[str, Any]:
    """The object at `name`, or an empty dict (not stored back) when it is absent or not an object."""
    if obj is None:
        return {}
    value = obj.get(name)
    return value if isinstance(value, dict) else {}


def items(obj: Mapping[str, Any] | None, name: str) -> list[Any]:
    """The list at `name`, or an empty list when it is absent or not a list."""
    if obj is None:
        return []
    value = obj.get(name)
    return value if isinstance(value, list) else []


def objects(obj: Mapping[str, Any] | None, name: str) -> list[dict[str, Any]]:
    """The objects of the list at `name`; entries that are not objects are skipped."""
    return [entry for entry in items(obj, name) if isinstance(entry, dict)]


def text(obj: Mapping[str, Any] | None, name: str) -> str:
    """The string at `name`, or `""` (Go's zero value) when it is absent or not a string."""
    if obj is None:
        return ""
    value = obj.get(name)
    return value if isinstance(value, str) else ""


def integer(obj: Mapping[str, Any] | None, name: str) -> int | None:
    """The integer at `name`, or None when it is absent (booleans are not integers here)."""
    if obj is None:
        return None
    value = obj.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value


def string_map(obj: Mapping[str, Any] | None, name: str) -> dict[str, str]:
    """A map of strings such as labels; entries whose value is not a string are skipped."""
    return {key: value for key, value in mapping(obj, name).items() if isinstance(value, str)}


def ensure_mapping(obj: dict[str, Any], name: str) -> dict[str, Any]:
    """The object at `name`, created (and stored) when absent or null. For defaulting only."""
    value = obj.get(name)
    if not isinstance(value, dict):
        value = {}
        obj[name] = value
    return value
