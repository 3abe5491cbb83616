"""Persistence of the SQLite store: what was acknowledged is there after a restart, counters included.

Each test closes the backend and opens a new one on the same file, as a restarted API server
would, with the default (durable) settings.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from asyncio.subprocess import PIPE
from contextlib import closing
from pathlib import Path

import pytest

from flotilla.storage.backend import BackendClosedError, CompactedError, StorageError
from flotilla.storage.sqlite import SQLiteBackend, SQLiteSettings
from tests.unit.storage.backends import opened_backend
from tests.unit.storage.model import ReferenceStore
from tests.unit.storage.operations import (
    Create,
    Delete,
    Guard,
    Update,
    Write,
    apply_all,
    at_revision,
    collect_until,
    flatten,
)

DURABLE = SQLiteSettings()

# A writer process that dies by SIGKILL right after its last acknowledgement, without closing.
KILLED_WRITER = """
import asyncio, os, signal, sys
from pathlib import Path
from flotilla.storage.sqlite import SQLiteBackend

async def main() -> None:
    backend = SQLiteBackend(Path(sys.argv[1]))
    await backend.start()
    revisions = await asyncio.gather(*(backend.create(f"/p{i:03d}", b"x") for i in range(100)))
    revisions.append(await backend.update("/p000", b"y", mod_revision=revisions[0]))
    print(" ".join(map(str, revisions)), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""

HISTORY: list[Write] = [
    Create("/a", b"1"),
    Create("/b", b"1"),
    Update("/a", b"2", Guard.CURRENT),
    Delete("/b", Guard.CURRENT),
    Create("/b", b"again"),
    Create("/c", b"1"),
]


async def test_reopening_finds_the_same_keys_history_and_revision(tmp_path: Path) -> None:
    """After close and reopen, the live set, past versions and the revision counter are unchanged."""
    path = tmp_path / "store.db"
    model = ReferenceStore()
    async with opened_backend("sqlite", path, DURABLE) as backend:
        await apply_all(backend, model, HISTORY)
    async with opened_backend("sqlite", path, DURABLE) as backend:
        assert backend.current_revision() == model.revision
        assert (await backend.range("")).kvs == model.live_keys()
        for revision in range(1, model.revision + 1):
            assert await backend.range("", revision=revision) == model.range("", revision=revision)
        replayed = await collect_until(backend.watch("", after_revision=0), at_revision(model.revision))
        assert flatten(replayed) == model.events_after("", 0)
        await apply_all(backend, model, [Update("/c", b"2", Guard.CURRENT)])
        assert backend.current_revision() == len(HISTORY) + 1


async def test_the_revision_never_goes_back_after_compaction_removed_the_newest_rows(tmp_path: Path) -> None:
    """When compaction drops trailing tombstones (even every row), a reopened store still counts on."""
    path = tmp_path / "store.db"
    async with opened_backend("sqlite", path, DURABLE) as backend:
        assert isinstance(backend, SQLiteBackend)
        first = await backend.create("/a", b"")
        second = await backend.create("/b", b"")
        await backend.delete("/b", mod_revision=second)
        last = await backend.delete("/a", mod_revision=first)
        await backend.compact(last)
        assert await backend.row_count() == 0
    async with opened_backend("sqlite", path, DURABLE) as backend:
        assert backend.current_revision() == last
        assert await backend.create("/a", b"") == last + 1


async def test_the_compaction_point_is_remembered(tmp_path: Path) -> None:
    """A reopened store refuses reads and watches below the compaction point it had reached."""
    path = tmp_path / "store.db"
    model = ReferenceStore()
    async with opened_backend("sqlite", path, DURABLE) as backend:
        await apply_all(backend, model, HISTORY)
        await backend.compact(4)
    async with opened_backend("sqlite", path, DURABLE) as backend:
        assert backend.compact_revision() == 4
        with pytest.raises(CompactedError):
            await backend.get("/a", revision=3)
        with pytest.raises(CompactedError):
            await anext(backend.watch("", after_revision=3))
        assert await backend.range("", revision=4) == model.range("", revision=4)


async def test_writes_acknowledged_before_close_survive_it(tmp_path: Path) -> None:
    """Closing with writes in flight: each either was acknowledged and persists, or failed as closed."""
    path = tmp_path / "store.db"
    async with opened_backend("sqlite", path, DURABLE) as backend:
        writes = [asyncio.ensure_future(backend.create(f"/p{i:03d}", b"x")) for i in range(200)]
        await asyncio.sleep(0)  # the writes are queued; close must drain them, not drop them
        await backend.close()
        outcomes = await asyncio.gather(*writes, return_exceptions=True)
    acknowledged = {f"/p{i:03d}": o for i, o in enumerate(outcomes) if isinstance(o, int)}
    assert all(isinstance(o, int | BackendClosedError) for o in outcomes)
    assert acknowledged, "the queued writes were acknowledged"
    async with opened_backend("sqlite", path, DURABLE) as backend:
        stored = {kv.key: kv.mod_revision for kv in (await backend.range("/")).kvs}
    assert stored == acknowledged


async def test_a_write_after_close_is_refused(tmp_path: Path) -> None:
    """Once closed, the store rejects writes with BackendClosedError instead of hanging."""
    async with opened_backend("sqlite", tmp_path / "store.db", DURABLE) as backend:
        await backend.close()
        with pytest.raises(BackendClosedError):
            await backend.create("/k", b"")
        with pytest.raises(StorageError):
            await backend.get("/k")


async def test_the_database_file_is_in_write_ahead_log_mode(tmp_path: Path) -> None:
    """The store puts its file in WAL mode, so readers never block the writer."""
    path = tmp_path / "store.db"
    async with opened_backend("sqlite", path, DURABLE) as backend:
        await backend.create("/k", b"")
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_acknowledged_writes_survive_a_killed_process(tmp_path: Path) -> None:
    """A process killed right after its writes were acknowledged loses none of them."""
    path = tmp_path / "store.db"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_WRITER, str(path), stdout=PIPE, stderr=PIPE
    )
    async with asyncio.timeout(30):
        stdout, stderr = await process.communicate()
    assert process.returncode == -signal.SIGKILL, stderr.decode()
    revisions = [int(word) for word in stdout.decode().splitlines()[-1].split()]  # after the log lines
    async with opened_backend("sqlite", path, DURABLE) as backend:
        assert backend.current_revision() == max(revisions) == 101
        listed = (await backend.range("/")).kvs
        assert len(listed) == 100
        assert listed[0].value == b"y"
        assert listed[0].mod_revision == revisions[-1]
