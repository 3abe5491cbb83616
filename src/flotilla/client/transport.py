"""`Transport`: one API server's connections, and raw requests over them.

Requests travel on the client's own keep-alive HTTP/1.1 connections (`connections.py`, a fraction of
a general HTTP client's CPU per request); watches and plain-text probes go through aiohttp, whose
streaming and charset handling they use, on pools of their own. `Client` adds the Kubernetes verbs
on top; this part knows paths, bodies and Statuses, not kinds.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from typing import Any, Self
from urllib.parse import urlencode, urlsplit

import aiohttp
import orjson

from flotilla.client.connections import ConnectionPool
from flotilla.client.errors import Unavailable, status_error, status_of_answer
from flotilla.client.http1 import ACCEPT_ENCODING, MalformedResponse, request_head, request_target
from flotilla.client.kubeconfig import ClusterConfig

JSON = "application/json"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class Transport:
    """Connections to one API server, as one user, and requests over them. Create in a running event
    loop; `close()` when done."""

    def __init__(
        self,
        config: ClusterConfig,
        *,
        timeout: float = 30.0,
        user_agent: str = "flotilla",
        connection_limit: int = 64,
    ) -> None:
        self.config = config
        self._timeout = timeout
        self._headers = {"User-Agent": user_agent, **config.headers()}
        self._session: aiohttp.ClientSession | None = None
        self._watch_session: aiohttp.ClientSession | None = None
        self._ssl = config.ssl_context()
        self._limit = connection_limit
        self._pool: ConnectionPool | None = None
        server = urlsplit(config.server)
        self._host = server.hostname or ""
        self._port = server.port or (443 if server.scheme == "https" else 80)
        self._path_prefix = server.path.rstrip("/")
        self._request_headers = [
            ("Host", server.netloc.rpartition("@")[2]),
            ("User-Agent", user_agent),
            ("Accept-Encoding", ACCEPT_ENCODING),
            *config.headers().items(),
        ]

    @property
    def server(self) -> str:
        return self.config.server

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(ssl=self._ssl, limit=self._limit)
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, json_serialize=lambda o: orjson.dumps(o).decode()
            )
        return self._session

    def _get_watch_session(self) -> aiohttp.ClientSession:
        """Watches hold their connection for minutes: they get a pool of their own, without a limit,
        so many informers never starve ordinary requests."""
        if self._watch_session is None or self._watch_session.closed:
            connector = aiohttp.TCPConnector(ssl=self._ssl, limit=0)
            self._watch_session = aiohttp.ClientSession(connector=connector, headers=self._headers)
        return self._watch_session

    def _connection_pool(self) -> ConnectionPool:
        """The pool of this event loop (a pool's connections belong to the loop that opened them)."""
        pool = self._pool
        if pool is None or pool.closed or pool.loop is not asyncio.get_running_loop():
            if not self._host or urlsplit(self.config.server).scheme not in ("https", "http"):
                raise Unavailable(f"{self.config.server}: not an http or https URL")
            pool = self._pool = ConnectionPool(
                self._host,
                self._port,
                ssl_context=self._ssl if isinstance(self._ssl, ssl.SSLContext) else None,
                server_hostname=self.config.tls_server_name,
                limit=self._limit,
            )
        return pool

    async def close(self) -> None:
        sessions = [s for s in (self._session, self._watch_session) if s is not None and not s.closed]
        for session in sessions:
            await session.close()
        self._session = None
        self._watch_session = None
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        if sessions or pool is not None:
            # TLS transports finish closing on the next loop iterations (aiohttp's documented caveat).
            await asyncio.sleep(0.05)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- raw requests -------------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        content_type: str = JSON,
        accept: str = JSON,
        timeout: float | None = None,
    ) -> Any:
        """Send one request; the decoded JSON answer, or an APIStatusError / Unavailable."""
        encoded = ""
        if query:
            encoded = urlencode({k: v for k, v in query.items() if v is not None and v != ""}, doseq=True)
        return await self._send(
            method, path, encoded, body, content_type=content_type, accept=accept, timeout=timeout
        )

    async def _send(
        self,
        method: str,
        path: str,
        query: str,
        body: Any,
        *,
        content_type: str = JSON,
        accept: str = JSON,
        timeout: float | None = None,
        decode: bool = True,
    ) -> Any:
        """`request` with the query already encoded; `decode=False` checks the answer for failure
        and returns None instead of decoding it."""
        target = request_target(self._path_prefix + path, query)
        headers = [*self._request_headers, ("Accept", accept)]
        data = b""
        if body is not None:
            data = body if isinstance(body, bytes) else orjson.dumps(body)
            headers.append(("Content-Type", content_type))
            headers.append(("Content-Length", str(len(data))))
        elif method in _BODY_METHODS:
            headers.append(("Content-Length", "0"))
        try:
            response = await self._connection_pool().send(
                method, request_head(method, target, headers) + data, timeout=timeout or self._timeout
            )
        except (OSError, MalformedResponse) as exc:  # OSError covers TimeoutError, TLS and resets
            raise Unavailable(
                f"{method} {self.config.server}{path}: {str(exc) or type(exc).__name__}"
            ) from exc
        raw = response.body
        if response.status >= 400:
            raise status_error(response.status, status_of_answer(response.status, raw))
        if not raw or not decode:
            return None
        if response.content_type not in ("application/json", ""):
            return raw.decode(errors="replace")
        return orjson.loads(raw)

    async def text(self, path: str, timeout: float | None = None) -> tuple[int, str]:
        """GET a plain-text endpoint (/readyz, /healthz): status code and body."""
        try:
            async with self._get_session().get(
                self.config.server + path,
                timeout=aiohttp.ClientTimeout(total=timeout or self._timeout),
                server_hostname=self.config.tls_server_name,
            ) as response:
                return response.status, await response.text()
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise Unavailable(f"GET {self.config.server}{path}: {exc or type(exc).__name__}") from exc
