"""`Client`: requests to one Kubernetes API server, objects as plain dicts.

Every method takes a GroupVersionKind and maps it to a path through discovery. Failure Statuses
become `APIStatusError` subclasses, network failures `Unavailable`. Writes name a field manager.
`watch` yields events until the server ends the stream; `Informer` builds resumable watches on it.
Reads, writes and status writes are the roles of `interfaces.py`, which `Client` fills. Connections
and raw requests are the `Transport` underneath (`transport.py`), which also fails over between the
API servers of a cluster that has several (`endpoints.py`).
"""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator
from typing import Any, Literal, overload
from urllib.parse import quote, urlencode

import aiohttp

from flotilla.api.scheme import GroupVersionKind
from flotilla.client.discovery import (
    AGGREGATED_ACCEPT,
    ResourceInfo,
    RESTMapper,
    legacy_document,
    legacy_versions,
)
from flotilla.client.errors import (
    ContinueExpired,
    Gone,
    NotFound,
    Unavailable,
    status_error,
    status_of_answer,
)
from flotilla.client.kubeconfig import ClusterConfig
from flotilla.client.transport import JSON, Transport
from flotilla.client.watchevents import EventLines, WatchEvent, watch_event

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

__all__ = [
    "APPLY_PATCH",
    "JSON",
    "JSON_PATCH",
    "MERGE_PATCH",
    "STRATEGIC_MERGE_PATCH",
    "Client",
    "WatchEvent",
]


class Client(Transport):
    """One cluster's API server (or its several endpoints), as one user: Kubernetes' verbs on
    objects. Create in a running event loop; `close()` when done."""

    def __init__(
        self,
        config: ClusterConfig,
        *,
        field_manager: str = "flotilla",
        timeout: float = 30.0,
        user_agent: str = "flotilla",
        connection_limit: int = 64,
    ) -> None:
        super().__init__(config, timeout=timeout, user_agent=user_agent, connection_limit=connection_limit)
        self.field_manager = field_manager
        self._write_queries: dict[tuple[str, bool, bool | None], str] = {}
        self.mapper = RESTMapper()
        self._discovered = False
        self._discovery_lock = asyncio.Lock()

    # -- discovery ----------------------------------------------------------------------------------

    async def discover(self, force: bool = False) -> RESTMapper:
        async with self._discovery_lock:
            if self._discovered and not force:
                return self.mapper
            documents = []
            for root in ("/api", "/apis"):
                answer = await self.request("GET", root, accept=AGGREGATED_ACCEPT)
                if isinstance(answer, dict) and answer.get("kind") == "APIGroupDiscoveryList":
                    documents.append(answer)
                else:
                    documents.append(await self._legacy_discovery(root, answer))
            self.mapper.load(documents)
            self._discovered = True
            return self.mapper

    async def _legacy_discovery(self, root: str, answer: Any) -> dict[str, Any]:
        """Servers without aggregated discovery: read each group version, shape it like the v2 list."""
        listings = []
        for group, version in legacy_versions(root, answer):
            path = f"/apis/{group}/{version}" if group else f"/api/{version}"
            listings.append((group, version, await self.request("GET", path)))
        return legacy_document(listings)

    async def resource(self, gvk: GroupVersionKind) -> ResourceInfo:
        """The resource serving `gvk` (re-discovering once if unknown); NotFound if none does."""
        if not self._discovered:
            await self.discover()
        info = self.mapper.lookup(gvk)
        if info is None:
            await self.discover(force=True)
            info = self.mapper.lookup(gvk)
        if info is None:
            raise NotFound(404, {"reason": "NotFound", "message": f"the server does not serve {gvk}"})
        return info

    # -- verbs --------------------------------------------------------------------------------------

    async def get(self, gvk: GroupVersionKind, name: str, *, namespace: str = "") -> dict[str, Any]:
        info = await self.resource(gvk)
        found: dict[str, Any] = await self.request("GET", info.path(namespace, _quote(name)))
        return found

    async def get_or_none(
        self, gvk: GroupVersionKind, name: str, *, namespace: str = ""
    ) -> dict[str, Any] | None:
        try:
            return await self.get(gvk, name, namespace=namespace)
        except NotFound:
            return None

    async def list(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> tuple[list[dict[str, Any]], str]:
        """Every matching object (following continue tokens) and the list's resourceVersion.

        A continue token that expires half-way (the server compacted past the list's revision while
        it was being paged: a big collection on a busy hub) falls back to one full list, as
        client-go's pager does (`FullListIfExpired`)."""
        items: list[dict[str, Any]] = []
        revision = ""
        try:
            async for page, page_revision in self.list_pages(
                gvk,
                namespace=namespace,
                label_selector=label_selector,
                field_selector=field_selector,
                resource_version=resource_version,
                limit=limit,
            ):
                items.extend(page)
                revision = page_revision
        except ContinueExpired:
            return await self.list(
                gvk,
                namespace=namespace,
                label_selector=label_selector,
                field_selector=field_selector,
                resource_version=resource_version,
            )
        return items, revision

    async def list_pages(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> AsyncIterator[tuple[builtins.list[dict[str, Any]], str]]:
        """The matching objects a page (`limit`) at a time, following continue tokens.

        Each page comes with the list's resourceVersion. A caller that keeps only a compact form
        of each object never holds the whole list decoded (an informer of 100,000 Works). A 410 on
        a later page raises `ContinueExpired`: the pages before it are no longer a consistent list.
        """
        info = await self.resource(gvk)
        token = ""
        api_version, kind = gvk.api_version, gvk.kind
        while True:
            query = {
                "labelSelector": label_selector,
                "fieldSelector": field_selector,
                "limit": limit or None,
                "continue": token,
                "resourceVersion": resource_version if not token else "",
            }
            try:
                page = await self.request("GET", info.path(namespace), query=query)
            except Gone as exc:
                if token:
                    raise ContinueExpired(exc.code, exc.status) from exc
                raise
            items: list[dict[str, Any]] = page.get("items") or []
            for item in items:
                item.setdefault("apiVersion", api_version)
                item.setdefault("kind", kind)
            metadata = page.get("metadata") or {}
            yield items, str(metadata.get("resourceVersion", ""))
            token = metadata.get("continue") or ""
            if not token:
                return

    @overload
    async def create(
        self,
        obj: dict[str, Any],
        *,
        namespace: str = "",
        field_manager: str | None = None,
        dry_run: bool = False,
        decode: Literal[True] = True,
    ) -> dict[str, Any]: ...

    @overload
    async def create(
        self,
        obj: dict[str, Any],
        *,
        namespace: str = "",
        field_manager: str | None = None,
        dry_run: bool = False,
        decode: Literal[False],
    ) -> None: ...

    async def create(
        self,
        obj: dict[str, Any],
        *,
        namespace: str = "",
        field_manager: str | None = None,
        dry_run: bool = False,
        decode: bool = True,
    ) -> dict[str, Any] | None:
        """Create `obj`; the object as created, or None with `decode=False` (for a caller that does
        not read it: the answer is then only checked for failure)."""
        gvk = _gvk_of(obj)
        info = await self.resource(gvk)
        namespace = namespace or (obj.get("metadata") or {}).get("namespace", "")
        created: dict[str, Any] | None = await self._send(
            "POST",
            info.path(namespace),
            self._write_query(field_manager, dry_run, None),
            obj,
            decode=decode,
        )
        return created

    async def update(
        self, obj: dict[str, Any], *, subresource: str = "", field_manager: str | None = None
    ) -> dict[str, Any]:
        gvk = _gvk_of(obj)
        info = await self.resource(gvk)
        meta = obj.get("metadata") or {}
        updated: dict[str, Any] = await self._send(
            "PUT",
            info.path(meta.get("namespace", ""), _quote(meta["name"]), subresource),
            self._write_query(field_manager, False, None),
            obj,
        )
        return updated

    async def patch(
        self,
        gvk: GroupVersionKind,
        name: str,
        patch: Any,
        *,
        namespace: str = "",
        patch_type: str = MERGE_PATCH,
        subresource: str = "",
        field_manager: str | None = None,
        force: bool | None = None,
    ) -> dict[str, Any]:
        patched: dict[str, Any] = await self._patch(
            gvk, name, patch, namespace, patch_type, subresource, field_manager, force, decode=True
        )
        return patched

    async def _patch(
        self,
        gvk: GroupVersionKind,
        name: str,
        patch: Any,
        namespace: str,
        patch_type: str,
        subresource: str,
        field_manager: str | None,
        force: bool | None,
        *,
        decode: bool,
    ) -> Any:
        info = await self.resource(gvk)
        return await self._send(
            "PATCH",
            info.path(namespace, _quote(name), subresource),
            self._write_query(field_manager, False, force),
            patch,
            content_type=patch_type,
            decode=decode,
        )

    @overload
    async def apply(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        subresource: str = "",
        decode: Literal[True] = True,
    ) -> dict[str, Any]: ...

    @overload
    async def apply(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        subresource: str = "",
        decode: Literal[False],
    ) -> None: ...

    async def apply(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        subresource: str = "",
        decode: bool = True,
    ) -> dict[str, Any] | None:
        """Server-side apply of `obj` (creates it when absent); the object as applied, or None with
        `decode=False` (the answer is then only checked for failure)."""
        meta = obj.get("metadata") or {}
        applied: dict[str, Any] | None = await self._patch(
            _gvk_of(obj),
            meta["name"],
            obj,
            meta.get("namespace", ""),
            APPLY_PATCH,
            subresource,
            field_manager,
            force,
            decode=decode,
        )
        return applied

    # -- the status subresource ---------------------------------------------------------------------

    async def update_status(self, obj: dict[str, Any], *, field_manager: str | None = None) -> dict[str, Any]:
        """Replace `obj`'s status (its `status` subresource); a stale resourceVersion is a Conflict."""
        return await self.update(obj, subresource="status", field_manager=field_manager)

    async def patch_status(
        self,
        gvk: GroupVersionKind,
        name: str,
        patch: Any,
        *,
        namespace: str = "",
        patch_type: str = MERGE_PATCH,
        field_manager: str | None = None,
    ) -> dict[str, Any]:
        """Patch an object's status subresource."""
        return await self.patch(
            gvk,
            name,
            patch,
            namespace=namespace,
            patch_type=patch_type,
            subresource="status",
            field_manager=field_manager,
        )

    @overload
    async def apply_status(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: Literal[True] = True,
    ) -> dict[str, Any]: ...

    @overload
    async def apply_status(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: Literal[False],
    ) -> None: ...

    async def apply_status(
        self,
        obj: dict[str, Any],
        *,
        field_manager: str | None = None,
        force: bool = True,
        decode: bool = True,
    ) -> dict[str, Any] | None:
        """Server-side apply of `obj`'s status subresource (the fields `obj.status` sets)."""
        meta = obj.get("metadata") or {}
        applied: dict[str, Any] | None = await self._patch(
            _gvk_of(obj),
            meta["name"],
            obj,
            meta.get("namespace", ""),
            APPLY_PATCH,
            "status",
            field_manager,
            force,
            decode=decode,
        )
        return applied

    async def delete(
        self,
        gvk: GroupVersionKind,
        name: str,
        *,
        namespace: str = "",
        propagation: str | None = "Background",
        uid: str = "",
        resource_version: str = "",
        grace_period_seconds: int | None = None,
    ) -> dict[str, Any] | None:
        """Delete; returns the server's answer (None when already gone)."""
        info = await self.resource(gvk)
        body: dict[str, Any] = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if propagation:
            body["propagationPolicy"] = propagation
        if uid or resource_version:
            body["preconditions"] = {
                k: v for k, v in (("uid", uid), ("resourceVersion", resource_version)) if v
            }
        if grace_period_seconds is not None:
            body["gracePeriodSeconds"] = grace_period_seconds
        try:
            answer: dict[str, Any] = await self.request(
                "DELETE", info.path(namespace, _quote(name)), body=body
            )
        except NotFound:
            return None
        return answer

    async def watch(
        self,
        gvk: GroupVersionKind,
        *,
        namespace: str = "",
        resource_version: str = "",
        label_selector: str = "",
        field_selector: str = "",
        timeout_seconds: int = 300,
        bookmarks: bool = True,
    ) -> AsyncIterator[WatchEvent]:
        """Events of one watch request, until the server ends it (ERROR events are yielded too)."""
        info = await self.resource(gvk)
        query = {
            "watch": "true",
            "resourceVersion": resource_version,
            "labelSelector": label_selector,
            "fieldSelector": field_selector,
            "timeoutSeconds": timeout_seconds,
            "allowWatchBookmarks": "true" if bookmarks else None,
        }
        encoded = urlencode({k: v for k, v in query.items() if v not in (None, "")})
        target = f"{info.path(namespace)}?{encoded}"
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=self._timeout, sock_read=timeout_seconds + 30
        )
        # A watch starts on the endpoint in use, or the next live one; once streaming, it stays on
        # its server until the stream ends (the caller resumes from its last resourceVersion).
        response = await self._get_with_fail_over(
            self._get_watch_session(), target, timeout, headers={"Accept": JSON}
        )
        try:
            async with response:
                if response.status >= 400:
                    raise status_error(
                        response.status, status_of_answer(response.status, await response.read())
                    )
                lines = EventLines()
                async for chunk in response.content.iter_any():
                    for line in lines.feed(chunk):
                        if line.strip():
                            yield watch_event(line)
                if lines.rest().strip():
                    yield watch_event(lines.rest())
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError) as exc:
            raise Unavailable(f"watch {response.url}: {exc or type(exc).__name__}") from exc

    def _write_query(self, field_manager: str | None, dry_run: bool, force: bool | None) -> str:
        """The encoded query of a write (a handful per client: encoded once each)."""
        key = (field_manager or self.field_manager, dry_run, force)
        encoded = self._write_queries.get(key)
        if encoded is None:
            query = {"fieldManager": key[0]}
            if dry_run:
                query["dryRun"] = "All"
            if force is not None:
                query["force"] = "true" if force else "false"
            encoded = self._write_queries[key] = urlencode(query)
        return encoded


def _gvk_of(obj: dict[str, Any]) -> GroupVersionKind:
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    if not api_version or not kind:
        raise ValueError("the object needs apiVersion and kind")
    return GroupVersionKind.parse(str(api_version), str(kind))


def _quote(name: str) -> str:
    return quote(name, safe="")
