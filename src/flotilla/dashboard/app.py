"""The dashboard's aiohttp application: its state, its security middleware, its routes, its server.

State is fixed at start-up under typed keys (settings, sessions, hub access). One middleware turns
every failure into a `Status` (`errors.py`), sets the security headers (a strict Content-Security
-Policy: the pages run only this package's own scripts), and guards the API: `/api/…` needs a
session (except signing in), and a write (any method but GET/HEAD) needs the session's CSRF token
in the `X-CSRF-Token` header and, when the browser sends one, an Origin equal to the dashboard's.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path

import structlog
from aiohttp import web

from flotilla.api.karmada import constants
from flotilla.client import APIStatusError, ClientError, ClusterConfig
from flotilla.dashboard import actions, api, live, workloads
from flotilla.dashboard.access import ListAccess
from flotilla.dashboard.errors import DashboardError, forbidden, from_hub, status_response, unauthorized
from flotilla.dashboard.hubaccess import HubAccess
from flotilla.dashboard.listcache import ListCache
from flotilla.dashboard.sessions import COOKIE, CSRF_HEADER, OneTimeCode, SessionStore
from flotilla.dashboard.sharedbindings import SharedBindings
from flotilla.dashboard.state import (
    ACCESS,
    AUTO_SIGN_IN,
    HUB,
    LISTS,
    SESSION,
    SESSIONS,
    SETTINGS,
    SHARED,
    WARMING,
    DashboardSettings,
)

log = structlog.get_logger("flotilla.dashboard")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
OPEN_PATHS = frozenset({"/api/signin", "/api/signin/auto"})


def _same_origin(request: web.Request) -> bool:
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return origin is None
    return origin == f"{request.scheme}://{request.host}"


def _check(request: web.Request) -> None:
    """Refuse a request without a session on `/api/…`, and a write without CSRF token or from elsewhere."""
    if request.path.startswith("/api/") and request.path not in OPEN_PATHS:
        session = request.app[SESSIONS].get(request.cookies.get(COOKIE))
        if session is None:
            raise unauthorized()
        request[SESSION] = session
        if request.method not in SAFE_METHODS and not session.csrf_matches(request.headers.get(CSRF_HEADER)):
            raise forbidden(f"missing or wrong {CSRF_HEADER} header")
    if request.method not in SAFE_METHODS and not _same_origin(request):
        raise forbidden("cross-origin write refused")


@web.middleware
async def guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        _check(request)
        response = await handler(request)
    except DashboardError as error:
        response = status_response(error)
    except APIStatusError as error:
        response = status_response(from_hub(error))
    except ClientError as error:
        response = status_response(
            DashboardError(502, "ServiceUnavailable", f"the hub did not answer: {error}")
        )
    except (web.HTTPException, asyncio.CancelledError):
        raise
    except Exception:
        log.exception("dashboard_request_failed", path=request.path, method=request.method)
        response = status_response(DashboardError(500, "InternalError", "the dashboard failed; see its log"))
    if not response.prepared:
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("Cache-Control", "no-store")
    return response


def _static_directory() -> Path:
    return Path(str(resources.files("flotilla.dashboard") / "static"))


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(_static_directory() / "index.html")


def build_app(settings: DashboardSettings, hub_config: ClusterConfig) -> web.Application:
    app = web.Application(middlewares=[guard], client_max_size=4 * 1024 * 1024)
    app[SETTINGS] = settings
    app[SESSIONS] = SessionStore(settings.idle_seconds)
    app[HUB] = HubAccess(hub_config)
    app[LISTS] = ListCache({constants.RESOURCE_BINDING: workloads.compact_binding})
    # The one client with the dashboard's own credentials: it only lists and watches ResourceBindings
    # for the shared copy, which a session sees only once the hub said, as the user, it may.
    app[SHARED] = SharedBindings(hub_config)
    app[ACCESS] = ListAccess()
    code = settings.auto_sign_in_code
    app[AUTO_SIGN_IN] = OneTimeCode(code) if code and settings.auto_sign_in_token else None
    warming: set[asyncio.Task[None]] = set()
    app[WARMING] = warming
    app.router.add_get("/", index)
    app.router.add_static("/static/", _static_directory(), follow_symlinks=False)
    api.add_routes(app.router)
    actions.add_routes(app.router)
    live.add_routes(app.router)

    async def close_clients(app: web.Application) -> None:
        warming = app[WARMING]
        tasks = list(warming)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await app[HUB].close()

    async def start_shared(app: web.Application) -> None:
        app[SHARED].start()

    async def stop_shared(app: web.Application) -> None:
        await app[SHARED].stop()

    app.on_startup.append(start_shared)
    app.on_cleanup.append(close_clients)
    app.on_cleanup.append(stop_shared)
    return app


def ssl_context(settings: DashboardSettings) -> ssl.SSLContext | None:
    if settings.certificate is None or settings.private_key is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(str(settings.certificate), str(settings.private_key))
    return context


class DashboardServer:
    """The dashboard listening on its address until `stop()`; `url` says where once started."""

    def __init__(self, settings: DashboardSettings, hub_config: ClusterConfig) -> None:
        self.settings = settings
        self.app = build_app(settings, hub_config)
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=2.0)
        self.url = ""

    async def start(self) -> None:
        await self._runner.setup()
        context = ssl_context(self.settings)
        site = web.TCPSite(self._runner, self.settings.host, self.settings.port, ssl_context=context)
        await site.start()
        port = self.settings.port
        for address in self._runner.addresses:
            port = address[1]
            break
        host = f"[{self.settings.host}]" if ":" in self.settings.host else self.settings.host
        self.url = f"{'https' if context else 'http'}://{host}:{port}/"

    async def stop(self) -> None:
        await self._runner.cleanup()
