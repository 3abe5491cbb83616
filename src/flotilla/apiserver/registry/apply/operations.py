"""Server-side apply and the managedFields bookkeeping of every other write.

`apply` is an `application/apply-patch+yaml` PATCH (or the create it turns into):

1. merge the configuration onto the live object (`merge`);
2. the manager's `Apply` entry becomes exactly the fields the configuration sets;
3. fields the manager applied last time but not now are removed from the object, unless some
   manager (this one's new configuration included, `Update` entries too) still owns them;
4. every other manager loses the fields whose value this apply changes and those it removed; if
   any such field was owned and `force` is off, nothing happens and `ApplyConflict` says why.
   A field set to the value it already had changes nothing, so its owners now share it.

`record_update` is the same ownership transfer for POST, PUT and non-apply PATCH: the writer's
`Update` entry gains every field whose value it changed or added (creating an object gives it every
field), other managers lose those, and removed fields leave every entry.

Both also follow kube's field manager where it differs from the plain algorithm: an object that
has no managedFields when first applied to gets a `before-first-apply` entry for what it already
had, an object whose managedFields were cleared is not tracked again by updates, `kubectl` may take
over client-side-applied fields (`lastapplied`), and more than ten `Update` entries are folded,
oldest first, into one `ancient-changes` entry per apiVersion.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from flotilla.api.times import format_time
from flotilla.apiserver.registry.apply.atoms import InvalidObjectError
from flotilla.apiserver.registry.apply.conflicts import ApplyConflict, Conflict
from flotilla.apiserver.registry.apply.fieldpath import FieldSet
from flotilla.apiserver.registry.apply.fieldsets import (
    STRIPPED_FIELDS,
    compare,
    default_reset_fields,
    fields_of,
    remove_fields,
    with_named_fields,
)
from flotilla.apiserver.registry.apply.jsonvalues import json_copy, json_equal
from flotilla.apiserver.registry.apply.lastapplied import (
    UPGRADING_MANAGER,
    fields_allowed_from_last_applied,
    refresh_last_applied,
)
from flotilla.apiserver.registry.apply.managedfields import (
    APPLY,
    UPDATE,
    ManagedEntry,
    ManagedFields,
    ManagedFieldsError,
    ManagerKey,
    decode_managed_fields,
    encode_managed_fields,
)
from flotilla.apiserver.registry.apply.merge import merge_objects
from flotilla.apiserver.registry.schema.model import Schema

BEFORE_FIRST_APPLY: Final = "before-first-apply"
ANCIENT_CHANGES: Final = "ancient-changes"
MAX_UPDATE_MANAGERS: Final = 10


class ApplyError(ValueError):
    """An apply request that cannot be applied at all (the API server answers 400 Bad Request)."""


@dataclass(frozen=True, slots=True)
class ApplyResult:
    obj: dict[str, Any]
    """The merged object, with `metadata.managedFields` set to `managed_fields`."""
    managed_fields: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class _Context:
    schema: Schema | None
    api_version: str
    reset_fields: FieldSet
    time: str


def apply(
    live: dict[str, Any] | None,
    applied: dict[str, Any],
    *,
    manager: str,
    schema: Schema | None,
    managed_fields: list[dict[str, Any]] | None,
    force: bool,
    api_version: str,
    now: datetime,
    subresource: str = "",
    reset_fields: FieldSet | None = None,
    share: bool = False,
) -> ApplyResult:
    """Apply `applied` as `manager` onto `live` (None: the object does not exist yet).

    `managed_fields` are the live object's. Raises `ApplyConflict` (409) and `ApplyError` (400).
    Neither input is changed, and the result shares nothing with them unless `share` says the
    caller copies it before changing it: then the parts taken whole from `live` and `applied` are
    theirs (copying the result is a fifth of the cost of applying to a large object).
    """
    if _metadata(applied).get("managedFields") is not None:
        raise ApplyError("metadata.managedFields must be nil")
    if applied.get("apiVersion", api_version) != api_version:
        raise ApplyError(
            "Incorrect version specified in apply patch. "
            f"Specified patch version: {applied.get('apiVersion')}, expected: {api_version}"
        )
    live_object = _without_managed_fields(live) if live is not None else {}
    if reset_fields is None:
        reset_fields = default_reset_fields(subresource, live_object, applied)
    context = _Context(schema, api_version, reset_fields, format_time(now))
    try:
        managed = decode_managed_fields(managed_fields)
    except ManagedFieldsError:
        managed = ManagedFields()
    key = ManagerKey.of(manager, APPLY, api_version, subresource)
    try:
        if live is not None and not managed.entries:
            before = ManagerKey.of(BEFORE_FIRST_APPLY, UPDATE, api_version)
            managed.entries[before] = ManagedEntry(
                fields_of(live_object, schema, reset_fields=reset_fields), api_version, context.time
            )
        merged, result = _apply_with_upgrade(live_object, applied, managed, key, force=force, context=context)
    except InvalidObjectError as error:
        raise ApplyError(str(error)) from error
    entry = result.entries.get(key)
    if entry is not None and (key not in managed.entries or not json_equal(merged, live_object)):
        entry.time = context.time
    if manager == UPGRADING_MANAGER:
        merged = refresh_last_applied(merged, applied)
    _cap_update_managers(result)
    encoded = encode_managed_fields(result)
    # The merge shares what it took whole from `live` and `applied`.
    return ApplyResult(_with_managed_fields(merged if share else json_copy(merged), encoded), encoded)


def _apply_with_upgrade(
    live: dict[str, Any],
    applied: dict[str, Any],
    managed: ManagedFields,
    key: ManagerKey,
    *,
    force: bool,
    context: _Context,
) -> tuple[dict[str, Any], ManagedFields]:
    """`_apply_once`, letting `kubectl` take over fields it applied client-side (see `lastapplied`)."""
    try:
        return _apply_once(live, applied, managed, key, force=force, context=context)
    except ApplyConflict as conflict:
        if key.manager != UPGRADING_MANAGER:
            raise
        allowed = fields_allowed_from_last_applied(live, context.schema, context.api_version)
        if allowed is None:
            raise
        remaining = [c for c in conflict.conflicts if c.path not in allowed]
        if remaining:
            raise ApplyConflict(remaining) from None
        return _apply_once(live, applied, managed, key, force=True, context=context)


def _apply_once(
    live: dict[str, Any],
    applied: dict[str, Any],
    managed: ManagedFields,
    key: ManagerKey,
    *,
    force: bool,
    context: _Context,
) -> tuple[dict[str, Any], ManagedFields]:
    schema = context.schema
    managed = managed.copy()
    merged, applied_fields = merge_objects(live, applied, schema)
    previous = managed.entries.get(key)
    # Until the end the entry keeps the identity fields (metadata.name…) kube strips afterwards: they
    # keep `metadata` itself owned, so dropping the last applied label does not remove all metadata.
    applied_fields = applied_fields.recursive_difference(context.reset_fields)
    previous_time = previous.time if previous is not None else None
    managed.entries[key] = ManagedEntry(applied_fields, context.api_version, previous_time)
    if previous is not None and previous.fields:
        merged = _remove_disowned(merged, managed, key, previous.fields, schema)
    # What this apply changes matters only where other managers own fields: they lose those.
    owned_by_others = FieldSet()
    for other, entry in managed.entries.items():
        if other != key:
            owned_by_others = owned_by_others.union(entry.fields)
    comparison = compare(live, merged, schema, within=owned_by_others).excluding(context.reset_fields)
    changed = comparison.changed()
    if not force:
        conflicts = _conflicts(managed, key, changed)
        if conflicts:
            raise ApplyConflict(conflicts)
    for other, entry in managed.entries.items():
        if other != key:
            entry.fields = entry.fields.difference(changed).difference(comparison.removed)
    fields = applied_fields.difference(STRIPPED_FIELDS)
    if previous is not None and fields == previous.fields:
        fields = previous.fields  # the same set, whose FieldsV1 is known: it is written out unchanged
    managed.entries[key].fields = fields
    managed.drop_empty()
    return merged, managed


def _conflicts(managed: ManagedFields, key: ManagerKey, changed: FieldSet) -> list[Conflict]:
    """The fields other managers own that `changed` takes, by manager in kube's identifier order."""
    taken = [
        (other, entry, entry.fields & changed) for other, entry in managed.entries.items() if other != key
    ]
    found = [item for item in taken if item[2]]
    found.sort(key=lambda item: item[0].identifier())
    return [Conflict(other, entry.api_version, path) for other, entry, fields in found for path in fields]


def _remove_disowned(
    merged: dict[str, Any],
    managed: ManagedFields,
    key: ManagerKey,
    last_applied: FieldSet,
    schema: Schema | None,
) -> dict[str, Any]:
    """Remove what the manager applied last time and nobody owns now (its new set included)."""
    if last_applied.issubset(managed.entries[key].fields):
        return merged  # everything applied last time is applied again: nothing is disowned
    owned = FieldSet()
    for entry in managed.entries.values():
        owned = owned.union(entry.fields)
    disowned = with_named_fields(last_applied, schema).difference(with_named_fields(owned, schema))
    return remove_fields(merged, disowned, schema) if disowned else merged


def record_update(
    old: dict[str, Any] | None,
    new: dict[str, Any],
    *,
    manager: str,
    schema: Schema | None,
    managed_fields: list[dict[str, Any]] | None,
    api_version: str,
    now: datetime,
    subresource: str = "",
    reset_fields: FieldSet | None = None,
) -> list[dict[str, Any]]:
    """The managedFields after `manager` wrote `new` over `old` (None: created it) with a non-apply write.

    `managed_fields` are those the write starts from (see `managed_fields_for_write`). When the
    objects cannot be described as field sets (a keyed list item without its keys) the list is
    returned unchanged, as kube does.
    """
    try:
        managed = decode_managed_fields(managed_fields)
    except ManagedFieldsError:
        managed = ManagedFields()
    if old is not None and not managed.entries:
        return []  # managedFields were cleared (or never kept): updates do not start tracking again
    new_object = _without_managed_fields(new)
    old_object = _without_managed_fields(old) if old is not None else {}
    if reset_fields is None:
        reset_fields = default_reset_fields(subresource, old_object, new_object)
    try:
        if old is None:
            changed = fields_of(new_object, schema, reset_fields=reset_fields)
            removed = FieldSet()
        else:
            comparison = compare(old_object, new_object, schema)
            changed = comparison.changed().recursive_difference(reset_fields)
            removed = comparison.removed.recursive_difference(reset_fields)
    except InvalidObjectError:
        unchanged: list[dict[str, Any]] = json_copy(managed_fields or [])
        return unchanged
    key = ManagerKey.of(manager, UPDATE, api_version, subresource)
    lost = changed.union(removed) if removed else changed
    taken = changed.difference(STRIPPED_FIELDS)
    own = managed.entries.get(key)
    # A writer that changed only fields it already owned (a Lease renewal) keeps its set as it is,
    # which is then written out again exactly as it was read.
    keeps_own = own is not None and lost is changed and taken == changed and changed.issubset(own.fields)
    for other, entry in managed.entries.items():
        if other != key or not keeps_own:
            entry.fields = entry.fields.difference(lost)
    if taken:
        if keeps_own and own is not None:
            fields = own.fields
        else:
            previous = managed.entries.get(key)
            fields = taken.union(previous.fields) if previous is not None else taken
        managed.entries[key] = ManagedEntry(fields, api_version, format_time(now))
    managed.drop_empty()
    _cap_update_managers(managed)
    return encode_managed_fields(managed)


def _cap_update_managers(managed: ManagedFields) -> None:
    """Fold the oldest `Update` entries into `ancient-changes` until at most ten remain."""
    if len(managed.entries) <= MAX_UPDATE_MANAGERS:
        return
    updaters = [key for key in managed.entries if key.operation == UPDATE]
    if len(updaters) <= MAX_UPDATE_MANAGERS:
        return
    updaters.sort(key=lambda key: (managed.entries[key].time or "", key.identifier()))
    count = len(updaters)
    for key in updaters:
        if count <= MAX_UPDATE_MANAGERS:
            break
        if key.manager == ANCIENT_CHANGES:
            continue
        entry = managed.entries.pop(key)
        bucket = ManagerKey.of(ANCIENT_CHANGES, UPDATE, entry.api_version)
        existing = managed.entries.get(bucket)
        if existing is not None:
            existing.fields = existing.fields.union(entry.fields)
            existing.time = entry.time
            count -= 1
        else:
            managed.entries[bucket] = entry


def _metadata(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def _without_managed_fields(obj: dict[str, Any]) -> dict[str, Any]:
    stripped = dict(obj)
    metadata = stripped.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        stripped["metadata"] = {k: v for k, v in metadata.items() if k != "managedFields"}
    return stripped


def _with_managed_fields(obj: dict[str, Any], managed_fields: list[dict[str, Any]]) -> dict[str, Any]:
    result = dict(obj)
    metadata = dict(_metadata(result))
    if managed_fields:
        metadata["managedFields"] = managed_fields
    else:
        metadata.pop("managedFields", None)
    if metadata or "metadata" in result:
        result["metadata"] = metadata
    return result
