"""The watch cache's windows: what it holds at a revision, what a watch from a revision gets, and 410.

The cache follows the store from the revision it started at; reads wait for a revision to be
applied; a watch starts from the current state or from a revision, and the store's compaction point
is the only limit on how far back it may start (memory keeps a window, the store replays the rest).
Each test runs on the in-memory store and on etcd, whose revisions are shared with other tests.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import orjson
import pytest

from flotilla.apiserver.store.watchcache import WatchCache, Watcher
from flotilla.storage import Backend, CompactedError
from flotilla.storage.etcd import EtcdBackend
from flotilla.storage.etcdconnection import EtcdSettings
from flotilla.storage.memory import MemoryBackend
from tests.support.waiting import eventually_async
from tests.unit.storage.backends import shared_etcd
from tests.unit.storage.etcdserver import ETCD, MISSING_REASON

BACKEND_WITH_ETCD = (
    "memory",
    pytest.param("etcd", marks=pytest.mark.skipif(ETCD is None, reason=MISSING_REASON)),
)
CONFIGMAPS = "/registry/core/configmaps/"
SECRETS = "/registry/core/secrets/"


@pytest.fixture(params=BACKEND_WITH_ETCD)
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """The in-memory store, and etcd (the shared test member, a key prefix of this test's own)."""
    if request.param == "etcd":
        store: Backend = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=f"/cache-{uuid.uuid4().hex}"))
    else:
        store = MemoryBackend()
    await store.start()
    try:
        yield store
    finally:
        await store.close()


async def started(backend: Backend, **settings: int) -> WatchCache:
    cache = WatchCache(backend, **settings)
    await cache.start()
    return cache


async def put(backend: Backend, name: str, value: str = "1", *, prefix: str = CONFIGMAPS) -> int:
    """Create or update `default/<name>` under `prefix`; the revision written."""
    key = f"{prefix}default/{name}"
    body = orjson.dumps({"metadata": {"name": name, "namespace": "default"}, "data": {"v": value}})
    current = await backend.get(key)
    if current is None:
        return await backend.create(key, body)
    return await backend.update(key, body, mod_revision=current.mod_revision)


async def remove(backend: Backend, name: str) -> int:
    key = f"{CONFIGMAPS}default/{name}"
    current = await backend.get(key)
    assert current is not None
    return await backend.delete(key, mod_revision=current.mod_revision)


async def received(watcher: Watcher, count: int) -> list[tuple[str, str, int]]:
    """The next `count` events of the watcher, taken as a client takes them (a replay queues its
    next page once the last one was taken): (type, name, revision)."""
    events: list[tuple[str, str, int]] = []

    def take() -> bool:
        events.extend((kind, obj.name, obj.revision) for kind, obj, _ in watcher.take(count - len(events)))
        return len(events) == count

    await eventually_async(take, what=f"{count} events")
    return events


async def test_what_was_stored_before_the_start_is_served_from_that_revision(backend: Backend) -> None:
    """The cache loads the store at revision R, serves that state, and keeps history from R on."""
    await put(backend, "a")
    revision = await put(backend, "b")
    cache = await started(backend)
    try:
        assert cache.revision == revision
        assert [item.name for item in cache.list(CONFIGMAPS, "default")] == ["a", "b"]
        assert cache.history.start == revision
    finally:
        await cache.stop()


async def test_a_read_waits_until_the_cache_has_applied_a_revision(backend: Backend) -> None:
    """wait_for(N) returns True once revision N is in the cache, and the write is then visible."""
    cache = await started(backend)
    try:
        revision = await put(backend, "a")
        assert await cache.wait_for(revision, timeout=5)
        assert cache.revision >= revision
        assert cache.get(f"{CONFIGMAPS}default/a") is not None
    finally:
        await cache.stop()


async def test_writers_waiting_out_of_order_wake_once_their_revision_is_applied(backend: Backend) -> None:
    """Many writers wait at once, for revisions in no particular order: each returns once the cache
    has applied its revision, none before, and the last write wakes every one left."""
    cache = await started(backend)
    try:
        base = cache.revision
        targets = [base + step for step in (5, 1, 4, 2, 3, 5, 1)]
        woken_at: dict[int, int] = {}

        async def wait(index: int) -> None:
            assert await cache.wait_for(targets[index])
            woken_at[index] = cache.revision

        waiting = [asyncio.create_task(wait(index)) for index in range(len(targets))]
        await asyncio.sleep(0)
        for name in "abcde":
            await put(backend, name)
        await asyncio.wait_for(asyncio.gather(*waiting), 5)
        assert all(woken_at[index] >= target for index, target in enumerate(targets))
    finally:
        await cache.stop()


async def test_waiting_for_a_revision_not_yet_written_gives_up_at_its_timeout(backend: Backend) -> None:
    """A revision ahead of the store is not waited for forever: False after the timeout (the 504)."""
    cache = await started(backend)
    try:
        await put(backend, "a")
        assert not await cache.wait_for(backend.current_revision() + 1, timeout=0.01)
    finally:
        await cache.stop()


async def test_wait_current_catches_up_with_every_acknowledged_write(backend: Backend) -> None:
    """A consistent read (no resourceVersion) sees every write the store acknowledged before it."""
    cache = await started(backend)
    try:
        revisions = [await put(backend, name) for name in ("a", "b", "c")]
        await cache.wait_current()
        assert cache.revision >= revisions[-1]
        assert len(cache.list(CONFIGMAPS, "default")) == 3
    finally:
        await cache.stop()


async def test_a_collection_is_unchanged_since_a_revision_until_a_write_to_it(backend: Backend) -> None:
    """unchanged_since(prefix, R) holds while only other resources change; a write to it ends it."""
    cache = await started(backend)
    try:
        listed_at = await put(backend, "a")
        await put(backend, "s", prefix=SECRETS)
        await cache.wait_current()
        assert cache.unchanged_since(CONFIGMAPS, listed_at)
        assert cache.last_change(CONFIGMAPS) == listed_at
        changed_at = await put(backend, "a", "2")
        await cache.wait_current()
        assert not cache.unchanged_since(CONFIGMAPS, listed_at)
        assert cache.last_change(CONFIGMAPS) == changed_at
        assert cache.unchanged_since("/registry/apps/deployments/", listed_at), "never written"
    finally:
        await cache.stop()


async def test_a_watch_without_a_revision_starts_with_the_current_objects_then_follows(
    backend: Backend,
) -> None:
    """after=None: every current object as ADDED (key order), then the live changes."""
    await put(backend, "b")
    await put(backend, "a")
    cache = await started(backend)
    try:
        watcher = cache.watch(CONFIGMAPS, namespace="default", predicate=None, after=None)
        initial = await received(watcher, 2)
        assert [(kind, name) for kind, name, _ in initial] == [("ADDED", "a"), ("ADDED", "b")]
        revision = await put(backend, "c")
        assert await received(watcher, 1) == [("ADDED", "c", revision)]
    finally:
        await cache.stop()


async def test_a_watch_from_a_revision_gets_exactly_the_changes_after_it(backend: Backend) -> None:
    """after=R: each change with a revision above R, once, in order, and nothing at or below R."""
    cache = await started(backend)
    try:
        first = await put(backend, "a")
        updated = await put(backend, "a", "2")
        created = await put(backend, "b")
        deleted = await remove(backend, "a")
        await cache.wait_current()
        watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=first)
        assert await received(watcher, 3) == [
            ("MODIFIED", "a", updated),
            ("ADDED", "b", created),
            ("DELETED", "a", deleted),
        ]
        assert not watcher.queue
    finally:
        await cache.stop()


async def test_a_watch_from_the_current_revision_gets_only_what_comes_next(backend: Backend) -> None:
    """after=the cache's revision: no replay, the next change only."""
    await put(backend, "a")
    cache = await started(backend)
    try:
        watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=cache.revision)
        assert not watcher.queue and watcher.current
        revision = await put(backend, "b")
        assert await received(watcher, 1) == [("ADDED", "b", revision)]
    finally:
        await cache.stop()


async def test_a_watch_from_before_the_memory_window_replays_from_the_store(backend: Backend) -> None:
    """Memory keeps the last `history_window` revisions; older ones (not compacted) come from the store."""
    cache = await started(backend, history_window=3)
    try:
        revisions = [await put(backend, "a", str(value)) for value in range(10)]
        await cache.wait_current()
        assert cache.history.start > revisions[0], "the oldest changes left the memory"
        watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=revisions[0])
        replayed = await received(watcher, 9)
        assert [revision for _, _, revision in replayed] == revisions[1:]
        await eventually_async(lambda: watcher.current, what="the catch-up done")
    finally:
        await cache.stop()


async def test_only_compaction_makes_a_revision_too_old_to_watch_from(backend: Backend) -> None:
    """From below the store's compaction point: CompactedError (410 Expired); from the point: served."""
    cache = await started(backend)
    try:
        first = await put(backend, "a")
        second = await put(backend, "a", "2")
        third = await put(backend, "a", "3")
        await cache.wait_current()
        await backend.compact(second)
        assert cache.history_start == second
        with pytest.raises(CompactedError) as refused:
            cache.watch(CONFIGMAPS, namespace="", predicate=None, after=first)
        assert (refused.value.requested, refused.value.compact_revision) == (first, second)
        watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=second)
        assert await received(watcher, 1) == [("MODIFIED", "a", third)]
    finally:
        await cache.stop()


async def test_stop_closes_every_watcher_and_releases_every_waiter(backend: Backend) -> None:
    """Stopping the cache ends its watches and cancels reads still waiting for a revision."""
    cache = await started(backend)
    watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=None)
    waiting = asyncio.create_task(cache.wait_for(backend.current_revision() + 10))
    await asyncio.sleep(0)  # one loop turn: the read registers its wait
    await cache.stop()
    assert watcher.closed
    with pytest.raises(asyncio.CancelledError):
        await waiting


@pytest.mark.skipif(ETCD is None, reason=MISSING_REASON)
async def test_a_consistent_read_is_not_held_up_by_another_hubs_writes_on_the_same_etcd() -> None:
    """Two hubs under two prefixes of one etcd: the other hub's writes move etcd's revision, which a
    consistent read waits for; the cache's watch reports that progress, so the wait ends at once."""
    ours = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=f"/ours-{uuid.uuid4().hex}"))
    theirs = EtcdBackend(EtcdSettings((shared_etcd().url,), prefix=f"/theirs-{uuid.uuid4().hex}"))
    await ours.start()
    await theirs.start()
    cache = await started(ours)
    try:
        await put(ours, "mine")
        for index in range(5):
            written = await put(theirs, f"other-{index}")
            await asyncio.wait_for(cache.wait_current(), timeout=5)
            assert cache.revision >= written
            assert [obj.name for obj in cache.list(CONFIGMAPS)] == ["mine"]
        mine = await put(ours, "mine", "2")
        await asyncio.wait_for(cache.wait_current(), timeout=5)
        assert cache.get(f"{CONFIGMAPS}default/mine").revision == mine  # type: ignore[union-attr]
    finally:
        await cache.stop()
        await theirs.close()
        await ours.close()
