"""The ownership graph the garbage collector works from: who names whom in `ownerReferences`.

Kubernetes' garbage collector keeps a graph of every object, keyed by uid, with an edge from each
owner to the dependents whose `metadata.ownerReferences` name it. Ours is the same idea kept from
the watch cache's events, and it is only an index: the collector re-reads every object it acts on
from the cache, so a stale edge costs a wasted look, never a wrong delete.

`observe` takes one cache event, updates the index and answers which object keys the collector
must look at again:

- a dependent that appeared or whose references changed (its owners may be absent);
- every dependent of an object that went away (they may have lost their last owner);
- an object being deleted with the `orphan` or `foregroundDeletion` finalizer, and, when the
  foreground deletion starts, all of its dependents (they are to be deleted first);
- an owner being deleted in the foreground whose dependent went away or stopped naming it (it
  may be free to go).

An object without owner references that nobody references costs a few dictionary look-ups per
event: the index remembers its uid → key and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent
from flotilla.apiserver.writes.deletion import FOREGROUND_FINALIZER, ORPHAN_FINALIZER


@dataclass(frozen=True, slots=True)
class OwnerReference:
    """One entry of `metadata.ownerReferences`."""

    api_version: str
    kind: str
    name: str
    uid: str
    controller: bool = False
    block_owner_deletion: bool = False


def owner_references(meta: dict[str, Any]) -> tuple[OwnerReference, ...]:
    """The owner references of an object's metadata; malformed entries (no uid) are skipped."""
    found = meta.get("ownerReferences")
    if not found or not isinstance(found, list):
        return ()
    references = []
    for entry in found:
        if not isinstance(entry, dict) or not entry.get("uid"):
            continue
        references.append(
            OwnerReference(
                api_version=str(entry.get("apiVersion", "")),
                kind=str(entry.get("kind", "")),
                name=str(entry.get("name", "")),
                uid=str(entry["uid"]),
                controller=entry.get("controller") is True,
                block_owner_deletion=entry.get("blockOwnerDeletion") is True,
            )
        )
    return tuple(references)


def deletion_finalizer(meta: dict[str, Any]) -> str:
    """The garbage collector's finalizer on an object being deleted (`orphan` first), or ""."""
    if not meta.get("deletionTimestamp"):
        return ""
    finalizers = meta.get("finalizers") or ()
    if ORPHAN_FINALIZER in finalizers:
        return ORPHAN_FINALIZER
    if FOREGROUND_FINALIZER in finalizers:
        return FOREGROUND_FINALIZER
    return ""


def _deleting_dependents(meta: dict[str, Any]) -> bool:
    """Whether the object waits for its dependents: deleting, with the foregroundDeletion finalizer."""
    return bool(meta.get("deletionTimestamp")) and FOREGROUND_FINALIZER in (meta.get("finalizers") or ())


class OwnerGraph:
    """owner uid → dependent keys, dependent key → its references, uid → key; fed by cache events."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}
        self._references: dict[str, tuple[OwnerReference, ...]] = {}
        self._dependents: dict[str, set[str]] = {}
        self._deleting_dependents: set[str] = set()

    # -- reading -------------------------------------------------------------------------------

    def key_of(self, uid: str) -> str | None:
        """The key of the object with this uid, if the cache holds it."""
        return self._keys.get(uid)

    def dependents(self, uid: str) -> list[str]:
        """Keys of the objects whose owner references name `uid` (a sorted snapshot)."""
        return sorted(self._dependents.get(uid, ()))

    def has_dependents(self, uid: str) -> bool:
        return bool(self._dependents.get(uid))

    def references(self, key: str) -> tuple[OwnerReference, ...]:
        return self._references.get(key, ())

    def is_deleting_dependents(self, key: str) -> bool:
        """Whether the object at `key` is being deleted in the foreground."""
        return key in self._deleting_dependents

    def any_dependent_deleting_dependents(self, uid: str) -> bool:
        return any(key in self._deleting_dependents for key in self._dependents.get(uid, ()))

    # -- keeping it current --------------------------------------------------------------------

    def rebuild(self, objects: Iterable[CachedObject]) -> list[str]:
        """Index `objects` from scratch; returns every key the collector must look at once."""
        self._keys.clear()
        self._references.clear()
        self._dependents.clear()
        self._deleting_dependents.clear()
        wanted: dict[str, None] = {}
        for item in objects:
            meta = item.metadata
            uid = str(meta.get("uid") or "")
            if uid:
                self._keys[uid] = item.key
            references = owner_references(meta)
            if references:
                self._link(item.key, (), references)
                wanted[item.key] = None
            if deletion_finalizer(meta):
                wanted[item.key] = None
            if _deleting_dependents(meta):
                self._deleting_dependents.add(item.key)
        return list(wanted)

    def observe(self, event: CacheEvent) -> list[str]:
        """Apply one cache event; returns the keys of the objects to look at again."""
        item = event.object
        key = item.key
        meta = item.metadata
        uid = str(meta.get("uid") or "")
        if event.type == "DELETED":
            return self._forget(key, uid)
        if uid and event.type == "ADDED":
            self._keys[uid] = key
        before = self._references.get(key, ())
        now = owner_references(meta) if "ownerReferences" in meta else ()
        wanted: list[str] = []
        if now != before:
            self._link(key, before, now)
            if now:
                wanted.append(key)
            wanted += self._owners_waiting_on(set(before) ^ set(now))
        elif now and event.type == "ADDED":
            wanted.append(key)
        if meta.get("deletionTimestamp") or key in self._deleting_dependents:
            wanted += self._deletion_progress(key, uid, meta)
        return wanted

    def _forget(self, key: str, uid: str) -> list[str]:
        if uid and self._keys.get(uid) == key:
            del self._keys[uid]
        self._deleting_dependents.discard(key)
        before = self._references.pop(key, ())
        wanted: list[str] = []
        if before:
            self._link(key, before, ())
            wanted += self._owners_waiting_on(set(before))
        if uid:
            wanted += self.dependents(uid)
        return wanted

    def _deletion_progress(self, key: str, uid: str, meta: dict[str, Any]) -> list[str]:
        """An object being deleted: itself while it holds a GC finalizer, its dependents once."""
        wanted: list[str] = []
        if deletion_finalizer(meta):
            wanted.append(key)
        if _deleting_dependents(meta):
            if key not in self._deleting_dependents:
                self._deleting_dependents.add(key)
                if uid:
                    wanted += self.dependents(uid)
        else:
            self._deleting_dependents.discard(key)
        return wanted

    def _owners_waiting_on(self, changed: set[OwnerReference]) -> list[str]:
        """Keys of owners deleting in the foreground among those `changed` references name."""
        wanted = []
        for uid in sorted({reference.uid for reference in changed}):
            owner = self._keys.get(uid)
            if owner is not None and owner in self._deleting_dependents:
                wanted.append(owner)
        return wanted

    def _link(self, key: str, before: tuple[OwnerReference, ...], now: tuple[OwnerReference, ...]) -> None:
        """Move `key`'s edges from the owners `before` names to those `now` names."""
        old_uids = {reference.uid for reference in before}
        new_uids = {reference.uid for reference in now}
        for uid in old_uids - new_uids:
            members = self._dependents.get(uid)
            if members is not None:
                members.discard(key)
                if not members:
                    del self._dependents[uid]
        for uid in new_uids - old_uids:
            self._dependents.setdefault(uid, set()).add(key)
        if now:
            self._references[key] = now
        else:
            self._references.pop(key, None)
