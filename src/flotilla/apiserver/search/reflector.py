"""A reflector: one kind of one member cluster (one namespace or all), listed and watched into the cache.

It reaches the member through the hub's own cluster proxy (`clusters/<name>/proxy`, a `Client`
whose server is that path), so Push members (dialled by the hub) and Pull members (behind their
agent's tunnel) are read the same way. As an informer does: list a page at a time, then watch from
the list's resourceVersion (with bookmarks); a watch that ends resumes from the last version seen;
410 Expired relists, and the relist deletes what is gone. Failures back off (capped) and never end
it; the last one is kept in `error` for the ResourceRegistry's status.

Decoding a page and compressing its objects is CPU work on the API server's event loop: it is done
`CHUNK` objects at a time, yielding to the loop between chunks, so a list of 100,000 pods never
stalls the requests the server is answering.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import structlog

from flotilla.apiserver.search.kinds import CachedKind
from flotilla.apiserver.search.store import ResourceCache, SearchCache
from flotilla.apiserver.search.targets import Target
from flotilla.apiserver.store.memoryrelease import release_now
from flotilla.client import Client
from flotilla.client.discovery import ResourceInfo
from flotilla.client.errors import APIStatusError, ClientError, ContinueExpired, Gone, NotFound

log = structlog.get_logger("flotilla.apiserver.search")

PAGE = 100
"""Objects per list request. A member's page of pods is about 3 KB of JSON each with their managedFields,
all of it in one response buffer, decoded at once."""
CHUNK = 100
"""Objects compressed between two yields to the event loop (a few milliseconds of CPU)."""
WATCH_TIMEOUT = 300
INITIAL_BACKOFF = 0.5

Describe = Callable[[ResourceInfo], CachedKind]
"""The cached kind a member's discovery entry describes (with the hub's field labels for it)."""
ListClient = Callable[[], Client]
"""A fresh client for one list, closed after it: a connection keeps the buffer of the biggest answer it
read, and a page of pods is megabytes; twenty members' list connections held 300 MB for nothing."""


class Reflector:
    """Keeps the cache's copy of one target's objects current; `run` until cancelled."""

    def __init__(
        self,
        target: Target,
        client: Client,
        cache: SearchCache,
        describe: Describe,
        list_client: ListClient,
        *,
        max_backoff: float = 30.0,
        watch_timeout: int = WATCH_TIMEOUT,
    ) -> None:
        self.target = target
        self.client = client
        self.cache = cache
        self.describe = describe
        self.list_client = list_client
        self.resource: ResourceCache | None = None
        self.resource_version = ""
        self.listed = False
        """Whether a first full list has reached the cache."""
        self.error = ""
        """Why the last attempt failed ("" once a list or watch succeeds again)."""
        self._max_backoff = max_backoff
        self._watch_timeout = watch_timeout

    @property
    def cluster(self) -> str:
        return self.target.cluster

    async def run(self) -> None:
        backoff = INITIAL_BACKOFF
        need_list = True
        while True:
            try:
                resource = await self._resource()
                if need_list:
                    await self._relist(resource)
                    need_list = False
                self.error = ""
                await self._watch(resource)
                backoff = INITIAL_BACKOFF
                continue
            except Gone:
                need_list = True
                continue
            except NotFound as exc:
                self.error = f"cluster {self.cluster} does not serve {self.target.gvk}: {exc.message}"
                need_list = True
            except APIStatusError as exc:
                self.error = f"cluster {self.cluster}: {exc.message}"
                need_list = need_list or exc.code in (404, 410)
            except ClientError as exc:
                self.error = f"cluster {self.cluster} cannot be reached: {exc}"
            log.info(
                "search.reflector_failed",
                cluster=self.cluster,
                kind=str(self.target.gvk),
                error=self.error,
                retry_in=round(backoff, 2),
            )
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_backoff)

    async def _resource(self) -> ResourceCache:
        if self.resource is None:
            info = await self.client.resource(self.target.gvk)
            self.resource = self.cache.resource(self.describe(info))
        return self.resource

    def _namespace(self, resource: ResourceCache) -> str:
        return self.target.namespace if resource.kind.namespaced else ""

    async def _store(self, resource: ResourceCache, items: Sequence[dict[str, Any]], keys: list[str]) -> None:
        for start in range(0, len(items), CHUNK):
            keys.extend(resource.store(self.cluster, items[start : start + CHUNK]))
            await asyncio.sleep(0)

    async def _relist(self, resource: ResourceCache) -> None:
        gvk, namespace = self.target.gvk, self._namespace(resource)
        keys: list[str] = []
        revision = ""
        async with self.list_client() as client:
            try:
                async for items, page_revision in client.list_pages(gvk, namespace=namespace, limit=PAGE):
                    await self._store(resource, items, keys)
                    revision = page_revision
            except ContinueExpired:
                # The member compacted past the list's revision while it was paged: one full list, as
                # client-go's reflector falls back to.
                items, revision = await client.list(gvk, namespace=namespace)
                await self._store(resource, items, keys)
        resource.delete_missing(self.cluster, keys, namespace)
        resource.mark_listed(self.cluster)
        # The pages were decoded and let go of between long-lived cache entries: give the free heap
        # pages back, or the process keeps the list's high-water mark (`memoryrelease.py`).
        release_now()
        self.resource_version = revision
        if not self.listed:
            self.listed = True
            log.info(
                "search.listed", cluster=self.cluster, kind=str(gvk), namespace=namespace, objects=len(keys)
            )

    async def _watch(self, resource: ResourceCache) -> None:
        gvk = self.target.gvk
        seen = 0
        async for event in self.client.watch(
            gvk,
            namespace=self._namespace(resource),
            resource_version=self.resource_version,
            timeout_seconds=self._watch_timeout,
        ):
            obj = event.object
            if event.type == "ERROR":
                code = int(obj.get("code") or 500)
                raise Gone(410, obj) if code == 410 else APIStatusError(code, obj)
            metadata = obj.get("metadata") or {}
            revision = str(metadata.get("resourceVersion") or "")
            if revision:
                self.resource_version = revision
            if event.type == "BOOKMARK":
                continue
            obj.setdefault("apiVersion", gvk.api_version)
            obj.setdefault("kind", gvk.kind)
            if event.type == "DELETED":
                key = resource.kind.key(str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
                resource.delete(self.cluster, key)
            else:
                resource.store(self.cluster, [obj])
            seen += 1
            if seen % CHUNK == 0:
                await asyncio.sleep(0)
