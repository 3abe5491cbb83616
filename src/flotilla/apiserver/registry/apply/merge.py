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
An apply also needs the fields its configuration sets; `merge_objects` finds them on the same walk,
since merging visits every node of the configuration that sets any.
"""

from __future__ import annotations

import operator
from typing import Any, Final

from flotilla.apiserver.registry.apply.atoms import (
    LISTS,
    InvalidObjectError,
    Shape,
    common_shape,
    item_schema,
    list_items,
    nameable_throughout,
    object_schema,
    shape_of,
)
from flotilla.apiserver.registry.apply.fieldpath import FieldSet, Path, field_element
from flotilla.apiserver.registry.apply.fieldsets import ABSENT, fields_inside, is_empty, raw_fields_of
from flotilla.apiserver.registry.schema.model import Schema

_NO_PROPERTIES: Final[dict[str, Schema]] = {}
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
_LEAF_TYPES: Final = frozenset({str, int, float, bool})
_KEPT_SCALARS: Final = frozenset({str, int, bool})
"""Scalar types whose equal values are interchangeable (not floats: `0.0` and `-0.0` are equal)."""


def merge_value(live: Any, applied: Any, schema: Schema | None, path: Path) -> Any:
    """`applied` merged onto `live` (either may be ABSENT, not both).

    The inputs are not changed, and the result shares values with them: copy it before changing it.
    """
    return _merge(live, applied, schema, path, with_fields=False)[0]


def merge_objects(
    live: dict[str, Any], applied: dict[str, Any], kind_schema: Schema | None
) -> tuple[dict[str, Any], FieldSet]:
    """`applied` merged onto `live` (whole objects), and the fields `applied` sets (`raw_fields_of`).

    One walk finds both: an apply needs both, and the merge visits every node of the configuration
    that sets fields anyway. Where it takes a configuration's value whole that sets fields inside
    (the live value was of another type) and naming them fails, the two walks run one after the
    other instead, so an object that cannot be applied fails as it always did.
    """
    try:
        merged, fields = _merge(live, applied, object_schema(kind_schema), (), with_fields=True)
    except _NotWalkedTogether:
        merged = merge_value(live, applied, object_schema(kind_schema), ())
        return merged, raw_fields_of(applied, kind_schema)
    return merged, fields if fields is not None else FieldSet()


class _NotWalkedTogether(Exception):  # a signal between walks, never raised to callers
    """Naming the items of a configuration's value failed where merging did not name them."""


def _merge(
    live: Any, applied: Any, schema: Schema | None, path: Path, *, with_fields: bool
) -> tuple[Any, FieldSet | None]:
    """The merged value, and, `with_fields`, the fields set inside `applied` (relative to it; None
    when none, or when not asked for)."""
    shape = common_shape(schema, live, applied)
    if shape is Shape.LEAF or (is_empty(live) and is_empty(applied)):
        if applied is ABSENT:
            return live, None
        return applied, _fields_inside(applied, schema) if with_fields else None
    if shape is Shape.FIELDS:
        return _merge_fields(live, applied, schema, path, with_fields=with_fields)
    assert shape in LISTS
    return _merge_items(live, applied, schema, shape, path, with_fields=with_fields)


def _fields_inside(value: Any, schema: Schema | None) -> FieldSet | None:
    """`fields_inside` of a configuration's value the merge takes whole."""
    if not isinstance(value, (dict, list)) or not value:
        return None
    try:
        return fields_inside(value, schema)
    except InvalidObjectError:
        raise _NotWalkedTogether from None


def _merge_fields(
    live: Any, applied: Any, schema: Schema | None, path: Path, *, with_fields: bool
) -> tuple[dict[str, Any], FieldSet | None]:
    live_map = live if isinstance(live, dict) else {}
    applied_map = applied if isinstance(applied, dict) else {}
    declared_fields = schema.properties if schema is not None else _NO_PROPERTIES
    map_values = schema.additional_properties if schema is not None else None
    merged: dict[str, Any] = {}
    same = True  # whether every merged value is the live one
    members: list[str] | None = [] if with_fields else None  # what the configuration sets
    children: dict[str, FieldSet] = {}
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
            result = _merge(value, ABSENT, child_schema, (*path, field_element(name)), with_fields=False)[0]
        elif type(applied_value) in _KEPT_SCALARS:  # an applied scalar is a leaf whatever the schema
            result = value if type(value) is type(applied_value) and value == applied_value else applied_value
            if members is not None:
                members.append(field_element(name))
        else:
            result = _merge_field(
                name, value, applied_value, declared_fields, map_values, path, members, children
            )
        merged[name] = result
        same = same and result is value
    for name, value in applied_map.items():
        if name not in live_map:
            merged[name] = _merge_field(
                name, ABSENT, value, declared_fields, map_values, path, members, children
            )
            same = False
    fields = FieldSet.from_parts(members, children) if members is not None and (members or children) else None
    return (live if same and live_map else merged), fields  # unchanged: the live map itself


def _merge_field(
    name: str,
    live: Any,
    applied: Any,
    declared_fields: dict[str, Schema],
    map_values: Schema | None,
    path: Path,
    members: list[str] | None,
    children: dict[str, FieldSet],
) -> Any:
    """One field of a map both sides may set, merged; what `applied` sets there goes to `members`
    and `children` (when `members` is a list) by the rules of `fieldsets.fields_inside`."""
    element = field_element(name)
    child_schema = declared_fields.get(name)
    declared = child_schema is not None
    if not declared:
        child_schema = map_values
    result, below = _merge(live, applied, child_schema, (*path, element), with_fields=members is not None)
    if members is None:
        return result
    if type(applied) in _LEAF_TYPES or (applied is not None and not isinstance(applied, (dict, list))):
        members.append(element)  # a scalar, of a JSON type or derived from one
    elif not applied:  # null, `{}` and `[]` set nothing, unless they are atomic or a map's value
        if not declared or shape_of(child_schema, applied) is Shape.LEAF:
            members.append(element)
    else:
        if not declared or shape_of(child_schema, applied) is Shape.LEAF:
            members.append(element)
        if below is not None:
            children[element] = below
    return result


def _merge_items(
    live: Any, applied: Any, schema: Schema | None, shape: Shape, path: Path, *, with_fields: bool
) -> tuple[list[Any], FieldSet | None]:
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
    children: dict[str, FieldSet] = {}  # what the configuration's items set below their names

    def take(element: str, live_item: Any, applied_item: Any) -> None:
        result, below = _merge(live_item, applied_item, items, (*path, element), with_fields=with_fields)
        merged.append(result)
        done.add(element)
        if below is not None:
            children[element] = below

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
    fields = FieldSet.from_parts(applied_by_element, children) if with_fields and applied_by_element else None
    if isinstance(live, list) and len(merged) == len(live) and all(map(operator.is_, merged, live)):
        return live, fields
    return merged, fields
