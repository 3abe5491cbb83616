"""`GET /apis/search.karmada.io/v1alpha1/search/cache/<Kubernetes path>`: lists, gets and discovery.

The request has been authenticated and authorized by then: kube's request parser reads the path as
a `get` of `search/cache` with the subresource `api` or `apis` (what RBAC grants), as it does in
front of Karmada's karmada-search. Here the Kubernetes path below it is parsed (`paths.py`) and
answered from the cache:

- a collection: a list across every cached cluster, with label and field selectors, `limit` and
  `continue` (`listing.py`), as JSON, a Table (`kubectl get`) or metadata; `watch` streams changes
  (`streaming.py`);
- a name: that object from each cluster holding it, as a list (Karmada answers so: the same name may
  live in several clusters); 404 when none does;
- discovery (`/api`, `/apis`, `/api/v1`, `/apis/apps/v1`...): the hub's own, so kubectl pointed at
  `.../search/cache` resolves `pods` as it does on the hub.

A kind the hub serves but no ResourceRegistry caches is an empty list with a warning; a kind neither
serves nor caches is 404. Clusters that are not Ready (or not reachable) are named in a warning:
their objects are the last the cache saw.
"""

from __future__ import annotations

from typing import Protocol

from aiohttp import web

from flotilla.api.karmada.search import CACHE_BACKEND, SEARCH
from flotilla.api.scheme import GroupResource
from flotilla.api.selectors import SelectorError
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.http import discovery
from flotilla.apiserver.http.content import View, negotiate
from flotilla.apiserver.http.filters import extra_fields
from flotilla.apiserver.http.handlers.params import (
    decode_continue,
    encode_continue,
    include_object,
    list_options,
    query_bool,
)
from flotilla.apiserver.http.responses import json_response
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.requestwarnings import add_warning
from flotilla.apiserver.search.answers import list_body, served_for, view_body
from flotilla.apiserver.search.kinds import CachedKind
from flotilla.apiserver.search.listing import list_page
from flotilla.apiserver.search.paths import DiscoveryPath, ResourcePath, parse_native_path
from flotilla.apiserver.search.selection import Query
from flotilla.apiserver.search.store import ResourceCache, SearchCache
from flotilla.apiserver.search.streaming import watch


class Freshness(Protocol):
    def stale_clusters(self, cluster_names: list[str]) -> list[str]:
        """Of `cluster_names`, those whose cached objects may be out of date."""
        ...


def native_path(request: web.Request) -> str:
    """What follows `search/cache` in the request's path."""
    raw = request.rel_url.path
    marker = f"/{SEARCH.resource}/{CACHE_BACKEND}"
    return raw[raw.index(marker) + len(marker) :] if marker in raw else "/"


class SearchAPI:
    """The handler of `search/cache/{api,apis}/...` on one hub API server."""

    def __init__(self, cache: SearchCache, freshness: Freshness) -> None:
        self.cache = cache
        self.freshness = freshness

    async def serve(
        self, request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
    ) -> web.StreamResponse:
        if info.name != CACHE_BACKEND:
            raise errors.NotFound(
                f'the search backend "{info.name}" is not served: this hub serves search/{CACHE_BACKEND} '
                "(its own cache) only"
            )
        target = parse_native_path(native_path(request))
        if isinstance(target, DiscoveryPath):
            return await _discovery(request, ctx, target)
        resource = self._resource(ctx, target)
        options = list_options(request.query)
        try:
            query = Query(
                resource.kind,
                namespace=target.namespace,
                name=target.name,
                label_selector=options.label_selector,
                field_selector=options.field_selector,
            )
        except SelectorError as exc:
            raise errors.BadRequest(str(exc)) from exc
        self._warn(request, resource)
        if query_bool(request.query, "watch") and not target.name:
            return await watch(request, ctx, resource, query, options)
        return self._list(request, ctx, resource, query, options.limit, options.continue_token, target)

    def _resource(self, ctx: APIContext, target: ResourcePath) -> ResourceCache:
        found = self.cache.lookup(target.group, target.version, target.resource)
        if found is not None:
            return found
        served = ctx.registry.lookup(target.group, target.version, target.resource)
        if served is None or served.type.plural != target.resource or "list" not in served.type.verbs:
            raise errors.path_not_found()
        t = served.type
        kind = CachedKind(
            t.group,
            t.version,
            t.kind,
            t.plural,
            t.namespaced,
            extra_fields(served),
            served.custom is not None,
        )
        return self.cache.resource(kind)

    def _warn(self, request: web.Request, resource: ResourceCache) -> None:
        clusters = resource.cluster_names()
        if not clusters:
            kind = resource.kind
            add_warning(
                request,
                f"no ResourceRegistry caches {kind.plural} ({kind.api_version}) of any cluster: "
                "the search cache holds none",
            )
            return
        stale = self.freshness.stale_clusters(clusters)
        if stale:
            add_warning(
                request,
                f"clusters not Ready or not reachable, their objects as last cached: {', '.join(stale)}",
            )

    def _list(
        self,
        request: web.Request,
        ctx: APIContext,
        resource: ResourceCache,
        query: Query,
        limit: int,
        continue_token: str,
        target: ResourcePath,
    ) -> web.StreamResponse:
        negotiated = negotiate(request.headers.get("Accept"))
        revision = self.cache.revision
        after = ""
        if continue_token:
            token = decode_continue(continue_token)
            revision, after = token.revision, token.start_after
        page = list_page(resource, query, limit=0 if target.name else limit, after=after)
        if target.name and not page.items:
            raise errors.not_found(GroupResource(target.group, target.resource), target.name)
        more = encode_continue(revision, page.last) if page.last else ""
        codec = resource.codec
        if negotiated.view is not View.OBJECT:
            body = view_body(
                served_for(ctx, resource.kind),
                codec,
                page.items,
                negotiated,
                now=ctx.clock(),
                include_object=include_object(request.query) if negotiated.view is View.TABLE else "None",
                revision=revision,
                continue_token=more,
            )
            return json_response(body, content_type=negotiated.content_type)
        raws = [codec.render(item.entry) for item in page.items] if codec is not None else []
        return web.Response(
            body=list_body(resource.kind, raws, revision, more), content_type="application/json"
        )


async def _discovery(request: web.Request, ctx: APIContext, target: DiscoveryPath) -> web.Response:
    """The hub's discovery documents, for a client whose server is `.../search/cache`."""
    if target.root == "api" and not target.version:
        return await discovery.api_root(request)
    if target.root == "apis" and not target.group:
        return await discovery.apis_root(request)
    documents = request.app[discovery.DISCOVERY]
    if target.root == "api":
        key = f"gv:{target.version}"
    elif target.version:
        key = f"gv:{target.group}/{target.version}"
    else:
        key = f"group:{target.group}"
    body = documents.get(ctx, key)
    if body is None:
        raise errors.path_not_found()
    return web.Response(body=body, content_type="application/json")
