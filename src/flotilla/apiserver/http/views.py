"""Response bodies: objects, lists, tables and metadata-only views, encoded with as few copies as possible.

Cached objects already hold their JSON, so a list body is the cached bytes joined between a header
and a footer, and a GET answers with the cached bytes as they are. Tables and
PartialObjectMetadata views build their rows from the decoded dicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import orjson

from flotilla.apiserver.http.content import Negotiated, View
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.registry.tables import pod_row_conditions
from flotilla.apiserver.store.watchcache import CachedObject


def list_body(
    served: ServedResource,
    items: Sequence[CachedObject],
    revision: int,
    continue_token: str = "",
    remaining: int | None = None,
) -> bytes:
    meta: dict[str, Any] = {"resourceVersion": str(revision)}
    if continue_token:
        meta["continue"] = continue_token
        if remaining is not None:
            meta["remainingItemCount"] = remaining
    head = orjson.dumps(
        {"kind": served.type.list_kind_name, "apiVersion": served.type.api_version, "metadata": meta}
    )
    return head[:-1] + b',"items":[' + b",".join(item.raw for item in items) + b"]}"


def partial_metadata(obj: dict[str, Any], meta_version: str) -> dict[str, Any]:
    return {
        "kind": "PartialObjectMetadata",
        "apiVersion": f"meta.k8s.io/{meta_version}",
        "metadata": obj.get("metadata") or {},
    }


def partial_metadata_list(
    items: Sequence[CachedObject], revision: int, continue_token: str, meta_version: str
) -> dict[str, Any]:
    meta: dict[str, Any] = {"resourceVersion": str(revision)}
    if continue_token:
        meta["continue"] = continue_token
    return {
        "kind": "PartialObjectMetadataList",
        "apiVersion": f"meta.k8s.io/{meta_version}",
        "metadata": meta,
        "items": [partial_metadata(item.obj, meta_version) for item in items],
    }


def table(
    served: ServedResource,
    items: Sequence[CachedObject],
    *,
    now: datetime,
    include_object: str,
    meta_version: str,
    revision: int | None = None,
    continue_token: str = "",
    with_headers: bool = True,
) -> dict[str, Any]:
    """A meta.k8s.io Table of the items, with the kind's printer columns."""
    convertor = served.table
    meta: dict[str, Any] = {}
    if revision is not None:
        meta["resourceVersion"] = str(revision)
    if continue_token:
        meta["continue"] = continue_token
    body: dict[str, Any] = {
        "kind": "Table",
        "apiVersion": f"meta.k8s.io/{meta_version}",
        "metadata": meta,
        "columnDefinitions": [c.to_json() for c in convertor.columns] if with_headers else None,
        "rows": [table_row(convertor, item, now, include_object, meta_version) for item in items],
    }
    return body


def table_row(
    convertor: Any, item: CachedObject, now: datetime, include_object: str, meta_version: str
) -> dict[str, Any]:
    obj = item.obj  # once: a retired object decodes on each read
    row: dict[str, Any] = {"cells": convertor.cells(obj, now)}
    if obj.get("kind") == "Pod" and obj.get("apiVersion") == "v1":
        conditions = pod_row_conditions(obj)  # a finished pod's row is marked Completed, as kube's
        if conditions:
            row["conditions"] = conditions
    if include_object == "Object":
        row["object"] = obj
    elif include_object != "None":
        row["object"] = partial_metadata(obj, meta_version)
    return row


def render_object(
    item: CachedObject, served: ServedResource, negotiated: Negotiated, now: datetime, include_object: str
) -> Any:
    """A single object in the negotiated view (None view means: send `item.raw`)."""
    if negotiated.view is View.TABLE:
        return table(
            served, [item], now=now, include_object=include_object, meta_version=negotiated.meta_version
        )
    if negotiated.view in (View.METADATA, View.METADATA_LIST):
        return partial_metadata(item.obj, negotiated.meta_version)
    return None
