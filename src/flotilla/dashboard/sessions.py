"""Signed-in browsers: a session per sign-in, held in memory, keyed by an unguessable id.

The bearer token a user signs in with never goes back to the browser: the browser holds only the
session id, in a cookie the page's scripts cannot read (HttpOnly), sent only over HTTPS (Secure) and
only by this site's own pages (SameSite=Strict). Each session also has a CSRF token, which the page
reads from `/api/session` and sends back in a header on every write; a write without it (or with
another session's) is refused, as is one whose Origin is not the dashboard's. Sessions expire after
an idle time; the clock is injected so tests need not wait.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

COOKIE = "flotilla_session"
CSRF_HEADER = "X-CSRF-Token"
DEFAULT_IDLE_SECONDS = 8 * 3600.0
MAX_SESSIONS = 10_000


@dataclass(slots=True)
class Session:
    """One sign-in: the user's bearer token for the hub, who the hub says they are, and the CSRF token."""

    id: str
    token: str
    user: str
    groups: tuple[str, ...]
    csrf: str
    last_seen: float = field(default=0.0)

    def csrf_matches(self, presented: str | None) -> bool:
        return bool(presented) and hmac.compare_digest(self.csrf, presented or "")


class SessionStore:
    """The live sessions; an idle one is forgotten at its next look-up (or when the store is full)."""

    def __init__(
        self, idle_seconds: float = DEFAULT_IDLE_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._sessions: dict[str, Session] = {}
        self._idle = idle_seconds
        self._clock = clock

    def create(self, token: str, user: str, groups: tuple[str, ...]) -> Session:
        if len(self._sessions) >= MAX_SESSIONS:
            self._expire()
        if len(self._sessions) >= MAX_SESSIONS:
            oldest = min(self._sessions.values(), key=lambda session: session.last_seen)
            del self._sessions[oldest.id]
        session = Session(
            id=secrets.token_urlsafe(32),
            token=token,
            user=user,
            groups=groups,
            csrf=secrets.token_urlsafe(32),
            last_seen=self._clock(),
        )
        self._sessions[session.id] = session
        return session

    def get(self, session_id: str | None) -> Session | None:
        if not session_id:
            return None
        session = self._sessions.get(session_id)
        if session is None:
            return None
        now = self._clock()
        if now - session.last_seen > self._idle:
            del self._sessions[session_id]
            return None
        session.last_seen = now
        return session

    def delete(self, session_id: str) -> Session | None:
        return self._sessions.pop(session_id, None)

    def _expire(self) -> None:
        now = self._clock()
        for session_id in [
            key for key, value in self._sessions.items() if now - value.last_seen > self._idle
        ]:
            del self._sessions[session_id]

    def __len__(self) -> int:
        return len(self._sessions)


class OneTimeCode:
    """A secret that opens one sign-in (`flotilla up`'s link): spent by its first correct use, so a
    link left in a terminal's scrollback or a browser's history signs nobody in a second time."""

    def __init__(self, code: str) -> None:
        self._code: str | None = code

    def consume(self, presented: str) -> bool:
        """True once, for the right code; after that (or for a wrong one) False."""
        if self._code is None or not hmac.compare_digest(self._code, presented):
            return False
        self._code = None
        return True

    def restore(self, code: str) -> None:
        """Give the code back after a sign-in it opened failed before a session existed."""
        self._code = code

    @property
    def spent(self) -> bool:
        return self._code is None
