"""The search controller: runs one reflector per target the ResourceRegistries ask for, and their status.

An in-process controller of the hub's API server, fed by its watch cache: any change to a
ResourceRegistry or a Cluster reconciles one key, which plans the targets (`targets.py`), starts
the reflectors that are missing, stops those no longer wanted — dropping their objects from the
cache, as deletions its watchers see — and writes each registry's conditions (`status.py`). While
a reflector has yet to finish its first list, the key comes back every second so `Synced` turns
True soon after the cache is full.

Each member is read through this API server's cluster proxy on loopback, as the hub's admin: one
`Client` per member, whose server is `<hub>/apis/cluster.karmada.io/v1alpha1/clusters/<name>/proxy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
from typing import Any

import structlog

from flotilla.api.conditions import set_status_condition
from flotilla.api.karmada.constants import CLUSTER, CLUSTER_CONDITION_READY, CLUSTER_GROUP, CLUSTERS
from flotilla.api.karmada.search import RESOURCE_REGISTRY
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.http.filters import extra_fields
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.search.kinds import CachedKind
from flotilla.apiserver.search.reflector import Reflector
from flotilla.apiserver.search.status import backend_store_condition, synced_condition
from flotilla.apiserver.search.store import SearchCache
from flotilla.apiserver.search.targets import ALL_NAMESPACES, Target, plan
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.memoryrelease import release_now
from flotilla.apiserver.store.watchcache import CacheEvent
from flotilla.client import Client, ClusterConfig
from flotilla.client.discovery import ResourceInfo

log = structlog.get_logger("flotilla.apiserver.search")

MANAGER = "search-cache"
SYNCING_RECHECK = 1.0
RESYNC = 30.0


def proxy_server(hub: str, cluster: str) -> str:
    """The cluster proxy of `cluster` on the hub at `hub`, as a Kubernetes client's server URL."""
    return f"{hub.rstrip('/')}/apis/{CLUSTER_GROUP}/v1alpha1/{CLUSTERS.resource}/{cluster}/proxy"


def _not_ready(clusters: list[dict[str, Any]]) -> set[str]:
    names = set()
    for cluster in clusters:
        conditions = (cluster.get("status") or {}).get("conditions") or []
        ready = next((c for c in conditions if c.get("type") == CLUSTER_CONDITION_READY), None)
        if ready is None or ready.get("status") != "True":
            names.add(str((cluster.get("metadata") or {}).get("name") or ""))
    return names


class SearchController(CacheController):
    NAME = "search-cache"
    KEY = "resourceregistries"

    def __init__(self, ctx: APIContext, cache: SearchCache, hub: ClusterConfig) -> None:
        super().__init__(ctx.cache)
        self.ctx = ctx
        self.cache = cache
        self.hub = hub
        self.local = LocalClient(ctx, MANAGER)
        self._prefixes = tuple(
            self.local.resource(gvk).storage_prefix for gvk in (RESOURCE_REGISTRY, CLUSTER)
        )
        self.reflectors: dict[Target, tuple[Reflector, asyncio.Task[None]]] = {}
        self.clients: dict[str, Client] = {}
        self.not_ready: set[str] = set()
        self._listed = 0
        """Selected clusters that are not Ready: their objects are served as last seen."""

    def start(self) -> None:
        self.queue.add(self.KEY)
        super().start()

    def keys_for(self, event: CacheEvent) -> list[Any]:
        return [self.KEY] if event.object.key.startswith(self._prefixes) else []

    async def reconcile(self, key: Any) -> float | None:
        registries = self.local.list(RESOURCE_REGISTRY)
        clusters = self.local.list(CLUSTER)
        await self._run(plan(registries, clusters))
        self.not_ready = _not_ready(clusters)
        for registry in registries:
            await self._write_status(registry, clusters)
        syncing = any(not reflector.listed for reflector, _ in self.reflectors.values())
        listed = sum(reflector.listed for reflector, _ in self.reflectors.values())
        if listed != self._listed:
            # Lists just ended: their connections (and the megabytes of buffers a page of pods needs
            # on both ends of the proxy) are closed by now; give the freed heap back to the system.
            self._listed = listed
            release_now()
        return SYNCING_RECHECK if syncing else RESYNC

    def stale_clusters(self, cluster_names: list[str]) -> list[str]:
        """Of `cluster_names`, those whose objects may be out of date (not Ready, or not reachable)."""
        failing = {reflector.cluster for reflector, _ in self.reflectors.values() if reflector.error}
        return [name for name in cluster_names if name in self.not_ready or name in failing]

    # -- reflectors ----------------------------------------------------------------------------------

    def describe(self, info: ResourceInfo) -> CachedKind:
        """A member's kind, with the field labels the hub's registry gives it (none if the hub lacks it)."""
        served = self.ctx.registry.lookup(info.group, info.version, info.plural)
        labels = extra_fields(served) if served is not None else ()
        custom = served.custom is not None if served is not None else True
        return CachedKind(info.group, info.version, info.kind, info.plural, info.namespaced, labels, custom)

    def _new_client(self, cluster: str) -> Client:
        config = dataclasses.replace(self.hub, server=proxy_server(self.hub.server, cluster), endpoints=())
        return Client(config, field_manager=MANAGER, user_agent="flotilla-search")

    def _client(self, cluster: str) -> Client:
        """The member's client for discovery and watches (each list gets one of its own)."""
        client = self.clients.get(cluster)
        if client is None:
            client = self.clients[cluster] = self._new_client(cluster)
        return client

    async def _run(self, wanted: set[Target]) -> None:
        for target in sorted(wanted - self.reflectors.keys()):
            reflector = Reflector(
                target,
                self._client(target.cluster),
                self.cache,
                self.describe,
                functools.partial(self._new_client, target.cluster),
            )
            task = asyncio.create_task(reflector.run(), name=f"search-{target.cluster}-{target.gvk.kind}")
            self.reflectors[target] = (reflector, task)
        for target in sorted(self.reflectors.keys() - wanted):
            reflector, task = self.reflectors.pop(target)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            self._drop(reflector, wanted)
        for cluster in [name for name in self.clients if not any(t.cluster == name for t in self.reflectors)]:
            await self.clients.pop(cluster).close()

    def _drop(self, stopped: Reflector, wanted: set[Target]) -> None:
        """Forget what a stopped reflector cached that no remaining one covers."""
        resource = stopped.resource
        if resource is None:
            return
        cluster, gvk = stopped.target.cluster, stopped.target.gvk
        remaining = {t.namespace for t in wanted if t.cluster == cluster and t.gvk == gvk}
        if ALL_NAMESPACES in remaining:
            return
        dropped = resource.drop(cluster, frozenset(remaining) if remaining else None)
        log.info("search.dropped", cluster=cluster, kind=str(gvk), objects=dropped)

    def coverage(self, target: Target) -> tuple[bool, str]:
        """Whether the reflector serving `target` (its own, or its cluster's all-namespaces one) listed."""
        found = self.reflectors.get(target) or self.reflectors.get(dataclasses.replace(target, namespace=""))
        if found is None:
            return False, ""
        return found[0].listed, found[0].error

    # -- status --------------------------------------------------------------------------------------

    async def _write_status(self, registry: dict[str, Any], clusters: list[dict[str, Any]]) -> None:
        wanted = [synced_condition(registry, clusters, self.coverage, self.not_ready)]
        backend = backend_store_condition(registry)
        if backend is not None:
            wanted.append(backend)
        stamp = format_time(self.ctx.clock())
        current = (registry.get("status") or {}).get("conditions") or []
        conditions = current
        for condition in wanted:
            conditions = set_status_condition(conditions, condition, stamp)
        if conditions == current:
            return
        name = str(registry["metadata"]["name"])

        def change(obj: dict[str, Any]) -> None:
            status = obj.setdefault("status", {})
            for condition in wanted:
                status["conditions"] = set_status_condition(status.get("conditions"), condition, stamp)

        with contextlib.suppress(errors.NotFound):
            await self.local.mutate(RESOURCE_REGISTRY, name, change, subresource="status")

    async def stop(self) -> None:
        await super().stop()
        for _, task in self.reflectors.values():
            task.cancel()
        for _, task in self.reflectors.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self.reflectors.clear()
        for client in self.clients.values():
            await client.close()
        self.clients.clear()
