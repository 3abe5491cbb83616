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

A write usually changes a few leaves of a large object, so `compare` does not walk what is equal on
both sides: a subtree equal as JSON (or the very same value, as a merge leaves it) changes nothing,
once a cheaper walk (only where the schema allows sets and keyed lists) has made sure naming its
items would not have failed. An apply needs to know only which fields other managers own that it
changes, so its comparison can be restricted to those (`within`) and leaves out the rest under
the same proviso.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from typing import Any, Final

from flotilla.apiserver.registry.apply.atoms import (
    LISTS,
    Shape,
    common_shape,
    field_schema,
    item_schema,
    list_items,
    nameable_throughout,
    object_schema,
    shape_of,
)
from flotilla.apiserver.registry.apply.fieldpath import FieldSet, Path, field_element, field_name
from flotilla.apiserver.registry.apply.jsonvalues import json_equal
from flotilla.apiserver.registry.schema.model import Schema

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

_STATUS: Final = FieldSet([(field_element("status"),)])
_NO_PROPERTIES: Final[dict[str, Schema]] = {}
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})
"""JSON scalar types, for which Python's `==` between values of one type is JSON's equality."""
_LEAF_TYPES: Final = frozenset({str, int, float, bool})


class _Absent(enum.Enum):
    ABSENT = enum.auto()


ABSENT: Final = _Absent.ABSENT
"""A field that is not there (as opposed to one set to null)."""


# ---- the fields an object sets ------------------------------------------------------------------


def raw_fields_of(obj: dict[str, Any], schema: Schema | None) -> FieldSet:
    """Every field `obj` sets under its kind's `schema`, before any bookkeeping rule."""
    root = object_schema(schema)
    found = None
    if isinstance(obj, dict) and obj and shape_of(root, obj) is Shape.FIELDS:
        found = _fields_below(obj, root, Shape.FIELDS, ())
    return found if found is not None else FieldSet()


def fields_inside(value: Any, schema: Schema | None) -> FieldSet | None:
    """The fields set inside `value`, a part of an object, relative to it (what `raw_fields_of`
    finds below the part); None when it sets none, as a leaf sets none inside it."""
    shape = shape_of(schema, value)
    if shape is Shape.LEAF or not isinstance(value, (dict, list)) or not value:
        return None
    return _fields_below(value, schema, shape, ())


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
        return _STATUS.copy()
    names = {name for obj in objects if isinstance(obj, dict) for name in obj}
    return _top_level_fields(frozenset(names - {"status", "metadata"})).copy()


@functools.lru_cache(maxsize=256)
def _top_level_fields(names: frozenset[str]) -> FieldSet:
    """The set of these top-level fields; a kind's objects have the same few names every time."""
    return FieldSet((field_element(name),) for name in names)


def _fields_below(value: Any, schema: Schema | None, shape: Shape, path: Path) -> FieldSet | None:
    """The fields set inside `value`, a non-empty map or list of that `shape`, relative to it.

    A leaf or a list item is a member; so is a map key (not a declared struct field) whatever its
    value; containers contribute what they set below them. None when nothing is set.
    """
    members: list[str] = []
    children: dict[str, FieldSet] = {}
    if shape is Shape.FIELDS:
        declared_fields = schema.properties if schema is not None else _NO_PROPERTIES
        map_values = schema.additional_properties if schema is not None else None
        for name, child in value.items():
            element = "f:" + name
            if type(child) in _LEAF_TYPES:
                members.append(element)  # a scalar: a leaf, whatever the schema says
                continue
            child_schema = declared_fields.get(name)
            declared = child_schema is not None
            if not declared:
                child_schema = map_values
            if child is not None and not isinstance(child, (dict, list)):
                members.append(element)  # a scalar of a derived type
                continue
            if not child:  # null, `{}` and `[]` set nothing, unless they are atomic or a map's value
                if not declared or shape_of(child_schema, child) is Shape.LEAF:
                    members.append(element)
                continue
            child_shape = shape_of(child_schema, child)
            if child_shape is Shape.LEAF or not declared:
                members.append(element)
            if child_shape is not Shape.LEAF:
                below = _fields_below(child, child_schema, child_shape, (*path, element))
                if below is not None:
                    children[element] = below
    else:
        items = item_schema(schema)
        for element, item in list_items(schema, shape, value, path):
            members.append(element)
            if isinstance(item, (dict, list)) and item:
                item_shape = shape_of(items, item)
                if item_shape is not Shape.LEAF:
                    below = _fields_below(item, items, item_shape, (*path, element))
                    if below is not None:
                        twin = children.get(element)  # live objects may hold items sharing a key
                        children[element] = twin.union(below) if twin is not None else below
    if not members and not children:
        return None
    return FieldSet.from_parts(members, children)


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


def compare(
    old: dict[str, Any], new: dict[str, Any], schema: Schema | None, *, within: FieldSet | None = None
) -> Comparison:
    """The fields added, removed and modified from `old` to `new`.

    With `within`, only the paths of `within` need telling apart (an apply asks only about fields
    other managers own): the result holds exactly those of them the full comparison holds, with
    perhaps some nodes above them, and the walk leaves out what no path of `within` leads into —
    once it is sure walking that could not have failed; when it is not, the full comparison runs.
    """
    root = object_schema(schema)
    changes = _Changes([], [], [])
    if within is not None:
        try:
            _compare(old, new, root, (), changes, within)
        except _CompareEverything:
            changes = _Changes([], [], [])
        else:
            return changes.comparison()
    _compare(old, new, root, (), changes, None)
    return changes.comparison()


@dataclass(slots=True)
class _Changes:
    """The paths `_compare` finds, turned into sets once the walk is over."""

    added: list[Path]
    removed: list[Path]
    modified: list[Path]

    def comparison(self) -> Comparison:
        return Comparison(FieldSet(self.added), FieldSet(self.removed), FieldSet(self.modified))


class _CompareEverything(Exception):  # a signal between walks, never raised to callers
    """A part a restricted comparison would leave out might hold an item without a name."""


_NOTHING_BELOW: Final = FieldSet()
"""What a restricted comparison tells apart below a path of interest that has no paths under it."""


def _interest(within: FieldSet, element: str) -> FieldSet | None:
    """The paths of interest below `element`; None when neither it nor anything below it is one."""
    below = within.shared_child(element)
    if below is not None:
        return below
    return _NOTHING_BELOW if element in within.members else None


def _left_out(old: Any, new: Any, schema: Schema | None) -> None:
    """Let a restricted comparison leave a part out, provided walking it could not have failed."""
    if not nameable_throughout(old, schema) or (new is not old and not nameable_throughout(new, schema)):
        raise _CompareEverything


def is_empty(value: Any) -> bool:
    """Absent, null, `{}` or `[]`: kube compares and merges two such values as leaves."""
    return value is ABSENT or value is None or (isinstance(value, (dict, list)) and not value)


def _compare(
    old: Any, new: Any, schema: Schema | None, path: Path, changes: _Changes, within: FieldSet | None
) -> None:
    if not isinstance(old, (dict, list)) and not isinstance(new, (dict, list)):
        shape = Shape.LEAF  # scalars, nulls and absent values: what `common_shape` would say
    elif type(old) is dict and type(new) is dict:
        shape = shape_of(schema, old)
    else:
        shape = common_shape(schema, old, new)
    if shape is Shape.LEAF or (is_empty(old) and is_empty(new)):
        if old is ABSENT:
            changes.added.append(path)
        elif new is ABSENT:
            changes.removed.append(path)
        elif not json_equal(old, new):
            changes.modified.append(path)
        return
    if shape is Shape.FIELDS:
        _compare_fields(
            old if isinstance(old, dict) else {},
            new if isinstance(new, dict) else {},
            schema,
            path,
            changes,
            within,
        )
    else:
        old_items = _items_by_element(schema, shape, old, path)
        new_items = _items_by_element(schema, shape, new, path)
        for element in old_items.keys() | new_items.keys():
            below = within
            if within is not None:
                below = _interest(within, element)
                if below is None:
                    items = item_schema(schema)
                    for item in (*old_items.get(element, ()), *new_items.get(element, ())):
                        _left_out(item, item, items)
                    continue
            _compare_items(
                old_items.get(element), new_items.get(element), schema, (*path, element), changes, below
            )
    if old is ABSENT:
        changes.added.append(path)
    elif new is ABSENT:
        changes.removed.append(path)


def _compare_fields(
    old_map: dict[str, Any],
    new_map: dict[str, Any],
    schema: Schema | None,
    path: Path,
    changes: _Changes,
    within: FieldSet | None,
) -> None:
    declared_fields = schema.properties if schema is not None else _NO_PROPERTIES
    map_values = schema.additional_properties if schema is not None else None
    for name, old_value in old_map.items():
        new_value = new_map.get(name, ABSENT)
        old_type, new_type = type(old_value), type(new_value)
        if old_type in _SCALARS and new_type in _SCALARS:  # a leaf on both sides
            # Of one type, Python's equality is JSON's; of two, `1` and `1.0` are still equal.
            if (
                (old_value != new_value) if old_type is new_type else not json_equal(old_value, new_value)
            ) and (within is None or field_element(name) in within.members):
                changes.modified.append((*path, field_element(name)))
            continue
        child_schema = declared_fields.get(name) or map_values
        if old_value is new_value and nameable_throughout(old_value, child_schema):
            continue  # a part a merge left alone
        below = within
        if within is not None:
            below = _interest(within, field_element(name))
            if below is None:
                _left_out(old_value, new_value, child_schema)
                continue
        if not _unchanged(old_value, new_value, child_schema):
            _compare(old_value, new_value, child_schema, (*path, field_element(name)), changes, below)
    for name, new_value in new_map.items():
        if name not in old_map:
            child_schema = declared_fields.get(name) or map_values
            below = within
            if within is not None:
                below = _interest(within, field_element(name))
                if below is None:
                    _left_out(new_value, new_value, child_schema)
                    continue
            _compare(ABSENT, new_value, child_schema, (*path, field_element(name)), changes, below)


def _unchanged(old: Any, new: Any, schema: Schema | None) -> bool:
    """Whether `_compare` would find nothing between `old` and `new`, known without walking them.

    Most of an object is the same before and after a write. Equal values change nothing, provided
    walking them could not fail on an item without a name. False means "walk to find out".
    """
    if type(old) is not type(new):
        return False  # also `1` and `1.0`, which the walk finds equal
    if isinstance(old, (dict, list)):
        return json_equal(old, new) and nameable_throughout(old, schema)
    return bool(old == new)  # scalars of one type: Python's equality is JSON's


def _compare_items(
    old: list[Any] | None,
    new: list[Any] | None,
    schema: Schema | None,
    path: Path,
    changes: _Changes,
    within: FieldSet | None,
) -> None:
    if old is not None and new is not None and (len(old) > 1 or len(new) > 1):
        # Items sharing one key (a live object may hold duplicates) compare as one atomic value.
        if not json_equal(old, new):
            changes.modified.append(path)
        return
    old_item, new_item = old[0] if old else ABSENT, new[0] if new else ABSENT
    items = item_schema(schema)
    if not _unchanged(old_item, new_item, items):
        _compare(old_item, new_item, items, path, changes, within)


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
    members = set(fields.members)
    children: dict[str, FieldSet] = {}
    for element, below in fields.children.items():
        name = field_name(element)
        if name is None:
            child_schema = item_schema(schema)
        else:
            child_schema, declared = field_schema(schema, name)
            if declared:
                members.add(element)
        children[element] = _with_named_fields(below, child_schema)
    return FieldSet.from_parts(members, children)


def remove_fields(obj: dict[str, Any], fields: FieldSet, schema: Schema | None) -> dict[str, Any]:
    """`obj` without the nodes `fields` names (each with everything below it).

    `obj` is not changed; the result shares with it the values it keeps whole (copy it before
    changing it).
    """
    result = _remove(obj, fields, object_schema(schema))
    return result if isinstance(result, dict) else {}


def _remove(value: Any, fields: FieldSet, schema: Schema | None) -> Any:
    """`value` without what `fields` names; ABSENT when the removal left an emptied container."""
    shape = shape_of(schema, value)
    removed, below_removed = fields.members, fields.children
    if shape is Shape.FIELDS and isinstance(value, dict) and value:
        kept: dict[str, Any] = {}
        for name, child in value.items():
            element = field_element(name)
            if element in removed:
                continue
            below = below_removed.get(element)
            child_schema, _ = field_schema(schema, name)
            remaining = _remove(child, below, child_schema) if below is not None else child
            if remaining is not ABSENT:
                kept[name] = remaining
        return kept or ABSENT
    if shape in LISTS and isinstance(value, list) and value:
        survivors: list[Any] = []
        item_fields = item_schema(schema)
        for element, item in list_items(schema, shape, value, ()):
            if element in removed:
                continue
            below = below_removed.get(element)
            remaining = _remove(item, below, item_fields) if below is not None else item
            if remaining is not ABSENT:
                survivors.append(remaining)
        return survivors or ABSENT
    return value
