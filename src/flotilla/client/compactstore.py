"""A compact informer's objects, by key: their JSON, with the recently used also decoded.

An informer of a big kind holds every object for as long as it runs. As decoded dicts those cost
about six times their JSON: a Work of 3 KB of JSON takes 17 KB as a dict. `CompactStore` keeps each
object as the JSON bytes it encodes to, and the `hot` most recently read or written decoded in an
LRU: a controller's reconcile reads the object its event just brought, which is hot, and reading a
cold one costs one decode (about 15 µs for 3 KB). Scans (`peek`) decode without warming, so a list
of a namespace does not push the working set out. Objects read from it are shared and read-only,
as an informer's always were.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, MutableMapping
from typing import Any

import orjson

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import compact_json

Object = dict[str, Any]

DEFAULT_HOT = 2048


class CompactStore(MutableMapping[ObjectKey, Object]):
    """Objects by key, kept as JSON bytes; the `hot` most recently used also as dicts."""

    def __init__(self, hot: int = DEFAULT_HOT) -> None:
        self._encoded: dict[ObjectKey, bytes] = {}
        self._hot: OrderedDict[ObjectKey, Object] = OrderedDict()
        self._limit = hot

    def __getitem__(self, key: ObjectKey) -> Object:
        hot = self._hot.get(key)
        if hot is not None:
            self._hot.move_to_end(key)
            return hot
        obj: Object = orjson.loads(self._encoded[key])
        self._warm(key, obj)
        return obj

    def get(self, key: ObjectKey, default: Any = None) -> Any:  # Mapping.get, without its exception
        if key in self._encoded:
            return self[key]
        return default

    def load(self, key: ObjectKey, obj: Object) -> None:
        """Store `obj` without making it hot (a relist: reading it is what makes it hot)."""
        self._encoded[key] = compact_json(obj)
        self._hot.pop(key, None)

    def peek(self, key: ObjectKey) -> Object:
        """The object of `key`, decoded if it is not hot, without making it hot."""
        hot = self._hot.get(key)
        if hot is not None:
            return hot
        decoded: Object = orjson.loads(self._encoded[key])
        return decoded

    def __setitem__(self, key: ObjectKey, obj: Object) -> None:
        self._encoded[key] = compact_json(obj)
        self._warm(key, obj)

    def __delitem__(self, key: ObjectKey) -> None:
        del self._encoded[key]
        self._hot.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._encoded

    def __iter__(self) -> Iterator[ObjectKey]:
        return iter(self._encoded)

    def __len__(self) -> int:
        return len(self._encoded)

    def _warm(self, key: ObjectKey, obj: Object) -> None:
        hot = self._hot
        if key in hot:
            hot.move_to_end(key)
        hot[key] = obj
        if len(hot) > self._limit:
            hot.popitem(last=False)
