"""API discovery: legacy (/api, /apis, per group version) and aggregated (apidiscovery.k8s.io/v2).

kubectl 1.32 asks `/api` and `/apis` for the aggregated form first and falls back to legacy
discovery when the response's content type says plain JSON. Both are built from the resource
registry and cached until it changes (a CRD was added or removed).

Every discovery path also answers with one trailing slash, as kube-apiserver's do: `/version`,
`/api`, `/api/v1` and `/apis/<group>/<version>` are go-restful routes there, and go-restful matches
a route's path followed by nothing or by a single `/` (its route expression ends in `(/.*)?$`, and
a route whose remainder is more than `/` is not a candidate), so `/version/` and `/api/v1/` answer
200 while `/version/x` and `/version//` are 404. `/apis/` and `/apis/<group>/` are registered on the
aggregator's mux beside `/apis` and `/apis/<group>` (`UnlistedHandle(groupPath+"/", ...)`), so
they answer the same documents too. Resource paths (`/api/v1/namespaces/`) already read as the path
without the slash here, as kube's request-info parser splits them the same way.
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.context import CONTEXT, APIContext
from flotilla.apiserver.http.content import parse_accept
from flotilla.apiserver.registry.resources import ServedResource

AGGREGATED_V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
AGGREGATED_V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"


def _wants_aggregated(accept: str | None) -> str | None:
    for media in parse_accept(accept or ""):
        if media.type != "application/json":
            continue
        if (
            media.params.get("as") == "APIGroupDiscoveryList"
            and media.params.get("g") == "apidiscovery.k8s.io"
        ):
            version = media.params.get("v")
            if version in ("v2", "v2beta1"):
                return version
            continue
        if "as" not in media.params:
            return None
    return None


class DiscoveryCache:
    """Discovery documents, rebuilt when the registry's generation changes."""

    def __init__(self) -> None:
        self._generation = -1
        self._docs: dict[str, bytes] = {}

    def get(self, ctx: APIContext, name: str) -> bytes | None:
        if self._generation != ctx.registry.generation:
            self._docs = _build_all(ctx)
            self._generation = ctx.registry.generation
        return self._docs.get(name)


def _resource_entry(served: ServedResource) -> list[dict[str, Any]]:
    t = served.type
    entry: dict[str, Any] = {
        "name": t.plural,
        "singularName": t.singular,
        "namespaced": t.namespaced,
        "kind": t.kind,
        "verbs": list(t.verbs),
        "storageVersionHash": served.storage_version_hash(),
    }
    if t.short_names:
        entry["shortNames"] = list(t.short_names)
    if t.categories:
        entry["categories"] = list(t.categories)
    entries = [entry]
    for sub in t.subresources:
        sub_entry: dict[str, Any] = {
            "name": f"{t.plural}/{sub.name}",
            "singularName": "",
            "namespaced": t.namespaced,
            "kind": sub.kind.kind if sub.kind else t.kind,
            "verbs": list(sub.verbs),
        }
        if sub.kind is not None:
            sub_entry["group"] = sub.kind.group
            sub_entry["version"] = sub.kind.version
        entries.append(sub_entry)
    return entries


def _aggregated_resource(served: ServedResource) -> dict[str, Any]:
    t = served.type
    entry: dict[str, Any] = {
        "resource": t.plural,
        "responseKind": {"group": t.group, "version": t.version, "kind": t.kind},
        "scope": "Namespaced" if t.namespaced else "Cluster",
        "singularResource": t.singular,
        "verbs": list(t.verbs),
    }
    if t.short_names:
        entry["shortNames"] = list(t.short_names)
    if t.categories:
        entry["categories"] = list(t.categories)
    if t.subresources:
        entry["subresources"] = [
            {
                "subresource": sub.name,
                "responseKind": {
                    "group": sub.kind.group if sub.kind else t.group,
                    "version": sub.kind.version if sub.kind else t.version,
                    "kind": sub.kind.kind if sub.kind else t.kind,
                },
                "verbs": list(sub.verbs),
            }
            for sub in t.subresources
        ]
    return entry


def _build_all(ctx: APIContext) -> dict[str, bytes]:
    docs: dict[str, bytes] = {}
    groups: list[dict[str, Any]] = []
    aggregated_core: list[dict[str, Any]] = []
    aggregated_groups: list[dict[str, Any]] = []
    for group, versions in ctx.registry.group_versions():
        version_docs = []
        for version in versions:
            served = sorted(
                (s for s in ctx.registry.all() if s.type.group == group and s.type.version == version),
                key=lambda s: s.type.plural,
            )
            gv = f"{group}/{version}" if group else version
            resources = [e for s in served for e in _resource_entry(s)]
            docs[f"gv:{gv}"] = orjson.dumps(
                {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
            )
            version_docs.append(
                {
                    "version": version,
                    "resources": [_aggregated_resource(s) for s in served],
                    "freshness": "Current",
                }
            )
        if group:
            group_versions = [{"groupVersion": f"{group}/{v}", "version": v} for v in versions]
            groups.append({"name": group, "versions": group_versions, "preferredVersion": group_versions[0]})
            aggregated_groups.append({"metadata": {"name": group}, "versions": version_docs})
        else:
            aggregated_core.append({"metadata": {}, "versions": version_docs})
    docs["apis"] = orjson.dumps({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
    for entry in groups:
        docs[f"group:{entry['name']}"] = orjson.dumps({"kind": "APIGroup", "apiVersion": "v1", **entry})
    for version, media in (("v2", AGGREGATED_V2), ("v2beta1", AGGREGATED_V2BETA1)):
        api_version = f"apidiscovery.k8s.io/{version}"
        docs[f"aggregated-api:{version}"] = orjson.dumps(
            {
                "kind": "APIGroupDiscoveryList",
                "apiVersion": api_version,
                "metadata": {},
                "items": aggregated_core,
            }
        )
        docs[f"aggregated-apis:{version}"] = orjson.dumps(
            {
                "kind": "APIGroupDiscoveryList",
                "apiVersion": api_version,
                "metadata": {},
                "items": aggregated_groups,
            }
        )
        docs[f"media:{version}"] = media.encode()
    return docs


DISCOVERY: web.AppKey[DiscoveryCache] = web.AppKey("flotilla.apiserver.http.discovery", DiscoveryCache)


def _respond(body: bytes | None, content_type: str = "application/json") -> web.Response:
    if body is None:
        raise errors.path_not_found()
    response = web.Response(body=body)
    response.headers["Content-Type"] = content_type
    return response


async def api_root(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    cache = request.app[DISCOVERY]
    version = _wants_aggregated(request.headers.get("Accept"))
    if version:
        media = (cache.get(ctx, f"media:{version}") or b"").decode()
        return _respond(cache.get(ctx, f"aggregated-api:{version}"), media)
    host = request.host
    return _respond(
        orjson.dumps(
            {
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": host}],
            }
        )
    )


async def apis_root(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    cache = request.app[DISCOVERY]
    version = _wants_aggregated(request.headers.get("Accept"))
    if version:
        media = (cache.get(ctx, f"media:{version}") or b"").decode()
        return _respond(cache.get(ctx, f"aggregated-apis:{version}"), media)
    return _respond(cache.get(ctx, "apis"))


async def group(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    return _respond(request.app[DISCOVERY].get(ctx, f"group:{request.match_info['group']}"))


async def group_version(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    group_name = request.match_info.get("group", "")
    version = request.match_info["version"]
    gv = f"{group_name}/{version}" if group_name else version
    return _respond(request.app[DISCOVERY].get(ctx, f"gv:{gv}"))
