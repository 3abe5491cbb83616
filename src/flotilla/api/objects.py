"""Reading the standard parts of an object held as decoded JSON.

Controllers and the CLI handle objects of any kind as plain dicts, straight from the wire or from a
user's file, so a part may be missing or, in a malformed manifest, not an object at all. These
accessors answer an empty mapping then, which every caller treats as "nothing set". `copy_object`
gives a writer its own copy of such data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import orjson

_EMPTY: Mapping[str, Any] = {}
T = TypeVar("T")


def metadata_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """`obj.metadata`, or an empty mapping when it is missing or not an object."""
    metadata = obj.get("metadata")
    return metadata if isinstance(metadata, Mapping) else _EMPTY


def spec_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """`obj.spec`, or an empty mapping when it is missing or not an object."""
    spec = obj.get("spec")
    return spec if isinstance(spec, Mapping) else _EMPTY


def controller_of(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The owner reference marked `controller: true` (at most one per object), if any."""
    for reference in metadata_of(obj).get("ownerReferences") or ():
        if isinstance(reference, Mapping) and reference.get("controller") is True:
            return reference
    return None


def compact_json(value: Any) -> bytes:
    """The JSON of decoded `value` in a bytes object of its own size, for a cache to keep.

    orjson leaves its output in the buffer it grew while writing: about 8 KB of memory for 3 KB of
    JSON. Copying it once (about a microsecond) makes kept bytes cost what they hold.
    """
    return bytes(memoryview(orjson.dumps(value)))


def copy_object(value: T) -> T:
    """A private deep copy of decoded JSON (an object, a list or any part of one) for a writer to
    change: an orjson round trip, several times cheaper than `copy.deepcopy` on the same data."""
    copied: T = orjson.loads(orjson.dumps(value))
    return copied
