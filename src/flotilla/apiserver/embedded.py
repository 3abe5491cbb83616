"""An API server without its HTTP listener: store, watch cache, admission and in-process controllers.

`APIServer` puts HTTPS in front of one of these; the simulator's controllers and fast unit tests
use it directly (with the in-memory store), through `LocalClient`. `InProcessControllers` are the
housekeeping controllers and the Certificates API's, started and stopped together.
`serve_pod_subresource` lets a component outside the API server (the sim's kubelet) serve a pod's
`exec` or `log` without reaching into the HTTP layer; `serve_computed_resource` a resource computed
per request (the sim's `metrics.k8s.io`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta

from aiohttp import web

from flotilla.api.scheme import ResourceType
from flotilla.apiserver.admission.webhooks import WebhookAdmission
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.certificates.install import CertificateControllers
from flotilla.apiserver.context import APIContext, APISettings
from flotilla.apiserver.housekeeping.bootstrap import ensure_default_namespaces
from flotilla.apiserver.housekeeping.crds import CRDController
from flotilla.apiserver.housekeeping.eventttl import EventExpiry
from flotilla.apiserver.housekeeping.garbagecollector import GarbageCollector
from flotilla.apiserver.housekeeping.namespaces import NamespaceController
from flotilla.apiserver.housekeeping.rbacaggregation import ClusterRoleAggregation
from flotilla.apiserver.housekeeping.rbacbootstrap import ensure_bootstrap_policy
from flotilla.apiserver.http.app import forbidden
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.registry.resources import ResourceRegistry, ServedResource, builtin_served
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.cachecontroller import CacheController
from flotilla.apiserver.store.watchcache import WatchCache
from flotilla.apiserver.users import USER_KEY
from flotilla.storage import Backend

PodSubresourceHandler = Callable[[web.Request, str, str], Awaitable[web.StreamResponse]]
"""Serves one pod subresource: called with the request, the pod's namespace and its name, once the
request is authenticated and authorized."""
ComputedResourceHandler = Callable[[web.Request, str, str, str], Awaitable[web.StreamResponse]]
"""Serves one resource computed per request: called with the request, the verb (`get` or `list`),
the namespace (empty: all, or a cluster-scoped resource) and the name (empty for a list), once the
request is authenticated and authorized."""

CONNECT_SUBRESOURCES = frozenset({"exec", "attach", "portforward"})
"""kube's connect subresources: a WebSocket (a GET) needs `create` on them as well as `get`, as an
SPDY POST does (kube-apiserver ≥ 1.30, AuthorizePodWebsocketUpgradeCreatePermission)."""


class InProcessControllers:
    def __init__(self, ctx: APIContext) -> None:
        self.ctx = ctx
        self.crds = CRDController(ctx)
        self.namespaces = NamespaceController(ctx)
        self.garbage_collector = GarbageCollector(ctx)
        self.role_aggregation = ClusterRoleAggregation(ctx)
        self._all: list[CacheController] = [
            self.crds,
            self.namespaces,
            self.garbage_collector,
            self.role_aggregation,
        ]
        self.event_expiry = EventExpiry(ctx, timedelta(seconds=ctx.settings.event_ttl_seconds))
        self.certificates = CertificateControllers(ctx)

    async def start(self) -> None:
        # Custom resources already defined are served before the first request arrives.
        await self.crds.serve_existing()
        await ensure_default_namespaces(self.ctx)
        await ensure_bootstrap_policy(self.ctx)
        for controller in self._all:
            controller.start()
        self.event_expiry.start()
        self.certificates.start()

    async def stop(self) -> None:
        await self.certificates.stop()
        await self.event_expiry.stop()
        for controller in self._all:
            await controller.stop()


class EmbeddedAPI:
    def __init__(self, backend: Backend, settings: APISettings | None = None) -> None:
        self.settings = settings or APISettings()
        self.backend = backend
        self.cache = WatchCache(
            backend,
            history_window=self.settings.history_window,
            history_max_bytes=self.settings.history_max_bytes,
            hot_objects=self.settings.hot_objects,
        )
        self.registry = ResourceRegistry()
        self.context = APIContext(backend, self.cache, self.registry, self.settings)
        self.admission = WebhookAdmission(self.registry, self.cache)
        self.context.admission = self.admission
        self.controllers = InProcessControllers(self.context)

    def serve_pod_subresource(
        self, subresource: str, verbs: tuple[str, ...], handler: PodSubresourceHandler
    ) -> None:
        """Serve `pods/<name>/<subresource>` for `verbs` with `handler` (404 for an unnamed pod)."""

        async def serve(
            request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
        ) -> web.StreamResponse:
            if subresource in CONNECT_SUBRESOURCES and info.verb == "get":
                attributes = AuthorizationAttributes(
                    request[USER_KEY],
                    "get",
                    True,
                    info.group,
                    info.version,
                    info.resource,
                    info.subresource,
                    info.namespace,
                    info.name,
                    request.path,
                )
                create = replace(attributes, verb="create")
                decision = ctx.authorizer.authorize(create)
                if not decision.allowed:
                    raise forbidden(create, decision.reason)
            return await handler(request, info.namespace, info.name)

        self.context.subresource_handlers[("", "pods", subresource)] = dict.fromkeys(verbs, serve)

    def serve_computed_resource(self, resource: ResourceType, handler: ComputedResourceHandler) -> None:
        """Serve `resource` (discovery, RBAC, its verbs) with `handler`: nothing of it is stored, each
        answer is computed when asked (the resource metrics API of a simulated member)."""

        async def serve(
            request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
        ) -> web.StreamResponse:
            return await handler(request, info.verb, info.namespace, info.name)

        self.registry.set_custom(f"{resource.plural}.{resource.group} (computed)", [builtin_served(resource)])
        self.context.computed_resources[resource.group_resource] = dict.fromkeys(resource.verbs, serve)

    def client(self, manager: str) -> LocalClient:
        return LocalClient(self.context, manager)

    async def start(self) -> None:
        await self.backend.start()
        await self.cache.start()
        await self.controllers.start()

    async def stop(self) -> None:
        await self.controllers.stop()
        await self.cache.stop()
        await self.admission.close()
        await self.backend.close()
