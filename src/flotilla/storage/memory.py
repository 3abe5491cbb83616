"""An in-memory `Backend`: the same model as the SQLite store, kept in Python lists.

It serves simulated member clusters whose state need not outlive the process, and it is the
reference the property tests hold the SQLite backend against. History is a list of versions per key
(None marks a deletion), so reads at a past revision and watches from a past revision work exactly
as in the persistent store until compaction drops them.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import AsyncIterator

from flotilla.storage.backend import (
    BackendClosedError,
    CompactedError,
    Event,
    EventType,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
    event_bytes,
    prefix_end,
)

_Version = tuple[int, KeyValue | None]  # (revision, state after it; None = deleted)


class MemoryBackend:
    """A `Backend` whose whole history lives in memory."""

    def __init__(self) -> None:
        self._versions: dict[str, list[_Version]] = {}
        self._keys: list[str] = []  # sorted, every key that has any retained version
        self._log: list[Event] = []  # retained events, in revision order
        self._revision = 0
        self._compact_revision = 0
        self._watchers: set[tuple[str, str, asyncio.Queue[list[Event] | None]]] = set()
        self._closed = False

    async def start(self) -> None:
        self._closed = False

    async def close(self) -> None:
        self._closed = True
        for _, _, queue in list(self._watchers):
            queue.put_nowait(None)
        self._watchers.clear()

    def current_revision(self) -> int:
        return self._revision

    async def latest_revision(self) -> int:
        return self._revision  # only this process writes

    def compact_revision(self) -> int:
        return self._compact_revision

    def _at(self, revision: int) -> int:
        if revision <= 0:
            return self._revision
        if revision > self._revision:
            raise FutureRevisionError(revision, self._revision)
        if revision < self._compact_revision:
            raise CompactedError(revision, self._compact_revision)
        return revision

    def _state(self, key: str, at: int) -> KeyValue | None:
        versions = self._versions.get(key)
        if not versions:
            return None
        index = bisect.bisect_right(versions, at, key=lambda v: v[0]) - 1
        return versions[index][1] if index >= 0 else None

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        return self._state(key, self._at(revision))

    async def range(
        self, prefix: str, *, start_after: str = "", limit: int = 0, revision: int = 0
    ) -> RangeResult:
        at = self._at(revision)
        end = prefix_end(prefix)
        start = bisect.bisect_left(self._keys, max(prefix, start_after))
        kvs: list[KeyValue] = []
        more = False
        for key in self._keys[start:]:
            if key >= end:
                break
            if key == start_after:
                continue
            state = self._state(key, at)
            if state is None:
                continue
            if limit and len(kvs) == limit:
                more = True
                break
            kvs.append(state)
        return RangeResult(kvs, at, more)

    def _write(self, key: str, value: bytes | None, expected: int | None) -> int:
        if self._closed:
            raise BackendClosedError("the store is closed")
        prev = self._state(key, self._revision)
        if expected is None:  # create
            if prev is not None:
                raise KeyExistsError(key)
        elif prev is None:
            if expected == 0:
                raise KeyNotFoundError(key)
            raise RevisionMismatchError(key, expected, None)
        elif expected and prev.mod_revision != expected:
            raise RevisionMismatchError(key, expected, prev)
        self._revision += 1
        revision = self._revision
        create_revision = prev.create_revision if prev else revision
        kv = KeyValue(key, value or b"", create_revision, revision)
        versions = self._versions.get(key)
        if versions is None:
            versions = self._versions[key] = []
            bisect.insort(self._keys, key)
        versions.append((revision, kv if value is not None else None))
        event = Event(EventType.PUT if value is not None else EventType.DELETE, kv, prev)
        self._log.append(event)
        for prefix, end, queue in self._watchers:
            if prefix <= key < end:
                queue.put_nowait([event])
        return revision

    async def create(self, key: str, value: bytes) -> int:
        return self._write(key, value, None)

    async def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        return self._write(key, value, mod_revision)

    async def delete(self, key: str, *, mod_revision: int) -> int:
        return self._write(key, None, mod_revision)

    async def watch(self, prefix: str, *, after_revision: int) -> AsyncIterator[list[Event]]:
        if self._closed:
            raise BackendClosedError("the store is closed")
        if after_revision < self._compact_revision:
            raise CompactedError(after_revision, self._compact_revision)
        end = prefix_end(prefix)
        queue: asyncio.Queue[list[Event] | None] = asyncio.Queue()
        start = bisect.bisect_right(self._log, after_revision, key=lambda e: e.revision)
        backlog = [e for e in self._log[start:] if prefix <= e.kv.key < end]
        entry = (prefix, end, queue)
        self._watchers.add(entry)
        try:
            if backlog:
                yield backlog
            while True:
                events = await queue.get()
                if events is None:
                    return
                fresh = [e for e in events if e.revision > after_revision]
                if fresh:
                    yield fresh
        finally:
            self._watchers.discard(entry)

    async def history(
        self, prefix: str, *, after_revision: int, until_revision: int, max_bytes: int
    ) -> list[Event]:
        if after_revision < self._compact_revision:
            raise CompactedError(after_revision, self._compact_revision)
        end = prefix_end(prefix)
        start = bisect.bisect_right(self._log, after_revision, key=lambda e: e.revision)
        page: list[Event] = []
        size = 0
        log = self._log
        for index in range(start, len(log)):
            event = log[index]
            if event.revision > until_revision:
                break
            if not prefix <= event.kv.key < end:
                continue
            size += event_bytes(event)
            if page and size > max_bytes:
                break
            page.append(event)
        return page

    async def compact(self, revision: int) -> int:
        revision = min(revision, self._revision)
        if revision <= self._compact_revision:
            return 0
        self._compact_revision = revision
        removed = 0
        for key in list(self._keys):
            versions = self._versions[key]
            index = bisect.bisect_right(versions, revision, key=lambda v: v[0]) - 1
            if index < 0:
                continue
            drop = index if versions[index][1] is not None else index + 1
            removed += drop
            del versions[:drop]
            if not versions:
                del self._versions[key]
                self._keys.remove(key)
        start = bisect.bisect_right(self._log, revision, key=lambda e: e.revision)
        del self._log[:start]
        return removed
