"""Resuming a watch from any retained revision gets exactly the changes after it, across memory and disk.

The watch cache keeps only the recent history in memory (bounded by revisions and bytes) and
replays older changes from the store. The reference is a watcher that was live from revision 0 with
the same filter: a watcher resuming from R must receive exactly its events after R — same kinds,
objects and order — whether they come from the store, from memory, from both, or live while it
catches up. Byte bounds and pages here are tiny so that every run crosses the boundary many times.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flotilla.apiserver.store.watchcache import CachedObject, WatchCache, Watcher
from flotilla.storage import Backend, CompactedError
from tests.support.waiting import eventually_async
from tests.unit.storage.backends import BACKEND_KINDS, BackendKind, fresh_database, opened_backend
from tests.unit.storage.operations import run_in_new_loop

CONFIGMAPS = "/registry/core/configmaps/"
SECRETS = "/registry/core/secrets/"
NAMES = ("a", "b", "c")
NAMESPACES = ("n1", "n2")


@dataclass(frozen=True)
class Change:
    """Write (or delete, when `size` is None) the object `name` in `namespace` of `prefix`."""

    prefix: str
    namespace: str
    name: str
    team: str
    size: int | None


changes = st.builds(
    Change,
    st.sampled_from((CONFIGMAPS, CONFIGMAPS, CONFIGMAPS, SECRETS)),
    st.sampled_from(NAMESPACES),
    st.sampled_from(NAMES),
    st.sampled_from(("red", "blue")),
    st.one_of(st.none(), st.integers(min_value=0, max_value=400)),
)


def team_is_red(obj: CachedObject) -> bool:
    return (obj.metadata.get("labels") or {}).get("team") == "red"


async def write(backend: Backend, change: Change) -> None:
    key = f"{change.prefix}{change.namespace}/{change.name}"
    current = await backend.get(key)
    if change.size is None:
        if current is not None:
            await backend.delete(key, mod_revision=current.mod_revision)
        return
    value = orjson.dumps(
        {
            "metadata": {"name": change.name, "namespace": change.namespace, "labels": {"team": change.team}},
            "data": {"v": "x" * change.size},
        }
    )
    if current is None:
        await backend.create(key, value)
    else:
        await backend.update(key, value, mod_revision=current.mod_revision)


Seen = tuple[str, str, int, Any]


async def drain(cache: WatchCache, backend: Backend, watcher: Watcher, seen: list[Seen]) -> None:
    """Take what the watcher queued (as an HTTP writer would, a few at a time) until it is closed,
    or current and empty with every write of the store in the cache."""
    async with asyncio.timeout(10):
        while True:
            for kind, obj, _ in watcher.take(7):
                seen.append((kind, obj.key, obj.revision, orjson.loads(obj.raw)))
            if watcher.queue:
                await asyncio.sleep(0)
                continue
            if watcher.closed:
                return
            if watcher.current and cache.revision == backend.current_revision():
                return
            watcher.ready.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watcher.ready.wait(), 0.05)


def new_cache(backend: Backend, max_watcher_queue_bytes: int = 0) -> WatchCache:
    return WatchCache(
        backend,
        history_window=6,
        history_max_bytes=900,
        replay_page_bytes=500,
        max_watcher_queue_bytes=max_watcher_queue_bytes,
        hot_objects=2,  # most current objects are kept as bytes: selectors and replays read them so
    )


@pytest.mark.parametrize("kind", BACKEND_KINDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=st.lists(changes, min_size=1, max_size=30),
    during=st.lists(changes, max_size=10),
    selector=st.booleans(),
    namespaced=st.booleans(),
    data=st.data(),
)
def test_a_resumed_watch_gets_exactly_the_changes_a_live_one_got_after_its_revision(
    kind: BackendKind,
    tmp_path: Path,
    before: list[Change],
    during: list[Change],
    selector: bool,
    namespaced: bool,
    data: st.DataObject,
) -> None:
    """From any revision not compacted: the live watcher's later events, in order, once each."""

    async def scenario() -> None:
        async with opened_backend(kind, fresh_database(tmp_path)) as backend:
            cache = new_cache(backend)
            await cache.start()
            try:
                predicate = team_is_red if selector else None
                namespace = "n1" if namespaced else ""
                live = cache.watch(CONFIGMAPS, namespace=namespace, predicate=predicate, after=0)
                live_seen: list[Seen] = []
                for change in before:
                    await write(backend, change)
                await cache.wait_for(backend.current_revision())
                compact_to = data.draw(st.integers(0, backend.current_revision()), label="compact")
                await backend.compact(compact_to)
                after = data.draw(
                    st.integers(backend.compact_revision(), backend.current_revision()), label="after"
                )
                resumed = cache.watch(CONFIGMAPS, namespace=namespace, predicate=predicate, after=after)
                resumed_seen: list[Seen] = []
                reader = asyncio.create_task(drain(cache, backend, resumed, resumed_seen))
                for change in during:  # race the catch-up
                    await write(backend, change)
                    await asyncio.sleep(0)
                await cache.wait_for(backend.current_revision())
                await reader
                await drain(cache, backend, resumed, resumed_seen)
                await drain(cache, backend, live, live_seen)
                assert not resumed.overflowed and resumed.expired is None
                expected = [seen for seen in live_seen if seen[2] > after]
                assert resumed_seen == expected
                assert cache.history.bytes <= 900
            finally:
                await cache.stop()

    run_in_new_loop(scenario)


@pytest.mark.parametrize("kind", BACKEND_KINDS)
async def test_a_watch_from_before_the_compaction_point_is_refused(kind: BackendKind, tmp_path: Path) -> None:
    """Only compaction makes a revision too old: CompactedError (the handler's 410) names the point."""
    async with opened_backend(kind, tmp_path / "store.db") as backend:
        cache = new_cache(backend)
        await cache.start()
        try:
            for size in range(20):
                await write(backend, Change(CONFIGMAPS, "n1", "a", "red", size * 50))
            await cache.wait_for(backend.current_revision())
            assert cache.history.start > 2, "the first revisions have left the memory"
            watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=2)
            seen: list[Seen] = []
            await drain(cache, backend, watcher, seen)
            assert [revision for _, _, revision, _ in seen] == list(range(3, 21))
            cache.unwatch(CONFIGMAPS, watcher)
            await backend.compact(5)
            with pytest.raises(CompactedError) as refused:
                cache.watch(CONFIGMAPS, namespace="", predicate=None, after=4)
            assert refused.value.compact_revision == 5
        finally:
            await cache.stop()


@pytest.mark.parametrize("kind", BACKEND_KINDS)
async def test_a_compaction_that_overtakes_the_replay_expires_the_watcher(
    kind: BackendKind, tmp_path: Path
) -> None:
    """A watcher replaying from the store when compaction passes it ends expired (410), with no gap."""
    async with opened_backend(kind, tmp_path / "store.db") as backend:
        cache = new_cache(backend)
        await cache.start()
        try:
            for _ in range(30):
                await write(backend, Change(CONFIGMAPS, "n1", "a", "red", 300))
            await cache.wait_for(backend.current_revision())
            watcher = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=1)
            assert not watcher.current
            # The catch-up queues its first page in one step, then waits for the writer to take it.
            await eventually_async(lambda: watcher.queue, what="the first page of the replay")
            await backend.compact(backend.current_revision())
            seen: list[Seen] = []
            await drain(cache, backend, watcher, seen)
            assert watcher.expired is not None
            revisions = [revision for _, _, revision, _ in seen]
            assert revisions == list(range(2, 2 + len(revisions))), "what was sent has no gap"
            assert len(revisions) < 29
        finally:
            await cache.stop()


async def test_superseded_versions_are_kept_as_json_only(tmp_path: Path) -> None:
    """After an update, the history holds the old version as its JSON bytes, not also as a dict."""
    async with opened_backend("memory", tmp_path / "store.db") as backend:
        cache = new_cache(backend)
        await cache.start()
        try:
            await write(backend, Change(CONFIGMAPS, "n1", "a", "red", 10))
            await cache.wait_for(backend.current_revision())
            first = cache.get(f"{CONFIGMAPS}n1/a")
            assert first is not None and not first.retired
            await write(backend, Change(CONFIGMAPS, "n1", "a", "blue", 10))
            await cache.wait_for(backend.current_revision())
            current = cache.get(f"{CONFIGMAPS}n1/a")
            assert current is not None and not current.retired
            assert first.retired
            assert first.metadata["labels"] == {"team": "red"}  # still readable, decoded on demand
        finally:
            await cache.stop()


async def test_objects_not_written_lately_are_kept_as_json_and_labels_only(tmp_path: Path) -> None:
    """Past `hot_objects` later writes a current object keeps its bytes and labels, and reads the same."""
    async with opened_backend("memory", tmp_path / "store.db") as backend:
        cache = WatchCache(backend, hot_objects=2)
        await cache.start()
        try:
            for name in NAMES:
                await write(backend, Change(CONFIGMAPS, "n1", name, "red", 10))
            await cache.wait_for(backend.current_revision())
            cold, warm = cache.get(f"{CONFIGMAPS}n1/a"), cache.get(f"{CONFIGMAPS}n1/c")
            assert cold is not None and warm is not None
            assert cold.retired and not warm.retired
            assert cold.labels == {"team": "red"}
            assert cold.obj == orjson.loads(cold.raw) and cold.obj["metadata"]["name"] == "a"
            assert not cold.readable().retired and cold.readable().obj == cold.obj
            assert [item.name for item in cache.list(CONFIGMAPS) if team_is_red(item)] == list(NAMES)
        finally:
            await cache.stop()


async def test_a_watcher_that_stops_reading_is_closed_at_its_byte_limit(tmp_path: Path) -> None:
    """A client that reads nothing cannot make its queue pin more than the limit of changes: it is
    closed (and resumes from its last revision); one that reads keeps going."""
    async with opened_backend("memory", tmp_path / "store.db") as backend:
        cache = new_cache(backend, max_watcher_queue_bytes=5_000)
        await cache.start()
        try:
            stalled = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=None)
            reading = cache.watch(CONFIGMAPS, namespace="", predicate=None, after=None)
            for _ in range(10):  # each change holds ~2 x 1 KB (the new version and the previous)
                await write(backend, Change(CONFIGMAPS, "n1", "a", "red", 1_000))
                await cache.wait_for(backend.current_revision())
                reading.take(100)
            assert stalled.closed and stalled.overflowed
            assert not reading.closed
        finally:
            await cache.stop()
