"""The keep-alive pool against a scripted loopback server: reuse, closure, retries, limits, cancellation."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from flotilla.client.connections import IDLE_TIMEOUT, ConnectionClosed, ConnectionPool
from tests.support.waiting import eventually_async

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def request(method: str = "GET", body: bytes = b"") -> bytes:
    head = f"{method} /x HTTP/1.1\r\nHost: test\r\nContent-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


class Exchange:
    """One request as the server read it, and the stream to answer on."""

    def __init__(
        self,
        connection: int,
        number: int,
        method: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> None:
        self.connection = connection
        self.number = number
        """The request's position on its connection, from 1."""
        self.method = method
        self.reader = reader
        self.writer = writer


Script = Callable[[Exchange], Awaitable[None]]


class ScriptedServer:
    """Reads requests (head and Content-Length body) and lets a script answer each one."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[tuple[int, str]] = []
        """(connection, method) of every request read, in order."""
        self.connections = 0
        self.open = 0
        self.most_open = 0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[object]] = set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        handler.add_done_callback(self._handlers.discard)
        self.connections += 1
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        connection = self.connections
        try:
            number = 0
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                length = 0
                for line in head.decode().split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                await reader.readexactly(length)
                number += 1
                method = head.split(b" ", 1)[0].decode()
                self.requests.append((connection, method))
                await self.script(Exchange(connection, number, method, reader, writer))
                if writer.is_closing():
                    return
        finally:
            self.open -= 1
            writer.close()

    async def __aenter__(self) -> ScriptedServer:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        # Closing a server leaves its connections' handlers running (a script may still be asleep).
        for handler in self._handlers:
            handler.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 1)


@contextlib.asynccontextmanager
async def serving(
    script: Script, *, limit: int = 64, idle_timeout: float = IDLE_TIMEOUT
) -> AsyncIterator[tuple[ScriptedServer, ConnectionPool]]:
    async with ScriptedServer(script) as server:
        pool = ConnectionPool(
            "127.0.0.1", server.port, ssl_context=None, limit=limit, idle_timeout=idle_timeout
        )
        try:
            yield server, pool
        finally:
            pool.close()
            await asyncio.sleep(0)


async def answer_ok(exchange: Exchange) -> None:
    exchange.writer.write(OK)


async def spoiled(pool: ConnectionPool) -> None:
    """Wait until what the server did to the idle connection (closed it, sent bytes nobody asked
    for) has reached the client's protocol, so that the connection is no longer reusable."""
    await eventually_async(
        lambda: not any(connection.reusable for connection in pool._idle), what="the idle connection spoiled"
    )


async def received(server: ScriptedServer) -> None:
    """Wait until the server has read a request (it is in flight)."""
    await eventually_async(lambda: server.requests, what="a request read by the server")


async def test_sequential_requests_share_one_keep_alive_connection() -> None:
    async with serving(answer_ok) as (server, pool):
        for _ in range(5):
            response = await pool.send("GET", request(), timeout=5)
            assert (response.status, response.body) == (200, b"ok")
        assert pool.opened == 1 and server.connections == 1


async def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    """The closure is seen before reuse, so even a POST (never sent twice) goes out on a fresh connection."""

    async def answer_then_close(exchange: Exchange) -> None:
        exchange.writer.write(OK)
        exchange.writer.close()

    async with serving(answer_then_close) as (server, pool):
        await pool.send("POST", request("POST", b"{}"), timeout=5)
        await spoiled(pool)
        response = await pool.send("POST", request("POST", b"{}"), timeout=5)
        assert response.status == 200
        assert server.requests == [(1, "POST"), (2, "POST")]


async def close_on_second_request(exchange: Exchange) -> None:
    """Answer a connection's first request; drop the connection on its second, unanswered."""
    if exchange.number == 1:
        exchange.writer.write(OK)
    else:
        exchange.writer.close()


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
async def test_an_idempotent_request_is_sent_again_when_the_connection_drops_before_any_answer(
    method: str,
) -> None:
    async with serving(close_on_second_request) as (server, pool):
        await pool.send(method, request(method), timeout=5)
        response = await pool.send(method, request(method), timeout=5)
        assert response.status == 200
        assert server.requests == [(1, method), (1, method), (2, method)]


@pytest.mark.parametrize("method", ["POST", "PATCH"])
async def test_post_and_patch_are_not_sent_again_when_the_connection_drops(method: str) -> None:
    """The server may have acted on them: the caller hears of the closure instead."""
    async with serving(close_on_second_request) as (server, pool):
        await pool.send(method, request(method, b"{}"), timeout=5)
        with pytest.raises(ConnectionClosed) as caught:
            await pool.send(method, request(method, b"{}"), timeout=5)
        assert not caught.value.response_started
        assert server.requests == [(1, method), (1, method)]


async def test_a_request_is_not_sent_again_once_part_of_its_response_arrived() -> None:
    async def half_an_answer(exchange: Exchange) -> None:
        exchange.writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        await exchange.writer.drain()
        exchange.writer.close()

    async with serving(half_an_answer) as (server, pool):
        with pytest.raises(ConnectionClosed) as caught:
            await pool.send("GET", request(), timeout=5)
        assert caught.value.response_started
        assert len(server.requests) == 1


async def test_only_one_retry_is_made() -> None:
    async def never_answer(exchange: Exchange) -> None:
        exchange.writer.close()

    async with serving(never_answer) as (server, pool):
        with pytest.raises(ConnectionClosed):
            await pool.send("GET", request(), timeout=5)
        assert len(server.requests) == 2


async def test_a_connection_close_answer_is_not_reused() -> None:
    """`Connection: close` is honoured even when the server leaves the socket open."""

    async def answer_close(exchange: Exchange) -> None:
        exchange.writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok")

    async with serving(answer_close) as (server, pool):
        await pool.send("GET", request(), timeout=5)
        await pool.send("GET", request(), timeout=5)
        assert pool.opened == 2 and [connection for connection, _ in server.requests] == [1, 2]


async def test_a_body_that_runs_to_the_end_of_the_connection_is_read_whole() -> None:
    async def answer_until_close(exchange: Exchange) -> None:
        exchange.writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it")
        await exchange.writer.drain()
        exchange.writer.close()

    async with serving(answer_until_close) as (_, pool):
        response = await pool.send("GET", request(), timeout=5)
        assert response.body == b"all of it" and not response.keep_alive


async def test_bytes_nobody_asked_for_make_an_idle_connection_unusable() -> None:
    async def answer_twice(exchange: Exchange) -> None:
        exchange.writer.write(OK)
        await exchange.writer.drain()
        await asyncio.sleep(0.01)
        exchange.writer.write(OK)

    async with serving(answer_twice) as (server, pool):
        await pool.send("GET", request(), timeout=5)
        await spoiled(pool)
        await pool.send("GET", request(), timeout=5)
        assert [connection for connection, _ in server.requests] == [1, 2]


async def test_a_connection_idle_past_the_idle_timeout_is_replaced() -> None:
    async with serving(answer_ok, idle_timeout=0.02) as (server, pool):
        await pool.send("GET", request(), timeout=5)
        await asyncio.sleep(0.05)
        await pool.send("GET", request(), timeout=5)
        assert pool.opened == 2 and server.connections == 2


async def test_the_limit_bounds_connections_and_requests_in_flight() -> None:
    async def answer_slowly(exchange: Exchange) -> None:
        await asyncio.sleep(0.02)
        exchange.writer.write(OK)

    async with serving(answer_slowly, limit=3) as (server, pool):
        responses = await asyncio.gather(*(pool.send("GET", request(), timeout=5) for _ in range(12)))
        assert all(response.status == 200 for response in responses)
        assert server.most_open == 3 and pool.opened == 3


async def test_a_request_past_its_timeout_fails_and_closes_its_connection() -> None:
    closed_by_client = asyncio.Event()

    async def answer_after_the_first(exchange: Exchange) -> None:
        if exchange.connection == 1:
            if await exchange.reader.read() == b"":
                closed_by_client.set()
            return
        exchange.writer.write(OK)

    async with serving(answer_after_the_first) as (_, pool):
        with pytest.raises(TimeoutError):
            await pool.send("GET", request(), timeout=0.05)
        await asyncio.wait_for(closed_by_client.wait(), 1)
        assert (await pool.send("GET", request(), timeout=5)).body == b"ok"


async def test_waiting_for_a_turn_counts_against_the_timeout() -> None:
    async def answer_slowly(exchange: Exchange) -> None:
        await asyncio.sleep(0.3)
        exchange.writer.write(OK)

    async with serving(answer_slowly, limit=1) as (server, pool):
        first = asyncio.create_task(pool.send("GET", request(), timeout=5))
        await received(server)
        with pytest.raises(TimeoutError):
            await pool.send("GET", request(), timeout=0.05)
        assert (await first).status == 200
        assert len(server.requests) == 1


async def test_a_cancelled_request_closes_its_connection() -> None:
    """Its answer may still come, so the connection cannot carry the next request."""
    closed_by_client = asyncio.Event()

    async def answer_after_the_first(exchange: Exchange) -> None:
        if exchange.connection == 1:
            if await exchange.reader.read() == b"":
                closed_by_client.set()
            return
        exchange.writer.write(OK)

    async with serving(answer_after_the_first) as (_, pool):
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await pool.send("GET", request(), timeout=5)
        await asyncio.wait_for(closed_by_client.wait(), 1)
        response = await pool.send("GET", request(), timeout=5)
        assert response.body == b"ok" and pool.opened == 2


async def test_closing_the_pool_fails_requests_in_flight_and_refuses_new_ones() -> None:
    async def never_answer(exchange: Exchange) -> None:
        await asyncio.sleep(10)

    async with serving(never_answer) as (server, pool):
        pending = asyncio.create_task(pool.send("GET", request(), timeout=5))
        await received(server)
        pool.close()
        with pytest.raises(ConnectionClosed):
            await pending
        with pytest.raises(ConnectionClosed):
            await pool.send("GET", request(), timeout=5)
