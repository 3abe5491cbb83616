"""Changes to the search cache, and the watchers that receive the ones their query selects.

A `Change` is one object's new version (or its deletion) in one cluster, at a revision of the cache.
A `Watcher` is offered every change of its kind and keeps, as kube's watch cache does, what its
query makes of it: an object that starts to match arrives as ADDED, one that stops matching as
DELETED. A watcher that falls more than `capacity` events behind is closed (its client relists), so
a stalled client cannot make the cache hold every change for it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Literal

from flotilla.apiserver.search.compact import Entry
from flotilla.apiserver.search.selection import Query

EventType = Literal["ADDED", "MODIFIED", "DELETED"]

DEFAULT_CAPACITY = 10_000


class Change:
    """One change of one object; `entry` is its new version, or for a deletion its last one stamped
    with the deletion's revision; `previous` the version it replaced (None when it is new)."""

    __slots__ = ("cluster", "deleted", "entry", "key", "previous")

    def __init__(
        self, cluster: str, key: str, entry: Entry, previous: Entry | None, *, deleted: bool
    ) -> None:
        self.cluster = cluster
        self.key = key
        self.entry = entry
        self.previous = previous
        self.deleted = deleted

    @property
    def revision(self) -> int:
        return self.entry.revision


class Event:
    __slots__ = ("cluster", "entry", "key", "type")

    def __init__(self, type_: EventType, cluster: str, key: str, entry: Entry) -> None:
        self.type: EventType = type_
        self.cluster = cluster
        self.key = key
        self.entry = entry


class Watcher:
    """One watch request's queue of events."""

    def __init__(self, query: Query, capacity: int = DEFAULT_CAPACITY) -> None:
        self.query = query
        self.capacity = capacity
        self.events: deque[Event] = deque()
        self.ready = asyncio.Event()
        self.closed = False
        self.overflowed = False

    def offer(self, change: Change) -> None:
        if self.closed:
            return
        query = self.query
        was = change.previous is not None and query.matches(change.key, change.previous)
        now = not change.deleted and query.matches(change.key, change.entry)
        if now:
            kind: EventType = "MODIFIED" if was else "ADDED"
        elif was:
            kind = "DELETED"
        else:
            return
        self.events.append(Event(kind, change.cluster, change.key, change.entry))
        if len(self.events) > self.capacity:
            self.overflowed = True
            self.close()
        self.ready.set()

    def take(self, limit: int) -> list[Event]:
        events = self.events
        return [events.popleft() for _ in range(min(limit, len(events)))]

    def close(self) -> None:
        self.closed = True
        self.ready.set()
