"""The loop shared by in-process controllers: cache events → keys → reconcile, with backoff."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog

from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.store.watchcache import CacheEvent
from flotilla.runtime.workqueue import ShutDown, WorkQueue

log = structlog.get_logger("flotilla.apiserver.housekeeping")


class InProcessController:
    NAME = "controller"

    def __init__(self, ctx: APIContext) -> None:
        self.ctx = ctx
        self.queue: WorkQueue[Any] = WorkQueue(base_delay=0.05, max_delay=30.0)
        self._task: asyncio.Task[None] | None = None
        ctx.cache.add_listener(self._on_event)

    def keys_for(self, event: CacheEvent) -> list[Any]:
        """The keys an event concerns (empty: not ours)."""
        raise NotImplementedError

    async def reconcile(self, key: Any) -> float | None:
        """Bring `key` to its desired state; returns seconds until the next check, or None."""
        raise NotImplementedError

    def _on_event(self, event: CacheEvent) -> None:
        for key in self.keys_for(event):
            self.queue.add(key)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"controller-{self.NAME}")

    async def stop(self) -> None:
        self.queue.shutdown()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                key = await self.queue.get()
            except ShutDown:
                return
            try:
                again = await self.reconcile(key)
            except asyncio.CancelledError:
                raise
            except errors.APIError as exc:
                delay = self.queue.add_rate_limited(key)
                log.info(
                    "controller.retry", controller=self.NAME, key=str(key), error=exc.message, delay=delay
                )
            except Exception:
                delay = self.queue.add_rate_limited(key)
                log.exception("controller.failed", controller=self.NAME, key=str(key), delay=delay)
            else:
                self.queue.forget(key)
                if again is not None:
                    self.queue.add_after(key, again)
            finally:
                self.queue.done(key)
