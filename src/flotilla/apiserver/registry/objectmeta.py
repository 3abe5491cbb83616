"""System-owned metadata: what the server sets on create and carries over on update.

Clients may not choose an object's uid, creationTimestamp, resourceVersion or generation; the server
sets them on create and keeps them on every later write, bumping the generation only when the
object's desired state (everything but metadata and status) changes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.times import format_time
from flotilla.apiserver.registry.identifiers import RandomIdentifiers

GENERATE_NAME_SUFFIX = 5
GENERATE_NAME_MAX_PREFIX = 63 - GENERATE_NAME_SUFFIX  # kube cuts prefixes to 58 characters

_SYSTEM_FIELDS = ("uid", "creationTimestamp", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds")


def generate_name(prefix: str, ids: RandomIdentifiers) -> str:
    return prefix[:GENERATE_NAME_MAX_PREFIX] + ids.name_suffix(GENERATE_NAME_SUFFIX)


def prepare_create_metadata(obj: dict[str, Any], now: datetime, uid: str, *, tracks_generation: bool) -> None:
    """Set the system fields of a new object (its name is already resolved)."""
    meta = obj.setdefault("metadata", {})
    for name in _SYSTEM_FIELDS:
        meta.pop(name, None)
    meta.pop("resourceVersion", None)
    meta["uid"] = uid
    meta["creationTimestamp"] = format_time(now)
    if tracks_generation:
        meta["generation"] = 1
    else:
        meta.pop("generation", None)


def carry_over_metadata(new: dict[str, Any], old: dict[str, Any]) -> None:
    """Keep the system fields of the stored object on an update."""
    new_meta = new.setdefault("metadata", {})
    old_meta = old.get("metadata") or {}
    for name in _SYSTEM_FIELDS:
        if name in old_meta:
            new_meta[name] = old_meta[name]
        else:
            new_meta.pop(name, None)
    if "generation" in old_meta:
        new_meta["generation"] = old_meta["generation"]
    else:
        new_meta.pop("generation", None)
    new_meta["resourceVersion"] = old_meta.get("resourceVersion", "")


def spec_changed(new: dict[str, Any], old: dict[str, Any], *, status_is_separate: bool) -> bool:
    """Whether the desired state differs: every top-level field but metadata (and status)."""
    skipped = ("metadata", "status") if status_is_separate else ("metadata",)
    keys = (set(new) | set(old)) - set(skipped) - {"apiVersion", "kind"}
    return any(new.get(k) != old.get(k) for k in keys)


def bump_generation(new: dict[str, Any]) -> None:
    meta = new.setdefault("metadata", {})
    meta["generation"] = int(meta.get("generation") or 0) + 1


def same_object(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """Whether an update would store exactly what is stored (then kube writes nothing)."""
    if new.keys() != old.keys():
        return False
    for key, value in new.items():
        if key != "metadata" and value != old[key]:
            return False
    new_meta = {k: v for k, v in (new.get("metadata") or {}).items() if k != "resourceVersion"}
    old_meta = {k: v for k, v in (old.get("metadata") or {}).items() if k != "resourceVersion"}
    return new_meta == old_meta


def has_finalizers(obj: dict[str, Any], *, is_namespace: bool = False) -> bool:
    """Whether deleting the object must wait: metadata finalizers, or a namespace's spec finalizers."""
    if (obj.get("metadata") or {}).get("finalizers"):
        return True
    return is_namespace and bool((obj.get("spec") or {}).get("finalizers"))
