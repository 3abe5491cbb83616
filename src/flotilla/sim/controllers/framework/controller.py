"""What every simulated workload controller shares: a work queue of object keys and its watches.

A controller reconciles one kind (its *owner* kind) by `ObjectKey`, level-based:
each reconcile re-reads the owner and everything it owns from the watch cache, so events only
say *which* key to look at. Subclasses say which changes concern which keys (`watch`), and do
the work (`reconcile`). Starting enqueues every existing owner, so a restarted controller
converges without waiting for a change. Cache handlers only enqueue; they are registered once
per controller (the cache cannot forget them), and a stopped controller ignores them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.runtime.clock import Clock
from flotilla.runtime.controller import ControllerLoop
from flotilla.sim.controllers.framework.events import EventRecorder
from flotilla.sim.spec import ClusterSpec


class SimController(ABC):
    NAME: ClassVar[str]
    """The component name kube gives this controller (logs, events)."""
    KIND: ClassVar[GroupVersionKind]
    """The kind whose objects are the keys of the work queue."""
    WORKERS: ClassVar[int] = 2

    def __init__(self, client: LocalClient, spec: ClusterSpec, clock: Clock) -> None:
        self.client = client
        self.spec = spec
        self.clock = clock
        self.events = EventRecorder(client, clock, self.NAME)
        self._loop: ControllerLoop[ObjectKey] | None = None
        self._watching = False

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        if not self._watching:
            self.client.on_change(self.KIND, self._on_own_change)
            self.watch()
            self._watching = True
        self._loop = ControllerLoop(self.NAME, self.reconcile, workers=self.WORKERS)
        self._loop.start()
        for obj in self.client.list(self.KIND):
            self.enqueue(ObjectKey.of(obj))

    async def stop(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None:
            await loop.stop()

    # -- queueing -------------------------------------------------------------------------------

    def enqueue(self, key: ObjectKey) -> None:
        if self._loop is not None and key.name:
            self._loop.enqueue(key)

    def enqueue_after(self, key: ObjectKey, seconds: float) -> None:
        if self._loop is not None and key.name:
            self._loop.enqueue_after(key, seconds)

    def _on_own_change(self, event: CacheEvent) -> None:
        self.enqueue(ObjectKey(event.object.namespace, event.object.name))

    def watch_kind(self, kind: GroupVersionKind, keys: Callable[[dict[str, Any]], list[ObjectKey]]) -> None:
        """Enqueue the keys `keys` finds for every changed object of `kind` (old and new state)."""

        def handler(event: CacheEvent) -> None:
            if self._loop is None:
                return
            found = set(keys(event.object.obj))
            if event.prev is not None:
                found.update(keys(event.prev.obj))
            for key in found:
                self.enqueue(key)

        self.client.on_change(kind, handler)

    # -- the work -------------------------------------------------------------------------------

    def watch(self) -> None:  # noqa: B027 - optional hook: most controllers watch more kinds, some don't
        """Register handlers for the kinds besides `KIND` whose changes concern a key."""

    @abstractmethod
    async def reconcile(self, key: ObjectKey) -> float | None:
        """Bring one object's world in line with it; seconds until another look, or None."""
