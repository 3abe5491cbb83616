"""A reference model of the storage contract that the property tests hold both backends against.

It keeps a full copy of the key space after every revision, which makes it obviously right and
slow — irrelevant for the few dozen writes a test makes. A read at revision R is a lookup in
snapshot R, a watch from R is the list of events after R, and compaction only moves the point below
which reads are refused. It shares no code with the backends except the value types and errors.
"""

from __future__ import annotations

from flotilla.storage.backend import (
    CompactedError,
    Event,
    EventType,
    FutureRevisionError,
    KeyExistsError,
    KeyNotFoundError,
    KeyValue,
    RangeResult,
    RevisionMismatchError,
)


class ReferenceStore:
    """The expected behaviour of a `Backend`, write by write."""

    def __init__(self, start: int = 0, compacted: int = 0) -> None:
        """A model of a key space that is empty at revision `start`, compacted up to `compacted`.

        A store shared between examples (etcd, where each example has a key prefix of its own)
        starts at a revision other examples already reached; below it the example's keys are absent.
        """
        self.start = start
        self.snapshots: list[dict[str, KeyValue]] = [{}] * (start + 1)  # index = revision
        self.events: list[Event] = []  # the writes after `start`, in revision order
        self.compact_revision = compacted

    @property
    def revision(self) -> int:
        return len(self.snapshots) - 1

    def latest(self, key: str) -> KeyValue | None:
        return self.snapshots[-1].get(key)

    def live_keys(self) -> list[KeyValue]:
        return [self.snapshots[-1][key] for key in sorted(self.snapshots[-1])]

    # -- writes ------------------------------------------------------------------------------------

    def create(self, key: str, value: bytes) -> int:
        if self.latest(key) is not None:
            raise KeyExistsError(key)
        revision = self.revision + 1
        return self._commit(EventType.PUT, KeyValue(key, value, revision, revision), None)

    def update(self, key: str, value: bytes, *, mod_revision: int) -> int:
        prev = self._guard(key, mod_revision)
        kv = KeyValue(key, value, prev.create_revision, self.revision + 1)
        return self._commit(EventType.PUT, kv, prev)

    def delete(self, key: str, *, mod_revision: int) -> int:
        prev = self._guard(key, mod_revision)
        kv = KeyValue(key, b"", prev.create_revision, self.revision + 1)
        return self._commit(EventType.DELETE, kv, prev)

    def _guard(self, key: str, expected: int) -> KeyValue:
        current = self.latest(key)
        if current is None:
            if expected == 0:
                raise KeyNotFoundError(key)
            raise RevisionMismatchError(key, expected, None)
        if expected not in (0, current.mod_revision):  # 0 means unguarded
            raise RevisionMismatchError(key, expected, current)
        return current

    def _commit(self, kind: EventType, kv: KeyValue, prev: KeyValue | None) -> int:
        snapshot = dict(self.snapshots[-1])
        if kind is EventType.DELETE:
            del snapshot[kv.key]
        else:
            snapshot[kv.key] = kv
        self.snapshots.append(snapshot)
        self.events.append(Event(kind, kv, prev))
        return kv.mod_revision

    # -- reads -------------------------------------------------------------------------------------

    def resolve(self, revision: int) -> int:
        """The revision a read at `revision` is served at, or the error the store must raise."""
        if revision == 0:
            return self.revision
        if revision > self.revision:
            raise FutureRevisionError(revision, self.revision)
        if revision < self.compact_revision:
            raise CompactedError(revision, self.compact_revision)
        return revision

    def get(self, key: str, *, revision: int = 0) -> KeyValue | None:
        return self.snapshots[self.resolve(revision)].get(key)

    def range(self, prefix: str, *, start_after: str = "", limit: int = 0, revision: int = 0) -> RangeResult:
        at = self.resolve(revision)
        snapshot = self.snapshots[at]
        keys = sorted(key for key in snapshot if key.startswith(prefix) and key > start_after)
        page = keys[:limit] if limit else keys
        return RangeResult([snapshot[key] for key in page], at, len(page) < len(keys))

    def events_after(self, prefix: str, revision: int) -> list[Event]:
        if revision < self.compact_revision:
            raise CompactedError(revision, self.compact_revision)
        return [e for e in self.events[max(revision - self.start, 0) :] if e.kv.key.startswith(prefix)]

    # -- compaction --------------------------------------------------------------------------------

    def retained_versions(self) -> int:
        """Versions a store must still hold: the live keys at the compaction point, then every write."""
        point = self.compact_revision
        return len(self.snapshots[point]) + (self.revision - point)

    def compact(self, revision: int) -> int:
        target = min(revision, self.revision)
        if target <= self.compact_revision:
            return 0
        before = self.retained_versions()
        self.compact_revision = target
        return before - self.retained_versions()
