"""`PeriodicTask`: one piece of work every so often, started and stopped with its component.

Several components do something on a timer rather than per event — compaction, the CSR and Event
cleaners, reloading a renewed serving certificate, renewing an agent's Lease. Each had its own
`create_task` and cancel pair; this is the one loop they share: wait (`first_delay`, then
`interval`), run the work, log a failure (`periodic.failed`, with the task's name) and go on, so one
bad round never ends the timer; `stop()` cancels it and waits for it to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable

import structlog

log = structlog.get_logger("flotilla.runtime")

Work = Callable[[], Awaitable[object] | object]


class PeriodicTask:
    def __init__(self, name: str, work: Work, interval: float, *, first_delay: float | None = None) -> None:
        """`work` runs after `first_delay` seconds (default: `interval`), then every `interval`."""
        self.name = name
        self.interval = interval
        self.first_delay = interval if first_delay is None else first_delay
        self._work = work
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        delay = self.first_delay
        while True:
            await asyncio.sleep(delay)
            delay = self.interval
            try:
                outcome = self._work()
                if inspect.isawaitable(outcome):
                    await outcome
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("periodic.failed", task=self.name, error=str(exc) or type(exc).__name__)
            self.rounds += 1
