"""Objects of one kind by the uid of their controller: what a workload controller owns, without a scan.

A simulated Deployment, ReplicaSet, Job, DaemonSet or StatefulSet controller re-reads everything
it owns on every reconcile. Filtering a whole namespace for that makes a cluster with a thousand
Deployments quadratic (each reconcile scans a thousand ReplicaSets, each ReplicaSet reconcile
every pod). kube's controllers use informer indexes for the same reason; this is ours for the
in-process client: built from the watch cache in one pass on first use, then kept current by the
cache's events, which arrive synchronously as each change is applied — so a controller woken by
an event already finds the index up to date.

Objects without a controller reference (orphans, which controllers may adopt) are indexed under
the empty uid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.objects import controller_of
from flotilla.apiserver.store.watchcache import CachedObject, CacheEvent


def controller_uid(obj: Mapping[str, Any]) -> str:
    """The uid in the object's `controller: true` owner reference ("" when it has none)."""
    reference = controller_of(obj)
    return str(reference.get("uid") or "") if reference is not None else ""


class ControllerIndex:
    """Cached objects under one storage prefix, grouped by (namespace, controller uid)."""

    def __init__(self, prefix: str, items: Iterable[CachedObject]) -> None:
        self._prefix = prefix
        self._groups: dict[tuple[str, str], dict[str, CachedObject]] = {}
        self._group_of: dict[str, tuple[str, str]] = {}
        for item in items:
            self._add(item)

    def apply(self, event: CacheEvent) -> None:
        """Follow one change of the cache (changes outside the prefix are ignored)."""
        key = event.object.key
        if not key.startswith(self._prefix):
            return
        self._remove(key)
        if event.type != "DELETED":
            self._add(event.object)

    def objects(self, namespace: str, uid: str) -> list[dict[str, Any]]:
        """The objects of `namespace` controlled by `uid` ("" for orphans), in key order; read-only."""
        group = self._groups.get((namespace, uid))
        if not group:
            return []
        return [group[key].obj for key in sorted(group)]

    def _add(self, item: CachedObject) -> None:
        group = (item.namespace, controller_uid(item.obj))
        self._groups.setdefault(group, {})[item.key] = item
        self._group_of[item.key] = group

    def _remove(self, key: str) -> None:
        group = self._group_of.pop(key, None)
        if group is None:
            return
        members = self._groups.get(group)
        if members is not None:
            members.pop(key, None)
            if not members:
                del self._groups[group]
