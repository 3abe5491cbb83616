"""Serving `/openapi/v3` and `/openapi/v2` from the cache, as kube-apiserver answers them.

The v3 root lists every group version's document with a content hash; a document fetched with its
current `?hash=` is immutable. `/openapi/v2` is one document in two forms, chosen by the Accept
header the way kube-openapi chooses (the first acceptable clause by quality: JSON, or gnostic
protobuf under either of its names; nothing acceptable is 406). Every answer carries an ETag: a
request whose `If-None-Match` names it gets 304 and no body, so a client that kept the document
downloads nothing again; a client that accepts gzip gets the bytes compressed once, when the
document was built.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.context import CONTEXT
from flotilla.apiserver.encoding.protobuf.openapiv2 import (
    OPENAPI_V2_PROTOBUF,
    OPENAPI_V2_PROTOBUF_DEPRECATED,
)
from flotilla.apiserver.http.content import parse_accept

from .cache import JSON, Encoded, OpenAPICache, V2Document

__all__ = ["OPENAPI", "OpenAPICache", "openapi_document", "openapi_root", "openapi_v2"]

OPENAPI: web.AppKey[OpenAPICache] = web.AppKey("flotilla.apiserver.http.openapi", OpenAPICache)

V2Form = Callable[[V2Document], Encoded]
_V2_FORMS: tuple[tuple[str, V2Form], ...] = (
    (JSON, lambda document: document.json),
    (OPENAPI_V2_PROTOBUF_DEPRECATED, lambda document: document.protobuf),
    (OPENAPI_V2_PROTOBUF, lambda document: document.protobuf),
)
"""What `/openapi/v2` offers, in kube-openapi's order of preference for a wildcard."""


async def openapi_root(request: web.Request) -> web.Response:
    documents = await request.app[OPENAPI].v3(request.app[CONTEXT])
    return serve(request, documents.root, cache_control="no-cache, private")


async def openapi_document(request: web.Request) -> web.Response:
    key = request.match_info["key"].strip("/")
    documents = await request.app[OPENAPI].v3(request.app[CONTEXT])
    document = documents.documents.get(key)
    if document is None:
        raise errors.path_not_found()
    immutable = request.query.get("hash") == document.etag
    return serve(request, document, cache_control="public, immutable" if immutable else "no-cache, private")


async def openapi_v2(request: web.Request) -> web.Response:
    form = v2_form(request.headers.get("Accept", ""))
    if form is None:
        raise errors.NotAcceptable(
            f"/openapi/v2 is offered as {JSON} or {OPENAPI_V2_PROTOBUF}; ask for one of them in Accept"
        )
    document = await request.app[OPENAPI].v2(request.app[CONTEXT])
    return serve(request, form(document), vary="Accept, Accept-Encoding")


def v2_form(accept: str) -> V2Form | None:
    """Which form of the v2 document answers `accept` (None: neither is acceptable).

    An empty Accept is `*/*`; clauses are tried by quality, highest first (in header order among
    equals), and one with quality 0 refuses what it names.
    """
    ranked = sorted(parse_accept(accept or "*/*"), key=lambda media: -_quality(media.params.get("q")))
    for media in ranked:
        if _quality(media.params.get("q")) <= 0:
            continue
        for offered, form in _V2_FORMS:
            if _matches(media.type, offered):
                return form
    return None


def serve(
    request: web.Request,
    document: Encoded,
    *,
    cache_control: str | None = None,
    vary: str = "Accept-Encoding",
) -> web.Response:
    """`document` as the answer to `request`: 304 when the client has it, gzip when it takes it."""
    headers = {"Etag": f'"{document.etag}"', "Vary": vary}
    if cache_control is not None:
        headers["Cache-Control"] = cache_control
    if _has_current(request.headers.get("If-None-Match", ""), document.etag):
        return web.Response(status=304, headers=headers)
    if accepts_gzip(request.headers.get("Accept-Encoding", "")):
        headers["Content-Encoding"] = "gzip"
        return web.Response(body=document.gzipped, content_type=document.content_type, headers=headers)
    return web.Response(body=document.body, content_type=document.content_type, headers=headers)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (by name or `*`, quality above 0)."""
    for media in parse_accept(accept_encoding):
        if media.type in ("gzip", "*") and _quality(media.params.get("q")) > 0:
            return True
    return False


def _has_current(if_none_match: str, etag: str) -> bool:
    tags = {tag.strip().removeprefix("W/").strip('"') for tag in if_none_match.split(",")}
    return "*" in tags or etag in tags


def _matches(pattern: str, media_type: str) -> bool:
    kind, _, subtype = pattern.partition("/")
    offered_kind, _, offered_subtype = media_type.partition("/")
    return kind in ("*", offered_kind) and subtype in ("*", offered_subtype)


def _quality(value: str | None) -> float:
    if value is None:
        return 1.0
    try:
        return float(value)
    except ValueError:
        return 0.0
