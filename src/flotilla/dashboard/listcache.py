"""Short-lived copies of the hub's lists, per signed-in user.

A page that filters 10,000 workloads, the overview and its live refreshes all need the same few
lists (Clusters, ResourceBindings, policies). Each is read from the hub as the user and kept for a
couple of seconds per session and kind, so a burst of requests (pages, counts, the next page)
costs the hub one list, and RBAC still judges every read: another user never sees this copy. A
concurrent second request for the same list waits for the first instead of listing again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client

DEFAULT_TTL_SECONDS = 2.0
MAX_ENTRIES = 4096


@dataclass(slots=True)
class _Entry:
    items: list[dict[str, Any]]
    revision: str
    read_at: float


class ListCache:
    def __init__(self, ttl: float = DEFAULT_TTL_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
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
            items, revision = await client.list(gvk, namespace=namespace, limit=500)
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
                self._locks = {key: lock}
            self._entries[key] = _Entry(items, revision, self._clock())
            return items

    def invalidate(self, session_id: str) -> None:
        for key in [key for key in self._entries if key[0] == session_id]:
            del self._entries[key]
