"""The aiohttp application: routes, request filters (authn, limits, authz, audit), errors as Status bodies."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import orjson
import structlog
from aiohttp import web
from aiohttp.typedefs import Middleware

from flotilla.apiserver import errors
from flotilla.apiserver.authn.impersonation import asks_to_impersonate, impersonate
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.context import CONTEXT, APIContext
from flotilla.apiserver.http import discovery
from flotilla.apiserver.http.audit import AUTHORIZATION_DECISION_KEY, AuditLog
from flotilla.apiserver.http.handlers.dispatch import handle_resource
from flotilla.apiserver.http.limits import LIMITS, RequestLimits
from flotilla.apiserver.http.openapi.endpoints import (
    OPENAPI,
    OpenAPICache,
    openapi_document,
    openapi_root,
    openapi_v2,
)
from flotilla.apiserver.http.responseheaders import make_headers_safe
from flotilla.apiserver.http.responses import status_response, warning_headers
from flotilla.apiserver.requestinfo import request_info
from flotilla.apiserver.users import ANONYMOUS, USER_KEY, UserInfo

log = structlog.get_logger("flotilla.apiserver")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def selected_name(field_selector: str) -> str:
    """The name a `metadata.name=X` field selector pins a list or watch to ("" if it does not).

    kube-apiserver authorizes such a list or watch as a request on object X, so a Role limited by
    `resourceNames` lets its holder watch the objects it may get (an agent watching its own Cluster).
    """
    name = ""
    for requirement in field_selector.split(","):
        field, _, value = requirement.partition("==") if "==" in requirement else requirement.partition("=")
        if field.strip() == "metadata.name":
            if name and name != value.strip():
                return ""  # two different names select nothing; authorize as the collection
            name = value.strip()
    return name


def _attributes(request: web.Request, user: UserInfo) -> AuthorizationAttributes:
    info = request_info(request)
    if info is None:
        return AuthorizationAttributes(user, request.method.lower(), False, path=request.path)
    name = info.name
    if not name and info.verb in ("list", "watch"):
        name = selected_name(request.query.get("fieldSelector", ""))
    return AuthorizationAttributes(
        user,
        info.verb,
        True,
        info.group,
        info.version,
        info.resource,
        info.subresource,
        info.namespace,
        name,
        request.path,
    )


def forbidden(attributes: AuthorizationAttributes, reason: str) -> errors.APIError:
    """403 (401 for anonymous) worded as kube-apiserver words it."""
    user = attributes.user
    if user.username == ANONYMOUS.username:
        return errors.Unauthorized("Unauthorized")
    if not attributes.resource_request:
        message = f'forbidden: User "{user.username}" cannot {attributes.verb} path "{attributes.path}"'
        return errors.Forbidden(message + (f": {reason}" if reason else ""))
    resource = attributes.resource + (f"/{attributes.subresource}" if attributes.subresource else "")
    qualified = f"{attributes.resource}.{attributes.group}" if attributes.group else attributes.resource
    subject = f'{qualified} "{attributes.name}"' if attributes.name else qualified
    where = f' in the namespace "{attributes.namespace}"' if attributes.namespace else " at the cluster scope"
    message = (
        f'{subject} is forbidden: User "{user.username}" cannot {attributes.verb} resource "{resource}" '
        f'in API group "{attributes.group}"{where}'
    )
    return errors.Forbidden(
        message + (f": {reason}" if reason else ""),
        name=attributes.name,
        group=attributes.group,
        kind=attributes.resource,
    )


async def _authenticate(request: web.Request) -> AuthorizationAttributes:
    """Who sent the request, or whom it acts as (impersonation); the user is kept on the request for
    admission, field managers and audit."""
    ctx = request.app[CONTEXT]
    user = await ctx.authenticator.authenticate(request) or ANONYMOUS
    if asks_to_impersonate(request.headers):
        user, denied = impersonate(request.headers, user, ctx.authorizer)
        if denied is not None:
            request[USER_KEY] = user
            raise forbidden(denied, "")
    request[USER_KEY] = user
    return _attributes(request, user)


def _authorize(request: web.Request, attributes: AuthorizationAttributes) -> None:
    decision = request.app[CONTEXT].authorizer.authorize(attributes)
    request[AUTHORIZATION_DECISION_KEY] = (decision.allowed, decision.reason)
    if not decision.allowed:
        raise forbidden(attributes, decision.reason)


async def _admit_and_handle(
    request: web.Request, handler: Handler, attributes: AuthorizationAttributes
) -> web.StreamResponse:
    _authorize(request, attributes)
    latency = request.app[CONTEXT].injected_latency
    if latency:
        await asyncio.sleep(latency)  # injected by the simulator's fault endpoint
    return await handler(request)


@web.middleware
async def api_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    """kube's filter order: authentication, in-flight limit and deadline, authorization, handler."""
    try:
        attributes = await _authenticate(request)
        limits = request.app.get(LIMITS)
        if limits is None:
            response = await _admit_and_handle(request, handler, attributes)
        else:
            with limits.admit(attributes):
                async with limits.deadline(limits.timeout_for(attributes, request.query.get("timeout"))):
                    response = await _admit_and_handle(request, handler, attributes)
    except errors.APIError as exc:
        response = status_response(exc)
    except web.HTTPException as exc:
        response = status_response(_from_http(exc))
    except ConnectionResetError:
        raise  # the client went away (e.g. a watch closed before its headers): nothing to answer or log
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


def build_app(
    ctx: APIContext,
    *,
    client_max_size: int = 4 * 1024 * 1024,
    audit: AuditLog | None = None,
    limits: RequestLimits | None = None,
) -> web.Application:
    """The application; an audit log wraps everything (it sees every final status, 401s included)."""
    middlewares: list[Middleware] = [api_middleware]
    if audit is not None and audit.enabled:
        middlewares.insert(0, audit.middleware)
    app = web.Application(middlewares=middlewares, client_max_size=client_max_size)
    if audit is not None and audit.enabled:
        app.on_response_prepare.append(audit.on_response_prepare)
    app.on_response_prepare.append(make_headers_safe)  # last: it sees every header set before it
    if limits is not None:
        app[LIMITS] = limits
    app[CONTEXT] = ctx
    app[discovery.DISCOVERY] = discovery.DiscoveryCache()
    app[OPENAPI] = OpenAPICache(ctx.settings.kubernetes_version)
    router = app.router
    # Each of /version and the discovery paths also with one trailing slash, as kube-apiserver
    # serves them (see http/discovery.py); kr8s asks for /version/ when it starts.
    router.add_get("/version", version)
    router.add_get("/version/", version)
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
    router.add_get("/api/{version}/", discovery.group_version)
    router.add_get("/apis/{group}", discovery.group)
    router.add_get("/apis/{group}/", discovery.group)
    router.add_get("/apis/{group}/{version}", discovery.group_version)
    router.add_get("/apis/{group}/{version}/", discovery.group_version)
    router.add_route("*", "/api/{tail:.+}", handle_resource)
    router.add_route("*", "/apis/{tail:.+}", handle_resource)
    return app
