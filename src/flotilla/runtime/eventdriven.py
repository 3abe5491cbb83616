"""Controllers fed by events in the same process, on the reconcile loop every controller runs.

The API server's own controllers (garbage collector, namespaces, CRDs, the Certificates API…) learn
of changes from its watch cache's listeners instead of a watch over HTTP. Each event is mapped to
the keys it concerns (`keys_for`); the keys go on a `ControllerLoop`'s queue, so these reconciles
are level-based, retried with backoff, stopped by a `TerminalError` and counted like any other
controller's.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import ClassVar, Generic, TypeVar

from flotilla.runtime.controller import ControllerLoop
from flotilla.runtime.workqueue import WorkQueue

E = TypeVar("E")
K = TypeVar("K", bound=Hashable)

Subscribe = Callable[[Callable[[E], None]], object]
"""Registers a listener called with every event (the watch cache's `add_listener`)."""


class EventDrivenController(Generic[E, K]):
    """Subclasses say which keys an event concerns and how to reconcile one key."""

    NAME: ClassVar[str] = "controller"

    def __init__(self, subscribe: Subscribe[E], *, base_delay: float = 0.05, max_delay: float = 30.0) -> None:
        self.loop: ControllerLoop[K] = ControllerLoop(
            self.NAME, self.reconcile, base_delay=base_delay, max_delay=max_delay
        )
        subscribe(self._on_event)

    @property
    def queue(self) -> WorkQueue[K]:
        return self.loop.queue

    def keys_for(self, event: E) -> list[K]:
        """The keys an event concerns (empty: not ours)."""
        raise NotImplementedError

    async def reconcile(self, key: K) -> float | None:
        """Bring `key` to its desired state; seconds until the next look, or None."""
        raise NotImplementedError

    def _on_event(self, event: E) -> None:
        for key in self.keys_for(event):
            self.loop.enqueue(key)

    def start(self) -> None:
        self.loop.start()

    async def stop(self) -> None:
        await self.loop.stop()
