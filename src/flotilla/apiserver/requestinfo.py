"""Parse a resource request's URL and method into what it asks for (kube-apiserver's RequestInfo).

URL forms:
    /api/v1/<resource>[/<name>[/<subresource>]]
    /api/v1/namespaces/<namespace>/<resource>[/<name>[/<subresource>]]
    /apis/<group>/<version>/... the same
`namespaces/<name>/status` and `namespaces/<name>/finalize` address the namespace itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web
from multidict import MultiMapping

NAMESPACE_SUBRESOURCES = frozenset({"status", "finalize"})
PATH_SUBRESOURCES = frozenset({"proxy", "api", "apis"})
"""Subresources followed by a path of their own (`clusters/<name>/proxy/api/v1/pods`, the search API's
`search/cache/api/v1/pods`), which kube's RequestInfo leaves to the handler."""

_VERBS = {"POST": "create", "PUT": "update", "PATCH": "patch"}


@dataclass(frozen=True, slots=True)
class RequestInfo:
    group: str
    version: str
    namespace: str
    resource: str
    name: str
    subresource: str
    verb: str

    @property
    def is_collection(self) -> bool:
        return not self.name


def parse_request_info(path: str, method: str, query: MultiMapping[str]) -> RequestInfo | None:
    """The RequestInfo of a resource URL, or None when the path is not one (discovery, health…)."""
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2:
        return None
    if parts[0] == "api":
        group, version, rest = "", parts[1], parts[2:]
    elif parts[0] == "apis" and len(parts) >= 3:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        return None
    if not rest:
        return None
    namespace = ""
    if rest[0] == "namespaces" and len(rest) > 1:
        namespace = rest[1]
        if len(rest) > 2 and rest[2] not in NAMESPACE_SUBRESOURCES:
            rest = rest[2:]
    if len(rest) > 3 and rest[2] not in PATH_SUBRESOURCES:
        return None
    resource = rest[0]
    name = rest[1] if len(rest) > 1 else ""
    subresource = rest[2] if len(rest) > 2 else ""
    return RequestInfo(group, version, namespace, resource, name, subresource, _verb(method, name, query))


def _verb(method: str, name: str, query: MultiMapping[str]) -> str:
    if method in ("GET", "HEAD"):
        if name:
            # As in kube, only a collection is watched: a named GET is a get whatever its query says
            # (a watch of one object selects it with fieldSelector=metadata.name=…).
            return "get"
        # kube reads `watch` as any boolean query parameter: present and not "0" or "false" is true.
        watch = query.getall("watch", [])
        if watch and watch[0] != "0" and watch[0].lower() != "false":
            return "watch"
        return "list"
    if method == "DELETE":
        return "delete" if name else "deletecollection"
    return _VERBS.get(method, method.lower())


_REQUEST_INFO_KEY = web.RequestKey("flotilla.request.info", tuple)


def request_info(request: web.BaseRequest) -> RequestInfo | None:
    """`parse_request_info` of a request, parsed once and kept on it (authorization, handler, audit)."""
    found = request.get(_REQUEST_INFO_KEY)
    if found is None:
        found = request[_REQUEST_INFO_KEY] = (
            parse_request_info(request.path, request.method, request.query),
        )
    info: RequestInfo | None = found[0]
    return info
