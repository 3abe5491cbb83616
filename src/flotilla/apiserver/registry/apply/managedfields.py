"""`metadata.managedFields`: decoding, encoding, validating, and deciding which list a write keeps.

Each entry records the fields one manager owns: `{manager, operation, apiVersion, time, fieldsType:
"FieldsV1", fieldsV1, subresource}`. Entries are identified as kube identifies them: by manager,
operation and subresource, plus the apiVersion for `Update` entries — so one manager applying
through two API versions keeps one `Apply` entry, but its updates through each version are
separate. Encoded lists are sorted as kube sorts them: `Apply` before `Update`, then by time (to
the second), manager, apiVersion and subresource.

Besides the codec this module holds the request-level rules of kube's field manager:

- `managed_fields_for_write`: a PUT/PATCH body may carry managedFields; valid ones replace the live
  list (that is how clients hand fields over or reset them with `[]`), invalid or absent ones fall
  back to the live list, and subresource writes always use the live list;
- `strip_time_only_changes`: a write whose only effect is new timestamps keeps the old ones, so a
  no-op apply changes nothing and the server can skip the write.

Every write decodes the live list, so decoding is cheap when it can be: FieldsV1 parsing is
remembered per document (see `fieldpath`), timestamps per text, and the common valid entry is
checked without building a single message. Whole lists are not remembered: a write reads the list
the object's last write stored, which no write has read yet.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple

from flotilla.api.times import timestamp
from flotilla.apiserver.registry.apply.fieldpath import FieldSet, FieldsV1Error
from flotilla.apiserver.registry.apply.jsonvalues import go_json, go_quote, json_copy

APPLY: Final = "Apply"
UPDATE: Final = "Update"
FIELDS_V1: Final = "FieldsV1"


class ManagerKey(NamedTuple):
    """What identifies an entry (kube's manager identifier).

    A named tuple rather than a dataclass: it keys the entries of every decoded list, and a tuple
    hashes and compares without running Python code.
    """

    manager: str
    operation: str
    api_version: str = ""
    """Empty for `Apply` entries, which follow their manager across versions."""
    subresource: str = ""

    @classmethod
    def of(cls, manager: str, operation: str, api_version: str, subresource: str = "") -> ManagerKey:
        return cls(manager, operation, "" if operation == APPLY else api_version, subresource)

    def identifier(self) -> str:
        """kube's identifier text, the JSON of the entry's identifying fields (used for ordering)."""
        parts = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version}
        text = ",".join(f'"{name}":{go_json(value)}' for name, value in parts.items() if value)
        if self.subresource:
            text += f',"subresource":{go_json(self.subresource)}'
        return "{" + text + "}"

    def describe(self, api_version: str) -> str:
        """The manager as conflict messages name it: `"kubectl-client-side-apply" using apps/v1`."""
        text = go_quote(self.manager)
        if self.subresource:
            text += f" with subresource {go_quote(self.subresource)}"
        if self.operation == UPDATE:
            text += f" using {api_version}"
        return text


@dataclass(slots=True)
class ManagedEntry:
    fields: FieldSet
    api_version: str
    time: str | None = None
    """As stored: RFC 3339 to the second, or None when the entry has none."""


@dataclass(slots=True)
class ManagedFields:
    """Decoded managedFields: one entry per manager identity."""

    entries: dict[ManagerKey, ManagedEntry] = field(default_factory=dict)

    def copy(self) -> ManagedFields:
        """Entries that can be changed without changing these (the field sets, values, are shared)."""
        return ManagedFields(
            {key: ManagedEntry(e.fields, e.api_version, e.time) for key, e in self.entries.items()}
        )

    def drop_empty(self) -> None:
        if not all(entry.fields for entry in self.entries.values()):
            self.entries = {key: entry for key, entry in self.entries.items() if entry.fields}


class ManagedFieldsError(ValueError):
    """managedFields that kube could not decode."""


# ---- codec --------------------------------------------------------------------------------------


def decode_managed_fields(entries: Any) -> ManagedFields:
    """Decode a managedFields list; raises `ManagedFieldsError` with the first problem."""
    if entries is not None and not isinstance(entries, list):
        raise ManagedFieldsError(_entry_errors(entries)[0])
    return _decode_entries(entries or [])


def _decode_entries(entries: list[Any]) -> ManagedFields:
    decoded = ManagedFields()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ManagedFieldsError(_entry_errors(entries)[0])
        errors, fields = _read_entry(index, entry)
        if errors:
            raise ManagedFieldsError(_entry_errors(entries)[0])
        key = ManagerKey.of(
            entry.get("manager", ""), entry["operation"], entry["apiVersion"], entry.get("subresource", "")
        )
        decoded.entries[key] = ManagedEntry(fields, entry["apiVersion"], entry.get("time"))
    return decoded


def encode_managed_fields(managed: ManagedFields) -> list[dict[str, Any]]:
    """The managedFields list for `managed`, in kube's order; empty entries are left out."""
    encoded: list[dict[str, Any]] = []
    for key, entry in managed.entries.items():
        if not entry.fields:
            continue
        item: dict[str, Any] = {}
        if key.manager:
            item["manager"] = key.manager
        item["operation"] = key.operation
        item["apiVersion"] = entry.api_version
        if entry.time is not None:
            item["time"] = entry.time
        item["fieldsType"] = FIELDS_V1
        item["fieldsV1"] = entry.fields.to_fields_v1()
        if key.subresource:
            item["subresource"] = key.subresource
        encoded.append(item)
    if len(encoded) > 1:
        encoded.sort(
            key=lambda e: (
                e["operation"],
                _epoch_seconds(e.get("time")),
                e.get("manager", ""),
                e["apiVersion"],
                e.get("subresource", ""),
            )
        )
    return encoded


def _epoch_seconds(text: Any) -> int:
    return _epoch_seconds_of_text(text) if isinstance(text, str) else 0


@functools.lru_cache(maxsize=1024)
def _epoch_seconds_of_text(text: str) -> int:
    """Every encoded list is sorted by its entries' times, which are mostly the same few."""
    parsed = timestamp(text)
    return int(parsed.timestamp()) if parsed is not None else 0


# ---- validation ---------------------------------------------------------------------------------


def validate_managed_fields(entries: Any) -> list[str]:
    """What is wrong with a managedFields value, one message per problem; empty when it is valid.

    kube does not reject a write for these: it ignores the list and keeps the live one (see
    `managed_fields_for_write`).
    """
    return _entry_errors(entries)


def _entry_errors(entries: Any) -> list[str]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        return ["managedFields must be a list"]
    errors: list[str] = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            errors.append(f"managed fields entry {index} must be an object")
            continue
        errors.extend(_one_entry_errors(index, entry))
    return errors


def _one_entry_errors(index: int, entry: dict[str, Any]) -> list[str]:
    errors, _ = _read_entry(index, entry)
    return errors


def _read_entry(index: int, entry: dict[str, Any]) -> tuple[list[str], FieldSet]:
    """What is wrong with one entry, and its fields (empty when its fieldsV1 is absent or broken)."""
    fields: FieldSet | None = None
    fields_v1 = entry.get("fieldsV1")
    error: FieldsV1Error | None = None
    if fields_v1 is not None:
        try:
            fields = FieldSet.from_fields_v1(fields_v1)
        except FieldsV1Error as found:
            error = found
    if fields is None:
        fields = FieldSet()
    api_version = entry.get("apiVersion")
    time = entry.get("time")
    if (
        error is None
        and isinstance(entry.get("manager", ""), str)
        and isinstance(entry.get("subresource", ""), str)
        and entry.get("operation") in (APPLY, UPDATE)
        and isinstance(api_version, str)
        and api_version
        and entry.get("fieldsType", "") == FIELDS_V1
        and (time is None or timestamp(time) is not None)
    ):
        return [], fields  # the common case, without building messages
    errors: list[str] = []
    where = f"managed fields entry {index}"
    errors.extend(
        f"{name} in {where} must be a string"
        for name in ("manager", "subresource")
        if not isinstance(entry.get(name, ""), str)
    )
    if entry.get("operation") not in (APPLY, UPDATE):
        errors.append(f"operation must be `Apply` or `Update` in {where}")
    if not isinstance(api_version, str) or not api_version:
        errors.append(f"apiVersion must not be empty in {where}")
    fields_type = entry.get("fieldsType", "")
    if fields_type == "":
        errors.append(f"missing fieldsType in {where}")
    elif fields_type != FIELDS_V1:
        errors.append(f"invalid fieldsType {fields_type!r} in {where}")
    if time is not None and timestamp(time) is None:
        errors.append(f"time in {where} must be an RFC 3339 date-time")
    if error is not None:
        errors.append(f"error decoding fieldsV1 of {where}: {error}")
    return errors, fields


# ---- request-level rules ------------------------------------------------------------------------


def _is_reset(entries: Any) -> bool:
    """`[]` or `[{}]` in a request body: the client asks to clear managedFields."""
    return isinstance(entries, list) and (not entries or entries == [{}])


def managed_fields_for_write(
    live: dict[str, Any] | None, new: dict[str, Any], *, subresource: str = ""
) -> list[dict[str, Any]]:
    """The managedFields a non-apply write (`record_update`) starts from, as kube chooses them.

    Subresource writes use the live object's. Otherwise a body that resets them (`[]`, `[{}]`) gets
    none, a body with valid non-empty ones gets those, and anything else the live object's. Invalid
    lists count as empty.

    The list is new, but its entries are those of `live` or `new`, not copies (`record_update`
    only reads them): change the list if you like, never the entries.

    The live object's list was checked when it was stored, so it is not checked again, nor a body's
    list equal to it (a read-modify-write sends back what it read): checking means decoding every
    entry's fields, which `record_update` does once more anyway.
    """
    live_entries = _metadata(live).get("managedFields")
    if not subresource:
        requested = _metadata(new).get("managedFields")
        if _is_reset(requested):
            return []
        if requested and (requested == live_entries or not _entry_errors(requested)):
            return list(requested)
    if not live_entries or not isinstance(live_entries, list):
        return []
    return list(live_entries)


def managed_fields_equal_ignoring_time(old: Any, new: Any) -> bool:
    """Whether two managedFields lists are the same entry for entry, apart from `time`."""
    if not isinstance(old, list) or not isinstance(new, list) or len(old) != len(new):
        return bool(old == new)
    for before, after in zip(old, new, strict=True):
        if not isinstance(before, dict) or not isinstance(after, dict):
            return False
        if _without_time(before) != _without_time(after):
            return False
    return True


def _without_time(entry: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in entry.items() if name != "time"}


def strip_time_only_changes(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    """`new`, with `old`'s managedFields when nothing but their timestamps changed.

    kube does this before writing (its `IgnoreManagedFieldsTimestampsTransformer`) so that an
    apply or update that changes nothing does not bump the resourceVersion.
    """
    if old is None:
        return new
    if not _same_apart_from_managed_fields(old, new):
        return new  # the usual case, and the cheapest to find out first
    old_entries = _metadata(old).get("managedFields")
    new_entries = _metadata(new).get("managedFields")
    if old_entries == new_entries or not managed_fields_equal_ignoring_time(old_entries, new_entries):
        return new
    result: dict[str, Any] = json_copy(new)
    result.setdefault("metadata", {})["managedFields"] = json_copy(old_entries)
    return result


def _same_apart_from_managed_fields(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """`old == new` once `metadata.managedFields` is left out of both, without copying them."""
    if old.keys() != new.keys():
        return False
    if any(value != new[name] for name, value in old.items() if name != "metadata"):
        return False  # the usual difference (spec, status), found before looking at metadata
    old_meta, new_meta = old.get("metadata"), new.get("metadata")
    if not isinstance(old_meta, dict) or not isinstance(new_meta, dict):
        return bool(old_meta == new_meta)
    if old_meta.keys() - {"managedFields"} != new_meta.keys() - {"managedFields"}:
        return False
    return all(value == new_meta[name] for name, value in old_meta.items() if name != "managedFields")


def _metadata(obj: dict[str, Any] | None) -> dict[str, Any]:
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    return metadata if isinstance(metadata, dict) else {}
