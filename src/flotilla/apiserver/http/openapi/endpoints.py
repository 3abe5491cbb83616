"""Serving `/openapi/v3`: the root lists every group version's document with a content hash.

Documents are built on first request and kept until the registry changes (a CRD came or went);
built-in group versions are rebuilt only then, which costs a few milliseconds each.
"""

from __future__ import annotations

from aiohttp import web

from flotilla.api.scheme import GroupVersion
from flotilla.apiserver import errors
from flotilla.apiserver.context import CONTEXT, APIContext
from flotilla.apiserver.http.openapi.documents import (
    OpenAPIBuilder,
    ResourceTypeSpec,
    document_hash,
    group_version_key,
    root_document,
    serialize_document,
)
from flotilla.apiserver.registry.schema.builtin import builtin_schemas


class OpenAPICache:
    def __init__(self, kubernetes_version: str) -> None:
        self._builder = OpenAPIBuilder(builtin_schemas().definitions, info_version=kubernetes_version)
        self._generation = -1
        self._documents: dict[str, tuple[bytes, str]] = {}
        self._root = b""

    def _refresh(self, ctx: APIContext) -> None:
        if self._generation == ctx.registry.generation:
            return
        documents: dict[str, tuple[bytes, str]] = {}
        for group, versions in ctx.registry.group_versions():
            for version in versions:
                gv = GroupVersion(group, version)
                specs = [
                    ResourceTypeSpec(s.type, s.custom.raw_schema if s.custom else None)
                    for s in ctx.registry.in_group_version(gv)
                ]
                document = self._builder.group_version_document(gv, specs)
                documents[group_version_key(gv)] = (serialize_document(document), document_hash(document))
        self._documents = documents
        self._root = serialize_document(
            root_document({key: digest for key, (_, digest) in documents.items()})
        )
        self._generation = ctx.registry.generation

    def root(self, ctx: APIContext) -> bytes:
        self._refresh(ctx)
        return self._root

    def document(self, ctx: APIContext, key: str) -> tuple[bytes, str] | None:
        self._refresh(ctx)
        return self._documents.get(key)


OPENAPI: web.AppKey[OpenAPICache] = web.AppKey("flotilla.apiserver.http.openapi", OpenAPICache)


async def openapi_root(request: web.Request) -> web.Response:
    body = request.app[OPENAPI].root(request.app[CONTEXT])
    return web.Response(body=body, content_type="application/json")


async def openapi_document(request: web.Request) -> web.Response:
    key = request.match_info["key"].strip("/")
    found = request.app[OPENAPI].document(request.app[CONTEXT], key)
    if found is None:
        raise errors.path_not_found()
    body, digest = found
    response = web.Response(body=body, content_type="application/json")
    response.headers["Etag"] = f'"{digest}"'
    if request.query.get("hash") == digest:
        response.headers["Cache-Control"] = "public, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache, private"
    return response
