"""The read side of `/api/…`: sign-in, and the JSON each page renders, already filtered and paged.

Every handler reads the hub as the signed-in user (`state.user_client`), through the per-session
list cache where a page needs whole lists, except ResourceBindings for a user the hub says may list
them everywhere: those come from the dashboard's shared copy (`sharedbindings.py`, `access.py`).
The lists go to the pure summaries (`fleet`,
`workloads`, `timeline`). Summaries over big lists run in a worker thread so the event loop keeps
serving other users and the live stream. The workload list's unfiltered first page is one page of
the hub's own paging (`limit`/`continue`), so it costs the same on 100 workloads as on 10,000.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from aiohttp import web

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, ClientError
from flotilla.dashboard import fleet, timeline, workloadchain, workloads
from flotilla.dashboard.errors import bad_request, forbidden, from_hub, unauthorized
from flotilla.dashboard.hubaccess import who_am_i
from flotilla.dashboard.sessions import COOKIE
from flotilla.dashboard.state import (
    ACCESS,
    AUTO_SIGN_IN,
    HUB,
    LISTS,
    SESSIONS,
    SETTINGS,
    SHARED,
    WARMING,
    session_of,
    shared_bindings_allowed,
    user_client,
)

EVENT = GroupVersionKind("", "v1", "Event")
LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")
POLICY_KINDS = (
    constants.PROPAGATION_POLICY,
    constants.CLUSTER_PROPAGATION_POLICY,
    constants.OVERRIDE_POLICY,
    constants.CLUSTER_OVERRIDE_POLICY,
)
MAX_TOKEN_LENGTH = 16 * 1024
DEFAULT_PAGE_SIZE = 50


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_post("/api/signin", sign_in)
    router.add_get("/api/signin/auto", auto_sign_in)
    router.add_post("/api/signout", sign_out)
    router.add_get("/api/session", current_session)
    router.add_get("/api/overview", overview)
    router.add_get("/api/overview/fleet", overview_fleet)
    router.add_get("/api/overview/workloads", overview_workloads)
    router.add_get("/api/clusters", clusters)
    router.add_get("/api/workloads", workload_list)
    router.add_get("/api/workloads/{namespace}/{binding}", workloadchain.workload_detail)
    router.add_get("/api/policies", policies)
    router.add_get("/api/events", events)


def _set_cookie(request: web.Request, response: web.Response, session_id: str) -> None:
    response.set_cookie(
        COOKIE, session_id, httponly=True, secure=True, samesite="Strict", path="/", max_age=None
    )


async def _open_session(request: web.Request, token: str) -> web.Response:
    hub = request.app[HUB]
    async with hub.anonymous_client(token) as client:
        try:
            user, groups = await who_am_i(client)
        except APIStatusError as error:
            if error.code == 401:
                raise unauthorized("the hub does not accept this token") from error
            raise from_hub(error) from error
    session = request.app[SESSIONS].create(token, user, groups)
    _warm(request, session.id, token)
    response = web.json_response({"user": user, "groups": list(groups), "csrf": session.csrf})
    _set_cookie(request, response, session.id)
    return response


def _warm(request: web.Request, session_id: str, token: str) -> None:
    """While the browser loads the page, ask the hub whether the user may be served the shared
    binding copy, and if not, start reading the session's longest list (every ResourceBinding) as
    the user, so the first overview waits for neither. Best effort, owned by the app (cancelled at
    shutdown); a user who may not list bindings just fails it quietly."""
    lists = request.app[LISTS]
    client = request.app[HUB].client(session_id, token)
    access, shared = request.app[ACCESS], request.app[SHARED]

    async def read() -> None:
        try:
            if await access.allows(session_id, client, constants.RESOURCE_BINDING) and shared.available:
                return
            await lists.items(session_id, client, constants.RESOURCE_BINDING)
        except ClientError:
            return

    task = asyncio.create_task(read())
    warming = request.app[WARMING]
    warming.add(task)
    task.add_done_callback(warming.discard)


async def sign_in(request: web.Request) -> web.Response:
    """`{"token": "…"}`: the hub is asked who the token is (401 if it refuses it); a session cookie."""
    try:
        body = await request.json()
    except ValueError as error:
        raise bad_request('the body must be JSON: {"token": "…"}') from error
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str) or not token.strip() or len(token) > MAX_TOKEN_LENGTH:
        raise bad_request('give a bearer token: {"token": "…"}')
    return await _open_session(request, token.strip())


async def auto_sign_in(request: web.Request) -> web.StreamResponse:
    """`flotilla up`'s one-time link on loopback: the code printed with the URL signs the admin in."""
    one_time = request.app[AUTO_SIGN_IN]
    token = request.app[SETTINGS].auto_sign_in_token
    code = request.query.get("code", "")
    if one_time is None or not token:
        raise forbidden("automatic sign-in is off")
    if not one_time.consume(code):
        raise forbidden("wrong or already used sign-in code (sign in with a token)")
    try:
        response = await _open_session(request, token)
    except BaseException:
        one_time.restore(code)  # no session was opened: the link may be followed again
        raise
    redirect = web.HTTPSeeOther("/")
    for cookie in response.cookies.values():
        redirect.cookies[cookie.key] = cookie
    raise redirect


async def sign_out(request: web.Request) -> web.Response:
    session = session_of(request)
    request.app[SESSIONS].delete(session.id)
    request.app[LISTS].invalidate(session.id)
    request.app[ACCESS].forget(session.id)
    await request.app[HUB].forget(session.id)
    response = web.json_response({"signedOut": True})
    response.del_cookie(COOKIE, path="/")
    return response


async def current_session(request: web.Request) -> web.Response:
    session = session_of(request)
    return web.json_response({"user": session.user, "groups": list(session.groups), "csrf": session.csrf})


async def _list(request: web.Request, gvk: GroupVersionKind, namespace: str = "") -> list[dict[str, Any]]:
    """The list of `gvk` as the user may read it: the shared copy of ResourceBindings when the hub
    says the user may list them everywhere, else the hub's answer to the user (per-session cache)."""
    if gvk == constants.RESOURCE_BINDING and await shared_bindings_allowed(request):
        return request.app[SHARED].items(namespace)
    session = session_of(request)
    return await request.app[LISTS].items(session.id, user_client(request), gvk, namespace)


async def _list_or_empty(request: web.Request, gvk: GroupVersionKind) -> tuple[list[dict[str, Any]], str]:
    """A list the user may not be allowed to read: empty, with the reason, rather than a failed page."""
    try:
        return await _list(request, gvk), ""
    except APIStatusError as error:
        if error.code in (403, 404):
            return [], error.message
        raise


async def _fleet_part(request: web.Request) -> dict[str, Any]:
    """Clusters, nodes, resources and policy counts: a few small lists, fast on any fleet."""
    cluster_items, *policy_lists = await asyncio.gather(
        _list(request, constants.CLUSTER), *(_list_or_empty(request, gvk) for gvk in POLICY_KINDS)
    )
    counts = {gvk.kind: len(items) for gvk, (items, _) in zip(POLICY_KINDS, policy_lists, strict=True)}
    return {**fleet.overview(cluster_items), "policies": counts}


async def _workloads_part(request: web.Request) -> dict[str, Any]:
    """Workloads by state: every ResourceBinding, which on 10,000 workloads is the hub's longest list."""
    bindings, hidden = await _list_or_empty(request, constants.RESOURCE_BINDING)

    def count() -> dict[str, Any]:
        return {
            "workloads": {"total": len(bindings), **workloads.states_count(bindings)},
            "notes": [hidden] if hidden else [],
        }

    return await asyncio.to_thread(count)


async def overview(request: web.Request) -> web.Response:
    """The whole overview; the page asks for its two parts separately and paints the fast one first."""
    fleet_part, workloads_part = await asyncio.gather(_fleet_part(request), _workloads_part(request))
    return web.json_response({**fleet_part, **workloads_part})


async def overview_fleet(request: web.Request) -> web.Response:
    return web.json_response(await _fleet_part(request))


async def overview_workloads(request: web.Request) -> web.Response:
    return web.json_response(await _workloads_part(request))


async def clusters(request: web.Request) -> web.Response:
    items = await _list(request, constants.CLUSTER)
    leases, _ = await _list_or_empty_namespaced(request, LEASE, constants.KARMADA_CLUSTER_NAMESPACE)
    by_name = {(lease.get("metadata") or {}).get("name"): lease for lease in leases}
    now = datetime.now(UTC)
    rows = [
        fleet.cluster_row(item, by_name.get((item.get("metadata") or {}).get("name")), now) for item in items
    ]
    state = request.query.get("state", "")
    search = request.query.get("search", "")
    rows = [row for row in rows if (not state or row["state"] == state) and search in row["name"]]
    return web.json_response({"items": rows, "total": len(rows)})


async def _list_or_empty_namespaced(
    request: web.Request, gvk: GroupVersionKind, namespace: str
) -> tuple[list[dict[str, Any]], str]:
    try:
        return await _list(request, gvk, namespace), ""
    except APIStatusError as error:
        if error.code in (403, 404):
            return [], error.message
        raise


def _page_size(request: web.Request) -> int:
    text = request.query.get("limit", str(DEFAULT_PAGE_SIZE))
    if not text.isdigit() or not 0 < int(text) <= workloads.MAX_PAGE_SIZE:
        raise bad_request(f"limit must be a number from 1 to {workloads.MAX_PAGE_SIZE}")
    return int(text)


async def workload_list(request: web.Request) -> web.Response:
    """A page of workloads. Filters: namespace, kind, state, cluster, search; `continue` pages on."""
    query = request.query
    chosen = workloads.WorkloadFilter(
        namespace=query.get("namespace", ""),
        kind=query.get("kind", ""),
        state=query.get("state", ""),
        cluster=query.get("cluster", ""),
        search=query.get("search", ""),
    )
    if chosen.state and chosen.state not in workloads.STATES:
        raise bad_request(f"state must be one of {', '.join(workloads.STATES)}")
    limit = _page_size(request)
    token = query.get("continue", "")
    client = user_client(request)
    if not (chosen.kind or chosen.state or chosen.cluster or chosen.search):
        # The hub pages the unfiltered list itself: one page read, whatever the fleet's size.
        info = await client.resource(constants.RESOURCE_BINDING)
        page = await client.request(
            "GET", info.path(chosen.namespace), query={"limit": limit, "continue": token or None}
        )
        items = page.get("items") or []
        meta = page.get("metadata") or {}
        remaining = meta.get("remainingItemCount")
        return web.json_response(
            {
                "items": [workloads.workload_row(item) for item in items],
                "continue": meta.get("continue") or None,
                "total": None if remaining is None else len(items) + int(remaining) if not token else None,
            }
        )
    if token and not token.isdigit():
        raise bad_request("continue must be the value a previous page returned")
    bindings = await _list(request, constants.RESOURCE_BINDING, chosen.namespace)

    def select() -> dict[str, Any]:
        matching = [binding for binding in bindings if chosen.matches(binding)]
        page, following = workloads.page_of(matching, int(token or 0), limit)
        return {
            "items": [workloads.workload_row(item) for item in page],
            "continue": None if following is None else str(following),
            "total": len(matching),
        }

    return web.json_response(await asyncio.to_thread(select))


async def policies(request: web.Request) -> web.Response:
    bindings, _ = await _list_or_empty(request, constants.RESOURCE_BINDING)
    items: list[dict[str, Any]] = []
    for gvk in POLICY_KINDS:
        found, _ = await _list_or_empty(request, gvk)
        items.extend({**item, "kind": gvk.kind} for item in found)

    def rows() -> list[dict[str, Any]]:
        claimed = workloads.bindings_by_policy(bindings)
        return [workloads.policy_row(item, claimed) for item in items]

    return web.json_response({"items": await asyncio.to_thread(rows)})


async def events(request: web.Request) -> web.Response:
    """The timeline: hub Events and cluster transitions, newest first; filters `cluster`, `workload`."""
    hub_events, note = await _list_or_empty(request, EVENT)
    cluster_items = await _list(request, constants.CLUSTER)
    cluster = request.query.get("cluster", "")
    workload = request.query.get("workload", "")

    def entries() -> list[dict[str, Any]]:
        return timeline.timeline(hub_events, cluster_items, cluster=cluster, workload=workload)

    return web.json_response({"items": await asyncio.to_thread(entries), "notes": [note] if note else []})
