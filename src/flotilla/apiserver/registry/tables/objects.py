"""Reading stored objects (plain JSON) the way Go printers read typed structs.

A Go printer sees a typed object in which every absent field is its zero value: `""`, `0`, `false`,
an empty map or list. Stored objects here are untyped JSON, where a field may be absent, `null`, or
(in a hand-written object) of the wrong type. These accessors return the Go zero value in all those
cases, so printers can be written once, without defensive checks at every step.
"""

from __future__ import annotations

from typing import Any


def child(obj: Any, *path: str) -> Any:
    """The value at `path` under `obj`, or None when any step is missing or not an object."""
    current = obj
    for key in path:
        if not isinstance(current, dict):
            return None
        current = current.get(key)
    return current


def mapping(obj: Any, *path: str) -> dict[str, Any]:
    """An object field; `{}` when absent."""
    value = child(obj, *path)
    return value if isinstance(value, dict) else {}


def items(obj: Any, *path: str) -> list[Any]:
    """A list field; `[]` when absent."""
    value = child(obj, *path)
    return value if isinstance(value, list) else []


def objects(obj: Any, *path: str) -> list[dict[str, Any]]:
    """The object elements of a list field (a list of structs in Go)."""
    return [item for item in items(obj, *path) if isinstance(item, dict)]


def text(obj: Any, *path: str) -> str:
    """A string field; `""` when absent."""
    value = child(obj, *path)
    return value if isinstance(value, str) else ""


def integer(obj: Any, *path: str, default: int = 0) -> int:
    """An integer field; `default` (Go's zero, 0) when absent."""
    value = child(obj, *path)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return int(value)


def flag(obj: Any, *path: str, default: bool = False) -> bool:
    """A boolean field; `default` when absent."""
    value = child(obj, *path)
    return value if isinstance(value, bool) else default


def optional_text(obj: Any, *path: str) -> str | None:
    """A string pointer field: None when absent (distinct from `""`)."""
    value = child(obj, *path)
    return value if isinstance(value, str) else None


def optional_integer(obj: Any, *path: str) -> int | None:
    """An integer pointer field: None when absent."""
    value = child(obj, *path)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return int(value)


def string_map(obj: Any, *path: str) -> dict[str, str]:
    """A `map[string]string` field such as labels; non-string values are skipped."""
    return {key: value for key, value in mapping(obj, *path).items() if isinstance(value, str)}


def name(obj: Any) -> str:
    return text(obj, "metadata", "name")


def created(obj: Any) -> Any:
    """The raw `metadata.creationTimestamp`."""
    return child(obj, "metadata", "creationTimestamp")


def deleting(obj: Any) -> bool:
    """Whether `metadata.deletionTimestamp` is set (the object is terminating)."""
    return child(obj, "metadata", "deletionTimestamp") is not None


def has_condition(conditions: list[dict[str, Any]], condition_type: str) -> bool:
    """Whether the first condition of `condition_type` is True (Go's `hasJobCondition`)."""
    for condition in conditions:
        if condition.get("type") == condition_type:
            return condition.get("status") == "True"
    return False


def container_cells(pod_spec: Any) -> tuple[str, str]:
    """The CONTAINERS and IMAGES cells of a pod template: names and images, comma-separated."""
    containers = objects(pod_spec, "containers")
    return (
        ",".join(text(container, "name") for container in containers),
        ",".join(text(container, "image") for container in containers),
    )
