"""WATCH: a chunked stream of newline-delimited JSON events, fed from the watch cache.

Start semantics follow kube-apiserver: no resourceVersion (or "0") starts with the current state as
ADDED events; "N" replays the changes after N from the cache's history (from memory, or from the
store for older ones: see `watchhistory.py`), or answers with an in-stream 410 Expired when the
store has compacted N (clients then relist); so does a replay that compaction overtakes. With
`sendInitialEvents=true` the initial state is closed by a BOOKMARK annotated
`k8s.io/initial-events-end`. Idle watches that allow bookmarks get one every bookmark interval; the
stream ends at `timeoutSeconds` (or a random 30-60 minutes), when the client goes away, or when the
server stops. Each object's JSON is encoded once and shared by every watcher that receives it; a
watcher's queued events are written together. A watcher still catching up on history gets no
bookmark: the cache's revision is not yet a point it has reached. Each event's object leaves at the
version the URL names (`store/conversion.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from typing import Any

import orjson
from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import JSON
from flotilla.apiserver.http import views
from flotilla.apiserver.http.content import Negotiated, View, negotiate
from flotilla.apiserver.http.filters import predicate
from flotilla.apiserver.http.handlers.params import ListOptions, include_object, list_options
from flotilla.apiserver.http.handlers.reads import wait_for_revision
from flotilla.apiserver.http.metrics import watch_event_counter
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.cachedobjects import CachedObject, EventKind, frame_parts
from flotilla.apiserver.store.conversion import all_at_version_bounded, conversion_of, matching_at_version
from flotilla.apiserver.store.watchers import Watcher
from flotilla.storage import CompactedError

MAX_EVENTS_PER_WRITE = 256
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def _check_initial_events(options: ListOptions) -> bool:
    if options.send_initial_events is None:
        return False
    if options.resource_version_match != "NotOlderThan":
        raise errors.Invalid(
            'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents '
            "requires setting resourceVersionMatch to NotOlderThan",
            causes=[
                {
                    "reason": "FieldValueForbidden",
                    "field": "resourceVersionMatch",
                    "message": "Forbidden: sendInitialEvents requires setting resourceVersionMatch to "
                    "NotOlderThan",
                }
            ],
        )
    if options.send_initial_events and not options.allow_bookmarks:
        raise errors.Invalid(
            'ListOptions.meta.k8s.io "" is invalid: allowWatchBookmarks: Forbidden: sendInitialEvents '
            "requires allowWatchBookmarks",
            causes=[
                {
                    "reason": "FieldValueForbidden",
                    "field": "allowWatchBookmarks",
                    "message": "Forbidden: sendInitialEvents requires allowWatchBookmarks",
                }
            ],
        )
    return options.send_initial_events


async def watch(
    request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
) -> web.StreamResponse:
    options = list_options(request.query)
    negotiated = negotiate(request.headers.get("Accept"))
    matches = matching_at_version(served, predicate(served, options.label_selector, options.field_selector))
    namespace = info.namespace if served.namespaced else ""
    initial_events = _check_initial_events(options)
    include = include_object(request.query) if negotiated.view is View.TABLE else "Metadata"
    rv = options.resource_version
    after: int | None
    if initial_events or (rv in ("", "0") and options.send_initial_events is not False):
        await wait_for_revision(ctx, rv)
        after = None
    else:
        await wait_for_revision(ctx, rv or "0")
        after = int(rv) if rv else ctx.cache.revision
    timeout = options.timeout_seconds
    if timeout is None or timeout <= 0:
        low, high = ctx.settings.default_watch_timeout
        timeout = random.randint(low, high)  # noqa: S311 - spreading reconnects, not security

    response = web.StreamResponse()
    response.content_type = negotiated.content_type if negotiated.view is View.TABLE else JSON
    response.enable_chunked_encoding()
    await response.prepare(request)
    try:
        watcher = ctx.cache.watch(served.storage_prefix, namespace=namespace, predicate=matches, after=after)
    except CompactedError as exc:
        await response.write(_gone(after, exc))
        return response
    stream = _Stream(ctx, served, negotiated, response, watcher, include)
    stream.sent = watch_event_counter(request, served)
    try:
        await stream.run(
            deadline=time.monotonic() + timeout,
            bookmarks=options.allow_bookmarks,
            initial_end_revision=ctx.cache.revision if initial_events else None,
        )
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        ctx.cache.unwatch(served.storage_prefix, watcher)
    with contextlib.suppress(ConnectionResetError):
        if watcher.expired is not None:
            await response.write(_gone(after, watcher.expired))
        await response.write_eof()
    return response


def _gone(after: int | None, error: CompactedError) -> bytes:
    gone = errors.Gone(f"too old resource version: {after} ({error.compact_revision})")
    return orjson.dumps({"type": "ERROR", "object": gone.status()}) + b"\n"


class _Stream:
    def __init__(
        self,
        ctx: APIContext,
        served: ServedResource,
        negotiated: Negotiated,
        response: web.StreamResponse,
        watcher: Watcher,
        include_object: str,
    ) -> None:
        self.ctx = ctx
        self.served = served
        self.negotiated = negotiated
        self.response = response
        self.watcher = watcher
        self.table = negotiated.view is View.TABLE
        self.table_headers_sent = False
        self.include_object = include_object
        self.sent: Callable[[float], None] | None = None
        """Told how many events each write carried (`apiserver_watch_events_total`)."""

    async def run(self, *, deadline: float, bookmarks: bool, initial_end_revision: int | None) -> None:
        watcher = self.watcher
        interval = self.ctx.settings.watch_bookmark_interval
        if initial_end_revision is not None:
            await self._flush()
            await self._bookmark(initial_end_revision, initial_end=True)
        next_bookmark = time.monotonic() + interval
        while not watcher.closed or watcher.queue:
            if watcher.queue:
                await self._flush()
                continue
            now = time.monotonic()
            if now >= deadline:
                if bookmarks and watcher.current:
                    await self._bookmark(self.ctx.cache.revision)
                return
            wait = deadline - now
            if bookmarks and watcher.current:
                if now >= next_bookmark:
                    await self._bookmark(self.ctx.cache.revision)
                    next_bookmark = now + interval
                    continue
                wait = min(wait, next_bookmark - now)
            watcher.ready.clear()
            if watcher.queue or watcher.closed:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watcher.ready.wait(), wait)

    async def _flush(self) -> None:
        parts: list[bytes] = []
        events = self.watcher.take(MAX_EVENTS_PER_WRITE)
        if conversion_of(self.served) is not None:
            objects = await all_at_version_bounded(self.served, [stored for _, stored, _ in events])
            events = [(kind, obj, event) for (kind, _, event), obj in zip(events, objects, strict=True)]
        for kind, obj, _ in events:
            if self.table:
                parts.append(self._table_frame(kind, obj))
            else:
                parts.extend(frame_parts(kind, obj))
        if parts:
            await self.response.write(b"".join(parts))
            if self.sent is not None:
                self.sent(len(events))

    def _table_frame(self, kind: EventKind, obj: CachedObject) -> bytes:
        body = views.table(
            self.served,
            [obj],
            now=self.ctx.clock(),
            include_object=self.include_object,
            meta_version=self.negotiated.meta_version,
            with_headers=not self.table_headers_sent,
        )
        if not self.table_headers_sent:
            self.table_headers_sent = True
        body["metadata"] = {"resourceVersion": str(obj.revision)}
        return orjson.dumps({"type": kind, "object": body}) + b"\n"

    async def _bookmark(self, revision: int, *, initial_end: bool = False) -> None:
        meta: dict[str, Any] = {"resourceVersion": str(revision)}
        if initial_end:
            meta["annotations"] = {INITIAL_EVENTS_END: "true"}
        obj = {"kind": self.served.type.kind, "apiVersion": self.served.type.api_version, "metadata": meta}
        await self.response.write(orjson.dumps({"type": "BOOKMARK", "object": obj}) + b"\n")
