"""WATCH on the search API: the cached objects' changes across clusters, as a chunked stream of events.

kube-apiserver's start semantics over the cache's own revisions: no resourceVersion (or "0") starts
with the current state as ADDED events (closed by a BOOKMARK marked `k8s.io/initial-events-end`
when `sendInitialEvents=true` asks for one); "N" replays the kind's changes after N, or answers an
in-stream 410 Expired when its history no longer reaches back to N. The watcher is registered in
the same step as the current state or the replay is taken (no await between), so no change falls
in between. Bookmarks (`allowWatchBookmarks`) carry the cache's revision; the stream ends at
`timeoutSeconds` (or the server's random 30-60 minutes), when the client goes away, or when the
watcher falls too far behind (the client then resumes or relists).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

import orjson
from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import JSON
from flotilla.apiserver.http.content import Negotiated, View, negotiate
from flotilla.apiserver.http.handlers.params import ListOptions, include_object, parse_resource_version
from flotilla.apiserver.search.answers import frame, served_for, view_body
from flotilla.apiserver.search.listing import Item, list_page
from flotilla.apiserver.search.selection import Query
from flotilla.apiserver.search.store import ResourceCache
from flotilla.apiserver.search.watchers import Event, Watcher

MAX_EVENTS_PER_WRITE = 256
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def _gone(resource_version: int, compacted: int) -> bytes:
    gone = errors.Gone(f"too old resource version: {resource_version} ({compacted})")
    return orjson.dumps({"type": "ERROR", "object": gone.status()}) + b"\n"


async def watch(
    request: web.Request, ctx: APIContext, resource: ResourceCache, query: Query, options: ListOptions
) -> web.StreamResponse:
    negotiated = negotiate(request.headers.get("Accept"))
    include = include_object(request.query) if negotiated.view is View.TABLE else "Metadata"
    raw_version = options.resource_version
    start = parse_resource_version(raw_version)
    initial_events = bool(options.send_initial_events) or (
        raw_version in ("", "0") and options.send_initial_events is not False
    )
    timeout = options.timeout_seconds
    if timeout is None or timeout <= 0:
        low, high = ctx.settings.default_watch_timeout
        timeout = random.randint(low, high)  # noqa: S311 - spreading reconnects, not security

    response = web.StreamResponse()
    response.content_type = negotiated.content_type if negotiated.view is View.TABLE else JSON
    response.enable_chunked_encoding()
    await response.prepare(request)
    if not initial_events and start < resource.compacted_through:
        await response.write(_gone(start, resource.compacted_through))
        await response.write_eof()
        return response

    watcher = Watcher(query)
    initial: list[Item] = list_page(resource, query).items if initial_events else []
    if not initial_events:
        for change in resource.changes_after(start):
            watcher.offer(change)
    resource.watchers.add(watcher)
    stream = _Stream(ctx, resource, negotiated, response, watcher, include)
    try:
        await stream.initial([Event("ADDED", item.cluster, item.key, item.entry) for item in initial])
        if options.send_initial_events:
            await stream.bookmark(initial_end=True)
        await stream.run(deadline=time.monotonic() + timeout, bookmarks=options.allow_bookmarks)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        resource.watchers.discard(watcher)
        watcher.close()
    with contextlib.suppress(ConnectionResetError):
        await response.write_eof()
    return response


class _Stream:
    def __init__(
        self,
        ctx: APIContext,
        resource: ResourceCache,
        negotiated: Negotiated,
        response: web.StreamResponse,
        watcher: Watcher,
        include_object: str,
    ) -> None:
        self.ctx = ctx
        self.resource = resource
        self.negotiated = negotiated
        self.response = response
        self.watcher = watcher
        self.include_object = include_object
        self.table = negotiated.view is View.TABLE
        self.table_headers_sent = False

    async def initial(self, events: list[Event]) -> None:
        for start in range(0, len(events), MAX_EVENTS_PER_WRITE):
            await self._write(events[start : start + MAX_EVENTS_PER_WRITE])

    async def run(self, *, deadline: float, bookmarks: bool) -> None:
        watcher = self.watcher
        interval = self.ctx.settings.watch_bookmark_interval
        next_bookmark = time.monotonic() + interval
        while True:
            if watcher.events:
                await self._write(watcher.take(MAX_EVENTS_PER_WRITE))
                continue
            if watcher.closed:
                return  # fell too far behind: the client resumes from the last revision it saw
            now = time.monotonic()
            if now >= deadline:
                return
            wait = deadline - now
            if bookmarks:
                if now >= next_bookmark:
                    await self.bookmark()
                    next_bookmark = now + interval
                    continue
                wait = min(wait, next_bookmark - now)
            watcher.ready.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watcher.ready.wait(), wait)

    async def _write(self, events: list[Event]) -> None:
        if not events:
            return
        codec = self.resource.codec
        if codec is None:
            return
        if self.table:
            parts = [self._table_frame(event) for event in events]
        else:
            parts = [frame(event.type, codec.render(event.entry)) for event in events]
        await self.response.write(b"".join(parts))

    def _table_frame(self, event: Event) -> bytes:
        body = view_body(
            served_for(self.ctx, self.resource.kind),
            self.resource.codec,
            [Item(event.cluster, event.key, event.entry)],
            self.negotiated,
            now=self.ctx.clock(),
            include_object=self.include_object,
            revision=event.entry.revision,
            with_headers=not self.table_headers_sent,
        )
        self.table_headers_sent = True
        return orjson.dumps({"type": event.type, "object": body}) + b"\n"

    async def bookmark(self, *, initial_end: bool = False) -> None:
        kind = self.resource.kind
        meta: dict[str, Any] = {"resourceVersion": str(self.resource.revisions.current)}
        if initial_end:
            meta["annotations"] = {INITIAL_EVENTS_END: "true"}
        obj = {"kind": kind.kind, "apiVersion": kind.api_version, "metadata": meta}
        await self.response.write(orjson.dumps({"type": "BOOKMARK", "object": obj}) + b"\n")
