"""`ObjectKey`: which object, as one value — its namespace and its name (controller-runtime's key).
`KindKey` adds the kind, for the queues of controllers that serve several kinds at once.

Namespace and name are both plain strings, so a pair of them is easy to swap unnoticed. A work queue,
an informer's cache and a reconciler pass an object's identity around as one `ObjectKey` instead of
a tuple or a `"namespace/name"` string: the fields are named, the type is checked, and printed it
reads as kubectl writes it. A cluster-scoped object has the empty namespace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind


@dataclass(frozen=True, slots=True, order=True)
class ObjectKey:
    namespace: str
    name: str

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> ObjectKey:
        """The key of an object from its metadata (missing parts are empty)."""
        metadata = metadata_of(obj)
        return cls(str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))

    def __str__(self) -> str:
        """`namespace/name`, or the name alone for a cluster-scoped object (client-go's cache key)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


@dataclass(frozen=True, slots=True)
class KindKey:
    """An object of a given kind: the key of a queue that holds objects of several kinds.

    A controller whose queue holds keys of different meaning (templates and the policies being
    deleted, say) subclasses it once per meaning and tells them apart by type.
    """

    gvk: GroupVersionKind
    namespace: str
    name: str

    @classmethod
    def of(cls, gvk: GroupVersionKind, obj: Mapping[str, Any]) -> Self:
        """The key of an object of kind `gvk` from its metadata (missing parts are empty)."""
        metadata = metadata_of(obj)
        return cls(gvk, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))

    def __str__(self) -> str:
        """The kind, then `namespace/name` (or the name alone when cluster-scoped)."""
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.gvk.kind} {where}"
