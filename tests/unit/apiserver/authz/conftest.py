"""An in-memory API server with its bootstrap RBAC policy and aggregation controller running."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.storage.memory import MemoryBackend


@pytest.fixture
async def api() -> AsyncIterator[EmbeddedAPI]:
    server = EmbeddedAPI(MemoryBackend())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
