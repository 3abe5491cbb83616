"""One cluster's cached objects of one kind: by key, in key order, and indexed by label.

A list of 1,000 pods selected by `app=web` among 100,000 must not test 100,000 label sets: each
label pair maps to the keys of the objects carrying it (one key held as itself, several as a set,
since most pairs of a big cluster are shared by many objects but a set costs 200 bytes), and the
query starts from the smallest posting its equality requirements name. Keys are kept sorted on
demand (re-sorted only after an object came or went, not when one changed) for paging and for a
namespace's range.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection

from flotilla.apiserver.search.compact import Entry

Pair = tuple[str, str]

_NAMESPACE_END = chr(ord("/") + 1)


class ClusterObjects:
    """The cached objects of one kind in one cluster."""

    __slots__ = ("_index", "_sorted", "entries", "listed")

    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self._sorted: list[str] | None = []
        self._index: dict[Pair, str | set[str]] = {}
        self.listed = False
        """Whether a first full list of the cluster's objects has reached the cache."""

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: str) -> Entry | None:
        return self.entries.get(key)

    def put(self, key: str, entry: Entry) -> Entry | None:
        """Store `entry` at `key`; the entry it replaces, if any."""
        previous = self.entries.get(key)
        if previous is None:
            self._sorted = None
        self.entries[key] = entry  # a replaced entry keeps the dict's key object, which the index holds
        if previous is None or previous.labels != entry.labels:
            if previous is not None:
                self._unindex(key, previous.labels)
            self._index_labels(key, entry.labels)
        return previous

    def remove(self, key: str) -> Entry | None:
        previous = self.entries.pop(key, None)
        if previous is not None:
            self._sorted = None
            self._unindex(key, previous.labels)
        return previous

    def sorted_keys(self) -> list[str]:
        keys = self._sorted
        if keys is None:
            keys = self._sorted = sorted(self.entries)
        return keys

    def keys_in(self, namespace: str) -> list[str]:
        """The keys of one namespace's objects, in order (every key when `namespace` is empty)."""
        keys = self.sorted_keys()
        if not namespace:
            return keys
        start = bisect_left(keys, namespace + "/")
        end = bisect_left(keys, namespace + _NAMESPACE_END, start)
        return keys[start:end]

    def labelled(self, key: str, value: str) -> Collection[str]:
        """The keys of the objects whose label `key` is `value`."""
        posting = self._index.get((key, value))
        if posting is None:
            return ()
        if isinstance(posting, str):
            return (posting,)
        return posting

    def _index_labels(self, key: str, labels: tuple[str, ...]) -> None:
        index = self._index
        for position in range(0, len(labels), 2):
            pair = (labels[position], labels[position + 1])
            posting = index.get(pair)
            if posting is None:
                index[pair] = key
            elif isinstance(posting, str):
                if posting != key:
                    index[pair] = {posting, key}
            else:
                posting.add(key)

    def _unindex(self, key: str, labels: tuple[str, ...]) -> None:
        index = self._index
        for position in range(0, len(labels), 2):
            pair = (labels[position], labels[position + 1])
            posting = index.get(pair)
            if posting is None:
                continue
            if isinstance(posting, str):
                if posting == key:
                    del index[pair]
                continue
            posting.discard(key)
            if len(posting) == 1:
                index[pair] = next(iter(posting))
            elif not posting:
                del index[pair]
