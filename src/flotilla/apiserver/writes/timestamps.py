"""Timestamps of built-in kinds stored as kube-apiserver stores them, whatever form the client sent.

kube-apiserver decodes a built-in object into its Go type, where every timestamp is a `metav1.Time`
(whole seconds) or a `metav1.MicroTime` (microseconds), and stores what encoding that value gives:
UTC with `Z`, `2026-01-01T10:00:00+02:00` becoming `2026-01-01T08:00:00Z`, a MicroTime with six
fractional digits. A client that sends `+00:00` (Python's `isoformat()` does) or another zone gets
the canonical form back, and a timestamp Go cannot parse is a 400 decode error. Custom resources
are unstructured in kube and keep what was sent, so only built-in kinds come here.

The built-in schemas say which fields these are: a property whose type is the `Time` or `MicroTime`
definition. Which paths of a kind lead to one is worked out once per schema (`kind_timestamp_plan`), so
a write walks only those paths — for a ConfigMap just `metadata.creationTimestamp`,
`deletionTimestamp` and `managedFields[*].time` — and leaves the rest of the object alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.times import (
    MICRO_TIME_LAYOUT,
    TIME_LAYOUT,
    InvalidTimestampError,
    reencode_micro_time,
    reencode_time,
)
from flotilla.apiserver.gostrings import go_quote
from flotilla.apiserver.registry.schema.model import Schema

TIME_DEFINITION = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
MICRO_TIME_DEFINITION = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
_SKIPPED = ("apiVersion", "kind", "metadata")
_ABSENT: Any = object()


@dataclass(frozen=True, slots=True)
class TimeFormat:
    """How one kind of timestamp is re-encoded, and the Go layout named when it cannot be read."""

    layout: str
    reencode: Callable[[str], str]


TIME = TimeFormat(TIME_LAYOUT, reencode_time)
MICRO_TIME = TimeFormat(MICRO_TIME_LAYOUT, reencode_micro_time)


@dataclass(slots=True)
class TimestampPlan:
    """Where the timestamps are below one schema node: the node itself (`leaf`), or some of its
    fields, its list items or its map values. A node with none below it has no plan (None)."""

    leaf: TimeFormat | None = None
    fields: dict[str, TimestampPlan] = field(default_factory=dict)
    items: TimestampPlan | None = None
    values: TimestampPlan | None = None


@functools.cache
def timestamp_plan(schema: Schema) -> TimestampPlan | None:
    """The timestamp paths under `schema` (built-in schemas are process-wide, so each is planned once)."""
    return _Planner().plan(schema)


@functools.cache
def kind_timestamp_plan(schema: Schema) -> TimestampPlan | None:
    """The timestamp paths of a kind's own fields (metadata is walked with ObjectMeta's plan)."""
    plan = timestamp_plan(schema)
    if plan is None:
        return None
    fields = {name: sub for name, sub in plan.fields.items() if name not in _SKIPPED}
    if not fields and plan.values is None:
        return None
    return TimestampPlan(fields=fields, values=plan.values)


class _Planner:
    """Plans one schema graph; a type met again inside itself (a recursive type) adds nothing there."""

    def __init__(self) -> None:
        self._done: dict[int, TimestampPlan | None] = {}
        self._visiting: set[int] = set()

    def plan(self, schema: Schema) -> TimestampPlan | None:
        key = id(schema)
        if key in self._done:
            return self._done[key]
        if key in self._visiting:
            return None
        self._visiting.add(key)
        try:
            found = self._build(schema)
        finally:
            self._visiting.discard(key)
        self._done[key] = found
        return found

    def _build(self, schema: Schema) -> TimestampPlan | None:
        leaf = time_format(schema)
        if leaf is not None:
            return TimestampPlan(leaf=leaf)
        planned = {name: self.plan(sub) for name, sub in schema.properties.items()}
        fields = {name: sub for name, sub in planned.items() if sub is not None}
        items = self.plan(schema.items) if schema.items is not None else None
        values = self.plan(schema.additional_properties) if schema.additional_properties else None
        if not fields and items is None and values is None:
            return None
        return TimestampPlan(fields=fields, items=items, values=values)


def time_format(schema: Schema) -> TimeFormat | None:
    """The timestamp kind of a schema node: MicroTime or Time by definition, Time for any other
    date-time string."""
    if schema.ref == MICRO_TIME_DEFINITION:
        return MICRO_TIME
    if schema.ref == TIME_DEFINITION or ("string" in schema.types and schema.format == "date-time"):
        return TIME
    return None


def reencode_timestamps(
    obj: dict[str, Any], schema: Schema, metadata_schema: Schema, old: dict[str, Any] | None = None
) -> list[str]:
    """Re-encode every timestamp of a built-in object in place; returns what could not be read.

    With `old` (the stored object a patch started from), a timestamp equal to the stored one at the
    same place is left as it is: it was re-encoded when stored, or was stored before this rule."""
    problems: list[str] = []
    metadata = obj.get("metadata")
    metadata_plan = timestamp_plan(metadata_schema)
    if isinstance(metadata, dict) and metadata_plan is not None:
        old_metadata = old.get("metadata", _ABSENT) if old is not None else _ABSENT
        _walk_fields(metadata, metadata_plan, "metadata", old_metadata, problems)
    plan = kind_timestamp_plan(schema)
    if plan is not None:
        _walk_fields(obj, plan, "", old if old is not None else _ABSENT, problems)
    return problems


def _walk(value: Any, plan: TimestampPlan, path: str, old: Any, problems: list[str]) -> Any:
    """`value` with its timestamps re-encoded (containers in place, a timestamp replaced)."""
    if plan.leaf is not None:
        if not isinstance(value, str) or value == old:
            return value  # a type error was reported by decoding; an unchanged value was stored so
        try:
            return plan.leaf.reencode(value)
        except InvalidTimestampError:
            problems.append(
                f"{path}: parsing time {go_quote(value)} as {go_quote(plan.leaf.layout)}: "
                "not an RFC 3339 date-time"
            )
            return value
    if isinstance(value, dict):
        _walk_fields(value, plan, path, old, problems)
    elif isinstance(value, list) and plan.items is not None:
        old_items = old if isinstance(old, list) else []
        for index, item in enumerate(value):
            old_item = old_items[index] if index < len(old_items) else _ABSENT
            value[index] = _walk(item, plan.items, f"{path}[{index}]", old_item, problems)
    return value


def _walk_fields(
    obj: dict[str, Any],
    plan: TimestampPlan,
    path: str,
    old: Any,
    problems: list[str],
) -> None:
    old_fields = old if isinstance(old, dict) else {}
    for name, sub in plan.fields.items():
        if name in obj:
            child = f"{path}.{name}" if path else name
            obj[name] = _walk(obj[name], sub, child, old_fields.get(name, _ABSENT), problems)
    if plan.values is not None:
        for key, value in obj.items():
            if key not in plan.fields:
                child = f"{path}[{key}]"
                obj[key] = _walk(value, plan.values, child, old_fields.get(key, _ABSENT), problems)
