"""Which fields an object sets, what changed between two objects, and removing fields by path.

These are the walks structured-merge-diff makes over typed values, done over decoded JSON with the
shapes `atoms` derives from the schema:

- `fields_of` / `raw_fields_of` (kube's `ToFieldSet`): every leaf, every list item, every map key.
  A declared struct field is not itself a member (its leaves are), so `f:spec` holds members but is
  not one; an atomic value is one leaf; an empty list or struct sets nothing.
- `compare` (kube's `Compare`): leaves added, removed or modified between two objects, plus any
  non-leaf node present on only one side (so a struct that appears is owned as a whole).
- `remove_fields` (kube's `RemoveItems`): drop every node named by a set, subtree and all; a map or
  list the removal leaves empty goes too.
- `with_named_fields` (kube's `EnsureNamedFieldsAreMembers`): make declared struct fields members
  wherever they have members below, so removing a set can remove whole structs.

`fields_of` also applies the bookkeeping rules of kube's field manager: `apiVersion`, `kind` and the
identity/system fields of metadata are never owned, and `status` is tracked only through the status
subresource while the status subresource tracks only `status` and `metadata` ("reset fields").
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass
from typing import Any, Final

from flotilla.apiserver.apply.atoms import (
    LISTS,
    Shape,
    common_shape,
    field_schema,
    item_schema,
    list_items,
    object_schema,
    shape_of,
)
from flotilla.apiserver.apply.fieldpath import FieldSet, Path, field_element, field_name
from flotilla.apiserver.apply.jsonvalues import json_equal
from flotilla.apiserver.schema.model import Schema

STATUS_SUBRESOURCE: Final = "status"

STRIPPED_FIELDS: Final = FieldSet(
    [
        ("f:apiVersion",),
        ("f:kind",),
        ("f:metadata",),
        *(
            ("f:metadata", field_element(name))
            for name in (
                "name",
                "namespace",
                "creationTimestamp",
                "selfLink",
                "uid",
                "clusterName",
                "generation",
                "managedFields",
                "resourceVersion",
            )
        ),
    ]
)
"""Fields no manager ever owns (kube's strip-meta manager removes exactly these members)."""


class _Absent(enum.Enum):
    ABSENT = enum.auto()


ABSENT: Final = _Absent.ABSENT
"""A field that is not there (as opposed to one set to null)."""


# ---- the fields an object sets ------------------------------------------------------------------


def raw_fields_of(obj: dict[str, Any], schema: Schema | None) -> FieldSet:
    """Every field `obj` sets under its kind's `schema`, before any bookkeeping rule."""
    found = FieldSet()
    _collect(obj, object_schema(schema), (), found)
    return found


def fields_of(
    obj: dict[str, Any],
    schema: Schema | None,
    *,
    subresource: str = "",
    reset_fields: FieldSet | None = None,
) -> FieldSet:
    """The fields of `obj` a manager owns after writing it through `subresource`.

    `reset_fields` overrides the default fields the subresource resets (see `default_reset_fields`).
    """
    ignored = reset_fields if reset_fields is not None else default_reset_fields(subresource, obj)
    return raw_fields_of(obj, schema).difference(STRIPPED_FIELDS).recursive_difference(ignored)


def default_reset_fields(subresource: str, *objects: Any) -> FieldSet:
    """What a write through `subresource` may not own: `status` for the main resource, everything
    but `status` and `metadata` for the status subresource (top-level names taken from `objects`)."""
    if subresource != STATUS_SUBRESOURCE:
        return FieldSet([(field_element("status"),)])
    names = {name for obj in objects if isinstance(obj, dict) for name in obj}
    return FieldSet((field_element(name),) for name in names - {"status", "metadata"})


def _collect(value: Any, schema: Schema | None, path: Path, found: FieldSet) -> None:
    shape = shape_of(schema, value)
    if shape is Shape.LEAF:
        found.insert(path)
    elif shape is Shape.FIELDS:
        if not isinstance(value, dict):
            return  # null: nothing set below
        for name, child in value.items():
            child_schema, declared = field_schema(schema, name)
            child_path = (*path, field_element(name))
            _collect(child, child_schema, child_path, found)
            if not declared:
                found.insert(child_path)
    elif isinstance(value, list):
        for element, item in list_items(schema, shape, value, path):
            item_path = (*path, element)
            _collect(item, item_schema(schema), item_path, found)
            found.insert(item_path)


# ---- what changed -------------------------------------------------------------------------------


@dataclass(slots=True)
class Comparison:
    added: FieldSet
    removed: FieldSet
    modified: FieldSet

    def changed(self) -> FieldSet:
        """Fields whose value the new object sets differently: added or modified."""
        return self.added.union(self.modified)

    def excluding(self, ignored: FieldSet) -> Comparison:
        return Comparison(
            self.added.recursive_difference(ignored),
            self.removed.recursive_difference(ignored),
            self.modified.recursive_difference(ignored),
        )


def compare(old: dict[str, Any], new: dict[str, Any], schema: Schema | None) -> Comparison:
    """The fields added, removed and modified from `old` to `new`."""
    result = Comparison(FieldSet(), FieldSet(), FieldSet())
    _compare(old, new, object_schema(schema), (), result)
    return result


def is_empty(value: Any) -> bool:
    """Absent, null, `{}` or `[]`: kube compares and merges two such values as leaves."""
    return value is ABSENT or value is None or (isinstance(value, (dict, list)) and not value)


def _compare(old: Any, new: Any, schema: Schema | None, path: Path, result: Comparison) -> None:
    shape = common_shape(schema, old, new)
    if shape is Shape.LEAF or (is_empty(old) and is_empty(new)):
        if old is ABSENT:
            result.added.insert(path)
        elif new is ABSENT:
            result.removed.insert(path)
        elif not json_equal(old, new):
            result.modified.insert(path)
        return
    if shape is Shape.FIELDS:
        old_map = old if isinstance(old, dict) else {}
        new_map = new if isinstance(new, dict) else {}
        for name in old_map.keys() | new_map.keys():
            child_schema, _ = field_schema(schema, name)
            child_path = (*path, field_element(name))
            _compare(old_map.get(name, ABSENT), new_map.get(name, ABSENT), child_schema, child_path, result)
    else:
        old_items = _items_by_element(schema, shape, old, path)
        new_items = _items_by_element(schema, shape, new, path)
        for element in old_items.keys() | new_items.keys():
            _compare_items(old_items.get(element), new_items.get(element), schema, (*path, element), result)
    if old is ABSENT:
        result.added.insert(path)
    elif new is ABSENT:
        result.removed.insert(path)


def _compare_items(
    old: list[Any] | None, new: list[Any] | None, schema: Schema | None, path: Path, result: Comparison
) -> None:
    if old is not None and new is not None and (len(old) > 1 or len(new) > 1):
        # Items sharing one key (a live object may hold duplicates) compare as one atomic value.
        if not json_equal(old, new):
            result.modified.insert(path)
        return
    _compare(old[0] if old else ABSENT, new[0] if new else ABSENT, item_schema(schema), path, result)


def _items_by_element(schema: Schema | None, shape: Shape, value: Any, path: Path) -> dict[str, list[Any]]:
    grouped: dict[str, list[Any]] = {}
    if isinstance(value, list):
        for element, item in list_items(schema, shape, value, path):
            grouped.setdefault(element, []).append(item)
    return grouped


# ---- removing fields ----------------------------------------------------------------------------


def with_named_fields(fields: FieldSet, schema: Schema | None) -> FieldSet:
    """`fields` plus every declared struct field that has members below it."""
    return _with_named_fields(fields, object_schema(schema))


def _with_named_fields(fields: FieldSet, schema: Schema | None) -> FieldSet:
    result = FieldSet()
    for element in fields.members:
        result.insert((element,))
    for element, below in fields.children.items():
        name = field_name(element)
        if name is None:
            child_schema = item_schema(schema)
        else:
            child_schema, declared = field_schema(schema, name)
            if declared:
                result.insert((element,))
        for path in _with_named_fields(below, child_schema):
            result.insert((element, *path))
    return result


def remove_fields(obj: dict[str, Any], fields: FieldSet, schema: Schema | None) -> dict[str, Any]:
    """A copy of `obj` without the nodes `fields` names (each with everything below it)."""
    result = _remove(obj, fields, object_schema(schema))
    return result if isinstance(result, dict) else {}


def _remove(value: Any, fields: FieldSet, schema: Schema | None) -> Any:
    """`value` without what `fields` names; ABSENT when the removal left an emptied container."""
    shape = shape_of(schema, value)
    if shape is Shape.FIELDS and isinstance(value, dict) and value:
        kept: dict[str, Any] = {}
        for name, child in value.items():
            element = field_element(name)
            if element in fields.members:
                continue
            below = fields.children.get(element)
            child_schema, _ = field_schema(schema, name)
            remaining = _remove(child, below, child_schema) if below is not None else copy.deepcopy(child)
            if remaining is not ABSENT:
                kept[name] = remaining
        return kept or ABSENT
    if shape in LISTS and isinstance(value, list) and value:
        survivors: list[Any] = []
        for element, item in list_items(schema, shape, value, ()):
            if element in fields.members:
                continue
            below = fields.children.get(element)
            item_fields = item_schema(schema)
            remaining = _remove(item, below, item_fields) if below is not None else copy.deepcopy(item)
            if remaining is not ABSENT:
                survivors.append(remaining)
        return survivors or ABSENT
    return copy.deepcopy(value)
