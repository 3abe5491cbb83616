"""Wiring the search API into a hub's API server: the `search` resource, its handler, its controller.

`search.karmada.io/v1alpha1` has two resources on a hub: `resourceregistries`, a CRD installed with
Karmada's others, and `search`, which stores nothing — its `cache` object's subresources `api` and
`apis` are the search API. `search` is added to the registry as the API server adds any resource
while running (under a name no CRD can have), so kube's request parser, RBAC and discovery treat it
as a resource of the group, as they do in front of Karmada's karmada-search.
"""

from __future__ import annotations

from flotilla.api.karmada.search import NATIVE_PATH_ROOTS, SEARCH, SEARCH_VERSION
from flotilla.api.scheme import ResourceType
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.pki.directory import PKIPaths
from flotilla.apiserver.registry.resources import builtin_served
from flotilla.apiserver.search.controller import SearchController
from flotilla.apiserver.search.handlers import SearchAPI
from flotilla.apiserver.search.store import SearchCache
from flotilla.client import ClusterConfig

SEARCH_RESOURCE = ResourceType(
    group=SEARCH.group,
    version=SEARCH_VERSION,
    kind="Search",
    plural=SEARCH.resource,
    singular="search",
    namespaced=False,
    verbs=(),
)
REGISTRATION = "search.karmada.io/search (served by the API server)"
"""The registry entry `search` is kept under: not a CRD name (those are DNS subdomains)."""


class Search:
    """The search cache of one hub API server: started once the server listens (it reads the members
    through the server's own cluster proxy); `stop` before the server stops."""

    def __init__(self, ctx: APIContext) -> None:
        self.ctx = ctx
        self.cache = SearchCache()
        self.controller: SearchController | None = None
        self.api = SearchAPI(self.cache, self)
        ctx.registry.set_custom(REGISTRATION, [builtin_served(SEARCH_RESOURCE)])
        for root in NATIVE_PATH_ROOTS:
            ctx.subresource_handlers[(SEARCH.group, SEARCH.resource, root)] = {"get": self.api.serve}

    def start(self, pki: PKIPaths, url: str) -> None:
        """Start caching, reaching this API server at `url` as its admin (the members through its proxy)."""
        hub = ClusterConfig(
            server=url,
            ca_pem=pki.ca_cert.read_bytes(),
            client_cert_pem=pki.admin_cert.read_bytes(),
            client_key_pem=pki.admin_key.read_bytes(),
        )
        self.controller = SearchController(self.ctx, self.cache, hub)
        self.controller.start()

    def stale_clusters(self, cluster_names: list[str]) -> list[str]:
        if self.controller is None:
            return []
        return self.controller.stale_clusters(cluster_names)

    async def stop(self) -> None:
        if self.controller is not None:
            await self.controller.stop()
            self.controller = None
