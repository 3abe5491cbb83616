"""One member object as the search cache keeps it: compressed JSON, with what selectors read kept apart.

Memory is the point of the cache (Karmada's search keeps about 70 KB per pod; the goal here is 2 KB).
An object is kept as the JSON the search API answers with — without `managedFields` and the
`last-applied-configuration` annotation, which nobody searches and which are often half an object,
and with the `cached-from-cluster` annotation already in place — deflated with a preset dictionary
(`Codec`): objects of one kind repeat the same keys and most of the same values, so a dictionary
made of a few of them lets each compress to a fraction of what it would alone (a pod of 2-3 KB of
JSON to a few hundred bytes). Labels (a flat tuple of interned strings) and the values of the kind's
selectable fields (interned too) sit beside the bytes, so selectors never decompress anything.

The object's `metadata.resourceVersion` is the cache's own revision of that version of it (a
member's revisions mean nothing across clusters). The stored JSON starts its metadata with an
empty one, which `Codec.render` fills in with one bytes replacement: answering costs an inflate and
no JSON decoding.
"""

from __future__ import annotations

import sys
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import orjson

from flotilla.api.fieldselectors import field_values
from flotilla.api.karmada.search import CACHED_FROM_CLUSTER_ANNOTATION

TRIMMED_ANNOTATIONS = frozenset({"kubectl.kubernetes.io/last-applied-configuration"})
WINDOW_BITS = 13
DICTIONARY_BYTES = 1 << WINDOW_BITS
"""The dictionary fills deflate's window (8 KB: four pods or so). A 32 KB one compresses pods no better,
and each object's compressor (a copy of the primed one) would then be 256 KB of C heap instead of
about 50 KB: allocated and freed per object, such blocks leave the heap fragmented for good."""
DICTIONARY_SAMPLES = 16
"""Objects a kind's dictionary is made of (the first ones the cache receives)."""
LEVEL = 6
_WINDOW_BITS = -WINDOW_BITS  # raw deflate: no zlib header or checksum on each of many small objects
_MEMORY_LEVEL = 5
_REVISION_SLOT = b'"metadata":{"resourceVersion":""'
_REVISION_SLOT_START = b'"metadata":{"resourceVersion":"'

Object = dict[str, Any]


def cached_form(obj: Mapping[str, Any], cluster: str) -> Object:
    """The object as the search API shows it, with an empty resourceVersion first in its metadata.

    Keys come in the order `apiVersion`, `kind`, `metadata`, then the rest, so the resourceVersion
    slot is the first `"metadata":{"resourceVersion":""` of the JSON."""
    metadata = obj.get("metadata")
    meta: Object = {"resourceVersion": ""}
    if isinstance(metadata, Mapping):
        for key, value in metadata.items():
            if key not in ("resourceVersion", "managedFields", "annotations"):
                meta[key] = value
        annotations = metadata.get("annotations")
        kept = (
            {k: v for k, v in annotations.items() if k not in TRIMMED_ANNOTATIONS}
            if isinstance(annotations, Mapping)
            else {}
        )
        kept[CACHED_FROM_CLUSTER_ANNOTATION] = cluster
        meta["annotations"] = kept
    else:
        meta["annotations"] = {CACHED_FROM_CLUSTER_ANNOTATION: cluster}
    shown: Object = {"apiVersion": obj.get("apiVersion", ""), "kind": obj.get("kind", ""), "metadata": meta}
    for key, value in obj.items():
        if key not in shown:
            shown[key] = value
    return shown


class Codec:
    """Raw deflate with one kind's preset dictionary: `compress` when caching, `render` when answering."""

    __slots__ = ("_compressor", "_decompressor", "dictionary")

    def __init__(self, dictionary: bytes = b"") -> None:
        self.dictionary = dictionary[-DICTIONARY_BYTES:]
        strategy = zlib.Z_DEFAULT_STRATEGY
        if self.dictionary:
            self._compressor = zlib.compressobj(
                LEVEL, zlib.DEFLATED, _WINDOW_BITS, _MEMORY_LEVEL, strategy, self.dictionary
            )
            self._decompressor = zlib.decompressobj(_WINDOW_BITS, self.dictionary)
        else:
            self._compressor = zlib.compressobj(LEVEL, zlib.DEFLATED, _WINDOW_BITS, _MEMORY_LEVEL, strategy)
            self._decompressor = zlib.decompressobj(_WINDOW_BITS)

    @classmethod
    def trained(cls, samples: Iterable[bytes]) -> Codec:
        """A codec whose dictionary is made of `samples` (the JSON of a few objects of the kind)."""
        chosen = list(samples)[:DICTIONARY_SAMPLES]
        return cls(b"".join(reversed(chosen)))  # the first sample nearest the end, where deflate looks first

    def compress(self, raw: bytes) -> bytes:
        # Copying a compressor primed with the dictionary skips hashing the 32 KB dictionary again.
        compressor = self._compressor.copy()
        return compressor.compress(raw) + compressor.flush()

    def decompress(self, blob: bytes) -> bytes:
        decompressor = self._decompressor.copy()
        return decompressor.decompress(blob) + decompressor.flush()

    def render(self, entry: Entry) -> bytes:
        """The JSON the search API answers with for `entry`, its resourceVersion filled in."""
        raw = self.decompress(entry.blob)
        return raw.replace(_REVISION_SLOT, _REVISION_SLOT_START + str(entry.revision).encode() + b'"', 1)

    def decode(self, entry: Entry) -> Object:
        decoded: Object = orjson.loads(self.render(entry))
        return decoded


class Entry:
    """One cached object: its compressed JSON, its labels and selectable field values, its revision."""

    __slots__ = ("blob", "fields", "labels", "revision")

    def __init__(self, blob: bytes, labels: tuple[str, ...], fields: tuple[str, ...], revision: int) -> None:
        self.blob = blob
        self.labels = labels
        """Keys and values in turn, sorted by key: `("app", "web", "tier", "front")`."""
        self.fields = fields
        """The values of the kind's selectable fields beyond name and namespace, in the kind's order."""
        self.revision = revision

    def label_map(self) -> dict[str, str]:
        labels = self.labels
        return dict(zip(labels[::2], labels[1::2], strict=True))

    def same_content(self, other: Entry) -> bool:
        return self.blob == other.blob


def flat_labels(obj: Mapping[str, Any]) -> tuple[str, ...]:
    """The object's labels as interned keys and values in turn, sorted by key."""
    metadata = obj.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    if not isinstance(labels, Mapping) or not labels:
        return ()
    flat: list[str] = []
    for key in sorted(labels):
        value = labels[key]
        flat.append(sys.intern(str(key)))
        flat.append(sys.intern(value if isinstance(value, str) else str(value)))
    return tuple(flat)


def selectable_values(
    obj: Mapping[str, Any], field_labels: Sequence[str], *, namespaced: bool, custom: bool
) -> tuple[str, ...]:
    """The values of `field_labels` (a pod's `spec.nodeName`, `status.phase`...) as kube derives them."""
    if not field_labels:
        return ()
    values = field_values(obj, field_labels, namespaced, custom_resource=custom)
    return tuple(sys.intern(values.get(label, "")) for label in field_labels)


def encode(codec: Codec, shown: Object) -> bytes:
    """The compressed JSON of an object in its `cached_form`."""
    return codec.compress(orjson.dumps(shown))
