"""An in-memory API server with its bootstrap RBAC policy and aggregation controller running."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

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


async def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until `check()` holds (in-process controllers work in the background)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)
