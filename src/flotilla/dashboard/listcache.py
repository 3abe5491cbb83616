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
    items: list[dict[str, Any]]
    read_at: float


class ListCache:
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
        """The list of `gvk` (in `namespace`, or all) as the session's user reads it, at most TTL old."""
        key = (session_id, gvk, namespace)
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            entry = self._entries.get(key)
            if entry is not None and self._clock() - entry.read_at < self._ttl:
                return entry.items
            items = await self._read(client, gvk, namespace)
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
                self._locks = {key: lock}
            self._entries[key] = _Entry(items, self._clock())
            return items

    async def _read(self, client: Client, gvk: GroupVersionKind, namespace: str) -> list[dict[str, Any]]:
        compact = self._compact.get(gvk)
        if compact is None:
            items, _ = await client.list(gvk, namespace=namespace, limit=PAGE_SIZE)
            return items
        kept: list[dict[str, Any]] = []
        try:
            async for page, _ in client.list_pages(gvk, namespace=namespace, limit=PAGE_SIZE):
                kept.extend(compact(item) for item in page)
        except ContinueExpired:
            # The hub compacted past the list's revision half-way: one whole list, as the client does.
            items, _ = await client.list(gvk, namespace=namespace)
            return [compact(item) for item in items]
        return kept

    def invalidate(self, session_id: str) -> None:
        for key in [key for key in self._entries if key[0] == session_id]:
            del self._entries[key]
