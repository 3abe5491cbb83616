"""Garbage-collector pacing for the long-running processes: API server, controller manager, sim, agent.

Why: these processes hold large, long-lived and acyclic object graphs — the API server's watch cache, the
informer stores, the simulated clusters — that reference counting alone frees. CPython's cyclic collector
nevertheless walks all of them in every full collection, and triggers one whenever the objects that
survived younger collections grow by a quarter: while a store fills, that is every few seconds. Measured
on the hub during `bench/scheduler_e2e.py` (3,000 bindings): full collections took 134 ms each, stopped
every request meanwhile, and with the frequent young collections cost 13% of the hub's CPU.

How: `CollectorPacing.start` raises the young-generation threshold (fewer, cheaper young collections: most
young objects are gone by then) and takes full collections off the allocation trigger. A timer on the
event loop runs one full collection every `interval` seconds instead, so cyclic garbage that outlived the
young generations (closed connections, finished tasks) is still reclaimed. `stop` restores the settings.

What a process built while it started (the API server's schemas, resource registry, compiled CRD rules:
~108,000 tracked objects) lives as long as it does, so `start` also freezes it (`gc.freeze`, after one
collection): full collections then walk only what came later. On the hub each timed full collection
stopped the event loop for 75-90 ms (118 ms for /readyz under `bench/hostile.py`'s load); with the
start-up heap frozen it takes 1-2 ms. The price: a cycle among start-up objects that later becomes
garbage (a CRD's compiled schema once the CRD changes) is not reclaimed, a one-off few kilobytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import Iterator

import structlog

log = structlog.get_logger("flotilla.runtime.garbage")

FULL_COLLECTION_INTERVAL = 300.0
"""Seconds between full collections."""
YOUNG_THRESHOLD = 50_000
"""Allocations (net of deallocations) of tracked objects between two young collections (CPython: 700)."""
MIDDLE_THRESHOLD = 20
"""Young collections between two collections of the middle generation (CPython: 10)."""
_NEVER = 2**31 - 1


class CollectorPacing:
    """The collector's thresholds while a process serves, and the timer of its full collections."""

    def __init__(
        self, interval: float = FULL_COLLECTION_INTERVAL, young_threshold: int = YOUNG_THRESHOLD
    ) -> None:
        self.interval = interval
        self.young_threshold = young_threshold
        self.full_collections = 0
        self._saved: tuple[int, int, int] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._frozen = False

    def start(self) -> None:
        """Pace the collector from now on (call in the running event loop, once the process has built
        what it keeps for its lifetime: that is frozen out of every later collection)."""
        if self._saved is None:
            self._saved = gc.get_threshold()
        if not self._frozen:
            gc.collect()
            gc.freeze()
            self._frozen = True
        gc.set_threshold(self.young_threshold, MIDDLE_THRESHOLD, _NEVER)
        self._schedule()

    def stop(self) -> None:
        """Cancel the timer and give the collector its previous thresholds back."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def collect(self) -> int:
        """One full collection now; the number of unreachable objects it found."""
        started = time.perf_counter()
        found = gc.collect()
        self.full_collections += 1
        log.debug("gc.full_collection", unreachable=found, seconds=round(time.perf_counter() - started, 4))
        return found

    def _schedule(self) -> None:
        self._timer = asyncio.get_running_loop().call_later(self.interval, self._tick)

    def _tick(self) -> None:
        self.collect()
        self._schedule()


class _Pause:
    """How many threads asked for the collector to stay off, and whether it was on before the first."""

    lock = threading.Lock()
    holders = 0
    was_enabled = False


@contextlib.contextmanager
def collection_paused() -> Iterator[None]:
    """Keep automatic collections off while the body runs, in whichever thread.

    For a burst of allocation in a worker thread — reading a large YAML body builds hundreds of
    thousands of short-lived nodes — whose young collections, run by the allocating thread with the
    GIL held, stopped the event loop for 100-150 ms at a time (20 ms with them paused). What such a
    burst builds is acyclic and freed by reference counting when it ends; the collector resumes when
    the last thread that paused it is done.
    """
    with _Pause.lock:
        if _Pause.holders == 0:
            _Pause.was_enabled = gc.isenabled()
            gc.disable()
        _Pause.holders += 1
    try:
        yield
    finally:
        with _Pause.lock:
            _Pause.holders -= 1
            if _Pause.holders == 0 and _Pause.was_enabled:
                gc.enable()
