"""What a built-in object's field looks like when Go encodes its zero value.

kube-apiserver decodes every built-in object into a Go struct and encodes it again, so a field
without `omitempty` is always served, with its zero value when unset: a new ReplicaSet's status is
`{"replicas": 0}`, a Deployment's `{}`, never absent. Clients rely on it (kr8s reads `obj.status` at
once). The generated OpenAPI schemas list exactly those fields as `required`, so the zero object of
a schema is its required fields' zero values, nested. Lists and maps are left out: Go encodes a nil
one as `null`, which no client wants and kube's own strategies avoid by setting them.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.schema.model import Schema

_SCALAR_ZEROS: tuple[tuple[str, Any], ...] = (
    ("integer", 0),
    ("number", 0),
    ("string", ""),
    ("boolean", False),
)


def zero_object(schema: Schema | None) -> dict[str, Any]:
    """The object Go encodes for the zero value of a struct with this schema (its required fields)."""
    if schema is None or not schema.is_object:
        return {}
    zero: dict[str, Any] = {}
    for name in sorted(schema.required):
        value = _zero_value(schema.properties.get(name))
        if value is not None:
            zero[name] = value
    return zero


def _zero_value(schema: Schema | None) -> Any:
    if schema is None or schema.int_or_string:
        return None
    if schema.is_object:
        return None if schema.is_map else zero_object(schema)
    for kind, zero in _SCALAR_ZEROS:
        if kind in schema.types:
            return zero
    return None
