"""Bodies the search API answers with: lists of cached JSON, tables with a CLUSTER column, watch frames.

A list body is the cached objects' JSON (inflated, resourceVersion filled in, nothing decoded) joined
between a header and a footer, as the API server's own lists are (`http/views.py`). Tables and
metadata-only views need the objects decoded: they are built by the API server's own table printers
(`http/views.py`, the hub's printer columns for the kind), with a CLUSTER column first, so
`kubectl get` through the search API says where each row lives.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson

from flotilla.api.scheme import ResourceType
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.http import views
from flotilla.apiserver.http.content import Negotiated, View
from flotilla.apiserver.registry.resources import ServedResource, builtin_served
from flotilla.apiserver.search.compact import Codec
from flotilla.apiserver.search.kinds import CachedKind, split_key
from flotilla.apiserver.search.listing import Item
from flotilla.apiserver.store.cachedobjects import CachedObject

CLUSTER_COLUMN = {
    "name": "Cluster",
    "type": "string",
    "format": "",
    "description": "The member cluster the object is cached from.",
    "priority": 0,
}


def served_for(ctx: APIContext, kind: CachedKind) -> ServedResource:
    """The hub's own description of the kind (printer columns), or a default one for a member-only kind."""
    served = ctx.registry.lookup(kind.group, kind.version, kind.plural)
    if served is not None:
        return served
    resource = ResourceType(
        group=kind.group,
        version=kind.version,
        kind=kind.kind,
        plural=kind.plural,
        singular=kind.kind.lower(),
        namespaced=kind.namespaced,
        verbs=("get", "list", "watch"),
    )
    return builtin_served(resource)


def list_body(kind: CachedKind, raws: Sequence[bytes], revision: int, continue_token: str = "") -> bytes:
    meta: dict[str, Any] = {"resourceVersion": str(revision)}
    if continue_token:
        meta["continue"] = continue_token
    head = orjson.dumps({"kind": kind.list_kind, "apiVersion": kind.api_version, "metadata": meta})
    return head[:-1] + b',"items":[' + b",".join(raws) + b"]}"


def cached_object(codec: Codec, item: Item) -> CachedObject:
    """An item as the API server's views take objects (decoded)."""
    namespace, name = split_key(item.key)
    return CachedObject(item.key, namespace, name, item.entry.revision, codec.decode(item.entry))


def with_cluster_column(table: dict[str, Any], clusters: Sequence[str]) -> dict[str, Any]:
    """`table` with a CLUSTER column first (its definition only where the table has definitions)."""
    if table.get("columnDefinitions") is not None:
        table["columnDefinitions"] = [CLUSTER_COLUMN, *table["columnDefinitions"]]
    for row, cluster in zip(table["rows"], clusters, strict=True):
        row["cells"] = [cluster, *row["cells"]]
    return table


def view_body(
    served: ServedResource,
    codec: Codec | None,
    items: Sequence[Item],
    negotiated: Negotiated,
    *,
    now: datetime,
    include_object: str,
    revision: int | None,
    continue_token: str = "",
    with_headers: bool = True,
) -> dict[str, Any]:
    """A Table (with the CLUSTER column) or a PartialObjectMetadataList of `items`."""
    objects = [cached_object(codec, item) for item in items] if codec is not None else []
    if negotiated.view is View.TABLE:
        table = views.table(
            served,
            objects,
            now=now,
            include_object=include_object,
            meta_version=negotiated.meta_version,
            revision=revision,
            continue_token=continue_token,
            with_headers=with_headers,
        )
        return with_cluster_column(table, [item.cluster for item in items])
    return views.partial_metadata_list(objects, revision or 0, continue_token, negotiated.meta_version)


def frame(event_type: str, raw: bytes) -> bytes:
    """One watch event line."""
    return b'{"type":"' + event_type.encode() + b'","object":' + raw + b"}\n"
