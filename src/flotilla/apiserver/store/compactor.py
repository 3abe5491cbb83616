"""Automatic compaction: keep a window of recent revisions, forget older history.

kube-apiserver compacts etcd every five minutes; Flotilla does the same on its own store, keeping
at least the last `history_window` revisions — the history its watch cache replays to clients that
resume a watch (the recent part from memory, the rest from the store: `watchhistory.py`). Under
heavy churn it does not wait for the interval: once more than twice the window has accumulated
since the last compaction it compacts at once, so the store stays bounded (SQLite reuses the freed
pages: a store under steady churn stops growing). Watchers resuming from a compacted revision get
410 Expired and relist, as with kube-apiserver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import structlog

from flotilla.runtime.periodic import PeriodicTask
from flotilla.storage import Backend, StorageError

log = structlog.get_logger("flotilla.apiserver.store.compactor")


@dataclass(frozen=True, slots=True)
class CompactionSettings:
    window: int = 10000
    """Revisions kept (the watch cache's history window)."""
    interval: float = 300.0
    """Seconds between compactions when writes are slow."""
    check_every: float = 5.0
    """Seconds between checks for a backlog of more than twice the window."""


class Compactor:
    def __init__(self, backend: Backend, settings: CompactionSettings) -> None:
        self._backend = backend
        self._settings = settings
        self.compactions = 0
        self._last = time.monotonic()
        self._timer = PeriodicTask("compactor", self._check, min(settings.check_every, settings.interval))

    def start(self) -> None:
        self._last = time.monotonic()
        self._timer.start()

    async def stop(self) -> None:
        await self._timer.stop()

    def due(self, since_last: float) -> int | None:
        """The revision to compact to now, or None (pure: tests call it directly)."""
        current = self._backend.current_revision()
        target = current - self._settings.window
        compacted = self._backend.compact_revision()
        if target <= compacted:
            return None
        if current - compacted > 2 * self._settings.window or since_last >= self._settings.interval:
            return target
        return None

    async def compact_once(self, target: int) -> None:
        try:
            removed = await self._backend.compact(target)
        except StorageError as exc:
            log.warning("compaction.failed", revision=target, error=str(exc))
            return
        self.compactions += 1
        log.info("compaction.done", revision=target, removed=removed)

    async def _check(self) -> None:
        target = self.due(time.monotonic() - self._last)
        if target is not None:
            await self.compact_once(target)
            self._last = time.monotonic()
