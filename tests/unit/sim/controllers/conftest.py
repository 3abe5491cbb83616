"""Fixtures: an in-memory API server per test and the test's own client."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.storage.memory import MemoryBackend


@pytest.fixture
async def api() -> AsyncIterator[EmbeddedAPI]:
    server = EmbeddedAPI(MemoryBackend())
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def client(api: EmbeddedAPI) -> LocalClient:
    """The test's own client (the user and the stand-in kubelet)."""
    return api.client("test")
