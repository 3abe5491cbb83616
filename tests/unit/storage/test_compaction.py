"""Compaction: history below the compaction point goes, everything at or above it stays readable.

After `compact(C)` reads at revisions >= C must answer exactly as they did before, reads and
watches below C must raise `CompactedError`, the live keys are untouched, and the SQLite table
holds only what is still needed: the versions live at C plus every write after C.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from flotilla.storage.backend import Backend, CompactedError, KeyValue, RangeResult
from flotilla.storage.sqlite import SQLiteBackend
from tests.unit.storage.backends import CONTRACT_KINDS, BackendKind, fresh_database, model_for, opened_backend
from tests.unit.storage.model import ReferenceStore
from tests.unit.storage.operations import (
    KEYS,
    Create,
    Delete,
    Guard,
    Write,
    apply_all,
    at_revision,
    collect_until,
    flatten,
    landing_writes,
    run_in_new_loop,
    writes,
)

Snapshot = tuple[list[KeyValue | None], RangeResult]


async def snapshot(backend: Backend, revision: int) -> Snapshot:
    """Everything a client can read at `revision`: each key, and the whole range."""
    gets = [await backend.get(key, revision=revision) for key in KEYS]
    return gets, await backend.range("", revision=revision)


async def check_against_model(backend: Backend, model: ReferenceStore) -> None:
    """The live set, reads at the compaction point and (for SQLite) the row count match the model."""
    assert (await backend.range("")).kvs == model.live_keys()
    point = model.compact_revision
    if point:
        assert (await backend.range("", revision=point)) == model.range("", revision=point)
    for key in KEYS:
        assert await backend.get(key) == model.latest(key)
    if isinstance(backend, SQLiteBackend):
        assert await backend.row_count() == model.retained_versions()


@pytest.mark.parametrize("kind", CONTRACT_KINDS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.lists(writes, max_size=25), after=st.lists(writes, max_size=10), data=st.data())
def test_one_compaction_keeps_every_read_at_or_above_its_point(
    kind: BackendKind, tmp_path: Path, before: list[Write], after: list[Write], data: st.DataObject
) -> None:
    """Reads at revisions >= C are unchanged by compact(C), reads below raise, and writes carry on."""

    async def scenario() -> None:
        async with opened_backend(kind, fresh_database(tmp_path)) as backend:
            model = await model_for(backend)
            await apply_all(backend, model, before)
            # Drawn relative to the model's start: hypothesis replays draws, the store's revision moves on.
            point = model.start + data.draw(st.integers(0, model.revision - model.start), label="point")
            first_kept = max(point, 1)
            kept = {r: await snapshot(backend, r) for r in range(first_kept, model.revision + 1)}

            assert await backend.compact(point) == model.compact(point)
            assert backend.compact_revision() == model.compact_revision

            for revision, seen in kept.items():
                assert await snapshot(backend, revision) == seen
            for revision in range(max(model.start, 1), point):
                with pytest.raises(CompactedError):
                    await backend.get(KEYS[0], revision=revision)
                with pytest.raises(CompactedError):
                    await backend.range("", revision=revision)
                with pytest.raises(CompactedError):
                    await anext(backend.watch("", after_revision=revision))
            await check_against_model(backend, model)
            await apply_all(backend, model, after)
            await check_against_model(backend, model)

    run_in_new_loop(scenario)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rounds=st.lists(st.tuples(st.lists(landing_writes, max_size=8), st.integers(0, 3)), max_size=5))
@example(
    rounds=[
        ([Create("/a", b"1"), Create("/b", b"2")], 0),
        ([Delete("/a", Guard.CURRENT)], 0),
    ]
)
def test_repeated_compaction_keeps_the_live_set_and_bounds_history(
    kind: BackendKind, tmp_path: Path, rounds: list[tuple[list[Write], int]]
) -> None:
    """Rounds of writes each followed by a compaction leave exactly the model's live set and versions."""

    async def scenario() -> None:
        async with opened_backend(kind, fresh_database(tmp_path)) as backend:
            model = ReferenceStore()
            for sequence, back in rounds:
                await apply_all(backend, model, sequence)
                point = max(model.revision - back, 0)
                assert await backend.compact(point) == model.compact(point)
                await check_against_model(backend, model)

    run_in_new_loop(scenario)


@pytest.mark.parametrize(
    "backend_kind",
    ["memory", "sqlite"],
)
async def test_compaction_never_resurrects_a_deleted_key(backend: Backend) -> None:
    """A key deleted between two compactions stays deleted and can be created again."""
    a = await backend.create("/a", b"old")
    await backend.create("/b", b"")
    await backend.compact(backend.current_revision())
    await backend.delete("/a", mod_revision=a)
    await backend.compact(backend.current_revision())
    assert await backend.get("/a") is None
    assert [kv.key for kv in (await backend.range("")).kvs] == ["/b"]
    assert await backend.create("/a", b"new") == backend.current_revision()


async def test_churn_then_compaction_keeps_one_row_per_live_key(tmp_path: Path) -> None:
    """Updating the same keys over and over with a compaction after each round never grows the table."""
    async with opened_backend("sqlite", tmp_path / "store.db") as backend:
        assert isinstance(backend, SQLiteBackend)
        revisions = {key: await backend.create(key, b"0") for key in ("/a", "/b", "/c")}
        for round_number in range(6):
            for key, revision in revisions.items():
                revisions[key] = await backend.update(key, b"%d" % round_number, mod_revision=revision)
            await backend.compact(backend.current_revision())
            assert await backend.row_count() == len(revisions)


async def test_first_compaction_leaves_live_keys_plus_later_history(tmp_path: Path) -> None:
    """After one compact(C) the table holds the versions live at C and one row per later write."""
    async with opened_backend("sqlite", tmp_path / "store.db") as backend:
        assert isinstance(backend, SQLiteBackend)
        revisions = {key: await backend.create(key, b"0") for key in ("/a", "/b", "/c")}
        for round_number in range(4):
            for key, revision in revisions.items():
                revisions[key] = await backend.update(key, b"%d" % round_number, mod_revision=revision)
        await backend.delete("/c", mod_revision=revisions.pop("/c"))
        point = backend.current_revision()
        later = await backend.update("/a", b"after", mod_revision=revisions["/a"])
        assert await backend.row_count() == later
        assert await backend.compact(point) == point - 2  # everything but /a and /b as they were at C
        assert await backend.row_count() == 3


async def test_compaction_point_only_moves_forward_and_never_past_the_store(backend: Backend) -> None:
    """compact clamps to the current revision; compacting to an older point removes nothing."""
    first = await backend.create("/k", b"1")
    second = await backend.update("/k", b"2", mod_revision=first)
    assert await backend.compact(second + 10) == 1
    assert backend.compact_revision() == second
    assert await backend.compact(first) == 0
    assert backend.compact_revision() == second
    assert await backend.get("/k", revision=second) == KeyValue("/k", b"2", first, second)


async def test_a_read_below_the_compaction_point_names_the_oldest_kept_revision(backend: Backend) -> None:
    """CompactedError carries the requested revision and the compaction point."""
    first = await backend.create("/k", b"1")
    second = await backend.update("/k", b"2", mod_revision=first)
    await backend.compact(second)
    with pytest.raises(CompactedError) as caught:
        await backend.get("/k", revision=first)
    assert (caught.value.requested, caught.value.compact_revision) == (first, second)


async def test_a_live_watch_keeps_flowing_across_a_compaction(backend: Backend) -> None:
    """Compaction does not disturb a watch that is already following the live feed."""
    first = await backend.create("/k", b"1")
    stream = backend.watch("/", after_revision=first)
    consumer = asyncio.create_task(collect_until(stream, at_revision(first + 2)))
    await asyncio.sleep(0)  # one loop turn: a watch registers on its first step, before it awaits
    second = await backend.update("/k", b"2", mod_revision=first)
    await backend.compact(second)
    await backend.update("/k", b"3", mod_revision=second)
    assert [event.revision for event in flatten(await consumer)] == [second, second + 1]
