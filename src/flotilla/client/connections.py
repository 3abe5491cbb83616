"""Keep-alive HTTP/1.1 connections to one API server: the transport of `Client.request`.

Why: a controller's writes are small JSON requests to one server, and their cost is the client's
CPU more than the network's time. Through aiohttp's client a request cost 177 µs of CPU against
95 µs for a bare asyncio Protocol on the same TLS connection (a GET of one ResourceBinding); in
`bench/scheduler_e2e.py` the controller manager spent over a third of its CPU in aiohttp's request
machinery. Watches stream for minutes and stay on aiohttp; this module carries everything else.

How: a `ConnectionPool` opens at most `limit` connections (0: no limit) and lets at most that many
requests in flight; the rest wait for a turn, as with aiohttp's connection limit. Idle connections
are reused most recently used first. A connection is an asyncio Protocol that sends one request at
a time and hands what it receives to `http1.ResponseParser`; the bytes are framed by the parser,
not by the pool.

A connection is not reused once the server has ended it (the protocol hears of it while idle),
when the response said `Connection: close` or ran to the end of the connection, when bytes nobody
asked for arrived, or after `idle_timeout` seconds idle (15, aiohttp's client default; servers
close idle connections on their own schedule, aiohttp's server after 75 s). The server may still
close a connection just as a request goes out on it. Then, when no byte of the response had
arrived, a request whose method is idempotent (GET, HEAD, OPTIONS, TRACE, PUT, DELETE: the methods
RFC 9110 calls idempotent and aiohttp retries) is sent once more on another connection. POST and
PATCH are not sent again: the server may have acted before the connection went, and a second
create, or a second JSON patch adding to a list, would act twice; the caller gets
`ConnectionClosed`, as it got aiohttp's `ServerDisconnectedError` before. A Kubernetes PUT sent
twice is refused (409) when it carried a resourceVersion the first one consumed, and a DELETE
answers 404: the caller sees the state it asked for.

Failures are `OSError`s (`ConnectFailed` when no connection opened — refused, TLS, a connect
timeout — so the request was never sent; `ConnectionClosed`, resets, `TimeoutError`) or
`MalformedResponse`. `send`'s timeout bounds the whole exchange: waiting for a turn, connecting,
and the answer (a timer on the answer's future, 1.1 µs a request where `asyncio.timeout` cost
4.4). A request cancelled or timed out mid-way closes its connection, since its answer may still
arrive on it.
"""

from __future__ import annotations

import asyncio
import ssl
from typing import Final, cast

from flotilla.client.http1 import MalformedResponse, Response, ResponseParser

IDEMPOTENT_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"})
IDLE_TIMEOUT: Final = 15.0
"""Seconds a connection may sit idle and still be reused."""


class ConnectionClosed(ConnectionError):
    """The connection ended before the whole response arrived."""

    def __init__(self, *, response_started: bool, cause: BaseException | None = None) -> None:
        self.response_started = response_started
        where = "in the middle of the response" if response_started else "before answering"
        detail = f" ({cause})" if cause is not None and str(cause) else ""
        super().__init__(f"the server closed the connection {where}{detail}")


class ConnectFailed(ConnectionError):
    """No connection could be opened (refused, unreachable, TLS handshake failed, timed out): the
    request was not sent, so sending it elsewhere cannot make it act twice."""

    def __init__(self, host: str, port: int, cause: OSError) -> None:
        self.cause = cause
        super().__init__(f"cannot connect to {host}:{port}: {str(cause) or type(cause).__name__}")


class ConnectionPool:
    """Connections to one server (host, port, TLS settings), created in and bound to one event loop."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        ssl_context: ssl.SSLContext | None,
        server_hostname: str | None = None,
        limit: int = 64,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self._host = host
        self._port = port
        self._ssl = ssl_context
        self._server_hostname = (server_hostname or host) if ssl_context is not None else None
        self._turns = asyncio.Semaphore(limit) if limit > 0 else None
        self._idle_timeout = idle_timeout
        self._idle: list[_Connection] = []
        self._open: set[_Connection] = set()
        self._closed = False
        self.opened = 0
        """Connections opened so far (for tests and figures)."""

    @property
    def closed(self) -> bool:
        return self._closed

    async def send(self, method: str, message: bytes, *, timeout: float) -> Response:
        """Send one request (`message`: head and body) and return its response; TimeoutError when
        the whole exchange, waiting for a turn included, takes longer than `timeout` seconds."""
        deadline = self.loop.time() + timeout
        turns = self._turns
        if turns is None:
            return await self._exchange(method, message, deadline)
        if turns.locked():
            async with asyncio.timeout_at(deadline):
                await turns.acquire()
        else:
            await turns.acquire()
        try:
            return await self._exchange(method, message, deadline)
        finally:
            turns.release()

    def close(self) -> None:
        """Close every connection; requests in flight fail with `ConnectionClosed`."""
        self._closed = True
        for connection in list(self._open):
            self._discard(connection)

    async def _exchange(self, method: str, message: bytes, deadline: float) -> Response:
        may_retry = method in IDEMPOTENT_METHODS
        while True:
            connection = self._idle_connection() or await self._connect(deadline)
            try:
                response = await connection.exchange(
                    message, head_request=method == "HEAD", deadline=deadline
                )
            except ConnectionClosed as exc:
                self._discard(connection)
                if may_retry and not exc.response_started and not self._closed:
                    may_retry = False
                    continue
                raise
            except BaseException:
                self._discard(connection)  # cancelled or timed out: the response may still come
                raise
            if response.keep_alive and connection.reusable and not self._closed:
                connection.idle_since = self.loop.time()
                self._idle.append(connection)
            else:
                self._discard(connection)
            return response

    def _idle_connection(self) -> _Connection | None:
        now = self.loop.time()
        while self._idle:
            connection = self._idle.pop()
            if connection.reusable and now - connection.idle_since < self._idle_timeout:
                return connection
            self._discard(connection)
        return None

    async def _connect(self, deadline: float) -> _Connection:
        if self._closed:
            raise ConnectionClosed(response_started=False)
        try:
            async with asyncio.timeout_at(deadline):
                _, connection = await self.loop.create_connection(
                    lambda: _Connection(self.loop),
                    self._host,
                    self._port,
                    ssl=self._ssl,
                    server_hostname=self._server_hostname,
                )
        except OSError as exc:  # refused, unreachable, TLS, TimeoutError
            raise ConnectFailed(self._host, self._port, exc) from exc
        self.opened += 1
        if self.closed:  # closed while connecting
            connection.close()
            raise ConnectionClosed(response_started=False)
        self._open.add(connection)
        return connection

    def _discard(self, connection: _Connection) -> None:
        connection.close()
        self._open.discard(connection)


class _Connection(asyncio.Protocol):
    """One connection's protocol: a request out, its response framed, then idle until the next."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._transport: asyncio.Transport | None = None
        self._parser = ResponseParser()
        self._waiter: asyncio.Future[Response] | None = None
        self._ended = False
        self.idle_since = 0.0

    @property
    def reusable(self) -> bool:
        """Open, and nothing arrived beyond the last response."""
        return not self._ended and self._parser.idle

    async def exchange(self, message: bytes, *, head_request: bool, deadline: float) -> Response:
        """Send `message` and wait for its response, until the loop's clock reaches `deadline`."""
        transport = self._transport
        if transport is None or self._ended or transport.is_closing():
            raise ConnectionClosed(response_started=False)
        self._parser.expect(head_request=head_request)
        loop = self._loop
        waiter: asyncio.Future[Response] = loop.create_future()
        self._waiter = waiter
        expiry = loop.call_at(deadline, _expire, waiter)
        try:
            try:
                transport.write(message)
            except (OSError, RuntimeError) as exc:  # a transport that closed under us (uvloop raises)
                raise ConnectionClosed(response_started=False, cause=exc) from exc
            return await waiter
        finally:
            expiry.cancel()
            self._waiter = None

    def close(self) -> None:
        self._ended = True
        if self._transport is not None and not self._transport.is_closing():
            self._transport.close()

    # -- asyncio.Protocol ---------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's TLS transports are transports without deriving from asyncio.Transport.
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        waiter = self._waiter
        if waiter is None or waiter.done():
            self.close()  # bytes nobody asked for: this connection's framing can no longer be trusted
            return
        try:
            response = self._parser.feed(data)
        except MalformedResponse as exc:
            waiter.set_exception(exc)
            self.close()
            return
        if response is not None:
            waiter.set_result(response)

    def eof_received(self) -> bool:
        self._ended = True
        self._end_response(None)
        return False  # let the transport close

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended = True
        self._end_response(exc)

    def _end_response(self, cause: Exception | None) -> None:
        waiter = self._waiter
        if waiter is None or waiter.done():
            return
        try:
            response = self._parser.feed_eof()
        except MalformedResponse as exc:
            waiter.set_exception(exc)
            return
        if response is not None:
            waiter.set_result(response)
        else:
            waiter.set_exception(ConnectionClosed(response_started=self._parser.received, cause=cause))


def _expire(waiter: asyncio.Future[Response]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())
