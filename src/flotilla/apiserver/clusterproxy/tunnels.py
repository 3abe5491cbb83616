"""The hub's end of the tunnels Pull members' agents hold open, and requests sent down them.

`TunnelRegistry` knows the one open tunnel per cluster (a newer one replaces an older one: the agent
reconnected). Each proxied request is a stream of frames (`flotilla.client.tunnelframes`) with its
own id; the tunnel's reader hands every frame to its stream's bounded queue, so a client that reads
slowly holds back its own stream first and the tunnel's reader only when that queue is full.

A tunnel lives in the API server process the agent reached: with several API server processes
sharing one port, a proxy request must reach the process holding the tunnel (see
docs/design/clusterproxy.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from dataclasses import dataclass, field

import structlog
from aiohttp import WSMsgType, web
from multidict import CIMultiDict

from flotilla.apiserver import errors
from flotilla.apiserver.clusterproxy.headers import Headers, response_headers
from flotilla.apiserver.clusterproxy.relay import TunnelDirectory
from flotilla.client.tunnelframes import (
    MAX_CHUNK,
    Frame,
    FrameError,
    FrameType,
    data_frames,
    decode,
    headers_of,
    request_frame,
    reset_frame,
)

log = structlog.get_logger("flotilla.apiserver.clusterproxy")

STREAM_QUEUE = 64
"""Frames one stream buffers before the tunnel's reader waits for its client."""
RESPONSE_TIMEOUT = 60.0
"""Seconds the agent has to answer a request's head before the client gets a 504."""
HEARTBEAT = 20.0


@dataclass(eq=False)
class _Stream:
    frames: asyncio.Queue[Frame] = field(default_factory=lambda: asyncio.Queue(STREAM_QUEUE))
    reset: bool = False
    """Whether the agent reset the stream before answering (nothing is owed back)."""

    def fail(self, stream: int, message: str) -> None:
        while self.frames.full():
            self.frames.get_nowait()  # the stream is over: what it had not read no longer matters
        self.frames.put_nowait(reset_frame(stream, message))


async def answer_head(tunnel: Tunnel, stream: _Stream) -> tuple[int, Headers]:
    """The status and headers the agent answered a request with (its RESPONSE frame).

    503 when the agent reset the stream (the member failed: `stream.reset` is then set, no RESET
    is owed back) or answered out of order or badly; 504 when it did not answer in time."""
    try:
        async with asyncio.timeout(RESPONSE_TIMEOUT):
            head = await stream.frames.get()
    except TimeoutError as exc:
        raise errors.ServerTimeout(
            f"the agent of cluster {tunnel.cluster} did not answer within {RESPONSE_TIMEOUT:.0f}s"
        ) from exc
    if head.type != FrameType.RESPONSE:
        stream.reset = head.type == FrameType.RESET
        message = head.json().get("message") if stream.reset else "an out-of-order frame"
        raise errors.ServiceUnavailable(f"error trying to reach cluster {tunnel.cluster}: {message}")
    try:
        answer = head.json()
        return int(answer.get("status") or 502), headers_of(answer)
    except (FrameError, ValueError) as exc:
        message = f"the agent of cluster {tunnel.cluster} answered badly: {exc}"
        raise errors.ServiceUnavailable(message) from exc


class Tunnel:
    """One agent's WebSocket, shared by every request proxied to its cluster."""

    def __init__(self, cluster: str, socket: web.WebSocketResponse) -> None:
        self.cluster = cluster
        self._socket = socket
        self._streams: dict[int, _Stream] = {}
        self._ids = itertools.count(1)
        self._send_lock = asyncio.Lock()
        self.closed = False

    async def send(self, frame: Frame) -> None:
        if self.closed:
            raise ConnectionResetError(f"the tunnel of cluster {self.cluster} is closed")
        async with self._send_lock:
            await self._socket.send_bytes(frame.encode())

    def open(self) -> tuple[int, _Stream]:
        stream_id = next(self._ids) % (2**32 - 1) or next(self._ids)
        stream = self._streams[stream_id] = _Stream()
        return stream_id, stream

    def close_stream(self, stream_id: int) -> None:
        self._streams.pop(stream_id, None)

    async def deliver(self, frame: Frame) -> None:
        stream = self._streams.get(frame.stream)
        if stream is not None:
            await stream.frames.put(frame)

    def fail_all(self, message: str) -> None:
        self.closed = True
        for stream_id, stream in list(self._streams.items()):
            stream.fail(stream_id, message)
        self._streams.clear()

    async def close(self) -> None:
        self.fail_all(f"the agent of cluster {self.cluster} opened a new tunnel")
        await self._socket.close()


class TunnelRegistry:
    """The open tunnel of each Pull cluster on this API server."""

    def __init__(self) -> None:
        self._tunnels: dict[str, Tunnel] = {}
        self.directory: TunnelDirectory | None = None
        """Where this server announces the tunnels it holds to its peers (None: it has no peers' view)."""

    def get(self, cluster: str) -> Tunnel | None:
        return self._tunnels.get(cluster)

    async def serve(self, request: web.Request, cluster: str) -> web.WebSocketResponse:
        """Hold the agent's WebSocket until it closes, routing the frames it sends to their streams."""
        socket = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_CHUNK * 2)
        if not socket.can_prepare(request).ok:
            raise errors.BadRequest(
                f"clusters/{cluster}/tunnel is a WebSocket that the cluster's agent opens; "
                "send an Upgrade: websocket request"
            )
        await socket.prepare(request)
        tunnel = Tunnel(cluster, socket)
        previous = self._tunnels.get(cluster)
        self._tunnels[cluster] = tunnel
        if previous is not None:
            await previous.close()
        log.info("clusterproxy.tunnel_opened", cluster=cluster)
        if self.directory is not None:
            await self.directory.announce(cluster)
        try:
            async for message in socket:
                if message.type != WSMsgType.BINARY:
                    continue
                try:
                    frame = decode(message.data)
                except FrameError as exc:
                    log.warning("clusterproxy.tunnel_bad_frame", cluster=cluster, error=str(exc))
                    break
                await tunnel.deliver(frame)
        finally:
            if self._tunnels.get(cluster) is tunnel:
                del self._tunnels[cluster]
                if self.directory is not None:
                    await self.directory.withdraw(cluster)
            tunnel.fail_all(f"the tunnel of cluster {cluster} closed")
            await socket.close()
            log.info("clusterproxy.tunnel_closed", cluster=cluster)
        return socket

    async def close(self) -> None:
        for tunnel in list(self._tunnels.values()):
            tunnel.fail_all("the API server is stopping")
            with contextlib.suppress(Exception):
                await tunnel.close()
        self._tunnels.clear()


async def forward_through_tunnel(
    request: web.Request,
    tunnel: Tunnel,
    path: str,
    query: str,
    headers: Headers,
    *,
    when_switched: errors.APIError | None = None,
) -> web.StreamResponse:
    """Send the request down the tunnel and stream the agent's answer back to the client.

    An SPDY upgrade the member accepts (101, which the agent answers at once and drops) is raised as
    `when_switched`: the proxy passes only the member's refusals of it through."""
    stream_id, stream = tunnel.open()
    finished = False
    try:
        try:
            if request.content_length is not None:
                headers = [*headers, ("Content-Length", str(request.content_length))]
            head = request_frame(
                stream_id, request.method, path, query, headers, has_body=request.body_exists
            )
            await tunnel.send(head)
            if request.body_exists:
                async for chunk in request.content.iter_chunked(MAX_CHUNK):
                    for frame in data_frames(stream_id, chunk):
                        await tunnel.send(frame)
            await tunnel.send(Frame(stream_id, FrameType.END))
        except ConnectionError as exc:
            raise errors.ServiceUnavailable(
                f"error trying to reach cluster {tunnel.cluster}: its agent's tunnel closed"
            ) from exc
        status, pairs = await answer_head(tunnel, stream)
        if status == 101:
            while (await stream.frames.get()).type == FrameType.DATA:
                pass
            finished = True
            raise when_switched or errors.ServiceUnavailable(
                f"cluster {tunnel.cluster} switched protocols on a request that asked for none"
            )
        response = web.StreamResponse(status=status, headers=CIMultiDict(response_headers(pairs)))
        await response.prepare(request)
        while True:
            frame = await stream.frames.get()
            if frame.type == FrameType.DATA:
                await response.write(frame.payload)
            elif frame.type == FrameType.END:
                finished = True
                await response.write_eof()
                return response
            else:
                finished = True  # the member or the tunnel failed mid-answer: end the client's stream
                return response
    finally:
        tunnel.close_stream(stream_id)
        if not finished and not stream.reset and not tunnel.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await tunnel.send(reset_frame(stream_id, "the client went away"))
