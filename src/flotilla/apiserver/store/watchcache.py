"""The watch cache: every stored object in memory, kept current by one watch on the store.

kube-apiserver serves reads and watches from an in-memory cache fed by a single etcd watch; so do we.
At start the cache lists the whole store at revision R and opens one backend watch from R. Each
committed write then arrives once, is decoded once, updates the state, is appended to the history,
and is offered to every watcher of its resource.

Objects are grouped in buckets, one per stored resource (`/registry/apps/deployments/`), indexed by
namespace. Objects and events are `cachedobjects.py`'s; a version that a write supersedes is retired
to its JSON bytes once every watcher has been offered the change, since from then on only the
history holds it. So is a current version once `hot_objects` later writes have been applied: the
dicts of recently written objects are what writes and watch selectors read again soon; the rest
stay as bytes, which is all a GET, a LIST or a watch sends (about a fifth of the memory).
The history (`watchhistory.py`) keeps the recent changes in memory, bounded by
revisions and by bytes; a watch resuming from an older revision that the store has not compacted is
replayed from the store, then continues live (`watchers.py`).

Writers wait for the cache to reach the revision of their write before answering (`wait_for`), so a
client always reads its own writes; reads that must be current first wait for the store's revision.

Stored values may be transformed on their way to and from storage (Secrets and Works are encrypted
at rest, see `encryption.py`): the cache's `transformer` is applied where bytes are decoded here and
encoded in `objectstore.py`, and costs one prefix check for other keys.
"""

from __future__ import annotations

import asyncio
import bisect
import collections
import contextlib
import heapq
import itertools
from collections.abc import Callable, Iterable
from typing import Any, cast

import structlog

from flotilla.apiserver.store.cachedobjects import (
    CachedObject,
    CacheEvent,
    EventKind,
    StorageTransformer,
    bucket_prefix,
    decode,
    frame_parts,
    split_key,
)
from flotilla.apiserver.store.memoryrelease import release_now
from flotilla.apiserver.store.watchers import Predicate, Watcher
from flotilla.apiserver.store.watchhistory import History
from flotilla.storage import Backend, CompactedError, Event, EventType, KeyValue
from flotilla.storage.backend import batch_revision, event_bytes

# What the rest of the server imports from here (the objects moved to cachedobjects.py and watchers.py).
__all__ = [
    "REGISTRY_PREFIX",
    "Bucket",
    "CacheEvent",
    "CachedObject",
    "EventKind",
    "Predicate",
    "StorageTransformer",
    "WatchCache",
    "Watcher",
    "bucket_prefix",
    "decode",
    "frame_parts",
    "split_key",
]

log = structlog.get_logger("flotilla.apiserver.store.watchcache")

REGISTRY_PREFIX = "/registry/"
HISTORY_MAX_BYTES = 64 * 1024 * 1024
REPLAY_PAGE_BYTES = 4 * 1024 * 1024
WATCHER_QUEUE_BYTES = 64 * 1024 * 1024
"""Changes a watcher may have queued, in stored bytes, before it is closed as too slow (0: no limit)."""


class Bucket:
    """The objects of one stored resource, indexed by namespace, and its watchers."""

    __slots__ = ("_sorted", "last_change", "namespaces", "objects", "prefix", "watchers")

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.objects: dict[str, CachedObject] = {}
        self.namespaces: dict[str, dict[str, CachedObject]] = {}
        self.watchers: set[Watcher] = set()
        self.last_change = 0
        # Keys in order, per namespace ("" for all), kept until a key comes or goes there.
        self._sorted: dict[str, list[str]] = {}

    def put(self, obj: CachedObject) -> CachedObject | None:
        prev = self.objects.get(obj.key)
        self.objects[obj.key] = obj
        self.namespaces.setdefault(obj.namespace, {})[obj.key] = obj
        if prev is None:
            self._sorted.pop("", None)
            self._sorted.pop(obj.namespace, None)
        return prev

    def remove(self, key: str) -> CachedObject | None:
        prev = self.objects.pop(key, None)
        if prev is not None:
            members = self.namespaces.get(prev.namespace)
            if members is not None:
                members.pop(key, None)
                if not members:
                    del self.namespaces[prev.namespace]
            self._sorted.pop("", None)
            self._sorted.pop(prev.namespace, None)
        return prev

    def list(self, namespace: str = "", after: str = "") -> list[CachedObject]:
        """Objects in key order (name order within a namespace), optionally of one namespace, and
        only those whose key sorts after `after` (a continue token's last key)."""
        members = self.namespaces.get(namespace) if namespace else self.objects
        if not members:
            return []
        keys = self._sorted.get(namespace)
        if keys is None:
            keys = self._sorted[namespace] = sorted(members)
        start = bisect.bisect_right(keys, after) if after else 0
        return [members[k] for k in keys[start:]]


class WatchCache:
    """All stored objects in memory, with the recent history of changes, fed by one store watch."""

    def __init__(
        self,
        backend: Backend,
        *,
        history_window: int = 10000,
        history_max_bytes: int = HISTORY_MAX_BYTES,
        replay_page_bytes: int = REPLAY_PAGE_BYTES,
        max_watcher_queue: int = 10000,
        max_watcher_queue_bytes: int = WATCHER_QUEUE_BYTES,
        transformer: StorageTransformer | None = None,
        hot_objects: int | None = None,
    ) -> None:
        self._backend = backend
        # The most recently written versions, whose dicts are kept (None: every current one's is).
        self._hot: collections.deque[CachedObject] = collections.deque()
        self._hot_objects = hot_objects
        # Applied to the stored values it covers (both ways: see `ObjectStore.encode`); set before start.
        self.transformer = transformer
        self._max_queue = max_watcher_queue
        self._max_queue_bytes = max_watcher_queue_bytes
        self._buckets: dict[str, Bucket] = {}
        self.history = History(
            backend, window=history_window, max_bytes=history_max_bytes, page_bytes=replay_page_bytes
        )
        self._catch_ups: set[asyncio.Task[None]] = set()
        self.revision = 0
        # Writers waiting for a revision, a heap by revision (with a tie-breaker: futures don't order):
        # applying an event wakes the ones it satisfies without looking at the others in flight.
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._waiter_order = itertools.count()
        self._feeder: asyncio.Task[None] | None = None
        self._listeners: list[Callable[[CacheEvent], None]] = []
        self._failed: BaseException | None = None
        # Objects this server is writing, by (key, stored bytes): their events need no decoding.
        self._expected: dict[tuple[str, bytes], dict[str, Any]] = {}

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        revision = self._backend.current_revision()
        state = await self._backend.range(REGISTRY_PREFIX, revision=revision) if revision else None
        # Emptied in place as it goes: the list is also the store's answer, which may outlive this.
        kvs = cast("list[KeyValue | None]", state.kvs if state else [])
        del state
        for index, kv in enumerate(kvs):
            assert kv is not None
            kvs[index] = None  # each stored value goes once decoded
            obj = decode(kv, self.transformer)
            bucket = self.bucket(bucket_prefix(kv.key))
            bucket.put(obj)
            bucket.last_change = max(bucket.last_change, obj.revision)
            self._keep_hot(obj)
        del kvs
        release_now()  # the store's rows and the dicts decoded on the way were passing
        self.revision = revision
        # Older history stays in the store: watches resuming from before `revision` replay it from there.
        self.history.reset(revision)
        stream = self._backend.watch(REGISTRY_PREFIX, after_revision=revision)
        self._feeder = asyncio.create_task(self._feed(stream), name="watch-cache-feeder")
        log.info(
            "watchcache.started",
            revision=revision,
            objects=sum(len(b.objects) for b in self._buckets.values()),
        )

    async def stop(self) -> None:
        if self._feeder is not None:
            self._feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._feeder
            self._feeder = None
        for bucket in self._buckets.values():
            for watcher in list(bucket.watchers):
                watcher.close()
        for task in list(self._catch_ups):
            task.cancel()
        if self._catch_ups:
            await asyncio.gather(*self._catch_ups, return_exceptions=True)
        for _, _, waiter in self._waiters:
            if not waiter.done():
                waiter.cancel()

    async def _feed(self, stream: Any) -> None:
        iterator = stream.__aiter__()
        try:
            while True:
                batch: list[Event] = await iterator.__anext__()
                for event in batch:
                    self._apply(event)
                reached = batch_revision(batch)
                if reached > self.revision:
                    self.revision = reached
                    self._wake()
        except StopAsyncIteration:
            log.info("watchcache.stream_ended")
        except asyncio.CancelledError:
            raise
        except CompactedError as exc:
            self._failed = exc
            log.error("watchcache.compacted", error=str(exc))  # noqa: TRY400 - expected, no traceback
        except Exception as exc:
            self._failed = exc
            log.exception("watchcache.feed_failed")
        finally:
            with contextlib.suppress(Exception):
                await iterator.aclose()

    # -- writes of this server ----------------------------------------------------------------

    def expect(self, key: str, value: bytes, obj: dict[str, Any]) -> None:
        """`obj` is being stored as `value` at `key`: when its event arrives, serve `obj` itself.

        Decoding the stored bytes again would rebuild the same dict (the largest cost of applying an
        event); the writer hands it over instead and from then on must not change it. An event whose
        bytes differ (another writer won the race) is decoded as usual.
        """
        self._expected[(key, value)] = obj

    def forget(self, key: str, value: bytes) -> None:
        """The write of `value` at `key` is over (stored, failed or cancelled)."""
        self._expected.pop((key, value), None)

    def current(self, key: str, revision: int) -> CachedObject | None:
        """The cached object at `key` if it is still at `revision`."""
        found = self.get(key)
        return found if found is not None and found.revision == revision else None

    # -- applying events -----------------------------------------------------------------------

    def bucket(self, prefix: str) -> Bucket:
        bucket = self._buckets.get(prefix)
        if bucket is None:
            bucket = self._buckets[prefix] = Bucket(prefix)
        return bucket

    def _historic(self, event: Event) -> CacheEvent:
        """A CacheEvent for a change read back from the store (a replay older than the memory)."""
        prev = decode(event.prev, self.transformer) if event.prev is not None else None
        if event.type is EventType.DELETE:
            assert prev is not None
            return CacheEvent("DELETED", prev.at_revision(event.revision), prev)
        return CacheEvent("MODIFIED" if prev else "ADDED", decode(event.kv, self.transformer), prev)

    def _apply(self, event: Event) -> None:
        bucket = self.bucket(bucket_prefix(event.kv.key))
        if event.type is EventType.DELETE:
            prev = bucket.remove(event.kv.key)
            if prev is None:  # not cached (should not happen): fall back to the store's copy
                prev = decode(event.prev, self.transformer) if event.prev else None
            if prev is None:
                return
            # The deletion holds the final state twice: stamped with its revision, and as prev.
            size = 2 * len(event.prev.value) if event.prev is not None else 0
            cache_event = CacheEvent("DELETED", prev.at_revision(event.revision), prev, size)
        else:
            known = self._expected.pop((event.kv.key, event.kv.value), None) if self._expected else None
            if known is None:
                obj = decode(event.kv, self.transformer)
            else:
                known.setdefault("metadata", {})["resourceVersion"] = str(event.kv.mod_revision)
                namespace, name = split_key(event.kv.key)
                obj = CachedObject(
                    event.kv.key, namespace, name, event.kv.mod_revision, known, event.kv.create_revision
                )
            prev = bucket.put(obj)
            cache_event = CacheEvent("MODIFIED" if prev else "ADDED", obj, prev, event_bytes(event))
        bucket.last_change = event.revision
        self.history.append(cache_event)
        for watcher in bucket.watchers:
            watcher.offer(cache_event)
        for listener in self._listeners:
            listener(cache_event)
        # Every watcher and listener has seen the change: the versions it replaced are history now.
        if cache_event.prev is not None:
            cache_event.prev.retire()
            if cache_event.type == "DELETED":
                cache_event.object.retire()
        if cache_event.type != "DELETED":
            self._keep_hot(cache_event.object)

    def _keep_hot(self, obj: CachedObject) -> None:
        """Keep `obj`'s dict for the next `hot_objects` writes, then only its bytes."""
        if self._hot_objects is None:
            return
        hot = self._hot
        hot.append(obj)
        while len(hot) > self._hot_objects:
            hot.popleft().retire()

    def _wake(self) -> None:
        waiters = self._waiters
        while waiters and waiters[0][0] <= self.revision:
            waiter = heapq.heappop(waiters)[2]
            if not waiter.done():
                waiter.set_result(None)

    # -- reading -------------------------------------------------------------------------------

    @property
    def healthy(self) -> bool:
        return self._failed is None and self._feeder is not None and not self._feeder.done()

    @property
    def history_start(self) -> int:
        """Watches may resume from any revision at or after this one (the store's compaction point)."""
        return self._backend.compact_revision()

    async def wait_for(self, revision: int, timeout: float | None = None) -> bool:
        """Wait until the cache has applied `revision`; False if `timeout` passed first."""
        if revision <= self.revision:
            return True
        waiter = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (revision, next(self._waiter_order), waiter))
        if timeout is None:  # a writer waiting for its own write
            await waiter
            return True
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            return False
        return True

    async def wait_current(self) -> None:
        """Wait until every write the store has acknowledged is in the cache (a consistent read)."""
        await self.wait_for(await self._backend.latest_revision())

    def get(self, key: str) -> CachedObject | None:
        bucket = self._buckets.get(bucket_prefix(key))
        return bucket.objects.get(key) if bucket else None

    def list(self, prefix: str, namespace: str = "", after: str = "") -> list[CachedObject]:
        """The bucket's objects in key order (see `Bucket.list`)."""
        bucket = self._buckets.get(prefix)
        return bucket.list(namespace, after) if bucket else []

    def count(self, prefix: str) -> int:
        bucket = self._buckets.get(prefix)
        return len(bucket.objects) if bucket else 0

    def last_change(self, prefix: str) -> int:
        """The revision of the bucket's last change (0: none since the cache started)."""
        bucket = self._buckets.get(prefix)
        return bucket.last_change if bucket else 0

    def unchanged_since(self, prefix: str, revision: int) -> bool:
        """Whether the bucket's state now equals its state at `revision` (no writes since)."""
        bucket = self._buckets.get(prefix)
        return bucket is None or bucket.last_change <= revision

    def add_listener(self, listener: Callable[[CacheEvent], None]) -> None:
        """Call `listener` for every applied event (in-process controllers of the API server)."""
        self._listeners.append(listener)

    # -- watching ------------------------------------------------------------------------------

    def watch(
        self,
        prefix: str,
        *,
        namespace: str,
        predicate: Predicate | None,
        after: int | None,
    ) -> Watcher:
        """Register a watcher; `after=None` starts with the current state as ADDED events.

        Raises CompactedError when the store has compacted `after`. The caller must make sure
        `after` is not newer than `self.revision` (wait first). A watcher resuming from further back
        than a page of the in-memory history catches up in a task (see `watchers.py`).
        """
        bucket = self.bucket(prefix)
        watcher = Watcher(namespace, predicate, self._max_queue, self._max_queue_bytes)
        until = self.revision
        if after is None:
            objects: Iterable[CachedObject] = bucket.list(namespace)
            for obj in objects:
                watcher.add_initial(obj)
        elif after < until:
            compacted = self._backend.compact_revision()
            if after < compacted:
                raise CompactedError(after, compacted)
            cursor = after
            if cursor >= self.history.start:
                cursor = self.history.replay_from_memory(watcher, prefix, cursor, until)
            if cursor < until:
                watcher.begin_catch_up()
                task = asyncio.create_task(
                    self.history.catch_up(watcher, prefix, cursor, until, self._historic),
                    name="watch-catch-up",
                )
                watcher.catch_up = task
                self._catch_ups.add(task)
                task.add_done_callback(self._catch_ups.discard)
        if watcher.queue:
            watcher.ready.set()
        bucket.watchers.add(watcher)
        return watcher

    def unwatch(self, prefix: str, watcher: Watcher) -> None:
        watcher.close()
        if watcher.catch_up is not None:
            watcher.catch_up.cancel()
        bucket = self._buckets.get(prefix)
        if bucket is not None:
            bucket.watchers.discard(watcher)
