"""The reconcile loop every controller runs: keys from a work queue, level-based reconcilers.

A reconciler receives only a key and re-reads the state it needs (controller-runtime's contract).
It returns None when done, a number of seconds to look again later, or raises: a `TerminalError`
is logged and not retried, anything else is retried with per-key exponential backoff. Workers never
process the same key concurrently.

Each loop counts its reconciles by result — `success` (done), `requeue` (look again later) and
`error` (raised, terminal or not) — and times them (`ReconcileStats`, a `prometheus_client`
histogram of its own, which the controller manager's registry collects), for `/metrics`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import structlog
from prometheus_client import Histogram
from prometheus_client.metrics_core import Metric

from flotilla.runtime.health import LATENCY_BUCKETS
from flotilla.runtime.workqueue import ShutDown, WorkQueue

log = structlog.get_logger("flotilla.runtime")

K = TypeVar("K", bound=Hashable)


class TerminalError(Exception):
    """A reconcile failure that retrying cannot fix (bad input); logged, not retried."""


Reconcile = Callable[[K], Awaitable[float | None]]

RESULT_SUCCESS = "success"
RESULT_REQUEUE = "requeue"
RESULT_ERROR = "error"


@dataclass(slots=True)
class ReconcileStats:
    """How a controller's reconciles went: counts by result, and how long they took."""

    controller: str
    results: Counter[str] = field(default_factory=Counter)
    durations: Histogram = field(init=False)
    """Registered nowhere: the component that runs the controller collects it (`duration_families`)."""

    def __post_init__(self) -> None:
        self.durations = Histogram(
            "flotilla_reconcile_duration_seconds",
            "How long reconciles took, per controller.",
            ["controller"],
            buckets=LATENCY_BUCKETS,
            registry=None,
        )

    def record(self, result: str, seconds: float) -> None:
        self.results[result] += 1
        self.durations.labels(self.controller).observe(seconds)

    def duration_families(self) -> list[Metric]:
        return list(self.durations.collect())


class ControllerLoop(Generic[K]):
    def __init__(
        self,
        name: str,
        reconcile: Reconcile[K],
        *,
        workers: int = 1,
        base_delay: float = 0.05,
        max_delay: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._reconcile = reconcile
        self._workers = workers
        self.queue: WorkQueue[K] = WorkQueue(base_delay=base_delay, max_delay=max_delay)
        self._tasks: list[asyncio.Task[None]] = []
        self._monotonic = monotonic
        self.stats = ReconcileStats(name)

    def enqueue(self, key: K) -> None:
        self.queue.add(key)

    def enqueue_after(self, key: K, delay: float) -> None:
        self.queue.add_after(key, delay)

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._work(), name=f"{self.name}-{i}") for i in range(self._workers)
        ]

    async def stop(self) -> None:
        self.queue.shutdown()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    async def _work(self) -> None:
        while True:
            try:
                key = await self.queue.get()
            except ShutDown:
                return
            started = self._monotonic()
            try:
                again = await self._reconcile(key)
            except asyncio.CancelledError:
                raise
            except TerminalError as exc:
                self.stats.record(RESULT_ERROR, self._monotonic() - started)
                self.queue.forget(key)
                log.warning("reconcile.terminal", controller=self.name, key=str(key), error=str(exc))
            except Exception as exc:
                self.stats.record(RESULT_ERROR, self._monotonic() - started)
                delay = self.queue.add_rate_limited(key)
                log.info(
                    "reconcile.retry",
                    controller=self.name,
                    key=str(key),
                    error=str(exc) or type(exc).__name__,
                    delay=round(delay, 3),
                )
            else:
                result = RESULT_SUCCESS if again is None else RESULT_REQUEUE
                self.stats.record(result, self._monotonic() - started)
                self.queue.forget(key)
                if again is not None:
                    self.queue.add_after(key, again)
            finally:
                self.queue.done(key)
