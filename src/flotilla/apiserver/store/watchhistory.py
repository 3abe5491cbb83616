"""The watch cache's history of changes: the recent part in memory, the rest replayed from the store.

Watches resume from a resourceVersion, and must get every change after it. The store keeps every
revision until compaction (`compactor.py`), so that is the true limit: a watch from a revision the
store has compacted gets 410 Gone, any later one is served. Keeping all of that in memory is what
issue #13 (D3) measured: each revision of a 900 KB object cost megabytes, and the default window of
10,000 revisions could need gigabytes. So memory keeps only the most recent changes — at most
`window` revisions and at most `max_bytes` of stored values (superseded versions are kept as their
JSON bytes, see `cachedobjects.py`) — and every change after `start` is there. What it lets go of
is given back to the system (`memoryrelease.py`).

A watch from a revision at or after `start` replays from memory; from an older one it replays from
the store (`Backend.history`: pages bounded by bytes, read on the store's threads), then from memory
once it reaches `start`, then follows the live changes. Both replays run in pages, each page only
after the client has taken the one before (`Watcher.drained`), and the decoding of stored pages
yields to the event loop every `YIELD_BYTES`, so a watch resuming from far back neither blocks other
requests nor holds more than a page of decoded objects.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable

import structlog

from flotilla.apiserver.store.cachedobjects import CacheEvent
from flotilla.apiserver.store.memoryrelease import MemoryRelease
from flotilla.apiserver.store.watchers import Watcher
from flotilla.storage import Backend, CompactedError, Event, StorageError
from flotilla.storage.backend import event_bytes

log = structlog.get_logger("flotilla.apiserver.store.watchhistory")

YIELD_BYTES = 1024 * 1024
"""Stored bytes decoded between two yields to the event loop while replaying from the store."""

MAX_SCANNED = 10000
"""Events of other resources looked at per page of a replay from memory, before the next page."""


class History:
    """The recent changes in memory, bounded by revisions and by bytes, and replays to watchers."""

    def __init__(self, backend: Backend, *, window: int, max_bytes: int, page_bytes: int) -> None:
        self._backend = backend
        self._window = window
        self._max_bytes = max_bytes
        self._page_bytes = page_bytes
        self._events: deque[CacheEvent] = deque()
        self._release = MemoryRelease()
        self.bytes = 0
        """Stored bytes of the versions the events in memory hold (see `CacheEvent.size`)."""
        self.start = 0
        """Every change after this revision is in memory."""

    def __len__(self) -> int:
        return len(self._events)

    def reset(self, revision: int) -> None:
        """Start empty at `revision` (the cache loaded the store's state at it)."""
        self._events.clear()
        self.bytes = 0
        self.start = revision

    def append(self, event: CacheEvent) -> None:
        """Remember a change; forget the oldest ones past the window or the byte bound."""
        events = self._events
        events.append(event)
        self.bytes += event.size
        floor = event.revision - self._window
        while events and (events[0].revision <= floor or self.bytes > self._max_bytes):
            old = events.popleft()
            self.bytes -= old.size
            self.start = old.revision
            self._release.freed(old.size)

    # -- replay ----------------------------------------------------------------------------------

    def replay_from_memory(self, watcher: Watcher, prefix: str, after: int, until: int) -> int:
        """Replay a page of the changes under `prefix` in (after, until] from memory (`after` must
        be at or after `start`); returns the revision reached, `until` when done."""
        events = self._events
        first = _first_after(events, after)
        size = 0
        reached = after
        for scanned, event in enumerate(itertools.islice(events, first, None), start=1):
            if event.revision > until:
                return until
            if event.object.key.startswith(prefix):
                if size and size + event.size > self._page_bytes:
                    return reached
                watcher.replay(event)
                size += event.size
            reached = event.revision
            if scanned >= MAX_SCANNED:
                return reached
        return until

    async def catch_up(
        self,
        watcher: Watcher,
        prefix: str,
        after: int,
        until: int,
        decode: Callable[[Event], CacheEvent],
    ) -> None:
        """Replay every change under `prefix` in (after, until] to `watcher`, then let its live ones
        follow (the body of the task the cache runs for a watcher resuming from far back)."""
        cursor = after
        try:
            while cursor < until:
                await watcher.drained()
                if watcher.closed:
                    return
                if cursor >= self.start:
                    cursor = self.replay_from_memory(watcher, prefix, cursor, until)
                    await asyncio.sleep(0)
                    continue
                upper = min(until, self.start)
                page = await self._backend.history(
                    prefix, after_revision=cursor, until_revision=upper, max_bytes=self._page_bytes
                )
                if not page:
                    cursor = upper
                    continue
                decoded = 0
                for stored in page:
                    watcher.replay(decode(stored))
                    decoded += event_bytes(stored)
                    if decoded >= YIELD_BYTES:
                        decoded = 0
                        await asyncio.sleep(0)
                cursor = page[-1].revision
        except CompactedError as exc:
            log.info("watch.history_compacted", prefix=prefix, after=after, compacted=exc.compact_revision)
            watcher.expire(exc)
            return
        except StorageError as exc:
            log.warning("watch.history_unreadable", prefix=prefix, after=after, error=str(exc))
            watcher.close()
            return
        except Exception:  # a task nobody awaits: end this watch, keep the server and the others
            log.exception("watch.history_replay_failed", prefix=prefix, after=after)
            watcher.close()
            return
        watcher.end_catch_up()


def _first_after(events: deque[CacheEvent], revision: int) -> int:
    """The index of the first event newer than `revision` (events are in revision order)."""
    low, high = 0, len(events)
    while low < high:
        middle = (low + high) // 2
        if events[middle].revision <= revision:
            low = middle + 1
        else:
            high = middle
    return low
