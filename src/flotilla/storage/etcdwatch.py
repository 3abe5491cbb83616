"""etcd watches as the storage contract's watch and history, and the store-key ↔ etcd-key mapping.

A watch is one gRPC Watch stream with one watcher from `after_revision`, with previous values:
etcd replays history to it and then follows new writes, in revision order, with no gap and no
repeat — exactly the contract. A compacted start is refused by etcd with its compaction point,
which becomes CompactedError before anything is yielded.

`history` needs a page that ends: an etcd watch never says "nothing more up to revision R" (the
progress request of etcd 3.4.23, which Debian ships, answers before an unsynced watcher has caught
up). So the history watcher covers the whole key space and the page ends at the first event at or
past `until_revision` — one exists, since every etcd revision after the first is a write (the
first, 1, is the empty store's, and has no event: a page ending there is empty); events outside the
requested prefix are dropped on arrival. The page also ends when it holds `max_bytes`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
from aetcd import rpc

from flotilla.storage.backend import (
    CompactedError,
    Event,
    EventType,
    KeyValue,
    StorageError,
    WatchBatch,
    event_bytes,
    prefix_end,
)
from flotilla.storage.etcdconnection import EtcdConnection

_ALL_KEYS = b"\0"  # with range_end "\0": every key


class EtcdKeys:
    """Maps the store's keys (under `root`) to etcd keys (under `prefix`) and back."""

    def __init__(self, root: str, prefix: str) -> None:
        self.root = root
        self.prefix = prefix.rstrip("/") if root else prefix
        self.root_prefix = f"{root}/" if root else ""

    def to_etcd(self, key: str) -> bytes:
        if key.startswith(self.root):
            return (self.prefix + key[len(self.root) :]).encode()
        raise StorageError(f"key {key!r} is outside the store's root {self.root!r}")

    def from_etcd(self, key: bytes) -> str:
        return self.root + key.decode()[len(self.prefix) :]

    def prefix_range(self, prefix: str) -> tuple[str, str]:
        """The etcd [start, end) of the store keys under `prefix`, as strings."""
        if self.root.startswith(prefix) and prefix != self.root:
            low = self.prefix + ("/" if self.root else "")
        else:
            low = self.to_etcd(prefix).decode()
        return low, prefix_end(low)

    def range(self, prefix: str, start_after: str) -> tuple[bytes, bytes]:
        low, end = self.prefix_range(prefix)
        if start_after:
            after = (self.to_etcd(start_after).decode() if start_after.startswith(self.root) else low) + "\0"
            low = max(low, after)
        return low.encode(), end.encode()

    def key_value(self, kv: Any) -> KeyValue:
        return KeyValue(
            self.from_etcd(kv.key), bytes(kv.value), int(kv.create_revision), int(kv.mod_revision)
        )

    def event(self, raw: Any) -> Event:
        prev = self.key_value(raw.prev_kv) if raw.HasField("prev_kv") else None
        if raw.type == rpc.Event.DELETE:
            create = prev.create_revision if prev is not None else 0
            kv = KeyValue(self.from_etcd(raw.kv.key), b"", create, int(raw.kv.mod_revision))
            return Event(EventType.DELETE, kv, prev)
        return Event(EventType.PUT, self.key_value(raw.kv), prev if raw.kv.version > 1 else None)


def _rpc_error(what: str, exc: grpc.aio.AioRpcError) -> StorageError:
    return StorageError(f"etcd {what} failed: {exc.code().name}: {exc.details()}")


class WatchStream:
    """One etcd watcher on its own gRPC stream."""

    def __init__(
        self, conn: EtcdConnection, keys: EtcdKeys, prefix: str, after_revision: int, *, prev_kv: bool = True
    ) -> None:
        self._conn = conn
        self._prev_kv = prev_kv
        self._keys = keys
        self._prefix = prefix
        self._after = after_revision
        self._call: Any = None
        self._cancelled = False
        self._low, self._end = keys.prefix_range(prefix)

    @property
    def cancelled(self) -> bool:
        """Whether the backend cancelled this stream (closing, or pausing its revision follower)."""
        return self._cancelled

    async def open(self, *, whole_keyspace: bool = False) -> int:
        """Create the watcher; returns etcd's compaction point if the start was compacted, else 0."""
        key, end = (_ALL_KEYS, _ALL_KEYS) if whole_keyspace else (self._low.encode(), self._end.encode())
        # From `after` itself, not after + 1: etcd then refuses exactly the starts the contract
        # calls compacted (after < compaction point); the event at `after` is dropped on arrival.
        start = max(self._after, 1)
        create = rpc.WatchCreateRequest(key=key, range_end=end, start_revision=start, prev_kv=self._prev_kv)
        try:
            self._call = self._conn.stream()
            await self._call.write(rpc.WatchRequest(create_request=create))
            response = await self._read()
        except grpc.aio.AioRpcError as exc:
            if not self._cancelled:  # the member failed, not the backend cancelling the stream
                await self._conn.fail_over(self._conn.endpoint)
            raise _rpc_error("watch", exc) from exc
        if response.compact_revision:
            return int(response.compact_revision)
        if not response.created:
            raise StorageError("etcd did not create the watch")
        return 0

    async def _read(self) -> Any:
        response = await self._call.read()
        if response is grpc.aio.EOF:
            raise StorageError("etcd ended the watch stream")
        return response

    def _compacted(self, response: Any) -> CompactedError:
        return CompactedError(self._after, int(response.compact_revision))

    async def batches(self) -> AsyncIterator[list[Event]]:
        """Events as etcd sends them; ends quietly when cancelled (the backend closing)."""
        async for response in self._responses():
            events = [self._keys.event(raw) for raw in response.events if raw.kv.mod_revision > self._after]
            if events:
                yield events

    async def progress(self) -> AsyncIterator[WatchBatch]:
        """On a watcher of the whole keyspace: the prefix's events of each response, with the
        revision the response reached over every key (empty when only other keys were written)."""
        low, end = self._low.encode(), self._end.encode()
        async for response in self._responses():
            if not response.events:
                continue
            reached = int(response.events[-1].kv.mod_revision)
            if reached <= self._after:
                continue
            events = [
                self._keys.event(raw)
                for raw in response.events
                if raw.kv.mod_revision > self._after and low <= raw.kv.key < end
            ]
            yield WatchBatch(events, reached)

    async def revisions(self) -> AsyncIterator[int]:
        """The revision of each batch of events, built into nothing (the backend's revision follower)."""
        async for response in self._responses():
            if response.events:
                yield int(response.events[-1].kv.mod_revision)

    async def _responses(self) -> AsyncIterator[Any]:
        while True:
            try:
                response = await self._read()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._cancelled and task is not None and not task.cancelling():
                    return  # the backend closed the stream
                raise
            except grpc.aio.AioRpcError as exc:
                if exc.code() == grpc.StatusCode.CANCELLED:
                    return
                await self._conn.fail_over(self._conn.endpoint)
                raise _rpc_error("watch", exc) from exc
            if response.compact_revision:
                raise self._compacted(response)
            if response.canceled:
                raise StorageError(f"etcd cancelled the watch: {response.cancel_reason or 'no reason given'}")
            yield response

    async def page(self, until: int, max_bytes: int, timeout: float) -> list[Event]:
        """History after the start revision up to `until`, at most `max_bytes` (at least one event)."""
        try:
            return await asyncio.wait_for(self._page(until, max_bytes), timeout)
        except TimeoutError as exc:
            raise StorageError(f"etcd history up to revision {until} not read within {timeout} s") from exc

    async def _page(self, until: int, max_bytes: int) -> list[Event]:
        events: list[Event] = []
        size = 0
        low, end = self._low.encode(), self._end.encode()
        async for response in self._responses():
            for raw in response.events:
                revision = int(raw.kv.mod_revision)
                if revision <= self._after:
                    continue
                if revision > until:
                    return events
                if low <= raw.kv.key < end:  # the etcd key: others' keys never map into the range
                    event = self._keys.event(raw)
                    size += event_bytes(event)
                    if events and size > max_bytes:
                        return events
                    events.append(event)
            if response.events and response.events[-1].kv.mod_revision >= until:
                return events
        return events

    def cancel(self) -> None:
        self._cancelled = True
        if self._call is not None:
            self._call.cancel()

    async def aclose(self) -> None:
        """Cancel the stream and wait for gRPC to settle its status (a task of its own until then)."""
        self.cancel()
        if self._call is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._call.code(), 1.0)


async def probe_compact_revision(
    conn: EtcdConnection, key: bytes, known: int, current: int, timeout: float
) -> int:
    """etcd's compaction point: the oldest revision a range may still be read at (0: never compacted).

    etcd does not report it on reads, so it is found by bisection with count-only ranges, which
    etcd refuses below the compaction point.
    """

    async def readable(revision: int) -> bool:
        stub = conn.kv
        if stub is None:
            raise StorageError("the etcd connection is closed")
        request = rpc.RangeRequest(key=key, revision=revision, count_only=True, limit=1)
        try:
            await conn.call("read", lambda: stub.Range(request, timeout=timeout), retry=True)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.OUT_OF_RANGE and "compacted" in (exc.details() or ""):
                return False
            raise _rpc_error("read", exc) from exc
        return True

    low = max(known, 1)
    if current < low or await readable(low):
        return known
    high = current  # readable: the current revision is never compacted away
    while high - low > 1:
        middle = (low + high) // 2
        if await readable(middle):
            high = middle
        else:
            low = middle
    return high
