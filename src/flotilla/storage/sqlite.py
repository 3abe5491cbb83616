"""The embedded store: kine's single append-only table in SQLite.

Every write appends one row to `kine`; the row's `id` *is* the revision. A create row has
`created = 1`, a delete appends a tombstone (`deleted = 1`), and `prev_revision` links each row to
the previous row of the same key, so a key's history is a chain and a read at revision R is "the
newest row of each key with id <= R". The table's AUTOINCREMENT counter is the global revision: it
never goes backwards, even when compaction removes the newest rows.

Writes go through one writer thread that does group commit: it takes every write queued so far,
runs them in one transaction (each still checked and numbered on its own), commits, and only then
acknowledges them. Throughput holds under concurrency while every acknowledged write is on disk
(WAL; `synchronous=FULL` by default, so it survives power loss as well as kill -9).

The writer publishes each committed batch to the event loop, which feeds live watches in revision
order. A watch from an older revision first replays the rows after it from the table, then follows
the live feed from the revision it was registered at, so nothing is missed or repeated. History is
read in pages bounded by rows and by bytes (`history`), on the reader threads, so replaying large
objects neither blocks the event loop nor holds more than a page in memory.

Reads run on a small pool of threads with their own connections (WAL readers never block the writer).
Compaction deletes versions that were superseded at or before the compaction revision, and tombstones,
in short transactions so writes interleave; SQLite reuses the freed pages, so a store under churn
stops growing.

The store holds every object, Secrets included, so its files are its owner's alone: the database is
created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the database's mode), a
directory it creates is 0700, and store files left readable by others are tightened when it opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import queue
import sqlite3
import stat
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

import structlog

from flotilla.storage.backend import (
    BackendClosedError,
    CompactedError,
    Event,
    EventType,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
    StorageError,
    event_bytes,
    prefix_end,
)

log = structlog.get_logger("flotilla.storage.sqlite")

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS kine (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    value BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS kine_name_id ON kine (name, id);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision ON kine (name, prev_revision);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""

_LATEST = "SELECT id, create_revision, deleted, value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1"
_INSERT = (
    "INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, value) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_AT = (
    "SELECT id, create_revision, deleted, value FROM kine WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1"
)
_RANGE = """
SELECT k.name, k.value, k.create_revision, k.id FROM kine AS k
JOIN (
    SELECT name, MAX(id) AS id FROM kine
    WHERE name >= ? AND name > ? AND name < ? AND id <= ? GROUP BY name
) AS m
  ON k.id = m.id
WHERE k.deleted = 0
ORDER BY k.name
LIMIT ?
"""
_HISTORY = """
SELECT k.id, k.name, k.created, k.deleted, k.create_revision, k.value,
       p.id, p.create_revision, p.value
FROM kine AS k LEFT JOIN kine AS p ON p.id = k.prev_revision AND k.created = 0
WHERE k.id > ? AND k.id <= ? AND k.name >= ? AND k.name < ?
ORDER BY k.id
LIMIT ?
"""
# Compacting the revisions (lo, hi]: every row in that range supersedes the row it links to (its
# previous version, however old), and a tombstone in the range is itself no longer needed.
_COMPACT_SUPERSEDED = """
DELETE FROM kine WHERE id IN (
    SELECT prev_revision FROM kine WHERE id > ? AND id <= ? AND prev_revision != 0
)
"""
_COMPACT_TOMBSTONES = "DELETE FROM kine WHERE id > ? AND id <= ? AND deleted = 1"

Synchronous = Literal["OFF", "NORMAL", "FULL", "EXTRA"]


@dataclass(frozen=True, slots=True)
class SQLiteSettings:
    """Tuning of the embedded store."""

    synchronous: Synchronous = "FULL"
    """SQLite's durability level; FULL makes a commit survive power loss, NORMAL only a process crash."""
    max_batch: int = 1000
    """Most writes committed in one transaction by the group-commit writer."""
    reader_threads: int = 2
    """Threads serving reads, each with its own connection."""
    history_page: int = 500
    """Rows fetched per query when a watch replays history."""
    history_page_bytes: int = 4 * 1024 * 1024
    """Bytes of values (new and previous) a page of history holds at most (at least one row)."""
    compact_chunk: int = 2000
    """Revisions examined per compaction transaction, so writes interleave with a long compaction."""


@dataclass(slots=True)
class _Write:
    op: Literal["create", "update", "delete"]
    key: str
    value: bytes
    expected: int
    future: asyncio.Future[int]
    # Filled by the writer thread:
    revision: int = 0
    error: StorageError | None = None
    event: Event | None = None


@dataclass(eq=False, slots=True)
class _Watcher:
    prefix: str
    end: str
    queue: asyncio.Queue[list[Event] | None] = field(default_factory=asyncio.Queue)


def _make_private(path: Path) -> None:
    """Create the database file 0600 if missing; tighten it and its -wal and -shm files if looser."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for suffix in ("", "-wal", "-shm"):
        file = Path(f"{path}{suffix}")
        try:
            mode = stat.S_IMODE(file.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            file.chmod(mode & 0o600)
            log.warning(
                "store.permissions_tightened", path=str(file), mode=f"{mode:04o}", now=f"{mode & 0o600:04o}"
            )


def _connect(path: Path, synchronous: Synchronous) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA busy_timeout=30000")
    conn.execute("PRAGMA journal_size_limit=8388608")  # the WAL shrinks back to 8 MiB after checkpoints
    return conn


class SQLiteBackend:
    """A `Backend` on one SQLite file; one instance per file and process."""

    def __init__(self, path: Path, settings: SQLiteSettings | None = None) -> None:
        self._path = path
        self._settings = settings or SQLiteSettings()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Writes for the writer thread, in order; None tells it to finish.
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._closing = False
        self._writer: threading.Thread | None = None
        self._readers: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self._reader_conns: list[sqlite3.Connection] = []
        self._reader_lock = threading.Lock()
        self._revision = 0
        self._written = 0  # the writer thread's own counter: the last revision it assigned
        self._compact_revision = 0
        self._watchers: set[_Watcher] = set()
        self._compact_lock = asyncio.Lock()

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._closing = False
        self._path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _make_private(self._path)
        conn = _connect(self._path, self._settings.synchronous)
        conn.executescript(SCHEMA)
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'kine'").fetchone()
        self._revision = self._written = int(row[0]) if row else 0
        row = conn.execute("SELECT value FROM meta WHERE name = 'compact_revision'").fetchone()
        self._compact_revision = int(row[0]) if row else 0
        self._readers = ThreadPoolExecutor(self._settings.reader_threads, thread_name_prefix="sqlite-read")
        self._queue = queue.SimpleQueue()
        self._writer = threading.Thread(
            target=self._write_loop, args=(conn,), name="sqlite-write", daemon=True
        )
        self._writer.start()
        log.info("store.opened", path=str(self._path), revision=self._revision)

    async def close(self) -> None:
        if not self._closing:
            self._closing = True
            self._queue.put(None)
        if self._writer is not None:
            await asyncio.to_thread(self._writer.join)
            self._writer = None
        if self._readers is not None:
            self._readers.shutdown(wait=True)
            self._readers = None
        with self._reader_lock:
            for conn in self._reader_conns:
                conn.close()
            self._reader_conns.clear()
        for watcher in list(self._watchers):
            watcher.queue.put_nowait(None)
        self._watchers.clear()

    def current_revision(self) -> int:
        return self._revision

    async def latest_revision(self) -> int:
        return self._revision  # only this process writes

    def compact_revision(self) -> int:
        return self._compact_revision

    # -- reads -----------------------------------------------------------------------------------

    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self._path, self._settings.synchronous)
            self._local.conn = conn
            with self._reader_lock:
                self._reader_conns.append(conn)
        return conn

    async def _read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._readers is None or self._loop is None:
            raise BackendClosedError("the store is closed")
        return await self._loop.run_in_executor(self._readers, lambda: fn(self._reader()))

    def _check_revision(self, revision: int) -> int:
        current = self._revision
        if revision <= 0:
            return current
        if revision > current:
            raise FutureRevisionError(revision, current)
        if revision < self._compact_revision:
            raise CompactedError(revision, self._compact_revision)
        return revision

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        at = self._check_revision(revision)

        def query(conn: sqlite3.Connection) -> KeyValue | None:
            row = conn.execute(_AT, (key, at)).fetchone()
            if row is None or row[2]:
                return None
            return KeyValue(key, row[3], row[1], row[0])

        found = await self._read(query)
        self._check_revision(revision)  # a compaction that ran meanwhile invalidates the read
        return found

    async def range(
        self, prefix: str, *, start_after: str = "", limit: int = 0, revision: int = 0
    ) -> RangeResult:
        at = self._check_revision(revision)
        upper = prefix_end(prefix)
        fetch = limit + 1 if limit > 0 else -1

        def query(conn: sqlite3.Connection) -> RangeResult:
            rows = conn.execute(_RANGE, (prefix, start_after, upper, at, fetch)).fetchall()
            more = limit > 0 and len(rows) > limit
            if more:
                rows = rows[:limit]
            return RangeResult([KeyValue(r[0], r[1], r[2], r[3]) for r in rows], at, more)

        found = await self._read(query)
        self._check_revision(revision)  # a compaction that ran meanwhile invalidates the read
        return found

    # -- writes ----------------------------------------------------------------------------------

    async def create(self, key: str, value: bytes) -> int:
        return await self._submit("create", key, value, 0)

    async def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        return await self._submit("update", key, value, mod_revision)

    async def delete(self, key: str, *, mod_revision: int) -> int:
        return await self._submit("delete", key, b"", mod_revision)

    async def _submit(
        self, op: Literal["create", "update", "delete"], key: str, value: bytes, expected: int
    ) -> int:
        loop = self._loop
        if loop is None:
            raise BackendClosedError("the store is not open")
        if self._closing:
            raise BackendClosedError("the store is closing")
        write = _Write(op, key, value, expected, loop.create_future())
        # Only the event loop's thread submits and closes, so nothing is queued behind close's None.
        self._queue.put(write)
        return await write.future

    def _write_loop(self, conn: sqlite3.Connection) -> None:
        """The writer thread: take what is queued, commit it as one transaction, acknowledge."""
        try:
            finished = False
            while not finished:
                batch: list[_Write] = []
                item = self._queue.get()
                while True:
                    if item is None:
                        finished = True
                    else:
                        batch.append(item)
                    if finished or len(batch) >= self._settings.max_batch:
                        break
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                if batch:
                    self._commit(conn, batch)
        finally:
            conn.close()

    def _commit(self, conn: sqlite3.Connection, batch: list[_Write]) -> None:
        committed = self._written
        try:
            conn.execute("BEGIN IMMEDIATE")
            for write in batch:
                self._apply(conn, write)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            log.error("store.commit_failed", error=str(exc), writes=len(batch))  # noqa: TRY400 - the error is the message
            self._written = committed
            for write in batch:
                write.error = StorageError(f"commit failed: {exc}")
                write.event = None
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is waiting any more
            self._loop.call_soon_threadsafe(self._publish, batch)

    def _apply(self, conn: sqlite3.Connection, write: _Write) -> None:
        """Check one write against the key's newest row and append its row (writer thread only)."""
        row = conn.execute(_LATEST, (write.key,)).fetchone()
        exists = row is not None and not row[2]
        prev = KeyValue(write.key, row[3], row[1], row[0]) if exists and row is not None else None
        prev_id = row[0] if row is not None else 0
        if write.op == "create":
            if exists:
                write.error = KeyExistsError(write.key)
                return
            revision = self._written + 1
            conn.execute(_INSERT, (revision, write.key, 1, 0, revision, prev_id, write.value))
            self._written = revision
            write.revision = revision
            write.event = Event(EventType.PUT, KeyValue(write.key, write.value, revision, revision), None)
            return
        if prev is None:
            write.error = (
                KeyNotFoundError(write.key)
                if write.expected == 0
                else RevisionMismatchError(write.key, write.expected, None)
            )
            return
        if write.expected and prev.mod_revision != write.expected:
            write.error = RevisionMismatchError(write.key, write.expected, prev)
            return
        deleted = 1 if write.op == "delete" else 0
        revision = self._written + 1
        conn.execute(_INSERT, (revision, write.key, 0, deleted, prev.create_revision, prev_id, write.value))
        self._written = revision
        write.revision = revision
        kind = EventType.DELETE if deleted else EventType.PUT
        write.event = Event(kind, KeyValue(write.key, write.value, prev.create_revision, revision), prev)

    def _publish(self, batch: list[_Write]) -> None:
        """On the event loop: advance the revision, feed watches, then acknowledge the writers."""
        events = [w.event for w in batch if w.event is not None]
        if events:
            self._revision = events[-1].revision
            for watcher in self._watchers:
                matched = [e for e in events if watcher.prefix <= e.kv.key < watcher.end]
                if matched:
                    watcher.queue.put_nowait(matched)
        for write in batch:
            if write.future.done():
                continue
            if write.error is not None:
                write.future.set_exception(write.error)
            else:
                write.future.set_result(write.revision)

    # -- watch -----------------------------------------------------------------------------------

    async def watch(self, prefix: str, *, after_revision: int) -> AsyncIterator[list[Event]]:
        if self._closing or self._loop is None:
            raise BackendClosedError("the store is closed")
        if after_revision < self._compact_revision:
            raise CompactedError(after_revision, self._compact_revision)
        watcher = _Watcher(prefix, prefix_end(prefix))
        registered_at = self._revision
        self._watchers.add(watcher)
        try:
            cursor = after_revision
            while cursor < registered_at:
                batch = await self.history(
                    prefix,
                    after_revision=cursor,
                    until_revision=registered_at,
                    max_bytes=self._settings.history_page_bytes,
                )
                if after_revision < self._compact_revision:
                    raise CompactedError(after_revision, self._compact_revision)
                if not batch:
                    break
                cursor = batch[-1].revision
                yield batch
            while True:
                events = await watcher.queue.get()
                if events is None:
                    return
                fresh = [e for e in events if e.revision > after_revision]
                if fresh:
                    yield fresh
        finally:
            self._watchers.discard(watcher)

    async def history(
        self, prefix: str, *, after_revision: int, until_revision: int, max_bytes: int
    ) -> list[Event]:
        if after_revision < self._compact_revision:
            raise CompactedError(after_revision, self._compact_revision)
        until = min(until_revision, self._revision)
        if after_revision >= until:
            return []
        end = prefix_end(prefix)
        page = self._settings.history_page

        def query(conn: sqlite3.Connection) -> list[Event]:
            events: list[Event] = []
            size = 0
            cursor = conn.execute(_HISTORY, (after_revision, until, prefix, end, page))
            try:
                for row in cursor:
                    event = _history_event(row)
                    size += event_bytes(event)
                    if events and size > max_bytes:
                        break
                    events.append(event)
            finally:
                cursor.close()
            return events

        events = await self._read(query)
        if after_revision < self._compact_revision:  # a compaction ran meanwhile: rows may be gone
            raise CompactedError(after_revision, self._compact_revision)
        return events

    # -- compaction ------------------------------------------------------------------------------

    async def compact(self, revision: int) -> int:
        """Drop history at or below `revision`, keeping each live key's newest version."""
        async with self._compact_lock:
            revision = min(revision, self._revision)
            start = self._compact_revision
            if revision <= start:
                return 0
            self._compact_revision = revision
            chunk = self._settings.compact_chunk
            removed = 0

            def run(lo: int, hi: int) -> int:
                conn = self._reader()
                conn.execute("BEGIN IMMEDIATE")
                try:
                    removed = conn.execute(_COMPACT_SUPERSEDED, (lo, hi)).rowcount
                    removed += conn.execute(_COMPACT_TOMBSTONES, (lo, hi)).rowcount
                    if hi == revision:
                        conn.execute(
                            "INSERT INTO meta (name, value) VALUES ('compact_revision', ?) "
                            "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                            (revision,),
                        )
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                return removed

            lo = start
            while lo < revision:
                hi = min(lo + chunk, revision)
                removed += await self._read(functools.partial(_compact_chunk, run, lo, hi))
                lo = hi
            log.info("store.compacted", revision=revision, removed=removed)
            return removed

    # -- inspection (tests and tools) ----------------------------------------------------------

    async def row_count(self) -> int:
        return await self._read(lambda conn: int(conn.execute("SELECT COUNT(*) FROM kine").fetchone()[0]))

    def file_size(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(FileNotFoundError):
                total += os.stat(f"{self._path}{suffix}").st_size
        return total


def _compact_chunk(run: Callable[[int, int], int], lo: int, hi: int, _conn: sqlite3.Connection) -> int:
    return run(lo, hi)


def _history_event(row: tuple[Any, ...]) -> Event:
    rev, name, created, deleted, create_revision, value, prev_id, prev_create, prev_value = row
    prev = None if created or prev_id is None else KeyValue(name, prev_value, prev_create, prev_id)
    kind = EventType.DELETE if deleted else EventType.PUT
    return Event(kind, KeyValue(name, value, create_revision or rev, rev), prev)


def events_for(batches: Iterable[list[Event]]) -> list[Event]:
    """Flatten watch batches (a convenience for tests and tools)."""
    return [event for batch in batches for event in batch]
