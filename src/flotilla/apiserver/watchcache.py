"""The watch cache: every stored object in memory, kept current by one watch on the store.

kube-apiserver serves reads and watches from an in-memory cache fed by a single etcd watch; so do we.
At start the cache lists the whole store at revision R and opens one backend watch from the start of
the retained history window, so it can replay recent events to clients that resume a watch from an
older resourceVersion. Each committed write then arrives once, is decoded once, updates the state,
is appended to the history, and is offered to every watcher of its resource.

Objects are grouped in buckets, one per stored resource (`/registry/apps/deployments/`), indexed by
namespace. A `CachedObject` holds the decoded dict (treated as immutable: writers copy before
changing) and its JSON encoding, made once on first use and shared by every response and watcher.

Writers wait for the cache to reach the revision of their write before answering (`wait_for`), so a
client always reads its own writes; reads that must be current first wait for the store's revision.

Stored values under one prefix may be transformed on their way to and from storage (Secrets are
encrypted at rest, see `encryption.py`): the cache's `transformer` is applied where bytes are decoded
here and encoded in `objectstore.py`, and costs nothing for keys outside its prefix.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Literal, Protocol

import orjson
import structlog

from flotilla.storage import Backend, CompactedError, Event, EventType, KeyValue

log = structlog.get_logger("flotilla.apiserver.watchcache")

REGISTRY_PREFIX = "/registry/"
EventKind = Literal["ADDED", "MODIFIED", "DELETED"]


class StorageTransformer(Protocol):
    """Changes the stored bytes of the keys under `prefix` (encryption at rest)."""

    prefix: str

    def to_storage(self, key: str, value: bytes) -> bytes: ...

    def from_storage(self, key: str, value: bytes) -> bytes: ...


class CachedObject:
    """One stored object as served: its dict (with resourceVersion) and lazily its JSON bytes.

    `created` is the revision that created the object (0 when not known, as for a dry run).
    """

    __slots__ = ("_raw", "created", "key", "name", "namespace", "obj", "revision")

    def __init__(
        self, key: str, namespace: str, name: str, revision: int, obj: dict[str, Any], created: int = 0
    ) -> None:
        self.key = key
        self.namespace = namespace
        self.name = name
        self.revision = revision
        self.obj = obj
        self.created = created
        self._raw: bytes | None = None

    @property
    def raw(self) -> bytes:
        raw = self._raw
        if raw is None:
            raw = self._raw = orjson.dumps(self.obj)
        return raw

    @property
    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.obj.get("metadata") or {}
        return meta

    def copy(self) -> dict[str, Any]:
        """A private deep copy of the object, for a writer to change."""
        copied: dict[str, Any] = orjson.loads(self.raw)
        return copied

    def at_revision(self, revision: int) -> CachedObject:
        """The same object stamped with another resourceVersion (a deletion's final state)."""
        obj = dict(self.obj)
        obj["metadata"] = {**self.metadata, "resourceVersion": str(revision)}
        return CachedObject(self.key, self.namespace, self.name, revision, obj, self.created)


def decode(kv: KeyValue, transformer: StorageTransformer | None = None) -> CachedObject:
    """Turn a stored value into a served object: the store keeps objects without resourceVersion."""
    value = kv.value
    if transformer is not None and kv.key.startswith(transformer.prefix):
        value = transformer.from_storage(kv.key, value)
    obj = orjson.loads(value)
    obj.setdefault("metadata", {})["resourceVersion"] = str(kv.mod_revision)
    namespace, name = split_key(kv.key)
    return CachedObject(kv.key, namespace, name, kv.mod_revision, obj, kv.create_revision)


def split_key(key: str) -> tuple[str, str]:
    """(namespace, name) of a key `/registry/<group>/<resource>/[<namespace>/]<name>`."""
    parts = key.split("/")
    if len(parts) == 6:
        return parts[4], parts[5]
    return "", parts[-1]


def bucket_prefix(key: str) -> str:
    parts = key.split("/", 4)
    return "/".join(parts[:4]) + "/"


class CacheEvent:
    """A committed change, shared by every watcher it is offered to."""

    __slots__ = ("_frames", "object", "prev", "revision", "type")

    def __init__(self, type: EventKind, obj: CachedObject, prev: CachedObject | None) -> None:
        self.type = type
        self.object = obj
        self.prev = prev
        self.revision = obj.revision
        self._frames: dict[str, bytes] = {}

    def frame(self, kind: EventKind, obj: CachedObject) -> bytes:
        """The newline-terminated JSON watch event, encoded once per type."""
        if obj is not self.object:
            return b'{"type":"' + kind.encode() + b'","object":' + obj.raw + b"}\n"
        frame = self._frames.get(kind)
        if frame is None:
            frame = self._frames[kind] = b'{"type":"' + kind.encode() + b'","object":' + obj.raw + b"}\n"
        return frame


Predicate = Callable[[CachedObject], bool]


class Watcher:
    """One client watch on one bucket: filters events and queues them for the HTTP writer."""

    def __init__(self, namespace: str, predicate: Predicate | None, max_queue: int) -> None:
        self.namespace = namespace
        self.predicate = predicate
        self.queue: deque[tuple[EventKind, CachedObject, CacheEvent]] = deque()
        self.ready = asyncio.Event()
        self.closed = False
        self.overflowed = False
        self._max_queue = max_queue

    def _passes(self, obj: CachedObject | None) -> bool:
        if obj is None:
            return False
        if self.namespace and obj.namespace != self.namespace:
            return False
        return self.predicate is None or self.predicate(obj)

    def offer(self, event: CacheEvent) -> None:
        """Queue the event as this watcher sees it: selector transitions become ADDED/DELETED."""
        if self.closed:
            return
        if event.type == "DELETED":
            if self._passes(event.prev):
                self._put("DELETED", event.object, event)
            return
        now = self._passes(event.object)
        before = self._passes(event.prev)
        if now and before:
            self._put("MODIFIED", event.object, event)
        elif now:
            self._put("ADDED", event.object, event)
        elif before and event.prev is not None:
            self._put("DELETED", event.prev.at_revision(event.revision), event)

    def add_initial(self, obj: CachedObject) -> None:
        if self._passes(obj):
            self.queue.append(("ADDED", obj, CacheEvent("ADDED", obj, None)))

    def replay(self, event: CacheEvent) -> None:
        self.offer(event)

    def _put(self, kind: EventKind, obj: CachedObject, event: CacheEvent) -> None:
        if len(self.queue) >= self._max_queue:
            self.overflowed = True
            self.close()
            return
        self.queue.append((kind, obj, event))
        self.ready.set()

    def close(self) -> None:
        self.closed = True
        self.ready.set()


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
        max_watcher_queue: int = 10000,
        transformer: StorageTransformer | None = None,
    ) -> None:
        self._backend = backend
        # Applied to stored values under its prefix (both ways: see `ObjectStore.encode`); set before start.
        self.transformer = transformer
        self._window = history_window
        self._max_queue = max_watcher_queue
        self._buckets: dict[str, Bucket] = {}
        self._history: deque[CacheEvent] = deque()
        self._history_start = 0
        self.revision = 0
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._feeder: asyncio.Task[None] | None = None
        self._listeners: list[Callable[[CacheEvent], None]] = []
        self._failed: BaseException | None = None
        # Objects this server is writing, by (key, stored bytes): their events need no decoding.
        self._expected: dict[tuple[str, bytes], dict[str, Any]] = {}

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        revision = self._backend.current_revision()
        state = await self._backend.range(REGISTRY_PREFIX, revision=revision) if revision else None
        for kv in state.kvs if state else ():
            obj = decode(kv, self.transformer)
            bucket = self.bucket(bucket_prefix(kv.key))
            bucket.put(obj)
            bucket.last_change = max(bucket.last_change, obj.revision)
        self.revision = revision
        self._history_start = max(self._backend.compact_revision(), revision - self._window, 0)
        stream = self._backend.watch(REGISTRY_PREFIX, after_revision=self._history_start)
        ready = asyncio.get_running_loop().create_future()
        self._feeder = asyncio.create_task(self._feed(stream, revision, ready), name="watch-cache-feeder")
        await ready
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
        for _, waiter in self._waiters:
            if not waiter.done():
                waiter.cancel()

    async def _feed(self, stream: Any, loaded_at: int, ready: asyncio.Future[None]) -> None:
        iterator = stream.__aiter__()
        try:
            if self._history_start >= loaded_at:
                ready.set_result(None)
            while True:
                batch: list[Event] = await iterator.__anext__()
                for event in batch:
                    if event.revision <= loaded_at:
                        self._remember(self._historic(event))
                    else:
                        self._apply(event)
                if batch:
                    last = batch[-1].revision
                    if last > self.revision:
                        self.revision = last
                        self._wake()
                if not ready.done() and (not batch or batch[-1].revision >= loaded_at):
                    ready.set_result(None)
        except StopAsyncIteration:
            log.info("watchcache.stream_ended")
        except asyncio.CancelledError:
            raise
        except CompactedError as exc:
            self._failed = exc
            log.error("watchcache.compacted", error=str(exc))  # noqa: TRY400 - expected, no traceback
            if not ready.done():
                ready.set_exception(exc)
        except Exception as exc:
            self._failed = exc
            log.exception("watchcache.feed_failed")
            if not ready.done():
                ready.set_exception(exc)
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
        """A CacheEvent for a change older than the loaded state (history replay at start)."""
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
            cache_event = CacheEvent("DELETED", prev.at_revision(event.revision), prev)
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
            cache_event = CacheEvent("MODIFIED" if prev else "ADDED", obj, prev)
        bucket.last_change = event.revision
        self._remember(cache_event)
        for watcher in bucket.watchers:
            watcher.offer(cache_event)
        for listener in self._listeners:
            listener(cache_event)

    def _remember(self, event: CacheEvent) -> None:
        history = self._history
        history.append(event)
        floor = event.revision - self._window
        while history and history[0].revision <= floor:
            self._history_start = history.popleft().revision

    def _wake(self) -> None:
        if not self._waiters:
            return
        keep = []
        for revision, waiter in self._waiters:
            if revision <= self.revision:
                if not waiter.done():
                    waiter.set_result(None)
            else:
                keep.append((revision, waiter))
        self._waiters = keep

    # -- reading -------------------------------------------------------------------------------

    @property
    def healthy(self) -> bool:
        return self._failed is None and self._feeder is not None and not self._feeder.done()

    @property
    def history_start(self) -> int:
        """Watches may resume from any revision at or after this one."""
        return self._history_start

    async def wait_for(self, revision: int, timeout: float | None = None) -> bool:
        """Wait until the cache has applied `revision`; False if `timeout` passed first."""
        if revision <= self.revision:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append((revision, waiter))
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            return False
        return True

    async def wait_current(self) -> None:
        """Wait until every write the store has acknowledged is in the cache (a consistent read)."""
        await self.wait_for(self._backend.current_revision())

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

        Raises CompactedError when `after` is older than the retained history. The caller must
        make sure `after` is not newer than `self.revision` (wait first).
        """
        bucket = self.bucket(prefix)
        watcher = Watcher(namespace, predicate, self._max_queue)
        if after is None:
            objects: Iterable[CachedObject] = bucket.list(namespace)
            for obj in objects:
                watcher.add_initial(obj)
        else:
            if after < self._history_start:
                raise CompactedError(after, self._history_start + 1)
            for event in self._history:
                if event.revision > after and event.object.key.startswith(prefix):
                    watcher.replay(event)
        if watcher.queue:
            watcher.ready.set()
        bucket.watchers.add(watcher)
        return watcher

    def unwatch(self, prefix: str, watcher: Watcher) -> None:
        watcher.close()
        bucket = self._buckets.get(prefix)
        if bucket is not None:
            bucket.watchers.discard(watcher)
