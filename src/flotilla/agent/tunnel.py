"""The agent's end of the cluster-proxy tunnel: a WebSocket it dials to the hub and keeps open.

A Pull member is often behind NAT, so the hub cannot dial it; the agent dials the hub instead
(`clusters/<name>/tunnel`, authorized for that cluster's agent only) and serves the proxied
requests that come down the connection (frames of `flotilla.client.tunnelframes`) against its own
member, with the member credential of its kubeconfig and the hub user's identity impersonated
(the hub sets `Impersonate-User`/`Impersonate-Group`; the member's RBAC decides). That credential
must be allowed to impersonate in the member. Each request runs as its own task, so a watch does
not hold up a get; a dropped tunnel is dialled again with backoff, and the requests it carried end.
An UPGRADE (exec, attach, port-forward) dials the member's WebSocket offering the client's
subprotocols; the member's refusal goes back whole (status and body), its acceptance as a 101 naming
the chosen subprotocol, then messages are relayed as MESSAGE frames until either end closes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

import aiohttp
import structlog

from flotilla.api.karmada.constants import CLUSTER_GROUP, CLUSTERS
from flotilla.client.kubeconfig import ClusterConfig
from flotilla.client.tunnelframes import (
    MAX_CHUNK,
    Frame,
    FrameError,
    FrameType,
    MessageAssembler,
    MessageKind,
    data_frames,
    decode,
    headers_of,
    message_frames,
    protocols_of,
    reset_frame,
    response_frame,
)
from flotilla.client.websocketdial import Refused, dial, handshake_trace

log = structlog.get_logger("flotilla.agent")

HEARTBEAT = 20.0
MAX_BACKOFF = 30.0
CONNECT_TIMEOUT = 10.0
_DROPPED_ANSWER_HEADERS = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length"})


def tunnel_path(cluster_name: str) -> str:
    return f"/apis/{CLUSTER_GROUP}/v1alpha1/{CLUSTERS.resource}/{cluster_name}/tunnel"


_Streams = dict[int, tuple[asyncio.Queue[Frame], asyncio.Task[None]]]


def _forget_stream(streams: _Streams, stream: int) -> Callable[[asyncio.Task[None]], None]:
    def forget(_: asyncio.Task[None]) -> None:
        streams.pop(stream, None)

    return forget


class _Sender:
    """One WebSocket written by many request tasks: frames are sent whole, one at a time."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket
        self._lock = asyncio.Lock()

    async def send(self, frame: Frame) -> None:
        async with self._lock:
            await self._socket.send_bytes(frame.encode())


class TunnelClient:
    """Keeps the tunnel to the hub open and serves what comes down it against the local member."""

    def __init__(self, cluster_name: str, hub: ClusterConfig, member: ClusterConfig) -> None:
        self.cluster_name = cluster_name
        self._hub = hub
        self._member = member
        self._task: asyncio.Task[None] | None = None
        self.connected = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"tunnel-{self.cluster_name}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.connected = False

    async def _run(self) -> None:
        backoff = 1.0
        hub_session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(ssl=self._hub.ssl_context()),
            timeout=aiohttp.ClientTimeout(total=None, connect=CONNECT_TIMEOUT),
        )
        member_session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(ssl=self._member.ssl_context(), limit=0),
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None, connect=CONNECT_TIMEOUT),
            trace_configs=[handshake_trace()],
        )
        servers = self._hub.servers
        attempt = 0
        try:
            while True:
                # Each failure moves to the hub's next API server (its kubeconfig's endpoints, as
                # `--hub-endpoints` gives them), so the tunnel follows the hub when one server dies.
                server = servers[attempt % len(servers)]
                attempt += 1
                try:
                    await self._serve(hub_session, member_session, server)
                    backoff = 1.0
                except (aiohttp.ClientError, OSError, TimeoutError, FrameError) as exc:
                    reason = str(exc) or type(exc).__name__
                    log.info("agent.tunnel_failed", cluster=self.cluster_name, hub=server, error=reason)
                self.connected = False
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
        finally:
            await hub_session.close()
            await member_session.close()

    async def _serve(
        self, hub_session: aiohttp.ClientSession, member_session: aiohttp.ClientSession, server: str
    ) -> None:
        url = server + tunnel_path(self.cluster_name)
        async with hub_session.ws_connect(
            url,
            headers=self._hub.headers(),
            heartbeat=HEARTBEAT,
            max_msg_size=MAX_CHUNK * 2,
            server_hostname=self._hub.tls_server_name,
        ) as socket:
            self.connected = True
            log.info("agent.tunnel_open", cluster=self.cluster_name, hub=server)
            sender = _Sender(socket)
            streams: _Streams = {}
            try:
                async for message in socket:
                    if message.type != aiohttp.WSMsgType.BINARY:
                        continue
                    frame = decode(message.data)
                    if frame.type in (FrameType.REQUEST, FrameType.UPGRADE):
                        body: asyncio.Queue[Frame] = asyncio.Queue()
                        serve = self._answer if frame.type == FrameType.REQUEST else self._upgrade
                        task = asyncio.create_task(serve(member_session, sender, frame, body))
                        streams[frame.stream] = (body, task)
                        task.add_done_callback(_forget_stream(streams, frame.stream))
                    elif frame.stream in streams:
                        body, task = streams[frame.stream]
                        if frame.type == FrameType.RESET:
                            task.cancel()
                        else:
                            body.put_nowait(frame)
            finally:
                for _, task in list(streams.values()):
                    task.cancel()
                await asyncio.gather(*(task for _, task in streams.values()), return_exceptions=True)
                log.info("agent.tunnel_closed", cluster=self.cluster_name)

    async def _answer(
        self,
        member_session: aiohttp.ClientSession,
        sender: _Sender,
        head: Frame,
        body: asyncio.Queue[Frame],
    ) -> None:
        """Send one proxied request to the member and its answer back up the tunnel."""
        stream = head.stream
        try:
            request = head.json()
            headers = headers_of(request)
        except FrameError as exc:
            await sender.send(reset_frame(stream, str(exc)))
            return

        async def request_body() -> AsyncIterator[bytes]:
            while (frame := await body.get()).type == FrameType.DATA:
                yield frame.payload

        query = str(request.get("query") or "")
        url = self._member.server + str(request.get("path") or "/") + (f"?{query}" if query else "")
        outgoing = [*headers, *self._member.headers().items()]
        try:
            async with member_session.request(
                str(request.get("method") or "GET"),
                url,
                headers=outgoing,
                data=request_body() if request.get("body") else None,
                allow_redirects=False,
                server_hostname=self._member.tls_server_name,
                skip_auto_headers=("Accept-Encoding", "User-Agent", "Content-Type"),
            ) as upstream:
                answer_headers = [
                    (name.decode("latin-1"), value.decode("latin-1"))
                    for name, value in upstream.raw_headers
                    if name.decode("latin-1").lower() not in _DROPPED_ANSWER_HEADERS
                ]
                await sender.send(response_frame(stream, upstream.status, answer_headers))
                if upstream.status == 101:
                    # An SPDY upgrade the member accepted: the hub relays none, so the switched
                    # connection is dropped (a kubelet runs nothing until the client opens its streams).
                    upstream.close()
                    await sender.send(Frame(stream, FrameType.END))
                    return
                async for chunk in upstream.content.iter_any():
                    for frame in data_frames(stream, chunk):
                        await sender.send(frame)
            await sender.send(Frame(stream, FrameType.END))
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            reason = str(exc) or type(exc).__name__
            with contextlib.suppress(ConnectionError, aiohttp.ClientError):
                await sender.send(reset_frame(stream, f"the agent could not reach its member: {reason}"))

    async def _upgrade(
        self,
        member_session: aiohttp.ClientSession,
        sender: _Sender,
        head: Frame,
        inbox: asyncio.Queue[Frame],
    ) -> None:
        """Open the member's WebSocket for one proxied upgrade and relay it until either end closes."""
        stream = head.stream
        try:
            request = head.json()
            headers = headers_of(request)
            protocols = protocols_of(request)
        except FrameError as exc:
            await sender.send(reset_frame(stream, str(exc)))
            return
        query = str(request.get("query") or "")
        url = self._member.server + str(request.get("path") or "/") + (f"?{query}" if query else "")
        try:
            member = await dial(
                member_session,
                url,
                headers=[*headers, *self._member.headers().items()],
                protocols=protocols,
                server_hostname=self._member.tls_server_name,
            )
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            reason = str(exc) or type(exc).__name__
            with contextlib.suppress(ConnectionError, aiohttp.ClientError):
                await sender.send(reset_frame(stream, f"the agent could not reach its member: {reason}"))
            return
        if isinstance(member, Refused):
            kept = [(n, v) for n, v in member.headers if n.lower() not in _DROPPED_ANSWER_HEADERS]
            await sender.send(response_frame(stream, member.status, kept))
            for frame in data_frames(stream, member.body):
                await sender.send(frame)
            await sender.send(Frame(stream, FrameType.END))
            return
        try:
            chosen = [("Sec-WebSocket-Protocol", member.protocol)] if member.protocol else []
            await sender.send(response_frame(stream, 101, chosen))
            await _relay(member, sender, stream, inbox)
        finally:
            await member.close()


async def _relay(
    member: aiohttp.ClientWebSocketResponse, sender: _Sender, stream: int, inbox: asyncio.Queue[Frame]
) -> None:
    """Member messages up the tunnel, the hub's MESSAGE frames to the member, until either closes."""

    async def up() -> None:
        with contextlib.suppress(ConnectionError, aiohttp.ClientError):
            async for message in member:
                if message.type == aiohttp.WSMsgType.BINARY:
                    frames = message_frames(stream, MessageKind.BINARY, message.data)
                elif message.type == aiohttp.WSMsgType.TEXT:
                    frames = message_frames(stream, MessageKind.TEXT, message.data.encode())
                else:
                    continue
                for frame in frames:
                    await sender.send(frame)
            await sender.send(Frame(stream, FrameType.END))

    async def down() -> None:
        assembler = MessageAssembler()
        while (frame := await inbox.get()).type == FrameType.MESSAGE:
            whole = assembler.add(frame)
            if whole is None:
                continue
            kind, data = whole
            with contextlib.suppress(ConnectionError, aiohttp.ClientError):
                if kind == MessageKind.TEXT:
                    await member.send_str(data.decode("utf-8", "replace"))
                else:
                    await member.send_bytes(data)

    tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
