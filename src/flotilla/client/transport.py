"""`Transport`: one cluster's API server connections, and raw requests over them.

Requests travel on the client's own keep-alive HTTP/1.1 connections (`connections.py`, a fraction of
a general HTTP client's CPU per request); watches and plain-text probes go through aiohttp, whose
streaming and charset handling they use, on pools of their own. `Client` adds the Kubernetes verbs
on top; this part knows paths, bodies and Statuses, not kinds.

A cluster may have several API server endpoints (`ClusterConfig.servers`): requests go to one at a
time, and a failure of that endpoint moves them to the next, resending only what cannot act twice
(`endpoints.py` holds the rules). The failure handling sits off the fast path: a request that
succeeds costs what it cost with one endpoint.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self
from urllib.parse import urlencode, urlsplit

import aiohttp
import orjson
import structlog

from flotilla.client.connections import ConnectionPool
from flotilla.client.endpoints import EndpointRotation, Failure, failure_of, may_resend
from flotilla.client.errors import Unavailable, status_error, status_of_answer
from flotilla.client.http1 import ACCEPT_ENCODING, MalformedResponse, Response, request_head, request_target
from flotilla.client.kubeconfig import ClusterConfig

JSON = "application/json"
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_UNAVAILABLE = 503

log = structlog.get_logger("flotilla.client.transport")


@dataclass(frozen=True, slots=True)
class _Endpoint:
    """One API server URL, taken apart once for the request heads sent to it."""

    url: str
    host: str
    port: int
    path_prefix: str
    request_headers: list[tuple[str, str]]

    @classmethod
    def of(cls, url: str, headers: list[tuple[str, str]]) -> _Endpoint:
        server = urlsplit(url)
        return cls(
            url=url,
            host=server.hostname or "",
            port=server.port or (443 if server.scheme == "https" else 80),
            path_prefix=server.path.rstrip("/"),
            request_headers=[("Host", server.netloc.rpartition("@")[2]), *headers],
        )


class Transport:
    """Connections to one cluster's API servers, as one user, and requests over them. Create in a
    running event loop; `close()` when done."""

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
        headers = [
            ("User-Agent", user_agent),
            ("Accept-Encoding", ACCEPT_ENCODING),
            *config.headers().items(),
        ]
        self._endpoints = [_Endpoint.of(url, headers) for url in config.servers]
        self._rotation = EndpointRotation(config.servers)
        self._pools: list[ConnectionPool | None] = [None] * len(self._endpoints)
        self._pool: ConnectionPool | None = None
        self._path_prefix = self._endpoints[0].path_prefix
        self._request_headers = self._endpoints[0].request_headers

    @property
    def server(self) -> str:
        """The API server in use."""
        return self._rotation.current

    @property
    def endpoint_moves(self) -> int:
        """How many times requests moved to the next endpoint after a failure."""
        return self._rotation.moves

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
        """The pool of the endpoint in use, in this event loop (a pool's connections belong to the
        loop that opened them)."""
        pool = self._pool
        if pool is None or pool.closed or pool.loop is not asyncio.get_running_loop():
            index = self._rotation.index
            endpoint = self._endpoints[index]
            if not endpoint.host or urlsplit(endpoint.url).scheme not in ("https", "http"):
                raise Unavailable(f"{endpoint.url}: not an http or https URL")
            pool = self._pool = self._pools[index] = ConnectionPool(
                endpoint.host,
                endpoint.port,
                ssl_context=self._ssl if isinstance(self._ssl, ssl.SSLContext) else None,
                server_hostname=self.config.tls_server_name,
                limit=self._limit,
            )
        return pool

    def _endpoint_failed(self, index: int, failure: Failure, error: object) -> None:
        """Endpoint `index` failed a request: move to the next (once for all the requests that saw
        it fail), keeping the pool of each endpoint for when the rotation comes back to it."""
        if not self._rotation.failed(index):
            return
        current = self._rotation.index
        endpoint = self._endpoints[current]
        pool = self._pools[current]
        self._pool = pool if pool is not None and pool.loop is asyncio.get_running_loop() else None
        self._path_prefix = endpoint.path_prefix
        self._request_headers = endpoint.request_headers
        log.warning(
            "client.endpoint_failed",
            server=self._endpoints[index].url,
            failure=failure.value,
            error=str(error) or type(error).__name__,
            next_server=endpoint.url,
        )

    async def close(self) -> None:
        sessions = [s for s in (self._session, self._watch_session) if s is not None and not s.closed]
        for session in sessions:
            await session.close()
        self._session = None
        self._watch_session = None
        pools = [pool for pool in {id(p): p for p in (self._pool, *self._pools)}.values() if pool is not None]
        self._pool = None
        self._pools = [None] * len(self._endpoints)
        for pool in pools:
            pool.close()
        if sessions or pools:
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
        data: bytes | None = None
        if body is not None:
            data = body if isinstance(body, bytes) else orjson.dumps(body)
        timeout = timeout or self._timeout
        index = self._rotation.index
        message = self._message(method, path, query, data, content_type, accept)
        try:
            response = await self._connection_pool().send(method, message, timeout=timeout)
        except (OSError, MalformedResponse) as exc:  # OSError covers TimeoutError, TLS and resets
            response = await self._fail_over(
                method, path, query, data, content_type, accept, timeout, index, exc
            )
        else:
            if response.status == _UNAVAILABLE and len(self._endpoints) > 1:
                response = await self._fail_over(
                    method, path, query, data, content_type, accept, timeout, index, response
                )
        raw = response.body
        if response.status >= 400:
            raise status_error(response.status, status_of_answer(response.status, raw))
        if not raw or not decode:
            return None
        if response.content_type not in ("application/json", ""):
            return raw.decode(errors="replace")
        return orjson.loads(raw)

    def _message(
        self, method: str, path: str, query: str, data: bytes | None, content_type: str, accept: str
    ) -> bytes:
        """Head and body of a request to the endpoint in use."""
        target = request_target(self._path_prefix + path, query)
        headers = [*self._request_headers, ("Accept", accept)]
        if data is not None:
            headers.append(("Content-Type", content_type))
            headers.append(("Content-Length", str(len(data))))
            return request_head(method, target, headers) + data
        if method in _BODY_METHODS:
            headers.append(("Content-Length", "0"))
        return request_head(method, target, headers)

    async def _fail_over(
        self,
        method: str,
        path: str,
        query: str,
        data: bytes | None,
        content_type: str,
        accept: str,
        timeout: float,
        index: int,
        outcome: Response | BaseException,
    ) -> Response:
        """After a request failed at endpoint `index` (an exception, or a 503 answer): move to the
        next endpoint and, when the request may be sent again, send it there — each endpoint once.
        The answer, or Unavailable (the last endpoint's answer when it is a 503)."""
        attempts = 1
        while True:
            if isinstance(outcome, Response):
                failure: Failure | None = Failure.UNAVAILABLE
            else:
                failure = failure_of(outcome)
            if failure is not None:
                self._endpoint_failed(index, failure, outcome if isinstance(outcome, BaseException) else 503)
            if failure is None or attempts >= len(self._endpoints) or not may_resend(method, failure):
                if isinstance(outcome, Response):
                    return outcome
                where = f"{method} {self._endpoints[index].url}{path}"
                raise Unavailable(f"{where}: {str(outcome) or type(outcome).__name__}") from outcome
            attempts += 1
            index = self._rotation.index
            message = self._message(method, path, query, data, content_type, accept)
            try:
                outcome = await self._connection_pool().send(method, message, timeout=timeout)
            except (OSError, MalformedResponse) as exc:
                outcome = exc
                continue
            if outcome.status != _UNAVAILABLE:
                return outcome

    async def _get_with_fail_over(
        self, session: aiohttp.ClientSession, path: str, timeout: aiohttp.ClientTimeout, **options: Any
    ) -> aiohttp.ClientResponse:
        """GET `path` through aiohttp (a watch, a probe) from the endpoint in use; when that cannot be
        reached or answers 503, from the next, each endpoint once. The response (the last
        endpoint's, even a 503) for the caller to read and release."""
        attempts = 0
        while True:
            attempts += 1
            last = attempts >= len(self._endpoints)
            index = self._rotation.index
            url = self._endpoints[index].url + path
            try:
                response = await session.get(
                    url, timeout=timeout, server_hostname=self.config.tls_server_name, **options
                )
            except (aiohttp.ClientConnectionError, TimeoutError) as exc:
                failure = _aiohttp_failure(exc)
                self._endpoint_failed(index, failure, exc)
                if last or not may_resend("GET", failure):
                    raise Unavailable(f"GET {url}: {exc or type(exc).__name__}") from exc
                continue
            if response.status != _UNAVAILABLE or last:
                return response
            response.release()
            self._endpoint_failed(index, Failure.UNAVAILABLE, _UNAVAILABLE)

    async def text(self, path: str, timeout: float | None = None) -> tuple[int, str]:
        """GET a plain-text endpoint (/readyz, /healthz): status code and body."""
        total = aiohttp.ClientTimeout(total=timeout or self._timeout)
        response = await self._get_with_fail_over(self._get_session(), path, total)
        try:
            async with response:
                return response.status, await response.text()
        except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, TimeoutError) as exc:
            raise Unavailable(f"GET {response.url}: {exc or type(exc).__name__}") from exc


def _aiohttp_failure(error: aiohttp.ClientConnectionError | TimeoutError) -> Failure:
    # Refused, unreachable, TLS, no connection in time: nothing was sent.
    if isinstance(error, aiohttp.ClientConnectorError | aiohttp.ConnectionTimeoutError):
        return Failure.NOT_SENT
    if isinstance(error, TimeoutError):
        return Failure.TIMED_OUT
    return Failure.BROKEN
