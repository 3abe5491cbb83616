"""A page of a cross-cluster list: objects in (cluster, namespace, name) order after a continue point.

A continue token (the API server's own format, `http/handlers/params.py`) carries the revision the
list began at and the last `cluster/key` it returned. Later pages read the cache as it is when they
are asked for, not as it was at the first page: the cache keeps no snapshots (that would cost the
memory it exists to save), so an object changed between two pages is listed as it is now, one
created before the continue point is missed, and none is listed twice. kube-apiserver gives the same
answer for a continue token whose revision it has compacted away, with `resourceVersionMatch`
unset; the list's resourceVersion stays the first page's, so a watch started from it replays
everything since.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from flotilla.apiserver.search.compact import Entry
from flotilla.apiserver.search.selection import Query
from flotilla.apiserver.search.store import ResourceCache


@dataclass(frozen=True, slots=True)
class Item:
    cluster: str
    key: str
    entry: Entry


@dataclass(frozen=True, slots=True)
class Page:
    items: list[Item]
    last: str
    """`cluster/key` of the last item when more may follow (the continue point), else ""."""


def continue_point(cluster: str, key: str) -> str:
    return f"{cluster}/{key}"


def split_continue_point(point: str) -> tuple[str, str]:
    """(cluster, key) of a continue point; cluster names are DNS labels, so the first `/` ends one."""
    cluster, _, key = point.partition("/")
    return cluster, key


def list_page(cache: ResourceCache, query: Query, *, limit: int = 0, after: str = "") -> Page:
    """The matching objects after `after` (a continue point), at most `limit` of them (0: all)."""
    start_cluster, start_key = split_continue_point(after) if after else ("", "")
    items: list[Item] = []
    for cluster in cache.cluster_names():
        if cluster < start_cluster:
            continue
        objects = cache.objects(cluster)
        if objects is None:
            continue
        keys = query.candidates(objects)
        if cluster == start_cluster and start_key:
            keys = keys[bisect_right(keys, start_key) :]
        entries = objects.entries
        for key in keys:
            entry = entries.get(key)
            if entry is None or not query.matches(key, entry):
                continue
            if limit and len(items) == limit:
                last = items[-1]
                return Page(items, continue_point(last.cluster, last.key))
            items.append(Item(cluster, key, entry))
    return Page(items, "")
