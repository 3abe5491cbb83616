"""`Client`: requests to one Kubernetes API server, objects as plain dicts.

Every method takes a GroupVersionKind and maps it to a path through discovery. Failure Statuses
become `APIStatusError` subclasses, network failures `Unavailable`. Writes name a field manager.
`watch` yields events until the server ends the stream; `Informer` builds resumable watches on it.

Requests travel on the client's own keep-alive HTTP/1.1 connections (`connections.py`, a fraction of
a general HTTP client's CPU per request); watches and plain-text probes go through aiohttp, whose
streaming and charset handling they use, on pools of their own.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, overload
from urllib.parse import quote, urlencode, urlsplit

import aiohttp
import orjson

from flotilla.api.scheme import GroupVersionKind
from flotilla.client.connections import ConnectionPool
from flotilla.client.discovery import AGGREGATED_ACCEPT, ResourceInfo, RESTMapper, legacy_document
from flotilla.client.errors import NotFound, Unavailable, status_error
from flotilla.client.http1 import ACCEPT_ENCODING, MalformedResponse, request_head
from flotilla.client.kubeconfig import ClusterConfig

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

_TARGET_CHARACTERS = "-._~!$&'()*+,;=:@/?%"
"""What a request target may carry unescaped (RFC 3986's unreserved and sub-delims, ':', '@', the
delimiters '/' and '?', and '%' of escapes already made)."""
_TARGET = re.compile(f"[A-Za-z0-9{re.escape(_TARGET_CHARACTERS)}]*")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


@dataclass(frozen=True, slots=True)
class WatchEvent:
    type: str  # ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
    object: dict[str, Any]


class Client:
    """One API server, as one user. Create in a running event loop; `close()` when done."""

    def __init__(
        self,
        config: ClusterConfig,
        *,
        field_manager: str = "flotilla",
        timeout: float = 30.0,
        user_agent: str = "flotilla",
        connection_limit: int = 64,
    ) -> None:
        self.config = config
        self.field_manager = field_manager
        self._timeout = timeout
        self._headers = {"User-Agent": user_agent, **config.headers()}
        self._session: aiohttp.ClientSession | None = None
        self._watch_session: aiohttp.ClientSession | None = None
        self._ssl = config.ssl_context()
        self._limit = connection_limit
        self._pool: ConnectionPool | None = None
        self._write_queries: dict[tuple[str, bool, bool | None], str] = {}
        server = urlsplit(config.server)
        self._host = server.hostname or ""
        self._port = server.port or (443 if server.scheme == "https" else 80)
        self._path_prefix = server.path.rstrip("/")
        self._request_headers = [
            ("Host", server.netloc.rpartition("@")[2]),
            ("User-Agent", user_agent),
            ("Accept-Encoding", ACCEPT_ENCODING),
            *config.headers().items(),
        ]
        self.mapper = RESTMapper()
        self._discovered = False
        self._discovery_lock = asyncio.Lock()

    @property
    def server(self) -> str:
        return self.config.server

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(ssl=self._ssl, limit=self._limit)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, json_serialize=lambda o: orjson.dumps(o).decode()
            )
        return self._session

    def _get_watch_session(self) -> aiohttp.ClientSession:
        """Watches hold their connection for minutes: they get a pool of their own, without a limit,
        so many informers never starve ordinary requests."""
        if self._watch_session is None or self._watch_session.closed:
            connector = aiohttp.TCPConnector(ssl=self._ssl, limit=0)
            self._watch_session = aiohttp.ClientSession(connector=connector, headers=self._headers)
        return self._watch_session

    def _connection_pool(self) -> ConnectionPool:
        """The pool of this event loop (a pool's connections belong to the loop that opened them)."""
        pool = self._pool
        if pool is None or pool.closed or pool.loop is not asyncio.get_running_loop():
            if not self._host or urlsplit(self.config.server).scheme not in ("https", "http"):
                raise Unavailable(f"{self.config.server}: not an http or https URL")
            pool = self._pool = ConnectionPool(
                self._host,
                self._port,
                ssl_context=self._ssl if isinstance(self._ssl, ssl.SSLContext) else None,
                server_hostname=self.config.tls_server_name,
                limit=self._limit,
            )
        return pool

    async def close(self) -> None:
        sessions = [s for s in (self._session, self._watch_session) if s is not None and not s.closed]
        for session in sessions:
            await session.close()
        self._session = None
        self._watch_session = None
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        if sessions or pool is not None:
            # TLS transports finish closing on the next loop iterations (aiohttp's documented caveat).
            await asyncio.sleep(0.05)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- raw requests -------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        content_type: str = JSON,
        accept: str = JSON,
        timeout: float | None = None,
    ) -> Any:
        """Send one request; the decoded JSON answer, or an APIStatusError / Unavailable."""
        encoded = ""
        if query:
            encoded = urlencode({k: v for k, v in query.items() if v is not None and v != ""}, doseq=True)
        return await self._send(
            method, path, encoded, body, content_type=content_type, accept=accept, timeout=timeout
        )

    async def _send(
        self,
        method: str,
        path: str,
        query: str,
        body: Any,
        *,
        content_type: str = JSON,
        accept: str = JSON,
        timeout: float | None = None,
        decode: bool = True,
    ) -> Any:
        """`request` with the query already encoded; `decode=False` checks the answer for failure
        and returns None instead of decoding it."""
        target = self._path_prefix + path
        if query:
            target += "?" + query
        if not _TARGET.fullmatch(target):
            target = quote(target, safe=_TARGET_CHARACTERS)
        headers = [*self._request_headers, ("Accept", accept)]
        data = b""
        if body is not None:
            data = body if isinstance(body, bytes) else orjson.dumps(body)
            headers.append(("Content-Type", content_type))
            headers.append(("Content-Length", str(len(data))))
        elif method in _BODY_METHODS:
            headers.append(("Content-Length", "0"))
        try:
            response = await self._connection_pool().send(
                method, request_head(method, target, headers) + data, timeout=timeout or self._timeout
            )
        except (OSError, MalformedResponse) as exc:  # OSError covers TimeoutError, TLS and resets
            raise Unavailable(
                f"{method} {self.config.server}{path}: {str(exc) or type(exc).__name__}"
            ) from exc
        raw = response.body
        if response.status >= 400:
            raise status_error(response.status, _status_body(response.status, raw))
        if not raw or not decode:
            return None
        if response.content_type not in ("application/json", ""):
            return raw.decode(errors="replace")
        return orjson.loads(raw)

    async def text(self, path: str, timeout: float | None = None) -> tuple[int, str]:
        """GET a plain-text endpoint (/readyz, /healthz): status code and body."""
        try:
            async with self._get_session().get(
                self.config.server + path,
                timeout=aiohttp.ClientTimeout(total=timeout or self._timeout),
                server_hostname=self.config.tls_server_name,
            ) as response:
                return response.status, await response.text()
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise Unavailable(f"GET {self.config.server}{path}: {exc or type(exc).__name__}") from exc

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
        if root == "/api":
            versions = [(("", v)) for v in (answer or {}).get("versions", [])]
        else:
            versions = []
            for group in (answer or {}).get("groups", []):
                for version in group.get("versions", []):
                    versions.append((group["name"], version["version"]))
        listings = []
        for group, version in versions:
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

    async def get(self, gvk: GroupVersionKind, name: str, namespace: str = "") -> dict[str, Any]:
        info = await self.resource(gvk)
        found: dict[str, Any] = await self.request("GET", info.path(namespace, _quote(name)))
        return found

    async def get_or_none(
        self, gvk: GroupVersionKind, name: str, namespace: str = ""
    ) -> dict[str, Any] | None:
        try:
            return await self.get(gvk, name, namespace)
        except NotFound:
            return None

    async def list(
        self,
        gvk: GroupVersionKind,
        namespace: str = "",
        *,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        limit: int = 0,
    ) -> tuple[list[dict[str, Any]], str]:
        """Every matching object (following continue tokens) and the list's resourceVersion."""
        info = await self.resource(gvk)
        items: list[dict[str, Any]] = []
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
            page = await self.request("GET", info.path(namespace), query=query)
            for item in page.get("items") or []:
                item.setdefault("apiVersion", api_version)
                item.setdefault("kind", kind)
                items.append(item)
            token = (page.get("metadata") or {}).get("continue") or ""
            if not token:
                return items, str((page.get("metadata") or {}).get("resourceVersion", ""))

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

    async def delete(
        self,
        gvk: GroupVersionKind,
        name: str,
        namespace: str = "",
        *,
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
        namespace: str = "",
        *,
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
        url = (
            self.config.server
            + info.path(namespace)
            + "?"
            + urlencode({k: v for k, v in query.items() if v not in (None, "")})
        )
        try:
            async with self._get_watch_session().get(
                url,
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_connect=self._timeout, sock_read=timeout_seconds + 30
                ),
                headers={"Accept": JSON},
                server_hostname=self.config.tls_server_name,
            ) as response:
                if response.status >= 400:
                    raise status_error(response.status, _status_body(response.status, await response.read()))
                lines = _Lines()
                async for chunk in response.content.iter_any():
                    for line in lines.feed(chunk):
                        if line.strip():
                            yield _watch_event(line)
                if lines.rest().strip():
                    yield _watch_event(lines.rest())
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError) as exc:
            raise Unavailable(f"watch {url}: {exc or type(exc).__name__}") from exc

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


class _Lines:
    """A watch stream's events are lines, arriving in chunks cut anywhere. Split here rather than by
    aiohttp's readline, which refuses lines over 512 KiB: an object between that and the 1.5 MiB
    the API allows ended its informer's watch with aiohttp's own LineTooLong."""

    def __init__(self) -> None:
        self._partial: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        """The lines `chunk` completes, without their line feeds."""
        if b"\n" not in chunk:
            self._partial.append(chunk)
            return []
        if self._partial:
            self._partial.append(chunk)
            chunk = b"".join(self._partial)
            self._partial = []
        *lines, rest = chunk.split(b"\n")
        if rest:
            self._partial.append(rest)
        return lines

    def rest(self) -> bytes:
        """What followed the last line feed."""
        return b"".join(self._partial)


def _watch_event(line: bytes) -> WatchEvent:
    event = orjson.loads(line)
    return WatchEvent(str(event.get("type", "")), event.get("object") or {})


def _gvk_of(obj: dict[str, Any]) -> GroupVersionKind:
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    if not api_version or not kind:
        raise ValueError("the object needs apiVersion and kind")
    return GroupVersionKind.parse(str(api_version), str(kind))


def _quote(name: str) -> str:
    return quote(name, safe="")


def _status_body(code: int, raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict) or body.get("kind") != "Status":
        text = raw.decode(errors="replace").strip()[:500]
        return {"kind": "Status", "status": "Failure", "code": code, "message": text or f"HTTP {code}"}
    return body
