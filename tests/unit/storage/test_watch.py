"""Watch ordering: from revision R a watch delivers exactly the writes after R, in order, once each.

The SQLite watch first replays history from the table, then follows the live feed from the
revision it registered at; the properties here start watches while writes are still landing, so
that handoff is crossed, and compare every event (kind, new version, previous version) with the
reference model.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flotilla.storage.backend import Backend, BackendClosedError, CompactedError, Event, EventType, KeyValue
from tests.unit.storage.backends import (
    CONTRACT_KINDS,
    BackendKind,
    close_stream,
    fresh_database,
    model_for,
    opened_backend,
)
from tests.unit.storage.model import ReferenceStore
from tests.unit.storage.operations import (
    Create,
    Write,
    apply_all,
    at_revision,
    collect_until,
    flatten,
    landing_writes,
    prefixes,
    run_in_new_loop,
)

END = "~end"  # no generated key contains it, so the marker is always a fresh create


def is_end_marker(event: Event) -> bool:
    return event.kv.key.endswith(END)


async def watch_while_writing(
    backend: Backend, model: ReferenceStore, prefix: str, after: int, during: list[Write]
) -> list[list[Event]]:
    """Start a watch from `after`, run `during` while it replays, then write a marker it must reach."""
    consumer = asyncio.create_task(collect_until(backend.watch(prefix, after_revision=after), is_end_marker))
    await asyncio.sleep(0)  # the watch registers on its first step, so writes now race its replay
    await apply_all(backend, model, [*during, Create(prefix + END, b"")])
    return await consumer


@pytest.mark.parametrize("kind", CONTRACT_KINDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    before=st.lists(landing_writes, max_size=15),
    during=st.lists(landing_writes, max_size=15),
    data=st.data(),
)
def test_watch_delivers_exactly_the_writes_after_its_start_revision(
    kind: BackendKind,
    tmp_path: Path,
    before: list[Write],
    during: list[Write],
    data: st.DataObject,
) -> None:
    """A watch from R started while writes land yields every later write under the prefix, once, in order."""

    async def scenario() -> None:
        async with opened_backend(kind, fresh_database(tmp_path)) as backend:
            model = await model_for(backend)
            await apply_all(backend, model, before)
            prefix = data.draw(prefixes, label="prefix")
            # Drawn relative to the model's start: hypothesis replays draws, the store's revision moves on.
            after = model.start + data.draw(st.integers(0, model.revision - model.start), label="after")
            batches = await watch_while_writing(backend, model, prefix, after, during)
            assert all(batches), "a watch never yields an empty batch"
            assert flatten(batches) == model.events_after(prefix, after)

    run_in_new_loop(scenario)


async def test_watchers_started_mid_stream_see_identical_sequences(backend: Backend) -> None:
    """Watches from one revision, started at different points of a write burst, agree event for event."""
    model = await model_for(backend)
    await apply_all(backend, model, [Create(f"/k{i}", b"0") for i in range(5)])
    start = model.revision
    consumers: list[asyncio.Task[list[list[Event]]]] = []

    async def writer() -> None:
        for i in range(150):
            key = f"/k{i % 5}"
            current = model.latest(key)
            assert current is not None
            revision = await backend.update(key, b"%d" % i, mod_revision=current.mod_revision)
            assert revision == model.update(key, b"%d" % i, mod_revision=current.mod_revision)
            if i in (0, 40, 90):
                consumers.append(
                    asyncio.create_task(
                        collect_until(backend.watch("/", after_revision=start), at_revision(start + 150))
                    )
                )
            await asyncio.sleep(0)

    await writer()
    sequences = [flatten(batches) for batches in await asyncio.gather(*consumers)]
    expected = model.events_after("/", start)
    assert len(expected) == 150
    assert all(sequence == expected for sequence in sequences)


async def test_watch_filters_by_prefix(backend: Backend) -> None:
    """A watch on /a/ sees /a/x but neither /a itself nor /ab."""
    for key in ("/a", "/a/x", "/ab", "/a/y"):
        await backend.create(key, b"")
    batches = await collect_until(backend.watch("/a/", after_revision=0), at_revision(4))
    assert [event.kv.key for event in flatten(batches)] == ["/a/x", "/a/y"]


async def test_updates_and_deletes_carry_the_previous_version(backend: Backend) -> None:
    """PUT after a create and DELETE events carry prev; DELETE's kv is empty at the delete revision."""
    created = await backend.create("/k", b"v1")
    updated = await backend.update("/k", b"v2", mod_revision=created)
    live = asyncio.create_task(
        collect_until(backend.watch("/", after_revision=updated), at_revision(updated + 1))
    )
    await asyncio.sleep(0)  # registered on its first step, before the delete: the DELETE comes live
    deleted = await backend.delete("/k", mod_revision=updated)
    replayed = flatten(await collect_until(backend.watch("/", after_revision=0), at_revision(deleted)))

    v1 = KeyValue("/k", b"v1", created, created)
    v2 = KeyValue("/k", b"v2", created, updated)
    gone = Event(EventType.DELETE, KeyValue("/k", b"", created, deleted), v2)
    assert replayed == [Event(EventType.PUT, v1, None), Event(EventType.PUT, v2, v1), gone]
    assert flatten(await live) == [gone]


async def test_watch_from_before_the_compaction_point_is_refused(backend: Backend) -> None:
    """Watching from below the compaction point raises CompactedError; from the point itself works."""
    first = await backend.create("/k", b"1")
    second = await backend.update("/k", b"2", mod_revision=first)
    third = await backend.update("/k", b"3", mod_revision=second)
    await backend.compact(second)
    with pytest.raises(CompactedError) as caught:
        await anext(backend.watch("/", after_revision=first))
    assert caught.value.compact_revision == second
    events = flatten(await collect_until(backend.watch("/", after_revision=second), at_revision(third)))
    assert [event.revision for event in events] == [third]
    assert events[0].prev == KeyValue("/k", b"2", first, second)


async def test_watch_ends_when_the_store_closes(backend: Backend) -> None:
    """A live watch's iterator finishes, without error, once the backend is closed."""
    await backend.create("/k", b"")
    stream = backend.watch("/", after_revision=0)
    assert [event.revision for event in await anext(stream)] == [1]
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)  # one loop turn: the watch waits for the next change
    await backend.close()
    with pytest.raises(StopAsyncIteration):
        async with asyncio.timeout(5):
            await pending


async def test_watch_from_a_future_revision_skips_writes_up_to_it(backend: Backend) -> None:
    """A watch from a revision ahead of the store yields only the writes after that revision."""
    await backend.create("/k0", b"")
    stream = backend.watch("/", after_revision=3)
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)  # one loop turn: a watch registers on its first step, before it awaits
    for key in ("/k1", "/k2", "/k3"):
        await backend.create(key, b"")
    async with asyncio.timeout(5):
        first = await pending
    await close_stream(stream)
    assert [event.revision for event in first] == [4]


async def test_a_watch_opened_after_close_does_not_wait_forever(backend: Backend) -> None:
    """On a closed store a new watch ends at once or raises BackendClosedError."""
    await backend.create("/k", b"")
    await backend.close()
    stream = backend.watch("/", after_revision=1)
    with pytest.raises((StopAsyncIteration, BackendClosedError)):
        async with asyncio.timeout(0.5):
            await anext(stream)
