"""A deduplicating work queue with delayed and rate-limited re-adds (client-go's workqueue).

A key is queued at most once; a key being processed that is added again is processed once more
after the current run ends, never twice at the same time. `add_after` schedules a key for later;
`add_rate_limited` does so with per-key exponential backoff, which `forget` resets after a success.
`adds` counts the keys that entered the queue (client-go's `workqueue_adds_total`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class ShutDown(Exception):
    """The queue was shut down; workers should return."""


class WorkQueue(Generic[K]):
    def __init__(self, *, base_delay: float = 0.005, max_delay: float = 300.0) -> None:
        self._queue: deque[K] = deque()
        self._queued: set[K] = set()
        self._processing: set[K] = set()
        self._dirty: set[K] = set()
        self._failures: dict[K, int] = {}
        self._timers: dict[K, asyncio.TimerHandle] = {}
        self._wakeup = asyncio.Event()
        self._shutdown = False
        self._base = base_delay
        self._max = max_delay
        self.adds = 0

    def __len__(self) -> int:
        return len(self._queue)

    @property
    def idle(self) -> bool:
        """Nothing queued and nothing being processed (keys waiting on a delay aside): every key added
        so far has been reconciled, which tests wait for before asserting that nothing happens."""
        return not self._queue and not self._processing

    def add(self, key: K) -> None:
        if self._shutdown:
            return
        if key in self._processing:
            self._dirty.add(key)
            return
        if key in self._queued:
            return
        self._queued.add(key)
        self._queue.append(key)
        self.adds += 1
        self._wakeup.set()

    def add_after(self, key: K, delay: float) -> None:
        if self._shutdown:
            return
        if delay <= 0:
            self.add(key)
            return
        existing = self._timers.get(key)
        loop = asyncio.get_running_loop()
        if existing is not None:
            if existing.when() <= loop.time() + delay:
                return
            existing.cancel()
        self._timers[key] = loop.call_later(delay, self._fire, key)

    def _fire(self, key: K) -> None:
        self._timers.pop(key, None)
        self.add(key)

    def add_rate_limited(self, key: K) -> float:
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        delay: float = min(self._base * (2**failures), self._max)
        self.add_after(key, delay)
        return delay

    def forget(self, key: K) -> None:
        self._failures.pop(key, None)

    def failures(self, key: K) -> int:
        return self._failures.get(key, 0)

    async def get(self) -> K:
        while not self._queue:
            if self._shutdown:
                raise ShutDown
            self._wakeup.clear()
            await self._wakeup.wait()
        key = self._queue.popleft()
        self._queued.discard(key)
        self._processing.add(key)
        return key

    def done(self, key: K) -> None:
        self._processing.discard(key)
        if key in self._dirty:
            self._dirty.discard(key)
            self.add(key)

    def shutdown(self) -> None:
        self._shutdown = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._wakeup.set()
