"""The aiohttp application: routes, authentication and the one place errors become Status bodies."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import structlog
from aiohttp import web

from flotilla.apiserver import discovery, errors
from flotilla.apiserver.context import CONTEXT, APIContext
from flotilla.apiserver.handlers.dispatch import handle_resource
from flotilla.apiserver.openapi.endpoints import OPENAPI, OpenAPICache, openapi_document, openapi_root
from flotilla.apiserver.responses import status_response, warning_headers

log = structlog.get_logger("flotilla.apiserver")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

PUBLIC_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version"})
"""Paths anyone may read without credentials (kube's system:public-info-viewer)."""

USER: web.RequestKey[Any] = web.RequestKey("flotilla.user", object)


def _identity(request: web.Request) -> tuple[str, list[str]] | None:
    """The user of a request from its verified TLS client certificate: CN is the name, O the groups."""
    transport = request.transport
    if transport is None:
        return None
    cert = transport.get_extra_info("peercert")
    if not cert:
        return None
    name = ""
    groups: list[str] = []
    for rdn in cert.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                name = value
            elif key == "organizationName":
                groups.append(value)
    if not name:
        return None
    return name, groups


def _authenticate(request: web.Request) -> tuple[str, list[str]]:
    identity = _identity(request)
    if identity is None:
        raise errors.Unauthorized("Unauthorized")
    return identity


@web.middleware
async def api_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        if request.path not in PUBLIC_PATHS and not request.path.startswith(
            ("/healthz/", "/livez/", "/readyz/")
        ):
            request["user"] = _authenticate(request)
        latency = request.app[CONTEXT].extras.get("latency_seconds")
        if latency:
            await asyncio.sleep(latency)  # injected by the simulator's fault endpoint
        response = await handler(request)
    except errors.APIError as exc:
        response = status_response(exc)
    except web.HTTPException as exc:
        response = status_response(_from_http(exc))
    except Exception:
        log.exception("request.failed", method=request.method, path=request.path)
        response = status_response(
            errors.InternalError("Internal error occurred: an unexpected error; see the server log")
        )
    if not response.prepared:
        for warning in warning_headers(request):
            response.headers.add("Warning", warning)
    return response


def _from_http(exc: web.HTTPException) -> errors.APIError:
    if exc.status == 404:
        return errors.path_not_found()
    if exc.status == 405:
        return errors.MethodNotAllowed("the server does not allow this method on the requested resource")
    if exc.status == 413:
        return errors.RequestEntityTooLarge(exc.text or "request entity too large")
    error = errors.APIError(exc.text or exc.reason)
    error.code = exc.status
    error.reason = exc.reason.replace(" ", "")
    return error


async def version(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    git_version = ctx.settings.kubernetes_version
    major, minor = git_version.lstrip("v").split(".")[:2]
    body = {
        "major": major,
        "minor": minor,
        "gitVersion": git_version,
        "gitCommit": "flotilla",
        "gitTreeState": "clean",
        "buildDate": "2026-11-29T00:00:00Z",
        "goVersion": "python",
        "compiler": "cpython",
        "platform": "linux/amd64",
    }
    return web.Response(body=orjson.dumps(body), content_type="application/json")


async def health(request: web.Request) -> web.Response:
    ctx = request.app[CONTEXT]
    if not ctx.cache.healthy:
        return web.Response(status=500, text="[-]watch-cache failed\nhealthz check failed\n")
    if "verbose" in request.query:
        return web.Response(text="[+]ping ok\n[+]watch-cache ok\nhealthz check passed\n")
    return web.Response(text="ok")


async def openapi_v2(request: web.Request) -> web.Response:
    raise errors.path_not_found()


def build_app(ctx: APIContext, *, client_max_size: int = 4 * 1024 * 1024) -> web.Application:
    app = web.Application(middlewares=[api_middleware], client_max_size=client_max_size)
    app[CONTEXT] = ctx
    app[discovery.DISCOVERY] = discovery.DiscoveryCache()
    app[OPENAPI] = OpenAPICache(ctx.settings.kubernetes_version)
    router = app.router
    router.add_get("/version", version)
    for path in ("/healthz", "/livez", "/readyz"):
        router.add_get(path, health)
        router.add_get(path + "/{check:.*}", health)
    router.add_get("/openapi/v2", openapi_v2)
    router.add_get("/openapi/v3", openapi_root)
    router.add_get("/openapi/v3/{key:.+}", openapi_document)
    router.add_get("/api", discovery.api_root)
    router.add_get("/api/", discovery.api_root)
    router.add_get("/apis", discovery.apis_root)
    router.add_get("/apis/", discovery.apis_root)
    router.add_get("/api/{version}", discovery.group_version)
    router.add_get("/apis/{group}", discovery.group)
    router.add_get("/apis/{group}/{version}", discovery.group_version)
    router.add_route("*", "/api/{tail:.+}", handle_resource)
    router.add_route("*", "/apis/{tail:.+}", handle_resource)
    return app
