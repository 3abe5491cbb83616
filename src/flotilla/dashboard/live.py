"""`/api/live`: one server-sent-event stream per open page, fed by the hub's watches as the user.

The page keeps what it shows (one page of rows, a handful of tiles) and asks again when the stream
says its kind changed, so the browser never holds the fleet and a burst of 10,000 status updates
becomes one refresh a second. Three watches run per stream, each as the signed-in user (a kind the
user may not watch is skipped): Clusters and ResourceBindings send `change` (which kinds moved,
at most once per `DEBOUNCE_SECONDS`), Events and Cluster Ready transitions send `timeline` entries
as they happen. Each watch starts at the revision of a one-item list (no initial flood of ADDED
events) and resumes from the last revision it saw; a 410 starts it again from now. The
ResourceBinding watch instead starts from the session's own copy of the list (`listcache.py`),
read once, and keeps that copy current event by event: while a page is open, refreshing the
overview or a filtered workload list reads no list from the hub. For a user the hub says may list
ResourceBindings everywhere (`access.py`), the pages read the dashboard's shared copy instead, so
that stream watches no bindings as the user: it hears "workloads changed" from the shared copy,
after the copy applied the change, so the page's re-read already sees it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import orjson
import structlog
from aiohttp import web

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, Client, ClientError, Gone
from flotilla.dashboard import fleet, timeline
from flotilla.dashboard.listcache import ListCache
from flotilla.dashboard.state import LISTS, SHARED, session_of, shared_bindings_allowed, user_client

log = structlog.get_logger("flotilla.dashboard.live")

EVENT = GroupVersionKind("", "v1", "Event")
DEBOUNCE_SECONDS = 1.0
HEARTBEAT_SECONDS = 15.0
RETRY_SECONDS = 2.0
WATCHED = {
    "clusters": constants.CLUSTER,
    "workloads": constants.RESOURCE_BINDING,
    "events": EVENT,
}


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/api/live", stream)


async def _current_revision(client: Client, gvk: GroupVersionKind) -> str:
    info = await client.resource(gvk)
    page = await client.request("GET", info.path(), query={"limit": 1})
    return str((page.get("metadata") or {}).get("resourceVersion", ""))


async def _follow(
    client: Client,
    name: str,
    gvk: GroupVersionKind,
    queue: asyncio.Queue[tuple[str, Any]],
    cached: tuple[ListCache, str] | None = None,
) -> None:
    """Put `(name, object)` on `queue` for every change of `gvk` until cancelled. With `cached` (the
    list cache and the session), the session's copy of the list is read once and kept current from
    this watch, so refreshes of a 10,000-workload page cost the hub nothing more."""
    revision = ""
    following = False
    ready_states: dict[str, str] = {}
    try:
        while True:
            try:
                if not revision:
                    if cached is not None:
                        cache, session_id = cached
                        if following:
                            cache.unfollow(session_id, gvk)
                        revision = await cache.follow(session_id, client, gvk, reread=following)
                        following = True
                    else:
                        revision = await _current_revision(client, gvk)
                async for event in client.watch(gvk, resource_version=revision, timeout_seconds=240):
                    if event.type == "ERROR":
                        revision = ""
                        break
                    revision = str((event.object.get("metadata") or {}).get("resourceVersion") or revision)
                    if event.type == "BOOKMARK":
                        continue
                    if cached is not None:
                        cached[0].apply(cached[1], gvk, event.type, event.object)
                    if name == "clusters":
                        await _cluster_transitions(event.object, ready_states, queue)
                    await queue.put((name, event.object))
            except Gone:
                revision = ""
            except APIStatusError as error:
                if error.code in (401, 403, 404):
                    log.info("dashboard_watch_refused", kind=gvk.kind, code=error.code)
                    return
                await asyncio.sleep(RETRY_SECONDS)
            except ClientError:
                await asyncio.sleep(RETRY_SECONDS)
    finally:
        if cached is not None and following:
            cached[0].unfollow(cached[1], gvk)


async def _cluster_transitions(
    cluster: dict[str, Any], ready_states: dict[str, str], queue: asyncio.Queue[tuple[str, Any]]
) -> None:
    """A timeline entry when a cluster's Ready state changed since this stream last saw it."""
    key = str((cluster.get("metadata") or {}).get("name", ""))
    state = fleet.cluster_state(cluster)
    if ready_states.get(key, state) != state:
        for entry in timeline.cluster_entries(cluster):
            await queue.put(("timeline", entry))
    ready_states[key] = state


def _nothing() -> None:
    return None


def _message(event: str, data: Any) -> bytes:
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps(data) + b"\n\n"


async def stream(request: web.Request) -> web.StreamResponse:
    session = session_of(request)
    client = user_client(request)
    lists = request.app[LISTS]
    response = web.StreamResponse(
        headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    )
    await response.prepare(request)
    queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=10_000)
    watched = dict(WATCHED)
    stop_listening: Callable[[], None] = _nothing
    if await shared_bindings_allowed(request):
        del watched["workloads"]

        def workloads_changed() -> None:
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(("workloads", None))

        stop_listening = request.app[SHARED].listen(workloads_changed)
    watchers = [
        asyncio.create_task(
            _follow(
                client, name, gvk, queue, (lists, session.id) if gvk == constants.RESOURCE_BINDING else None
            )
        )
        for name, gvk in watched.items()
    ]
    changed: set[str] = set()
    try:
        await response.write(b"retry: 3000\n\n")
        loop = asyncio.get_running_loop()
        flush_at = loop.time() + DEBOUNCE_SECONDS
        heartbeat_at = loop.time() + HEARTBEAT_SECONDS
        while True:
            now = loop.time()
            timeout = max(0.0, min(flush_at, heartbeat_at) - now)
            try:
                kind, obj = await asyncio.wait_for(queue.get(), timeout)
            except TimeoutError:
                kind, obj = "", None
            if kind == "timeline":
                await response.write(_message("timeline", obj))
            elif kind == "events":
                await response.write(_message("timeline", timeline.event_entry(obj)))
            elif kind:
                changed.add(kind)
            now = loop.time()
            if now >= flush_at:
                if changed:
                    lists.invalidate(session.id)
                    await response.write(_message("change", {"kinds": sorted(changed)}))
                    changed.clear()
                flush_at = now + DEBOUNCE_SECONDS
            if now >= heartbeat_at:
                await response.write(b": keep-alive\n\n")
                heartbeat_at = now + HEARTBEAT_SECONDS
    except ConnectionResetError:
        log.debug("dashboard_stream_closed", user=session.user)
    finally:
        stop_listening()
        for watcher in watchers:
            watcher.cancel()
        for watcher in watchers:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await watcher
    return response
