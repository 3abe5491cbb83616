"""Shared reads of the latest revision: each caller's answer comes from a read started after it
arrived, concurrent callers share reads, a failure reaches the callers, close ends everything."""

from __future__ import annotations

import asyncio

import pytest

from flotilla.storage.backend import BackendClosedError
from flotilla.storage.revisionreads import SharedRevisionReads


class Store:
    """A revision counter whose reads the test answers one at a time (`release`)."""

    def __init__(self) -> None:
        self.revision = 0
        self.reads_started = 0
        self.gates: list[asyncio.Future[None]] = []

    async def read(self) -> int:
        self.reads_started += 1
        gate = asyncio.get_running_loop().create_future()
        self.gates.append(gate)
        await gate
        return self.revision

    def release(self) -> None:
        self.gates.pop(0).set_result(None)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_a_caller_arriving_during_a_read_waits_for_the_next_one() -> None:
    store = Store()
    reads = SharedRevisionReads(store.read)
    first = asyncio.create_task(reads.latest())
    await settle()
    store.revision = 7  # a write acknowledged while the first read is in flight
    second = asyncio.create_task(reads.latest())
    third = asyncio.create_task(reads.latest())
    await settle()
    assert store.reads_started == 1
    store.release()
    await settle()
    assert first.done() and not second.done()
    assert store.reads_started == 2  # the next read started as soon as the first ended
    store.release()
    assert await second == 7 and await third == 7
    assert store.reads_started == 2  # second and third shared one read
    await reads.close()


async def test_a_failed_read_fails_its_callers_and_the_next_caller_reads_again() -> None:
    calls = 0

    async def flaky() -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise OSError("etcd is unreachable")
        return 42

    reads = SharedRevisionReads(flaky)
    with pytest.raises(OSError, match="unreachable"):
        await reads.latest()
    assert await reads.latest() == 42
    await reads.close()


async def test_a_cancelled_caller_does_not_cancel_the_others() -> None:
    store = Store()
    reads = SharedRevisionReads(store.read)
    leaving = asyncio.create_task(reads.latest())
    staying = asyncio.create_task(reads.latest())
    await settle()
    leaving.cancel()
    await settle()
    store.revision = 3
    store.release()
    assert await staying == 3
    await reads.close()


async def test_close_cancels_the_read_in_flight_and_refuses_new_callers() -> None:
    store = Store()
    reads = SharedRevisionReads(store.read)
    waiting = asyncio.create_task(reads.latest())
    await settle()
    await reads.close()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    with pytest.raises(BackendClosedError):
        await reads.latest()
