"""Wiring resource metrics into a hub's API server: `pods` and `nodes` of `metrics.k8s.io/v1beta1`.

Both are added to the registry as the API server adds any resource while running (under a name no
CRD can have) and answered per request, never stored: discovery lists them as metrics-server's
(get and list, no watch), so `kubectl top` finds them, and kube's request parser and RBAC treat
them as any resource's, so the caller needs `get`/`list` on `pods.metrics.k8s.io` (or `nodes`) on
the hub before a member is asked anything.
"""

from __future__ import annotations

from aiohttp import web

from flotilla.api.fieldselectors import check_metadata_field_selector, parse_field_selector
from flotilla.api.karmada.constants import CLUSTER
from flotilla.api.resourcemetrics import NODE_METRICS, POD_METRICS
from flotilla.api.selectors import SelectorError, parse_label_selector
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.http.responses import json_response
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.metrics.members import MemberMetrics, ready_clusters
from flotilla.apiserver.metrics.merging import merged_list, single
from flotilla.apiserver.pki.directory import PKIPaths
from flotilla.apiserver.registry.resources import ServedResource, builtin_served
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.client import ClusterConfig

MANAGER = "flotilla-metrics-adapter"
MEMBER_TIMEOUT = 5.0
"""Seconds a member has to answer before it is left out (kubectl's own request timeout is longer)."""


def member_path(served: ServedResource, namespace: str, name: str) -> str:
    """The member's path for the same request: `/apis/metrics.k8s.io/v1beta1[/namespaces/NS]/pods[/NAME]`."""
    resource = served.type
    path = f"/apis/{resource.group}/{resource.version}"
    if namespace:
        path += f"/namespaces/{namespace}"
    path += f"/{resource.plural}"
    return f"{path}/{name}" if name else path


class ResourceMetrics:
    """The metrics API of one hub API server: answers once `start`ed (it asks the members through the
    server's own cluster proxy, so only once the server listens); `stop` before the server stops."""

    def __init__(self, ctx: APIContext, member_timeout: float = MEMBER_TIMEOUT) -> None:
        self.ctx = ctx
        self.local = LocalClient(ctx, MANAGER)
        self.member_timeout = member_timeout
        self.members: MemberMetrics | None = None
        for resource in (POD_METRICS, NODE_METRICS):
            registration = f"{resource.plural}.{resource.group} (served by the API server)"
            ctx.registry.set_custom(registration, [builtin_served(resource)])
            ctx.computed_resources[resource.group_resource] = dict.fromkeys(resource.verbs, self.serve)

    def start(self, pki: PKIPaths, url: str) -> None:
        """Answer, reaching this API server at `url` as its admin (the members through its proxy)."""
        hub = ClusterConfig(
            server=url,
            ca_pem=pki.ca_cert.read_bytes(),
            client_cert_pem=pki.admin_cert.read_bytes(),
            client_key_pem=pki.admin_key.read_bytes(),
        )
        self.members = MemberMetrics(hub, self.member_timeout)

    async def serve(
        self, request: web.Request, ctx: APIContext, info: RequestInfo, served: ServedResource
    ) -> web.StreamResponse:
        if self.members is None:
            raise errors.ServiceUnavailable("the metrics API is starting: try again in a moment")
        query: dict[str, str] = {}
        if info.verb == "list":
            label_selector = request.query.get("labelSelector", "")
            field_selector = request.query.get("fieldSelector", "")
            try:  # refused here, in the hub's words, rather than by each member
                parse_label_selector(label_selector)
                check_metadata_field_selector(parse_field_selector(field_selector))
            except SelectorError as exc:
                raise errors.BadRequest(str(exc)) from exc
            query = {"labelSelector": label_selector, "fieldSelector": field_selector}
        clusters = ready_clusters(self.local.list(CLUSTER))
        path = member_path(served, info.namespace, info.name)
        answers = await self.members.ask_all(clusters, path, query)
        if info.verb == "get":
            return json_response(single(served.type, info.namespace, info.name, answers))
        return json_response(merged_list(served.type, answers))

    async def stop(self) -> None:
        if self.members is not None:
            await self.members.close()
            self.members = None
