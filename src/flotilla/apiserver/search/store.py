"""The search cache: every cached kind's objects per cluster, one revision counter, and change history.

`SearchCache` numbers every change to any cached object with one revision, as etcd numbers writes:
a list's resourceVersion is the revision it saw, each object's is the revision of its last change,
and a watch from revision N replays the changes after N that its kind's bounded history still holds
(an older N is 410 Expired, and clients relist). Pure state and no I/O: the reflectors
(`reflector.py`) feed it, the handlers (`handlers.py`) read it; both run on the event loop.

Storing an object whose cached form did not change (a member relisted, or rewrote only its
`managedFields`) is not a change: it keeps its revision and no watcher hears of it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import orjson

from flotilla.apiserver.search.compact import (
    DICTIONARY_SAMPLES,
    Codec,
    Entry,
    cached_form,
    flat_labels,
    selectable_values,
)
from flotilla.apiserver.search.kinds import CachedKind, split_key
from flotilla.apiserver.search.objects import ClusterObjects
from flotilla.apiserver.search.watchers import Change, Watcher

HISTORY = 10_000
"""Changes per kind kept for watches that resume from a revision."""


class Revisions:
    """The cache's revision counter, shared by every kind."""

    __slots__ = ("current",)

    def __init__(self) -> None:
        self.current = 0

    def next(self) -> int:
        self.current += 1
        return self.current


class ResourceCache:
    """Every selected cluster's objects of one kind, its codec, its change history and its watchers."""

    def __init__(self, kind: CachedKind, revisions: Revisions, *, history: int = HISTORY) -> None:
        self.kind = kind
        self.revisions = revisions
        self.clusters: dict[str, ClusterObjects] = {}
        self.codec: Codec | None = None
        self.history: deque[Change] = deque(maxlen=history)
        self.compacted_through = revisions.current
        """The history holds every change after this revision."""
        self.watchers: set[Watcher] = set()

    # -- reading -------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return sum(len(objects) for objects in self.clusters.values())

    def cluster_names(self) -> list[str]:
        return sorted(self.clusters)

    def objects(self, cluster: str) -> ClusterObjects | None:
        return self.clusters.get(cluster)

    def encoded_bytes(self) -> int:
        """The compressed JSON the cache holds for this kind (what the objects cost before overhead)."""
        return sum(
            len(entry.blob) for objects in self.clusters.values() for entry in objects.entries.values()
        )

    def changes_after(self, revision: int) -> Iterator[Change]:
        """The changes after `revision`, oldest first (the caller checked `compacted_through`)."""
        for change in self.history:
            if change.revision > revision:
                yield change

    # -- writing -------------------------------------------------------------------------------------

    def store(self, cluster: str, items: Sequence[Mapping[str, Any]]) -> list[str]:
        """Cache `items` of `cluster` (listed or watched objects, decoded); their keys, in order.

        The first objects the kind ever receives make its codec's dictionary."""
        objects = self.clusters.get(cluster)
        if objects is None:
            objects = self.clusters[cluster] = ClusterObjects()
        shown = [cached_form(item, cluster) for item in items]
        encoded = [orjson.dumps(obj) for obj in shown]
        codec = self.codec
        if codec is None:
            if not encoded:
                return []
            codec = self.codec = Codec.trained(encoded[:DICTIONARY_SAMPLES])
        kind = self.kind
        keys = []
        for obj, raw in zip(shown, encoded, strict=True):
            metadata = obj["metadata"]
            key = kind.key(str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
            keys.append(key)
            entry = Entry(
                codec.compress(raw),
                flat_labels(obj),
                selectable_values(obj, kind.field_labels, namespaced=kind.namespaced, custom=kind.custom),
                0,
            )
            previous = objects.get(key)
            if previous is not None and previous.same_content(entry):
                continue
            entry.revision = self.revisions.next()
            objects.put(key, entry)
            self._record(Change(cluster, key, entry, previous, deleted=False))
        return keys

    def delete(self, cluster: str, key: str) -> bool:
        objects = self.clusters.get(cluster)
        previous = objects.remove(key) if objects is not None else None
        if previous is None:
            return False
        tombstone = Entry(previous.blob, previous.labels, previous.fields, self.revisions.next())
        self._record(Change(cluster, key, tombstone, previous, deleted=True))
        return True

    def delete_missing(self, cluster: str, present: Iterable[str], namespace: str = "") -> int:
        """Delete `cluster`'s objects (of `namespace`, or all) whose keys are not among `present`."""
        objects = self.clusters.get(cluster)
        if objects is None:
            return 0
        kept = set(present)
        gone = [key for key in objects.keys_in(namespace) if key not in kept]
        for key in gone:
            self.delete(cluster, key)
        return len(gone)

    def drop(self, cluster: str, keep_namespaces: frozenset[str] | None = None) -> int:
        """Forget `cluster`'s objects (those outside `keep_namespaces` when given), each a deletion."""
        objects = self.clusters.get(cluster)
        if objects is None:
            return 0
        gone = [
            key
            for key in objects.sorted_keys()
            if keep_namespaces is None or split_key(key)[0] not in keep_namespaces
        ]
        for key in gone:
            self.delete(cluster, key)
        if keep_namespaces is None:
            del self.clusters[cluster]
        return len(gone)

    def mark_listed(self, cluster: str) -> None:
        objects = self.clusters.get(cluster)
        if objects is None:
            objects = self.clusters[cluster] = ClusterObjects()
        objects.listed = True

    def _record(self, change: Change) -> None:
        history = self.history
        if history.maxlen is not None and len(history) == history.maxlen:
            self.compacted_through = history[0].revision
        history.append(change)
        for watcher in self.watchers:
            watcher.offer(change)


class SearchCache:
    """Every cached kind, by (group, version, plural)."""

    def __init__(self, *, history: int = HISTORY) -> None:
        self.revisions = Revisions()
        self._history = history
        self.resources: dict[tuple[str, str, str], ResourceCache] = {}

    @property
    def revision(self) -> int:
        return self.revisions.current

    def lookup(self, group: str, version: str, plural: str) -> ResourceCache | None:
        return self.resources.get((group, version, plural))

    def resource(self, kind: CachedKind) -> ResourceCache:
        """The cache of `kind`, created empty on first use."""
        key = (kind.group, kind.version, kind.plural)
        found = self.resources.get(key)
        if found is None:
            found = self.resources[key] = ResourceCache(kind, self.revisions, history=self._history)
        return found

    def object_count(self) -> int:
        return sum(len(resource) for resource in self.resources.values())

    def encoded_bytes(self) -> int:
        return sum(resource.encoded_bytes() for resource in self.resources.values())
