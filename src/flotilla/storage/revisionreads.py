"""Reads of a store's latest revision, shared by the callers that wait for one at the same time.

A consistent read (a GET or LIST without a resourceVersion) must see every write acknowledged
before it began, including writes made through another API server on the same etcd. The API
server learns etcd's current revision with a linearizable read, then waits until its watch cache
has applied that revision (as kube-apiserver's consistent reads from cache do). One such read per
request would add an etcd round trip to every GET; instead callers share reads. A caller may only
join a read that starts after it arrived (a read already in flight might have been answered before
the caller's write was acknowledged), so while one read runs, every caller arriving meanwhile waits
for the next one, which starts as soon as the running one ends: under any load there are at most
two reads per round trip, and one caller never waits more than two.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from flotilla.storage.backend import BackendClosedError


class SharedRevisionReads:
    """`latest()` answers a revision read by `read` started after the call; concurrent calls share."""

    def __init__(self, read: Callable[[], Awaitable[int]]) -> None:
        self._read = read
        self._running: asyncio.Task[None] | None = None
        self._next: asyncio.Future[int] | None = None
        """The answer the callers waiting for the next read share (None: nobody waits)."""
        self._closed = False

    async def latest(self) -> int:
        if self._closed:
            raise BackendClosedError("the store is closed")
        if self._next is None:
            self._next = asyncio.get_running_loop().create_future()
        answer = self._next
        if self._running is None:
            self._start()
        # A cancelled caller must not cancel the answer the others share.
        return await asyncio.shield(answer)

    def _start(self) -> None:
        self._running = asyncio.get_running_loop().create_task(self._run(), name="latest-revision")

    async def _run(self) -> None:
        # The read starts now: every caller that arrived until now shares it.
        answer, self._next = self._next, None
        if answer is None:  # closed before the read began
            self._running = None
            return
        try:
            revision = await self._read()
        except asyncio.CancelledError:
            answer.cancel()
            raise
        except Exception as exc:
            answer.set_exception(exc)
            answer.exception()  # retrieved: the callers (if any are left) raise it themselves
        else:
            answer.set_result(revision)
        finally:
            self._running = None
            if self._callers_waiting() and not self._closed:
                self._start()

    def _callers_waiting(self) -> bool:
        """Whether callers arrived during the read that just ended (they need the next one)."""
        return self._next is not None

    async def close(self) -> None:
        """Cancel the read in flight and fail the callers waiting for the next one."""
        self._closed = True
        running, self._running = self._running, None
        if self._next is not None:
            self._next.cancel()
            self._next = None
        if running is not None:
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
