"""Objects as the watch cache serves them, and the committed changes that watchers receive.

A `CachedObject` is one stored version of an object: its dict (with resourceVersion), treated as
immutable — writers copy before changing — and its JSON encoding, made once on first use and shared
by every response and watcher. While it is a recently written version both forms are kept: writes
and selectors want the dict, responses the bytes. Once a newer version supersedes it (it only
serves the history of changes, which watchers receive as JSON), or it has not been written for a
while (the cache keeps the dicts of its most recent writes only), the cache `retire`s it to its
bytes alone: the most compact form — a decoded Deployment takes about 20 KB against 3.7 KB of
JSON — and the one whose size the history counts against its byte bound. A retired object keeps
its labels for label selectors, and still answers `obj` by decoding its bytes again, for the read
that needs a dict (a write's old object, a field selector).

A `CacheEvent` is one change as every watcher of its resource is offered it; watchers write
`frame_parts` of it, so the JSON of a change is never copied into a per-event frame that would
outlive the moment it is sent.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

import orjson

from flotilla.api.objects import compact_json
from flotilla.storage import KeyValue

EventKind = Literal["ADDED", "MODIFIED", "DELETED"]

_FRAME_HEADS: dict[str, bytes] = {
    kind: b'{"type":"' + kind.encode() + b'","object":' for kind in ("ADDED", "MODIFIED", "DELETED")
}
_FRAME_TAIL = b"}\n"


class StorageTransformer(Protocol):
    """Changes the stored bytes of the keys under its prefixes (encryption at rest).

    `applies_to` must be cheap for keys it does not transform: it runs on every stored value.
    """

    def applies_to(self, key: str) -> bool: ...

    def to_storage(self, key: str, value: bytes) -> bytes: ...

    def from_storage(self, key: str, value: bytes) -> bytes: ...


class CachedObject:
    """One stored object as served: its dict (with resourceVersion) and lazily its JSON bytes.

    `created` is the revision that created the object (0 when not known, as for a dry run).
    """

    __slots__ = ("_labels", "_obj", "_raw", "created", "key", "name", "namespace", "revision")

    def __init__(
        self, key: str, namespace: str, name: str, revision: int, obj: dict[str, Any], created: int = 0
    ) -> None:
        self.key = key
        self.namespace = namespace
        self.name = name
        self.revision = revision
        self._obj: dict[str, Any] | None = obj
        self.created = created
        self._raw: bytes | None = None
        self._labels: dict[str, Any] | None = None

    @property
    def obj(self) -> dict[str, Any]:
        obj = self._obj
        if obj is None:  # retired: its bytes are all that is kept; a fresh dict each time
            decoded: dict[str, Any] = orjson.loads(self._raw or b"{}")
            return decoded
        return obj

    @property
    def raw(self) -> bytes:
        raw = self._raw
        if raw is None:
            raw = self._raw = compact_json(self._obj)
        return raw

    @property
    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = self.obj.get("metadata") or {}
        return meta

    @property
    def labels(self) -> dict[str, Any] | None:
        """The object's labels (read-only), without decoding a retired object."""
        obj = self._obj
        if obj is None:
            return self._labels
        labels = (obj.get("metadata") or {}).get("labels")
        return labels if isinstance(labels, dict) else None

    @property
    def retired(self) -> bool:
        return self._obj is None

    def retire(self) -> None:
        """Keep only the JSON bytes and the labels: superseded, or not written for a while."""
        if self._obj is not None:
            if self._raw is None:
                self._raw = compact_json(self._obj)
            self._labels = self.labels or None
            self._obj = None

    def readable(self) -> CachedObject:
        """This object with its dict at hand: itself, or for a retired one a decoded copy (one check)."""
        if self._obj is not None:
            return self
        copy = CachedObject(self.key, self.namespace, self.name, self.revision, self.obj, self.created)
        copy._raw = self._raw
        return copy

    def copy(self) -> dict[str, Any]:
        """A private deep copy of the object, for a writer to change."""
        copied: dict[str, Any] = orjson.loads(self.raw)
        return copied

    def at_revision(self, revision: int) -> CachedObject:
        """The same object stamped with another resourceVersion (a deletion's final state)."""
        obj = dict(self.obj)
        obj["metadata"] = {**self.metadata, "resourceVersion": str(revision)}
        return CachedObject(self.key, self.namespace, self.name, revision, obj, self.created)


def decode(kv: KeyValue, transformer: StorageTransformer | None = None) -> CachedObject:
    """Turn a stored value into a served object: the store keeps objects without resourceVersion."""
    value = kv.value
    if transformer is not None and transformer.applies_to(kv.key):
        value = transformer.from_storage(kv.key, value)
    obj = orjson.loads(value)
    obj.setdefault("metadata", {})["resourceVersion"] = str(kv.mod_revision)
    namespace, name = split_key(kv.key)
    return CachedObject(kv.key, namespace, name, kv.mod_revision, obj, kv.create_revision)


def split_key(key: str) -> tuple[str, str]:
    """(namespace, name) of a key `/registry/<group>/<resource>/[<namespace>/]<name>`."""
    parts = key.split("/")
    if len(parts) == 6:
        return parts[4], parts[5]
    return "", parts[-1]


def bucket_prefix(key: str) -> str:
    parts = key.split("/", 4)
    return "/".join(parts[:4]) + "/"


class CacheEvent:
    """A committed change, shared by every watcher it is offered to.

    `size` is what the change costs the in-memory history: the stored bytes of the versions it holds.
    """

    __slots__ = ("object", "prev", "revision", "size", "type")

    def __init__(self, type: EventKind, obj: CachedObject, prev: CachedObject | None, size: int = 0) -> None:
        self.type = type
        self.object = obj
        self.prev = prev
        self.revision = obj.revision
        self.size = size


def frame_parts(kind: EventKind, obj: CachedObject) -> tuple[bytes, bytes, bytes]:
    """The newline-terminated JSON watch event of `obj`, in pieces for the writer to join."""
    return _FRAME_HEADS[kind], obj.raw, _FRAME_TAIL
