"""The storage contract: a revisioned key-value store with etcd's model.

Every write — create, update or delete — happens at a new value of one global, monotonic revision.
A key remembers the revision it was created at and the revision of its last write; the API server
turns those into `metadata.resourceVersion`. Reads can be made at a past revision (until compaction
removes it), and a watch replays every write after a given revision, in revision order, then follows
new writes as they commit. `history` reads a bounded page of those past writes on its own, so a
reader (the watch cache replaying to a client that resumes from an old resourceVersion) can take
history at its own pace without holding more than one page in memory.

Updates and deletes are guarded by the key's mod revision (compare-and-swap), so two writers never
silently overwrite each other: the loser gets `RevisionMismatchError` and re-reads. Backends
(`sqlite.py`, `memory.py`, `etcd.py`) only store opaque bytes; they know nothing of Kubernetes objects.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class KeyValue:
    """One version of one key."""

    key: str
    value: bytes
    create_revision: int
    mod_revision: int


class EventType(enum.Enum):
    PUT = "PUT"
    DELETE = "DELETE"


@dataclass(frozen=True, slots=True)
class Event:
    """A committed write, as a watch reports it.

    `kv` is the new state (for DELETE: the key with an empty value at the deletion's revision);
    `prev` is the state just before the write, absent for a creation.
    """

    type: EventType
    kv: KeyValue
    prev: KeyValue | None

    @property
    def revision(self) -> int:
        return self.kv.mod_revision


class WatchBatch(list[Event]):
    """Events a watch delivers together, and the store revision the watch reached with them.

    A store shared with writers outside the watched prefix (other hubs on one etcd) moves on
    without events in the prefix; a batch may then be empty and still move `revision` on, so a
    reader waiting for the store's latest revision is not kept waiting for an event that will
    never come. A plain list of events reaches its last event's revision.
    """

    def __init__(self, events: list[Event], revision: int) -> None:
        super().__init__(events)
        self.revision = revision


def batch_revision(batch: list[Event]) -> int:
    """The revision a watch reached with `batch` (0 for an empty plain list)."""
    if isinstance(batch, WatchBatch):
        return batch.revision
    return batch[-1].revision if batch else 0


@dataclass(frozen=True, slots=True)
class RangeResult:
    """A page of a prefix range, read at `revision`; `more` says whether keys remain past the page."""

    kvs: list[KeyValue]
    revision: int
    more: bool


class StorageError(Exception):
    """Base of every storage failure; the API server translates these into Status errors."""


class KeyExistsError(StorageError):
    def __init__(self, key: str) -> None:
        super().__init__(f"key {key!r} already exists")
        self.key = key


class KeyNotFoundError(StorageError):
    def __init__(self, key: str) -> None:
        super().__init__(f"key {key!r} not found")
        self.key = key


class RevisionMismatchError(StorageError):
    """A guarded write lost the race: the key is at `current` (None when it no longer exists)."""

    def __init__(self, key: str, expected: int, current: KeyValue | None) -> None:
        found = current.mod_revision if current else "absent"
        super().__init__(f"key {key!r} expected at revision {expected}, found {found}")
        self.key = key
        self.expected = expected
        self.current = current


class CompactedError(StorageError):
    """The requested revision is older than the oldest one the store still keeps."""

    def __init__(self, requested: int, compact_revision: int) -> None:
        super().__init__(f"revision {requested} has been compacted (oldest kept: {compact_revision})")
        self.requested = requested
        self.compact_revision = compact_revision


class FutureRevisionError(StorageError):
    """The requested revision has not been written yet."""

    def __init__(self, requested: int, current: int) -> None:
        super().__init__(f"revision {requested} is newer than the current revision {current}")
        self.requested = requested
        self.current = current


class BackendClosedError(StorageError):
    """The backend was closed while the operation was pending."""


def event_bytes(event: Event) -> int:
    """The bytes of stored values an event holds: its new value and its previous one."""
    return len(event.kv.value) + (len(event.prev.value) if event.prev is not None else 0)


def prefix_end(prefix: str) -> str:
    """The smallest string greater than every string starting with `prefix` (etcd's range end)."""
    if not prefix:
        return "\U0010ffff"
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


class Backend(Protocol):
    """What the API server needs from a store. All methods are safe to call concurrently."""

    async def start(self) -> None:
        """Open the store; afterwards every other method may be called."""

    async def close(self) -> None:
        """Finish pending writes, end every watch, release the store."""

    def current_revision(self) -> int:
        """The revision of the last acknowledged write this process knows of (0 for an empty store)."""

    async def latest_revision(self) -> int:
        """The store's revision now, counting writes acknowledged to other processes (etcd: a
        linearizable read); at least `current_revision()`."""

    def compact_revision(self) -> int:
        """The oldest revision that can still be read or watched from."""

    async def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        """The key's value at `revision` (0: the latest), or None if it did not exist then."""

    async def range(
        self, prefix: str, *, start_after: str = "", limit: int = 0, revision: int = 0
    ) -> RangeResult:
        """Keys under `prefix` in key order, after `start_after`, at most `limit` (0: all)."""

    async def create(self, key: str, value: bytes) -> int:
        """Write `key` only if it does not exist; returns the new revision."""

    async def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        """Overwrite `key` only if its last write was at `mod_revision`; returns the new revision."""

    async def delete(self, key: str, *, mod_revision: int) -> int:
        """Remove `key` only if its last write was at `mod_revision`; returns the new revision."""

    def watch(self, prefix: str, *, after_revision: int) -> AsyncIterator[list[Event]]:
        """Every write under `prefix` after `after_revision`, in order, batched as they commit.

        A batch may be a `WatchBatch`, which also says how far the store moved (an empty one only
        reports that: see `batch_revision`). Raises CompactedError (before yielding anything)
        when `after_revision` precedes the compaction point. The iterator ends when the backend
        closes.
        """

    async def history(
        self, prefix: str, *, after_revision: int, until_revision: int, max_bytes: int
    ) -> list[Event]:
        """The writes under `prefix` in (`after_revision`, `until_revision`], oldest first: a page.

        A page holds as many events as fit in `max_bytes` (counting each event's value and its
        previous value), but at least one; an empty page means no write under `prefix` is left in
        the range. A reader pages on from the last event's revision. Raises CompactedError when
        `after_revision` precedes the compaction point, also when a compaction overtook the read.
        """

    async def compact(self, revision: int) -> int:
        """Forget history older than `revision`; returns the number of versions removed."""
