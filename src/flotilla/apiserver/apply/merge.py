"""Merging an applied configuration onto the live object (structured-merge-diff's `Merge`).

The applied value wins at every leaf; structure decides where the leaves are:

- a leaf (scalar, atomic list, atomic map or struct, untyped value) is replaced whole;
- a struct or granular map merges key by key, keeping live keys the configuration leaves out;
- a keyed list merges item by item on its keys, a set by value; live items the configuration does
  not name stay.

Item order: items both sides name follow the configuration's order, and live-only items keep their
place relative to them, so applying a reordered list reorders it. An item named twice in the live
object (kube tolerates duplicates there) is replaced by the configuration's single item, or kept
as it is when the configuration does not name it. Removing fields a manager stopped applying is not
merging; `apply` does it afterwards.

The merged value shares every part it takes whole from either input (the live object's untouched
spec, an applied leaf) instead of copying it: `apply` copies the final object once, and comparing
it with the live object finds the shared parts equal at once. A live part is taken whole only when
naming the items of its lists could not fail, so the merge raises exactly where walking it would.
"""

from __future__ import annotations

import operator
from typing import Any, Final

from flotilla.apiserver.apply.atoms import (
    LISTS,
    Shape,
    common_shape,
    item_schema,
    list_items,
    nameable_throughout,
)
from flotilla.apiserver.apply.fieldpath import Path, field_element
from flotilla.apiserver.apply.fieldsets import ABSENT, is_empty
from flotilla.apiserver.schema.model import Schema

_NO_PROPERTIES: Final[dict[str, Schema]] = {}
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_KEPT_SCALARS: Final = frozenset({str, int, bool})
"""Scalar types whose equal values are interchangeable (not floats: `0.0` and `-0.0` are equal)."""


def merge_value(live: Any, applied: Any, schema: Schema | None, path: Path) -> Any:
    """`applied` merged onto `live` (either may be ABSENT, not both).

    The inputs are not changed, and the result shares values with them: copy it before changing it.
    """
    shape = common_shape(schema, live, applied)
    if shape is Shape.LEAF or (is_empty(live) and is_empty(applied)):
        return applied if applied is not ABSENT else live
    if shape is Shape.FIELDS:
        return _merge_fields(live, applied, schema, path)
    assert shape in LISTS
    return _merge_items(live, applied, schema, shape, path)


def _merge_fields(live: Any, applied: Any, schema: Schema | None, path: Path) -> dict[str, Any]:
    live_map = live if isinstance(live, dict) else {}
    applied_map = applied if isinstance(applied, dict) else {}
    declared_fields = schema.properties if schema is not None else _NO_PROPERTIES
    map_values = schema.additional_properties if schema is not None else None
    merged: dict[str, Any] = {}
    same = True  # whether every merged value is the live one
    for name, value in live_map.items():
        applied_value = applied_map.get(name, ABSENT)
        if applied_value is ABSENT:
            if type(value) in _SCALARS:
                merged[name] = value  # nothing to merge into a scalar
                continue
            child_schema = declared_fields.get(name) or map_values
            if nameable_throughout(value, child_schema):
                merged[name] = value  # nothing to merge, and naming its list items cannot fail
                continue
            result = merge_value(value, ABSENT, child_schema, (*path, field_element(name)))
        elif type(applied_value) in _KEPT_SCALARS:  # an applied scalar is a leaf whatever the schema
            result = value if type(value) is type(applied_value) and value == applied_value else applied_value
        else:
            child_schema = declared_fields.get(name) or map_values
            result = merge_value(value, applied_value, child_schema, (*path, field_element(name)))
        merged[name] = result
        same = same and result is value
    for name, value in applied_map.items():
        if name not in live_map:
            child_schema = declared_fields.get(name) or map_values
            merged[name] = merge_value(ABSENT, value, child_schema, (*path, field_element(name)))
            same = False
    return live if same and live_map else merged  # unchanged: the live map itself, found equal at once


def _merge_items(live: Any, applied: Any, schema: Schema | None, shape: Shape, path: Path) -> list[Any]:
    live_items = list(list_items(schema, shape, live, path)) if isinstance(live, list) else []
    applied_items = []
    if isinstance(applied, list):
        applied_items = list(list_items(schema, shape, applied, path, unique=True))
    live_by_element: dict[str, Any] = {}
    for element, item in live_items:
        live_by_element.setdefault(element, item)
    applied_by_element = dict(applied_items)
    items = item_schema(schema)
    merged: list[Any] = []
    done: set[str] = set()

    def take(element: str, live_item: Any, applied_item: Any) -> None:
        merged.append(merge_value(live_item, applied_item, items, (*path, element)))
        done.add(element)

    live_at = applied_at = 0
    while live_at < len(live_items) or applied_at < len(applied_items):
        if live_at < len(live_items):
            element, item = live_items[live_at]
            if element in done or element not in applied_by_element:
                if element not in applied_by_element:
                    merged.append(item)  # live-only items (and their duplicates) stay
                live_at += 1
                continue
        if applied_at < len(applied_items):
            element, item = applied_items[applied_at]
            applied_at += 1
            take(element, live_by_element.get(element, ABSENT), item)
            continue
        live_at += 1
    if isinstance(live, list) and len(merged) == len(live) and all(map(operator.is_, merged, live)):
        return live
    return merged
