"""Short-lived copies of the hub's lists, per signed-in user.

A page that filters 10,000 workloads, the overview and its live refreshes all need the same few
lists (Clusters, ResourceBindings, policies). Each is read from the hub as the user and kept for a
couple of seconds per session and kind, so a burst of requests (pages, counts, the next page)
costs the hub one list, and RBAC still judges every read: another user never sees this copy. A
concurrent second request for the same list waits for the first instead of listing again. A kind
with a compact form (`compact`: ResourceBindings) is kept in that form, page by page as it is read.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client
from flotilla.client.errors import ContinueExpired

DEFAULT_TTL_SECONDS = 2.0
MAX_ENTRIES = 4096
PAGE_SIZE = 2000
Compact = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(slots=True)
class _Entry:
    items: dict[str, dict[str, Any]]
    """By `namespace/name`, in the hub's order (a watch event updates one in place)."""
    revision: str
    read_at: float
    followers: int = 0
    """Open live streams keeping this copy current from a watch: while any does, it does not expire."""


def _key_of(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


class ListCache:
    """Per session and kind (and namespace), the hub's list as the user read it; see the module."""

    def __init__(
        self,
        compact: dict[GroupVersionKind, Compact] | None = None,
        ttl: float = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._compact = compact or {}
        self._ttl = ttl
        self._clock = clock
        self._entries: dict[tuple[str, GroupVersionKind, str], _Entry] = {}
        self._locks: dict[tuple[str, GroupVersionKind, str], asyncio.Lock] = {}

    async def items(
        self, session_id: str, client: Client, gvk: GroupVersionKind, namespace: str = ""
    ) -> list[dict[str, Any]]:
        """The list of `gvk` (in `namespace`, or all) as the session's user reads it: at most TTL old,
        or kept current by a live stream's watch."""
        key = (session_id, gvk, namespace)
        async with self._lock(key):
            entry = self._entries.get(key)
            if entry is None or (not entry.followers and self._clock() - entry.read_at >= self._ttl):
                entry = await self._load(key, client)
            return list(entry.items.values())

    async def follow(
        self, session_id: str, client: Client, gvk: GroupVersionKind, *, reread: bool = False
    ) -> str:
        """Keep the session's list of `gvk` until `unfollow`; the revision to watch it from. A copy
        read within the TTL (or already followed) is reused, and the watch replays what changed since
        its revision; `reread` (after a 410) reads the list afresh."""
        key = (session_id, gvk, "")
        async with self._lock(key):
            entry = self._entries.get(key)
            followers = (entry.followers if entry is not None else 0) + 1
            if (
                reread
                or entry is None
                or (not entry.followers and self._clock() - entry.read_at >= self._ttl)
            ):
                entry = await self._load(key, client)
            entry.followers = followers
            return entry.revision

    def unfollow(self, session_id: str, gvk: GroupVersionKind) -> None:
        entry = self._entries.get((session_id, gvk, ""))
        if entry is not None:
            entry.followers = max(0, entry.followers - 1)

    def apply(self, session_id: str, gvk: GroupVersionKind, kind: str, obj: dict[str, Any]) -> None:
        """A watch event (ADDED, MODIFIED, DELETED) on the followed list of `gvk`."""
        entry = self._entries.get((session_id, gvk, ""))
        if entry is None:
            return
        if kind == "DELETED":
            entry.items.pop(_key_of(obj), None)
            return
        compact = self._compact.get(gvk)
        entry.items[_key_of(obj)] = compact(obj) if compact else obj

    def _lock(self, key: tuple[str, GroupVersionKind, str]) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def _load(self, key: tuple[str, GroupVersionKind, str], client: Client) -> _Entry:
        _, gvk, namespace = key
        items, revision = await self._read(client, gvk, namespace)
        if len(self._entries) >= MAX_ENTRIES:
            self._entries = {k: v for k, v in self._entries.items() if v.followers}
            self._locks = {k: v for k, v in self._locks.items() if k in self._entries or k == key}
        entry = _Entry({_key_of(item): item for item in items}, revision, self._clock())
        self._entries[key] = entry
        return entry

    async def _read(
        self, client: Client, gvk: GroupVersionKind, namespace: str
    ) -> tuple[list[dict[str, Any]], str]:
        compact = self._compact.get(gvk)
        if compact is None:
            return await client.list(gvk, namespace=namespace, limit=PAGE_SIZE)
        kept: list[dict[str, Any]] = []
        revision = ""
        try:
            async for page, page_revision in client.list_pages(gvk, namespace=namespace, limit=PAGE_SIZE):
                kept.extend(compact(item) for item in page)
                revision = page_revision
        except ContinueExpired:
            # The hub compacted past the list's revision half-way: one whole list, as the client does.
            items, revision = await client.list(gvk, namespace=namespace)
            return [compact(item) for item in items], revision
        return kept, revision

    def invalidate(self, session_id: str) -> None:
        """Forget the session's copies that no live stream keeps current (after a write, or a change)."""
        for key in [
            key for key, entry in self._entries.items() if key[0] == session_id and not entry.followers
        ]:
            del self._entries[key]
