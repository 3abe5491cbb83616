"""Conditions on an object's fields, written as data: `Match(".status.phase", "In", ("Pending",))`.

kwok selects the objects a stage applies to with jq expressions; this is the small subset the
kubelet stages need, with the same matchExpressions operators. A path is dot-separated field names
from the object root; a segment may end in `[]` (every element of a list) or `[field=value]` (the
elements whose `field` equals `value`):

    .metadata.deletionTimestamp
    .metadata.ownerReferences[].kind
    .status.conditions[type=Ready].status

A path yields every value it reaches (missing fields and nulls yield nothing). `In` holds when one
of them is among the values, `NotIn` when none is, `Exists` when there is at least one,
`DoesNotExist` when there is none. Scalars compare as their JSON text (`true`, `0`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_SEGMENT = re.compile(r"(?P<field>[A-Za-z0-9_-]+)(?:\[(?P<filter>[^\]]*)\])?\Z")


class PathError(ValueError):
    """A path or match that cannot be evaluated; the message says which part is wrong."""


@dataclass(frozen=True, slots=True)
class Segment:
    field: str
    each: bool = False
    """The field is a list: continue with each element (`[]`, or `[key=value]` to filter)."""
    filter_field: str = ""
    filter_value: str = ""


def parse_path(path: str) -> tuple[Segment, ...]:
    if not path.startswith("."):
        raise PathError(f"path {path!r} must start with '.'")
    segments = []
    for text in path[1:].split("."):
        found = _SEGMENT.match(text)
        if found is None:
            raise PathError(f"path {path!r}: cannot read segment {text!r}")
        condition = found.group("filter")
        if condition is None:
            segments.append(Segment(found.group("field")))
        elif not condition:
            segments.append(Segment(found.group("field"), each=True))
        else:
            key, equals, value = condition.partition("=")
            if not equals or not key:
                raise PathError(f"path {path!r}: a filter reads [field=value], not [{condition}]")
            segments.append(Segment(found.group("field"), True, key, value))
    return tuple(segments)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def values_at(obj: Any, segments: tuple[Segment, ...]) -> Iterator[Any]:
    """Every value the path reaches in `obj` (nothing for missing fields and nulls)."""
    if not segments:
        if obj is not None:
            yield obj
        return
    head, rest = segments[0], segments[1:]
    if not isinstance(obj, Mapping):
        return
    value = obj.get(head.field)
    if not head.each:
        yield from values_at(value, rest)
        return
    if not isinstance(value, list):
        return
    for item in value:
        if head.filter_field and not (
            isinstance(item, Mapping) and _as_text(item.get(head.filter_field)) == head.filter_value
        ):
            continue
        yield from values_at(item, rest)


@dataclass(frozen=True, slots=True)
class Match:
    """One condition of a stage's selector."""

    path: str
    operator: str
    values: tuple[str, ...] = ()
    _segments: tuple[Segment, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.operator not in OPERATORS:
            raise PathError(f"operator {self.operator!r} is not one of {', '.join(OPERATORS)}")
        if (self.operator in ("In", "NotIn")) != bool(self.values):
            raise PathError(f"{self.path}: values go with In and NotIn, and only with them")
        object.__setattr__(self, "_segments", parse_path(self.path))

    def matches(self, obj: Mapping[str, Any]) -> bool:
        segments = self._segments
        if self.operator == "Exists":
            return next(values_at(obj, segments), None) is not None
        if self.operator == "DoesNotExist":
            return next(values_at(obj, segments), None) is None
        found = any(_as_text(value) in self.values for value in values_at(obj, segments))
        return found if self.operator == "In" else not found
