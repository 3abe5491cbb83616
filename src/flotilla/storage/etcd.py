"""The store on etcd: the storage contract mapped one to one onto etcd's own model.

The contract was written after etcd's, so nothing is emulated: a revision is etcd's revision, a
key's create and mod revisions are etcd's, a read at a revision is an etcd range at that revision,
compaction is etcd's compaction, a watch is an etcd watch (with previous values) from a revision.
Creates, updates and deletes are single transactions guarded by `create_revision == 0` or
`mod_revision == expected`; a failed guard reads the key in the same transaction, so the error
names the version that won.

Key layout: the API server's keys all start with `/registry/`. The store keeps that tree at
`--etcd-prefix` (default `/registry`, as kube-apiserver does): the key's leading `/registry` is
replaced by the prefix, so by default a Deployment lives at `/registry/apps/deployments/ns/name`
and `--etcd-prefix /hub-a` places it at `/hub-a/apps/deployments/ns/name`, letting several hubs
share one etcd cluster. (The backend is given that root explicitly; tests use an empty root and a
fresh prefix per example.)

`current_revision()` follows etcd's revision from every response header and from the events of a
watch on the prefix, so writes made by another API server on the same etcd advance it too, soon.
That watch is the backend's own revision follower, unless a watch of the whole store is open (the
API server's watch cache has one): that one carries every revision the follower would, so the
follower pauses meanwhile and etcd sends each write's event once, not twice.
`latest_revision()` asks etcd (a linearizable read, shared by concurrent callers: see
`revisionreads.py`), so a consistent read sees a write acknowledged by another API server just before.
`compact_revision()` is learnt when the backend starts (a watch from revision 1 is refused with
etcd's compaction point) and whenever etcd refuses a read as compacted.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import structlog
from aetcd import rpc

from flotilla.storage.backend import (
    BackendClosedError,
    CompactedError,
    Event,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
    StorageError,
    batch_revision,
)
from flotilla.storage.etcdconnection import EtcdConnection, EtcdSettings
from flotilla.storage.etcdwatch import EtcdKeys, WatchStream, probe_compact_revision
from flotilla.storage.revisionreads import SharedRevisionReads

log = structlog.get_logger("flotilla.storage.etcd")

_Compare = rpc.Compare


class EtcdBackend:
    """A `Backend` on an etcd cluster; any number of processes may share one prefix."""

    def __init__(self, settings: EtcdSettings, *, root: str = "/registry") -> None:
        self._settings = settings
        self._keys = EtcdKeys(root, settings.prefix)
        self._conn = EtcdConnection(settings)
        self._revision = 0
        self._compact_revision = 0
        self._closing = False
        self._streams: set[WatchStream] = set()
        self._follower: asyncio.Task[None] | None = None
        self._following: WatchStream | None = None
        self._whole_store = self._keys.prefix_range(self._keys.root_prefix)
        self._covering_watches = 0
        """Open watches of the whole store: while there is one, it feeds `current_revision`."""
        self._uncovered = asyncio.Event()
        self._latest = SharedRevisionReads(self._read_latest_revision)

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._closing = False
        self._latest = SharedRevisionReads(self._read_latest_revision)
        self._covering_watches = 0
        self._uncovered = asyncio.Event()
        self._uncovered.set()
        self._conn.open()
        probe = self._range_request(self._keys.prefix.encode(), limit=1)
        response = await self._unary("connect", "Range", probe, retry=True)
        self._observe(response.header)
        await self._refresh_compact_revision()
        self._follower = asyncio.create_task(self._follow(), name="etcd-revision-follower")
        log.info(
            "store.opened",
            etcd=self._conn.endpoint.target,
            prefix=self._settings.prefix,
            revision=self._revision,
            compact_revision=self._compact_revision,
        )

    async def close(self) -> None:
        self._closing = True
        for stream in list(self._streams):
            stream.cancel()
        self._streams.clear()
        await self._latest.close()
        if self._follower is not None:
            self._follower.cancel()
            with contextlib.suppress(asyncio.CancelledError, StorageError):
                await self._follower
            self._follower = None
        await self._conn.close()

    def current_revision(self) -> int:
        return self._revision

    async def latest_revision(self) -> int:
        return await self._latest.latest()

    async def _read_latest_revision(self) -> int:
        """etcd's revision now: a linearizable count-only Range of the prefix (no values sent)."""
        request = rpc.RangeRequest(key=self._keys.prefix.encode(), limit=1, count_only=True)
        response = await self._unary("revision", "Range", request, retry=True)
        self._observe(response.header)
        return self._revision

    def _is_closing(self) -> bool:
        return self._closing

    def compact_revision(self) -> int:
        return self._compact_revision

    def _observe(self, header: Any) -> None:
        self._revision = max(self._revision, int(header.revision))

    async def _follow(self) -> None:
        """Keep `current_revision` moving with writes made through other processes.

        A watch on the store's prefix without previous values, whose events are never decoded:
        only each batch's revision is read. It runs only while no watch of the whole store is open
        (see `_cover`).
        """
        while not self._closing:
            await self._uncovered.wait()
            if self._is_closing():  # the last covering watch ended because the backend is closing
                return
            stream = WatchStream(
                self._conn, self._keys, self._keys.root_prefix, self._revision, prev_kv=False
            )
            self._streams.add(stream)
            self._following = stream
            try:
                if await stream.open():
                    await self._refresh_compact_revision()
                    continue
                async for revision in stream.revisions():
                    self._revision = max(self._revision, revision)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not stream.cancelled or (task is not None and task.cancelling()):
                    raise
                # Paused by `_cover` while the stream was opening: wait for the next turn.
            except StorageError as exc:
                log.warning("etcd.follower_lost", error=str(exc))
                await asyncio.sleep(1.0)
            finally:
                self._following = None
                self._streams.discard(stream)
                await stream.aclose()

    def _cover(self) -> None:
        """A watch of the whole store is open: it feeds `current_revision`, the follower pauses."""
        self._covering_watches += 1
        self._uncovered.clear()
        if self._following is not None:
            self._following.cancel()
            self._following = None

    def _uncover(self) -> None:
        """A watch of the whole store ended: the follower resumes when it was the last one."""
        self._covering_watches -= 1
        if self._covering_watches == 0:
            self._uncovered.set()

    async def _refresh_compact_revision(self) -> None:
        found = await probe_compact_revision(
            self._conn,
            self._keys.prefix.encode(),
            self._compact_revision,
            self._revision,
            self._settings.request_timeout,
        )
        self._compact_revision = max(self._compact_revision, found)

    # -- calls -----------------------------------------------------------------------------------

    def _stub(self) -> Any:
        if self._closing or self._conn.kv is None:
            raise BackendClosedError("the store is closed")
        return self._conn.kv

    async def _unary(self, what: str, method: str, request: Any, *, retry: bool) -> Any:
        timeout = self._settings.request_timeout

        def call() -> Any:
            return getattr(self._stub(), method)(request, timeout=timeout)

        try:
            return await self._conn.call(what, call, retry=retry)
        except grpc.aio.AioRpcError as exc:
            raise StorageError(f"etcd {what} failed: {exc.code().name}: {exc.details()}") from exc

    def _range_request(self, key: bytes, *, end: bytes = b"", limit: int = 0, revision: int = 0) -> Any:
        return rpc.RangeRequest(key=key, range_end=end, limit=limit, revision=revision)

    async def _read(self, what: str, request: Any) -> Any:
        """A range; etcd's 'compacted' and 'future revision' refusals become the contract's errors."""
        requested = int(request.revision)
        if requested > 0 and requested < self._compact_revision:
            raise CompactedError(requested, self._compact_revision)
        try:
            response = await self._conn.call(
                what,
                lambda: self._stub().Range(request, timeout=self._settings.request_timeout),
                retry=True,
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.OUT_OF_RANGE and "compacted" in (exc.details() or ""):
                await self._refresh_compact_revision()
                raise CompactedError(requested, self._compact_revision) from exc
            if exc.code() == grpc.StatusCode.OUT_OF_RANGE and "future" in (exc.details() or ""):
                raise FutureRevisionError(requested, self._revision) from exc
            raise StorageError(f"etcd {what} failed: {exc.code().name}: {exc.details()}") from exc
        self._observe(response.header)
        return response

    # -- reads -----------------------------------------------------------------------------------

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        response = await self._read("get", self._range_request(self._keys.to_etcd(key), revision=revision))
        return self._keys.key_value(response.kvs[0]) if response.kvs else None

    async def range(
        self, prefix: str, *, start_after: str = "", limit: int = 0, revision: int = 0
    ) -> RangeResult:
        low, end = self._keys.range(prefix, start_after)
        response = await self._read("list", self._range_request(low, end=end, limit=limit, revision=revision))
        at = revision if revision > 0 else int(response.header.revision)
        kvs = [self._keys.key_value(kv) for kv in response.kvs]
        return RangeResult(kvs, at, bool(response.more) and limit > 0)

    # -- writes ----------------------------------------------------------------------------------

    async def create(self, key: str, value: bytes) -> int:
        target = self._keys.to_etcd(key)
        guard = _Compare(result=_Compare.EQUAL, target=_Compare.CREATE, key=target, create_revision=0)
        put = rpc.RequestOp(request_put=rpc.PutRequest(key=target, value=value))
        response = await self._txn("create", guard, put, target)
        if not response.succeeded:
            raise KeyExistsError(key)
        return int(response.header.revision)

    async def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        target = self._keys.to_etcd(key)
        put = rpc.RequestOp(request_put=rpc.PutRequest(key=target, value=value))
        return await self._guarded("update", key, target, mod_revision, put)

    async def delete(self, key: str, *, mod_revision: int) -> int:
        target = self._keys.to_etcd(key)
        delete = rpc.RequestOp(request_delete_range=rpc.DeleteRangeRequest(key=target))
        return await self._guarded("delete", key, target, mod_revision, delete)

    async def _guarded(self, what: str, key: str, target: bytes, expected: int, op: Any) -> int:
        if expected:
            guard = _Compare(result=_Compare.EQUAL, target=_Compare.MOD, key=target, mod_revision=expected)
        else:  # unguarded, but the key must exist
            guard = _Compare(result=_Compare.GREATER, target=_Compare.CREATE, key=target, create_revision=0)
        response = await self._txn(what, guard, op, target)
        if response.succeeded:
            return int(response.header.revision)
        found = response.responses[0].response_range.kvs
        current = self._keys.key_value(found[0]) if found else None
        if expected == 0:
            raise KeyNotFoundError(key)
        raise RevisionMismatchError(key, expected, current)

    async def _txn(self, what: str, guard: Any, op: Any, target: bytes) -> Any:
        on_failure = rpc.RequestOp(request_range=rpc.RangeRequest(key=target))
        request = rpc.TxnRequest(compare=[guard], success=[op], failure=[on_failure])
        response = await self._unary(what, "Txn", request, retry=False)
        self._observe(response.header)
        return response

    # -- watch and history -----------------------------------------------------------------------

    async def watch(self, prefix: str, *, after_revision: int) -> AsyncIterator[list[Event]]:
        """An etcd watch; when its stream breaks it resumes from the last revision it delivered.

        Resuming (on the next endpoint if the member is gone) keeps the sequence whole: nothing
        is missed or repeated. Only a watch that cannot be opened at all raises StorageError.
        Every batch moves `current_revision`; a watch of the whole store stands in for the
        revision follower while it is open.
        """
        if self._closing or self._conn.watch is None:
            raise BackendClosedError("the store is closed")
        if after_revision < self._compact_revision:
            raise CompactedError(after_revision, self._compact_revision)
        covers = self._keys.prefix_range(prefix) == self._whole_store
        cursor = after_revision
        opened = False
        delay = 0.1
        try:
            while not self._closing:
                stream = WatchStream(self._conn, self._keys, prefix, cursor)
                self._streams.add(stream)
                try:
                    # A watch of the whole store (the watch cache's) watches all of etcd, so that
                    # it follows the revision when other prefixes are written too (`WatchBatch`).
                    await self._open(stream, cursor, whole_keyspace=covers)
                    if covers and not opened:
                        self._cover()
                    opened = True
                    batches = stream.progress() if covers else stream.batches()
                    async for batch in batches:
                        cursor = batch_revision(batch)
                        self._revision = max(self._revision, cursor)
                        delay = 0.1
                        yield batch
                except CompactedError:
                    raise
                except StorageError as exc:
                    if self._is_closing():  # the stream broke because the backend closed
                        return
                    if not opened:
                        raise
                    log.warning("etcd.watch_resuming", prefix=prefix, after=cursor, error=str(exc))
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 2.0)
                else:
                    return  # the backend closed the stream
                finally:
                    self._streams.discard(stream)
                    await stream.aclose()
        finally:
            if covers and opened:
                self._uncover()

    async def _open(self, stream: WatchStream, after_revision: int, *, whole_keyspace: bool = False) -> None:
        compacted = await stream.open(whole_keyspace=whole_keyspace)
        if compacted:
            self._compact_revision = max(self._compact_revision, compacted)
            raise CompactedError(after_revision, self._compact_revision)

    async def history(
        self, prefix: str, *, after_revision: int, until_revision: int, max_bytes: int
    ) -> list[Event]:
        if after_revision < self._compact_revision:
            raise CompactedError(after_revision, self._compact_revision)
        until = min(until_revision, self._revision)
        if after_revision >= until or until <= 1:  # revision 1 is etcd's empty store: no event
            return []
        if self._closing or self._conn.watch is None:
            raise BackendClosedError("the store is closed")
        stream = WatchStream(self._conn, self._keys, prefix, after_revision)
        try:
            await self._open(stream, after_revision, whole_keyspace=True)
            return await stream.page(until, max_bytes, self._settings.request_timeout)
        finally:
            await stream.aclose()

    # -- compaction ------------------------------------------------------------------------------

    async def compact(self, revision: int) -> int:
        """etcd's compaction at `revision` (clamped to the current one); returns the versions removed.

        etcd does not say how many versions a compaction removed; it is worked out as the SQLite
        store counts: every revision in the compacted range superseded one version or was a
        deletion, less the store's keys live at its end that were not live at its start (two
        count-only reads). On an etcd shared with other prefixes their revisions count too.
        """
        await self._refresh_compact_revision()
        revision = min(revision, self._revision)
        start = self._compact_revision
        if revision <= start:
            return 0
        live_before = await self._count_live(start) if start > 0 else 0
        live_after = await self._count_live(revision)
        try:
            await self._unary(
                "compact", "Compact", rpc.CompactionRequest(revision=revision, physical=True), retry=False
            )
        except StorageError as exc:
            # Another process compacted as far (or etcd's first revision, which it counts as compacted).
            if "compacted" not in str(exc):
                raise
        self._compact_revision = max(self._compact_revision, revision)
        removed = live_before - live_after + revision - start
        log.info("store.compacted", revision=revision, removed=removed)
        return removed

    async def _count_live(self, revision: int) -> int:
        """The store's keys live at `revision`."""
        low, end = self._keys.range(self._keys.root_prefix, "")
        request = rpc.RangeRequest(key=low, range_end=end, revision=revision, count_only=True)
        response = await self._read("count", request)
        return int(response.count)
