"""Building HTTP responses: JSON bodies, objects in the negotiated view, Status errors, warnings."""

from __future__ import annotations

import json
from typing import Any

import orjson
from aiohttp import web

from flotilla.apiserver.context import APIContext
from flotilla.apiserver.encoding.bodies import JSON
from flotilla.apiserver.errors import APIError
from flotilla.apiserver.http import views
from flotilla.apiserver.http.content import View, negotiate
from flotilla.apiserver.http.handlers.params import include_object
from flotilla.apiserver.http.responseheaders import warning_values
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestwarnings import collected_warnings
from flotilla.apiserver.store.watchcache import CachedObject


def json_response(body: Any, *, status: int = 200, content_type: str = JSON) -> web.Response:
    try:
        encoded = orjson.dumps(body)
    except TypeError:
        # A message quoting request text that was not UTF-8 (lone surrogates): the standard library
        # escapes them, and clients read such escapes as U+FFFD.
        encoded = json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode()
    response = web.Response(body=encoded, status=status)
    response.headers["Content-Type"] = content_type
    return response


def object_response(
    request: web.Request, ctx: APIContext, served: ServedResource, item: CachedObject, *, status: int = 200
) -> web.Response:
    negotiated = negotiate(request.headers.get("Accept"))
    if negotiated.view is View.OBJECT:
        response = web.Response(body=item.raw, status=status)
        response.headers["Content-Type"] = JSON
        return response
    include = include_object(request.query) if negotiated.view is View.TABLE else "Metadata"
    body = views.render_object(item, served, negotiated, ctx.clock(), include)
    return json_response(body, status=status, content_type=negotiated.content_type)


def status_response(error: APIError) -> web.Response:
    response = json_response(error.status(), status=error.code)
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(error.retry_after)
    return response


def success_status(details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
    if details:
        body["details"] = details
    return body


def warning_headers(request: web.Request) -> list[str]:
    """The request's warnings as `Warning` header values (escaped, deduplicated, 4 KiB at most)."""
    return warning_values(collected_warnings(request))
