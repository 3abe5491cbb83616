"""Wiring the cluster proxy into a hub's API server: the `clusters/proxy` and `clusters/tunnel` handlers."""

from __future__ import annotations

from aiohttp import web

from flotilla.api.karmada.agentrbac import cluster_of_agent
from flotilla.api.karmada.constants import CLUSTER, CLUSTER_GROUP, CLUSTERS, ClusterSyncMode
from flotilla.apiserver import errors
from flotilla.apiserver.clusterproxy.direct import DirectForwarder
from flotilla.apiserver.clusterproxy.headers import (
    RELAYED_HEADER,
    Headers,
    request_headers,
    upgrade_request_headers,
)
from flotilla.apiserver.clusterproxy.relay import RelayCredentials, TunnelDirectory, relayed
from flotilla.apiserver.clusterproxy.targets import DirectTarget, proxy_target
from flotilla.apiserver.clusterproxy.tunnels import TunnelRegistry, forward_through_tunnel
from flotilla.apiserver.clusterproxy.upgrades import (
    spdy_direct,
    spdy_refused,
    spdy_request_headers,
    upgrade_direct,
    upgrade_protocol,
    upgrade_through_tunnel,
)
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.users import USER_KEY

PROXY = "proxy"
TUNNEL = "tunnel"
PROXY_VERBS = ("get", "create", "update", "patch", "delete")


def proxied_path(request: web.Request, cluster: str) -> str:
    """What follows `clusters/<name>/proxy` in the request's path, as sent (`/` when nothing does)."""
    raw = request.rel_url.raw_path
    marker = f"/{CLUSTERS.resource}/{cluster}/{PROXY}"
    tail = raw[raw.index(marker) + len(marker) :] if marker in raw else ""
    return tail if tail.startswith("/") else "/" + tail


class ClusterProxy:
    """The proxy of one hub API server: Push members dialled directly, Pull members through tunnels."""

    def __init__(self, ctx: APIContext) -> None:
        self.ctx = ctx
        self.direct = DirectForwarder()
        self.tunnels = TunnelRegistry()
        self._relay: tuple[TunnelDirectory, RelayCredentials] | None = None
        ctx.subresource_handlers[(CLUSTER_GROUP, CLUSTERS.resource, PROXY)] = dict.fromkeys(
            PROXY_VERBS, self.proxy
        )
        ctx.subresource_handlers[(CLUSTER_GROUP, CLUSTERS.resource, TUNNEL)] = {"get": self.tunnel}

    async def proxy(
        self, request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
    ) -> web.StreamResponse:
        pairs = list(request.headers.items())
        upgrade = upgrade_protocol(pairs)
        websocket = upgrade == "websocket"
        target = proxy_target(ctx, info.name)
        user = request[USER_KEY]
        headers = upgrade_request_headers(pairs, user) if websocket else request_headers(pairs, user)
        if upgrade and not websocket:
            headers = spdy_request_headers(headers, request.headers["Upgrade"])
        path = proxied_path(request, info.name)
        query = request.rel_url.raw_query_string
        path_and_query = path + (f"?{query}" if query else "")
        if isinstance(target, DirectTarget):
            return await self._dial(request, target, path_and_query, headers, upgrade)
        tunnel = self.tunnels.get(target.cluster)
        if tunnel is None:
            peer = self._peer_holding(request, target.cluster)
            if peer is None:
                raise errors.ServiceUnavailable(
                    f"cluster {target.cluster} is in Pull mode and its agent has no tunnel open to this "
                    "API server (is the agent running and connected?)"
                )
            return await self._dial(request, peer, path_and_query, relayed(headers), upgrade)
        if websocket:
            return await upgrade_through_tunnel(request, tunnel, path, query, headers)
        refused = spdy_refused(target.cluster) if upgrade else None
        return await forward_through_tunnel(request, tunnel, path, query, headers, when_switched=refused)

    async def _dial(
        self, request: web.Request, target: DirectTarget, path_and_query: str, headers: Headers, upgrade: str
    ) -> web.StreamResponse:
        """Send the request to a server this one dials: a Push member, or the peer holding a tunnel."""
        if not upgrade:
            return await self.direct.forward(request, target, path_and_query, headers)
        session = await self.direct.session(target)
        relay = upgrade_direct if upgrade == "websocket" else spdy_direct
        return await relay(request, session, target, path_and_query, headers)

    def relay_through(self, directory: TunnelDirectory, credentials: RelayCredentials) -> None:
        """Announce this server's tunnels in `directory` and relay to the peers holding the others."""
        self.tunnels.directory = directory
        self._relay = (directory, credentials)

    def _peer_holding(self, request: web.Request, cluster: str) -> DirectTarget | None:
        """The peer API server holding `cluster`'s tunnel, as a target to relay to (None: no peer
        does, or this request was relayed here already)."""
        if self._relay is None or RELAYED_HEADER in request.headers:
            return None
        directory, credentials = self._relay
        holder = directory.holder(cluster)
        if holder is None or holder == directory.own_url:
            return None
        return DirectTarget(cluster, credentials.config_for(holder, cluster))

    async def tunnel(
        self, request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
    ) -> web.StreamResponse:
        """The WebSocket a Pull cluster's agent opens: only that cluster's agent may open it."""
        cluster = ctx.lookup(CLUSTER, "", info.name)
        if cluster is None:
            raise errors.not_found(CLUSTERS, info.name)
        if (cluster.get("spec") or {}).get("syncMode") != ClusterSyncMode.PULL:
            message = f"cluster {info.name} is in Push mode: the hub dials it and needs no tunnel"
            raise errors.BadRequest(message)
        user = request[USER_KEY]
        if cluster_of_agent(user.username) != info.name:
            raise errors.Forbidden(
                f'clusters.{CLUSTER_GROUP} "{info.name}" is forbidden: User "{user.username}" cannot open '
                f"the tunnel of cluster {info.name}: only that cluster's agent may",
                name=info.name,
                group=CLUSTER_GROUP,
                kind=CLUSTERS.resource,
            )
        return await self.tunnels.serve(request, info.name)

    async def close(self) -> None:
        await self.tunnels.close()
        await self.direct.close()
