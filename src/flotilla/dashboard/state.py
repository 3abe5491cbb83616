"""What every request handler shares: the settings, the sessions and the hub, under typed app keys.

Kept apart from `app.py` so that the route modules (`api`, `actions`, `live`) and the assembly do
not import each other.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from flotilla.api.karmada import constants
from flotilla.client import Client
from flotilla.dashboard.access import ListAccess
from flotilla.dashboard.errors import unauthorized
from flotilla.dashboard.hubaccess import HubAccess
from flotilla.dashboard.listcache import ListCache
from flotilla.dashboard.sessions import OneTimeCode, Session, SessionStore
from flotilla.dashboard.sharedbindings import SharedBindings

SETTINGS: web.AppKey[DashboardSettings] = web.AppKey("settings")
SESSIONS = web.AppKey("sessions", SessionStore)
HUB = web.AppKey("hub", HubAccess)
LISTS = web.AppKey("lists", ListCache)
WARMING: web.AppKey[set[asyncio.Task[None]]] = web.AppKey("warming")
"""Background reads started at sign-in (`api._warm`), cancelled when the app shuts down."""
SHARED = web.AppKey("shared_bindings", SharedBindings)
ACCESS = web.AppKey("list_access", ListAccess)
AUTO_SIGN_IN: web.AppKey[OneTimeCode | None] = web.AppKey("auto_sign_in")
"""`flotilla up`'s sign-in code, consumed by its first use (None: automatic sign-in is off)."""
SHARED_WAIT_SECONDS = 10.0
"""How long a session waits for the shared copy's first list before reading as the user instead."""
SESSION = "flotilla.session"


@dataclass(frozen=True)
class DashboardSettings:
    """How the dashboard serves."""

    host: str = "127.0.0.1"
    """Address to listen on (loopback by default: the dashboard acts with users' tokens)."""
    port: int = 8001
    """Port (0 picks a free one; the URL printed says which)."""
    certificate: Path | None = None
    """Serving certificate (PEM); with `private_key`. None serves plain HTTP (tests of the API only)."""
    private_key: Path | None = None
    auto_sign_in_token: str | None = None
    """A token to sign in with by visiting `/signin/auto?code=…` once: the code is then spent
    (`flotilla up` on loopback)."""
    auto_sign_in_code: str | None = None
    plan_command: tuple[str, ...] = field(default_factory=tuple)
    """The `flotilla` command line to run `plan` with (default: this interpreter's `-m flotilla`)."""
    idle_seconds: float = 8 * 3600.0
    """A session not used for this long is signed out."""


def session_of(request: web.Request) -> Session:
    session = request.get(SESSION)
    if not isinstance(session, Session):
        raise unauthorized()
    return session


def user_client(request: web.Request) -> Client:
    """The hub client of the request's signed-in user."""
    session = session_of(request)
    return request.app[HUB].client(session.id, session.token)


async def shared_bindings_allowed(request: web.Request) -> bool:
    """Whether the request's user may be served ResourceBindings from the shared copy: the hub says
    (as the user) they may list them in every namespace, and the copy is filled."""
    session = session_of(request)
    allowed = await request.app[ACCESS].allows(session.id, user_client(request), constants.RESOURCE_BINDING)
    return allowed and await request.app[SHARED].ready(SHARED_WAIT_SECONDS)
