"""One client's watch on one resource: which changes it sees, and the queue its HTTP writer drains.

A watcher is offered every change of its resource (its bucket) as the cache applies it, filters it
by namespace and selector — an object that starts or stops matching becomes ADDED or DELETED, as in
kube-apiserver — and queues what passes. A watcher that cannot keep up (its queue reaches the limit
of events, or of bytes — a change is always let into an empty queue: a client that stops reading
must not pin the versions of large objects the history has let go of) is closed, and its client
resumes from the last resourceVersion it saw.

A watch resuming from an older resourceVersion first *catches up*: the cache replays the history
after that revision into its queue, a page at a time and only once the writer has drained the page
before (so a slow client pins one page, not the history), while the live changes that arrive
meanwhile wait in `pending`. When the replay reaches the revision the watch was registered at, the
pending changes follow: every change once, in revision order. Until then the watcher is not current,
so the writer must not send a bookmark of the cache's revision. When compaction overtakes the
replay the watcher `expire`s and its client gets 410 Gone, as when the revision was too old to begin with.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable

from flotilla.apiserver.store.cachedobjects import CachedObject, CacheEvent, EventKind
from flotilla.storage import CompactedError

Predicate = Callable[[CachedObject], bool]
Queued = tuple[EventKind, CachedObject, CacheEvent]


class Watcher:
    """One client watch on one bucket: filters events and queues them for the HTTP writer."""

    def __init__(
        self, namespace: str, predicate: Predicate | None, max_queue: int, max_queue_bytes: int = 0
    ) -> None:
        self.namespace = namespace
        self.predicate = predicate
        self.queue: deque[Queued] = deque()
        self.ready = asyncio.Event()
        self.closed = False
        self.overflowed = False
        self.expired: CompactedError | None = None
        """Set when compaction removed history this watcher still had to replay (answer 410)."""
        self.catch_up: asyncio.Task[None] | None = None
        """The cache's task replaying history to this watcher, while it runs."""
        self._max_queue = max_queue
        self._max_queue_bytes = max_queue_bytes
        self._queued_bytes = 0  # of the changes queued or pending (see CacheEvent.size)
        self._pending: deque[Queued] | None = None
        self._drained = asyncio.Event()
        self._drained.set()

    # -- what passes -----------------------------------------------------------------------------

    def _passes(self, obj: CachedObject | None) -> bool:
        if obj is None:
            return False
        if self.namespace and obj.namespace != self.namespace:
            return False
        return self.predicate is None or self.predicate(obj)

    def _as_seen(self, event: CacheEvent) -> tuple[EventKind, CachedObject] | None:
        """The event as this watcher sees it: selector transitions become ADDED/DELETED."""
        if event.type == "DELETED":
            return ("DELETED", event.object) if self._passes(event.prev) else None
        now = self._passes(event.object)
        before = self._passes(event.prev)
        if now and before:
            return "MODIFIED", event.object
        if now:
            return "ADDED", event.object
        if before and event.prev is not None:
            return "DELETED", event.prev.at_revision(event.revision)
        return None

    # -- queueing --------------------------------------------------------------------------------

    def offer(self, event: CacheEvent) -> None:
        """A live change: queued, or held back while the watcher catches up."""
        if self.closed:
            return
        seen = self._as_seen(event)
        if seen is None:
            return
        target = self.queue if self._pending is None else self._pending
        queued_bytes = self._queued_bytes + event.size
        too_many_bytes = bool(target) and 0 < self._max_queue_bytes < queued_bytes
        if len(target) >= self._max_queue or too_many_bytes:
            self.overflowed = True
            self.close()
            return
        self._queued_bytes = queued_bytes
        target.append((seen[0], seen[1], event))
        if self._pending is None:
            self.ready.set()

    def replay(self, event: CacheEvent) -> None:
        """A change from the history, older than every live one: queued at once (pages bound it)."""
        if self.closed:
            return
        seen = self._as_seen(event)
        if seen is not None:
            self._queued_bytes += event.size
            self.queue.append((seen[0], seen[1], event))
            self.ready.set()

    def add_initial(self, obj: CachedObject) -> None:
        if self._passes(obj):
            self.queue.append(("ADDED", obj, CacheEvent("ADDED", obj, None)))

    def take(self, limit: int) -> list[Queued]:
        """Up to `limit` queued events, oldest first, for the writer."""
        queue = self.queue
        taken = [queue.popleft() for _ in range(min(limit, len(queue)))]
        if self._queued_bytes:
            self._queued_bytes -= sum(event.size for _, _, event in taken)
        if not queue:
            self._drained.set()
        return taken

    # -- catching up -----------------------------------------------------------------------------

    @property
    def current(self) -> bool:
        """Whether every change up to the cache's revision has been offered (not catching up)."""
        return self._pending is None

    def begin_catch_up(self) -> None:
        self._pending = deque()

    def end_catch_up(self) -> None:
        """The replay reached the registration revision: the held-back live changes follow."""
        pending = self._pending
        self._pending = None
        if pending:
            self.queue.extend(pending)
        self.ready.set()

    async def drained(self) -> None:
        """Wait until the writer has taken everything queued (or the watch closed)."""
        while self.queue and not self.closed:
            self._drained.clear()
            await self._drained.wait()

    # -- ending ----------------------------------------------------------------------------------

    def expire(self, error: CompactedError) -> None:
        self.expired = error
        self.close()

    def close(self) -> None:
        self.closed = True
        self.ready.set()
        self._drained.set()
