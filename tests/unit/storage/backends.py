"""How the storage tests open each backend, so every property runs against both the same way.

The SQLite backend is tuned for tests only where that exercises more of it: tiny history pages
and compaction chunks make a watch replay and a compaction span several queries and transactions.
Durability is switched off for the property tests, where no process dies; the persistence tests
use the default settings.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

from flotilla.storage.backend import Backend, Event
from flotilla.storage.memory import MemoryBackend
from flotilla.storage.sqlite import SQLiteBackend, SQLiteSettings

BackendKind = Literal["memory", "sqlite"]
BACKEND_KINDS: tuple[BackendKind, ...] = ("memory", "sqlite")

PROPERTY_SETTINGS = SQLiteSettings(synchronous="OFF", history_page=3, compact_chunk=4)


def new_backend(kind: BackendKind, path: Path, settings: SQLiteSettings = PROPERTY_SETTINGS) -> Backend:
    if kind == "memory":
        return MemoryBackend()
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
