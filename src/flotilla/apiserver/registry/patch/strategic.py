"""Kubernetes strategic merge patch, the `application/strategic-merge-patch+json` PATCH body.

kubectl sends one for `kubectl patch` (its default type), `edit`, client-side `apply` and the `set`
verbs. It is a JSON merge patch that reads, from the schema, how each field merges:

- no strategy, or `replace`: the patch's value replaces the field's, as in a merge patch (lists
  such as tolerations and args; a `replace` object such as a PodDisruptionBudget's selector);
- `merge` with a merge key (containers by `name`, ports by `containerPort`): lists of objects
  merge element by element, matched on the key;
- `merge` without a key (finalizers): lists of values merge as a set;
- `retainKeys` (Deployment `strategy`, volumes): a `$retainKeys` list sent in the object clears
  every field it does not name, so switching a union member drops the old member.

Directives travel inside the patch and never reach the result: `$patch` (`replace`, `delete`,
`merge`) in an object or as a list element, `$setElementOrder/<field>` and
`$deleteFromPrimitiveList/<field>` beside a list field, and `$retainKeys` in an object.

A merged list is ordered the way Kubernetes orders it: elements the patch names take the patch's
order (or `$setElementOrder`'s), the others keep their live order, and the two runs are interleaved
by live position. An element the live list lacks therefore lands before the live elements it is
compared with, exactly as a Kubernetes API server returns it; kubectl's own patches carry
`$setElementOrder`, which fixes the order outright.

Where this is stricter or tidier than Kubernetes (which decodes into Go structs and silently drops
what it cannot place): directives inside values with nothing to merge onto are resolved rather than
copied into the object; a `$patch` element in a list that is replaced whole is an error; an object
patched with `{"$patch": "delete"}` is removed rather than left as `{}`; an element that carries its
merge key and `$patch: replace` replaces that element (Kubernetes drops the element and replaces the
whole list); `$patch: merge` is accepted everywhere as the explicit default.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Final

from flotilla.apiserver.gostrings import go_quote
from flotilla.apiserver.registry.patch.errors import PatchError
from flotilla.apiserver.registry.patch.merge import deep_copy_json
from flotilla.apiserver.registry.schema.model import Schema

PATCH: Final = "$patch"
RETAIN_KEYS: Final = "$retainKeys"
SET_ELEMENT_ORDER: Final = "$setElementOrder"
DELETE_FROM_PRIMITIVE_LIST: Final = "$deleteFromPrimitiveList"
REPLACE: Final = "replace"
DELETE: Final = "delete"
MERGE: Final = "merge"


class _Absent(enum.Enum):
    """A field that is not there: missing from the live object, or removed by the patch."""

    ABSENT = enum.auto()


_ABSENT: Final = _Absent.ABSENT


def apply_strategic_merge_patch(
    original: dict[str, Any], patch: dict[str, Any], schema: Schema | None
) -> dict[str, Any]:
    """`original` with the strategic merge `patch` applied, merging lists as `schema` says.

    With `schema=None` (or below a field the schema does not know) this is a JSON merge patch
    that still resolves directives. Neither input is changed and the result shares nothing with
    them. Raises `PatchError` for a malformed patch.
    """
    try:
        merged = _merge_object(original, patch, schema, "")
    except RecursionError as error:
        raise PatchError("the patch is nested too deeply to apply") from error
    return {} if merged is _ABSENT else merged


# ---- objects -------------------------------------------------------------------------------


def _merge_object(current: Any, change: dict[str, Any], schema: Schema | None, path: str) -> Any:
    """The object `change` makes of `current`, or _ABSENT when it deletes it."""
    directive = _object_directive(change, path)
    if directive == DELETE:
        return _ABSENT
    keep = directive == MERGE and isinstance(current, dict) and not _replaces(schema)
    return _merge_fields(current if keep else None, change, schema, path)


def _merge_fields(
    current: Mapping[str, Any] | None, change: Mapping[str, Any], schema: Schema | None, path: str
) -> dict[str, Any]:
    retained = _retained_keys(change, path)
    fields, orders, deletions = _split_directives(change, path)
    result: dict[str, Any] = {}
    if current is not None:
        result = {key: value for key, value in current.items() if retained is None or key in retained}
    fresh: set[str] = set()
    for name in dict.fromkeys([*fields, *orders, *deletions]):
        field_schema = schema.property(name) if schema is not None else None
        field_path = _field_path(path, name, schema)
        live = result.get(name, _ABSENT)
        if name in orders or name in deletions:
            value = _merge_list_field(
                live=live,
                change=fields.get(name, _ABSENT),
                order=orders.get(name),
                deletions=deletions.get(name),
                schema=field_schema,
                path=field_path,
            )
        else:
            value = _merge_value(live, fields[name], field_schema, field_path)
        if value is _ABSENT:
            result.pop(name, None)
        else:
            result[name] = value
            fresh.add(name)
    return {key: value if key in fresh else deep_copy_json(value) for key, value in result.items()}


def _merge_value(live: Any, change: Any, schema: Schema | None, path: str) -> Any:
    if change is None:
        return _ABSENT
    if isinstance(change, dict):
        return _merge_object(live, change, schema, path)
    if isinstance(change, list):
        if schema is not None and schema.merges_list():
            return _merge_list(live if isinstance(live, list) else [], change, schema, path)
        return _replace_list(change, schema, path)
    return change


def _object_directive(change: Mapping[str, Any], path: str) -> str:
    directive = change.get(PATCH, MERGE)
    if directive in (REPLACE, DELETE, MERGE):
        return str(directive)
    raise PatchError(
        f"{_where(path)}: unknown $patch directive {json.dumps(directive)}; use "
        f'"replace", "delete" or "merge"',
        field=path,
    )


def _retained_keys(change: Mapping[str, Any], path: str) -> frozenset[str] | None:
    """The fields `$retainKeys` keeps, after checking the patch sets no field it would clear."""
    if RETAIN_KEYS not in change:
        return None
    keys = change[RETAIN_KEYS]
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        raise PatchError(f"{_where(path)}: $retainKeys must be a list of field names", field=path)
    retained = frozenset(keys)
    for name, value in change.items():
        if value is not None and not _is_directive(name) and name not in retained:
            raise PatchError(
                f"{_where(path)}: the patch sets {go_quote(name)} but $retainKeys does not list it; "
                f"add {go_quote(name)} to $retainKeys or leave the field out of the patch",
                field=path,
            )
    return retained


def _split_directives(
    change: Mapping[str, Any], path: str
) -> tuple[dict[str, Any], dict[str, list[Any]], dict[str, list[Any]]]:
    """The patch's fields, its `$setElementOrder` lists and its `$deleteFromPrimitiveList` lists."""
    fields: dict[str, Any] = {}
    orders: dict[str, list[Any]] = {}
    deletions: dict[str, list[Any]] = {}
    for name, value in change.items():
        if name in (PATCH, RETAIN_KEYS):
            continue
        if name.startswith(SET_ELEMENT_ORDER):
            orders[_directive_target(name, SET_ELEMENT_ORDER, path)] = _directive_list(name, value, path)
        elif name.startswith(DELETE_FROM_PRIMITIVE_LIST):
            target = _directive_target(name, DELETE_FROM_PRIMITIVE_LIST, path)
            deletions[target] = _directive_list(name, value, path)
        else:
            fields[name] = value
    return fields, orders, deletions


def _directive_target(name: str, directive: str, path: str) -> str:
    prefix, slash, target = name.partition("/")
    if prefix != directive or not slash or not target:
        raise PatchError(
            f"{_where(path)}: malformed directive {go_quote(name)}; write it as {directive}/<field name>",
            field=path,
        )
    return target


def _directive_list(name: str, value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise PatchError(f"{_where(path)}: {name} must be a list, not {_json_type(value)}", field=path)
    return value


def _is_directive(name: str) -> bool:
    return name in (PATCH, RETAIN_KEYS) or name.startswith((SET_ELEMENT_ORDER, DELETE_FROM_PRIMITIVE_LIST))


def _replaces(schema: Schema | None) -> bool:
    return schema is not None and REPLACE in schema.patch_strategy


# ---- lists ---------------------------------------------------------------------------------


def _merge_list(live: list[Any], change: list[Any], schema: Schema, path: str) -> list[Any]:
    if schema.patch_merge_key:
        return _merge_keyed_list(live, change, schema.patch_merge_key, schema.items, path)
    return _merge_value_set(live, change, path)


def _replace_list(change: list[Any], schema: Schema | None, path: str) -> list[Any]:
    """A list without merge strategy: the patch's list, with directives resolved in its elements."""
    items = schema.items if schema is not None else None
    result: list[Any] = []
    for index, element in enumerate(change):
        element_path = f"{path}[{index}]"
        if isinstance(element, dict) and PATCH in element:
            if element == {PATCH: REPLACE}:
                continue  # asks for what happens anyway
            raise PatchError(
                f"{element_path}: {_where(path)} has no merge key, so a strategic merge patch replaces "
                f"it whole and its elements cannot carry $patch; send the complete list instead",
                field=element_path,
            )
        if isinstance(element, dict):
            result.append(_merge_fields(None, element, items, element_path))
        else:
            result.append(deep_copy_json(element))
    return result


def _merge_keyed_list(
    live: list[Any], change: list[Any], key: str, items: Schema | None, path: str
) -> list[Any]:
    """Merge a list of objects element by element, matching elements on `key`."""
    replace = False
    removed: set[Hashable] = set()
    updates: list[tuple[str, dict[str, Any]]] = []
    for index, element in enumerate(change):
        element_path = f"{path}[{index}]"
        if not isinstance(element, dict):
            raise PatchError(
                f"{element_path}: elements of {path} are objects merged by {go_quote(key)}, "
                f"not {_json_type(element)}",
                field=element_path,
            )
        directive = _object_directive(element, element_path)
        if element.keys() == {PATCH}:  # a bare {"$patch": ...} speaks for the whole list
            if directive == DELETE:
                raise PatchError(
                    f'{element_path}: {{"$patch": "delete"}} must name the element to remove by its '
                    f"{go_quote(key)}",
                    field=element_path,
                )
            replace = replace or directive == REPLACE
        elif key not in element:
            raise PatchError(
                f"{element_path}: missing merge key {go_quote(key)}; every element of {path} in a strategic "
                f"merge patch must carry its {go_quote(key)} to be matched with the live list",
                field=element_path,
            )
        elif directive == DELETE:
            removed.add(_identity(element[key]))
        else:
            updates.append((element_path, element))

    kept = [] if replace else [e for e in live if _key_identity(e, key) not in removed]
    kept_ids = [_key_identity(element, key) for element in kept]
    merged: list[Any] = list(kept)
    merged_ids = list(kept_ids)
    fresh = [False] * len(merged)
    position: dict[Hashable, int] = {}
    for index, identity in enumerate(kept_ids):
        position.setdefault(identity, index)
    for element_path, element in updates:
        identity = _identity(element[key])
        at = position.get(identity)
        directive = element.get(PATCH, MERGE)
        if at is None:
            position[identity] = len(merged)
            merged.append(_merge_fields(None, element, items, element_path))
            merged_ids.append(identity)
            fresh.append(True)
        else:
            existing = merged[at]
            keep = directive == MERGE and isinstance(existing, dict)
            merged[at] = _merge_fields(existing if keep else None, element, items, element_path)
            fresh[at] = True
    merged = [
        item if is_fresh else deep_copy_json(item) for item, is_fresh in zip(merged, fresh, strict=True)
    ]
    named = [_identity(element[key]) for _, element in updates]
    return _arrange(merged, merged_ids, named, kept_ids)


def _merge_value_set(live: list[Any], change: list[Any], path: str) -> list[Any]:
    """Merge a list of values as a set: the union, each value once."""
    replace = False
    values: list[Any] = []
    for index, element in enumerate(change):
        if isinstance(element, dict) and PATCH in element:
            if element in ({PATCH: REPLACE}, {PATCH: MERGE}):
                replace = replace or element[PATCH] == REPLACE
                continue
            raise PatchError(
                f"{path}[{index}]: {path} merges as a set of values; remove values with "
                f'$deleteFromPrimitiveList/{_field_name(path)} or replace the list with a {{"$patch": '
                f'"replace"}} element',
                field=f"{path}[{index}]",
            )
        values.append(element)
    base = [] if replace else live
    seen: set[Hashable] = set()
    merged: list[Any] = []
    merged_ids: list[Hashable] = []
    for value in [*base, *values]:
        identity = _identity(value)
        if identity not in seen:
            seen.add(identity)
            merged.append(deep_copy_json(value))
            merged_ids.append(identity)
    return _arrange(merged, merged_ids, [_identity(v) for v in values], [_identity(v) for v in base])


def _merge_list_field(
    *,
    live: Any,
    change: Any,
    order: list[Any] | None,
    deletions: list[Any] | None,
    schema: Schema | None,
    path: str,
) -> Any:
    """A list field the patch also sends `$setElementOrder` or `$deleteFromPrimitiveList` for."""
    if change is None:
        return _ABSENT
    name = _field_name(path)
    if change is not _ABSENT and not isinstance(change, list):
        raise PatchError(
            f"{path}: $setElementOrder/{name} and $deleteFromPrimitiveList/{name} apply to lists, "
            f"but the patch sets {path} to {_json_type(change)}",
            field=path,
        )
    merge_schema = schema if schema is not None and schema.merges_list() else None
    key = merge_schema.patch_merge_key if merge_schema is not None else None
    live_list: list[Any] = live if isinstance(live, list) else []
    if change is _ABSENT:
        if not isinstance(live, list):
            return live if live is _ABSENT else deep_copy_json(live)
        value = [deep_copy_json(element) for element in live]
    elif merge_schema is not None:
        value = _merge_list(live_list, change, merge_schema, path)
    else:
        value = _replace_list(change, schema, path)
    if deletions is not None:
        if key:
            raise PatchError(
                f"{path}: $deleteFromPrimitiveList/{name} removes values from a list of values, but "
                f'{path} is a list of objects merged by {go_quote(key)}; remove an element with {{"{key}": '
                f'<value>, "$patch": "delete"}} in {name}',
                field=path,
            )
        doomed = {_identity(value) for value in deletions}
        value = [element for element in value if _identity(element) not in doomed]
    if order is not None and merge_schema is not None:
        given = [] if change is _ABSENT else change
        value = _apply_element_order(value, order, change=given, live=live_list, key=key, path=path)
    return value


def _apply_element_order(
    value: list[Any], order: list[Any], *, change: list[Any], live: list[Any], key: str | None, path: str
) -> list[Any]:
    name = _field_name(path)
    if key:
        for index, entry in enumerate(order):
            if not isinstance(entry, dict) or key not in entry:
                raise PatchError(
                    f"{path}: entry {index} of $setElementOrder/{name} must be an object carrying the "
                    f"merge key {go_quote(key)}",
                    field=path,
                )
        wanted = [_identity(entry[key]) for entry in order]
        named = [_identity(e[key]) for e in change if isinstance(e, dict) and PATCH not in e and key in e]
        value_ids = [_key_identity(element, key) for element in value]
        live_ids = [_key_identity(element, key) for element in live]
    else:
        wanted = [_identity(entry) for entry in order]
        named = [_identity(e) for e in change if not (isinstance(e, dict) and PATCH in e)]
        value_ids = [_identity(element) for element in value]
        live_ids = [_identity(element) for element in live]
    remaining = iter(wanted)
    for identity in named:
        # Each element the patch sends must turn up in the order list, after the previous one.
        if not any(identity == candidate for candidate in remaining):
            raise PatchError(
                f"{path}: every element of {name} in the patch must appear in $setElementOrder/{name}, "
                f"in the same relative order",
                field=path,
            )
    return _arrange(value, value_ids, wanted, live_ids)


def _arrange(
    items: list[Any], ids: Sequence[Hashable], named: Sequence[Hashable], live: Sequence[Hashable]
) -> list[Any]:
    """Order merged elements as Kubernetes does.

    Elements whose identity is in `named` (the patch's elements, or `$setElementOrder`) go in that
    order; the rest keep their order in `live`. The two runs are then interleaved: the next live-only
    element goes first only when both it and the next named element are in `live` and it came
    earlier there.
    """
    named_rank = _first_positions(named)
    live_rank = _first_positions(live)
    pairs = list(zip(ids, items, strict=True))
    chosen = sorted((p for p in pairs if p[0] in named_rank), key=lambda p: named_rank[p[0]])
    others = sorted(
        (p for p in pairs if p[0] not in named_rank), key=lambda p: live_rank.get(p[0], len(live))
    )
    result: list[Any] = []
    i = j = 0
    while i < len(others) and j < len(chosen):
        other_rank = live_rank.get(others[i][0])
        chosen_rank = live_rank.get(chosen[j][0])
        if other_rank is not None and chosen_rank is not None and other_rank < chosen_rank:
            result.append(others[i][1])
            i += 1
        else:
            result.append(chosen[j][1])
            j += 1
    result.extend(item for _, item in others[i:])
    result.extend(item for _, item in chosen[j:])
    return result


def _first_positions(ids: Sequence[Hashable]) -> dict[Hashable, int]:
    positions: dict[Hashable, int] = {}
    for at, identity in enumerate(ids):
        positions.setdefault(identity, at)
    return positions


# ---- identities and wording ----------------------------------------------------------------


def _identity(value: Any) -> Hashable:
    """A hashable stand-in equal exactly when two JSON values are (so `true` is not `1`)."""
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    return ("json", json.dumps(value, sort_keys=True, default=repr))


def _key_identity(element: Any, key: str) -> Hashable:
    """The identity of an element's merge key; an element without one matches nothing."""
    if isinstance(element, dict) and key in element:
        return _identity(element[key])
    return object()


def _field_path(path: str, name: str, schema: Schema | None) -> str:
    if schema is not None and schema.is_map:
        return f"{path}[{name}]"
    return f"{path}.{name}" if path else name


def _field_name(path: str) -> str:
    return path.rsplit(".", 1)[-1]


def _where(path: str) -> str:
    return path or "the patch root"


def _json_type(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "null"
