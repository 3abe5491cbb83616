"""Many writers at once: compare-and-swap picks exactly one winner, and group commit batches.

The SQLite backend runs every write on one writer thread that commits whatever is queued in one
transaction; these tests check that concurrency changes neither the outcome of a race nor the
numbering (one revision per successful write, no gaps), and that commits really carry many writes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from flotilla.storage.backend import Backend, Event, KeyExistsError, RevisionMismatchError
from flotilla.storage.sqlite import SQLiteSettings, Synchronous
from tests.unit.storage.backends import opened_backend
from tests.unit.storage.operations import at_revision, collect_until, flatten

WRITERS = 300


async def test_concurrent_guarded_updates_have_exactly_one_winner(backend: Backend) -> None:
    """Hundreds of updates expecting the same mod revision: one succeeds, every other sees the winner."""
    base = await backend.create("/counter", b"0")
    outcomes = await asyncio.gather(
        *(backend.update("/counter", str(i).encode(), mod_revision=base) for i in range(WRITERS)),
        return_exceptions=True,
    )
    winners = [o for o in outcomes if isinstance(o, int)]
    losers = [o for o in outcomes if not isinstance(o, int)]
    assert winners == [base + 1]
    assert all(isinstance(o, RevisionMismatchError) for o in losers)
    current = await backend.get("/counter")
    assert current is not None
    assert current.mod_revision == base + 1
    assert all(isinstance(o, RevisionMismatchError) and o.current == current for o in losers)
    assert backend.current_revision() == base + 1


async def test_contending_writers_that_retry_never_lose_an_update(backend: Backend) -> None:
    """Read-modify-write loops on one key: every revision has one winner and no increment is lost."""
    base = await backend.create("/counter", b"0")
    won: list[int] = []

    async def increment() -> None:
        while True:
            kv = await backend.get("/counter")
            assert kv is not None
            try:
                won.append(
                    await backend.update(
                        "/counter", b"%d" % (int(kv.value) + 1), mod_revision=kv.mod_revision
                    )
                )
            except RevisionMismatchError:
                await asyncio.sleep(0)
                continue
            return

    writers = 60
    async with asyncio.timeout(20):
        await asyncio.gather(*(increment() for _ in range(writers)))
    assert sorted(won) == list(range(base + 1, base + writers + 1))
    final = await backend.get("/counter")
    assert final is not None
    assert final.value == b"%d" % writers


async def test_concurrent_creates_get_distinct_consecutive_revisions(backend: Backend) -> None:
    """Hundreds of creates in flight at once all succeed, numbered without gaps or repeats."""
    base = backend.current_revision()
    revisions = await asyncio.gather(*(backend.create(f"/pods/p{i:04d}", b"x") for i in range(WRITERS)))
    assert sorted(revisions) == list(range(base + 1, base + WRITERS + 1))
    assert backend.current_revision() == base + WRITERS
    listed = await backend.range("/pods/")
    assert len(listed.kvs) == WRITERS
    assert all(
        kv.create_revision == kv.mod_revision == rev for kv, rev in zip(listed.kvs, revisions, strict=True)
    )


async def test_concurrent_creates_of_one_key_admit_exactly_one(backend: Backend) -> None:
    """Racing creates of the same key: one succeeds, the rest raise KeyExistsError."""
    outcomes = await asyncio.gather(
        *(backend.create("/lease", str(i).encode()) for i in range(WRITERS)), return_exceptions=True
    )
    winners = [o for o in outcomes if isinstance(o, int)]
    assert len(winners) == 1
    assert sum(isinstance(o, KeyExistsError) for o in outcomes) == WRITERS - 1


@pytest.mark.parametrize("synchronous", ["FULL", "OFF"])
async def test_group_commit_carries_many_writes_per_transaction(
    tmp_path: Path, synchronous: Synchronous
) -> None:
    """Concurrent creates reach a live watch in far fewer commits than writes, each in revision order."""
    settings = SQLiteSettings(synchronous=synchronous)
    async with opened_backend("sqlite", tmp_path / "store.db", settings) as backend:
        consumer = asyncio.create_task(
            collect_until(backend.watch("/", after_revision=0), at_revision(WRITERS))
        )
        await asyncio.sleep(0)  # one loop turn: the watch registers on its first step, before the writes
        await asyncio.gather(*(backend.create(f"/p{i:04d}", b"x") for i in range(WRITERS)))
        batches = await consumer
        events: list[Event] = flatten(batches)
        assert [e.revision for e in events] == list(range(1, WRITERS + 1))
        assert len(batches) <= WRITERS // 10, f"{len(batches)} commits for {WRITERS} writes"
        assert max(len(batch) for batch in batches) > 1
