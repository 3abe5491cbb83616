"""How the storage tests open each backend, so every property runs against both the same way.

The SQLite backend is tuned for tests only where that exercises more of it: tiny history pages
and compaction chunks make a watch replay and a compaction span several queries and transactions.
Durability is switched off for the property tests, where no process dies; the persistence tests
use the default settings.

The etcd kind runs against one real etcd member started once per test process (on first use, stopped
at exit); every backend it opens gets a key prefix of its own, so examples do not see each other's
keys, but they share etcd's revision counter and compaction point: `model_for` starts the reference
model where the store is. Without the `etcd` binary the etcd kind is skipped.
"""

from __future__ import annotations

import atexit
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import pytest

from flotilla.storage.backend import Backend, Event
from flotilla.storage.etcd import EtcdBackend
from flotilla.storage.etcdconnection import EtcdSettings
from flotilla.storage.memory import MemoryBackend
from flotilla.storage.sqlite import SQLiteBackend, SQLiteSettings
from tests.unit.storage.etcdserver import ETCD, MISSING_REASON, EtcdServer
from tests.unit.storage.model import ReferenceStore

BackendKind = Literal["memory", "sqlite", "etcd"]
BACKEND_KINDS: tuple[BackendKind, ...] = ("memory", "sqlite")
"""Stores of their own, from revision 0: what the `backend` fixture and tests elsewhere open."""
CONTRACT_KINDS: tuple[Any, ...] = (
    *BACKEND_KINDS,
    pytest.param("etcd", marks=pytest.mark.skipif(ETCD is None, reason=MISSING_REASON)),
)
"""What the contract's property tests run against: also etcd, shared between examples."""

_etcd: EtcdServer | None = None


def shared_etcd() -> EtcdServer:
    """The test process's etcd member, started on first use."""
    global _etcd  # noqa: PLW0603 - one member per test process, however many tests use it
    if _etcd is None:
        server = EtcdServer(Path(tempfile.mkdtemp(prefix="flotilla-etcd-")))
        server.start()
        atexit.register(server.stop)
        _etcd = server
    return _etcd


async def model_for(backend: Backend) -> ReferenceStore:
    """The reference model of the backend's fresh key space, at the store's current revision.

    On the shared etcd the history of earlier examples is compacted away first, so an example
    starts where its model does: nothing readable before it, nothing of others' to compact.
    """
    if isinstance(backend, EtcdBackend):
        await backend.compact(backend.current_revision())
    return ReferenceStore(backend.current_revision(), backend.compact_revision())


PROPERTY_SETTINGS = SQLiteSettings(synchronous="OFF", history_page=3, compact_chunk=4)


def new_backend(kind: BackendKind, path: Path, settings: SQLiteSettings = PROPERTY_SETTINGS) -> Backend:
    if kind == "memory":
        return MemoryBackend()
    if kind == "etcd":
        etcd = EtcdSettings((shared_etcd().url,), prefix=f"/test-{uuid.uuid4().hex}")
        return EtcdBackend(etcd, root="")
    return SQLiteBackend(path, settings)


@asynccontextmanager
async def opened_backend(
    kind: BackendKind, path: Path, settings: SQLiteSettings = PROPERTY_SETTINGS
) -> AsyncIterator[Backend]:
    backend = new_backend(kind, path, settings)
    await backend.start()
    try:
        yield backend
    finally:
        await backend.close()


def fresh_database(directory: Path) -> Path:
    """A database path not used before: hypothesis runs many examples in one test's `tmp_path`."""
    return directory / f"store-{uuid.uuid4().hex}.db"


async def close_stream(stream: AsyncIterator[list[Event]]) -> None:
    """End a watch early; the backends' watches are async generators."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
