"""`ObjectKey`: which object, as one value — its namespace and its name (controller-runtime's key).

Namespace and name are both plain strings, so a pair of them is easy to swap unnoticed. A work queue,
an informer's cache and a reconciler pass an object's identity around as one `ObjectKey` instead of
a tuple or a `"namespace/name"` string: the fields are named, the type is checked, and printed it
reads as kubectl writes it. A cluster-scoped object has the empty namespace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.objects import metadata_of


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
