"""Upgrades through the proxy: exec, attach and port-forward as WebSockets relayed message by message.

kubectl ≥ 1.30 speaks these over WebSocket (`v5.channel.k8s.io`…). The hub does not read the
channels: it dials the member first, offering the subprotocols the client offered, and accepts the
client only once the member has accepted, with the subprotocol the member chose; then every message
goes through unchanged, both ways. A member that refuses the handshake (403 for the impersonated user,
404 for a missing pod, 400) has its status and `Status` body passed back as they are. A Push member
is dialled directly (`flotilla.client.websocketdial`); a Pull member through its agent's tunnel
(UPGRADE, then MESSAGE frames: `flotilla.client.tunnelframes`). Closing either end closes the other.

SPDY (kubectl before 1.30, or with its WebSocket switched off) is not relayed: it needs the raw
connection after `101 Switching Protocols`, which the server framework does not hand over. The SPDY
request still goes to the member, so that its refusal reaches the client as it is: kubectl falls back
to SPDY when its WebSocket is refused, and shows the refusal of that second attempt (the member's 403,
not a word about SPDY). Only when the member accepts (101; a kubelet runs nothing until the client
opens its streams) is the connection dropped and the client told that SPDY is not relayed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Iterable

import aiohttp
import structlog
from aiohttp import WSMsgType, web
from multidict import CIMultiDict

from flotilla.apiserver import errors
from flotilla.apiserver.clusterproxy.headers import Headers, response_headers
from flotilla.apiserver.clusterproxy.targets import DirectTarget
from flotilla.apiserver.clusterproxy.tunnels import Tunnel, answer_head
from flotilla.client.tunnelframes import (
    Frame,
    FrameError,
    FrameType,
    MessageAssembler,
    MessageKind,
    message_frames,
    reset_frame,
    upgrade_frame,
)
from flotilla.client.websocketdial import MAX_REFUSAL_BODY, Refused, dial

log = structlog.get_logger("flotilla.apiserver.clusterproxy")

AnyWebSocket = web.WebSocketResponse | aiohttp.ClientWebSocketResponse


def upgrade_protocol(incoming: Iterable[tuple[str, str]]) -> str:
    """The protocol a request asks to switch to, lower-cased ("" when none)."""
    for name, value in incoming:
        if name.lower() == "upgrade" and value.strip():
            return value.strip().lower()
    return ""


def offered_subprotocols(incoming: Iterable[tuple[str, str]]) -> list[str]:
    """The WebSocket subprotocols the client offers, in its order of preference."""
    return [
        token.strip()
        for name, value in incoming
        if name.lower() == "sec-websocket-protocol"
        for token in value.split(",")
        if token.strip()
    ]


def spdy_refused(cluster: str) -> errors.BadRequest:
    return errors.BadRequest(
        f"the cluster proxy relays exec, attach and port-forward to cluster {cluster} over WebSocket "
        "(v5.channel.k8s.io, v4.channel.k8s.io, and port-forward's v2.portforward.k8s.io), which kubectl "
        "1.30 and later use; it does not relay SPDY/3.1: use a newer kubectl, or reach the cluster with "
        "its own kubeconfig"
    )


def spdy_request_headers(headers: Headers, upgrade: str) -> Headers:
    """The forwarded headers of an SPDY upgrade, with the handshake the member must see put back."""
    return [*headers, ("Connection", "Upgrade"), ("Upgrade", upgrade)]


async def spdy_direct(
    request: web.Request,
    session: aiohttp.ClientSession,
    target: DirectTarget,
    path_and_query: str,
    headers: Headers,
) -> web.StreamResponse:
    """Send an SPDY upgrade to the Push member: its refusal back to the client, its acceptance a 400."""
    try:
        upstream = await session.request(
            request.method,
            target.config.server + path_and_query,
            headers=[*headers, *target.config.headers().items()],
            allow_redirects=False,
            read_until_eof=False,
            server_hostname=target.config.tls_server_name,
            skip_auto_headers=("Accept-Encoding", "User-Agent", "Content-Type"),
        )
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        reason = str(exc) or type(exc).__name__
        raise errors.ServiceUnavailable(f"error trying to reach cluster {target.cluster}: {reason}") from exc
    if upstream.status == 101:
        upstream.close()  # the switched connection is dropped, never pooled
        raise spdy_refused(target.cluster)
    async with upstream:
        pairs = [(n.decode("latin-1"), v.decode("latin-1")) for n, v in upstream.raw_headers]
        return _refusal(upstream.status, pairs, await upstream.content.read(MAX_REFUSAL_BODY))


def _refusal(status: int, headers: Headers, body: bytes) -> web.Response:
    kept = CIMultiDict(response_headers(headers))
    return web.Response(status=status, headers=kept, body=body)


async def _accept(request: web.Request, protocol: str | None) -> web.WebSocketResponse:
    client = web.WebSocketResponse(protocols=(protocol,) if protocol else (), max_msg_size=0)
    await client.prepare(request)
    return client


async def _send(socket: AnyWebSocket, kind: MessageKind, data: bytes) -> None:
    if kind == MessageKind.TEXT:
        await socket.send_str(data.decode("utf-8", "replace"))
    else:
        await socket.send_bytes(data)


def _message(message: aiohttp.WSMessage) -> tuple[MessageKind, bytes] | None:
    if message.type == WSMsgType.BINARY:
        return MessageKind.BINARY, message.data
    if message.type == WSMsgType.TEXT:
        return MessageKind.TEXT, message.data.encode()
    return None


async def _first_done(*pumps: Awaitable[None]) -> None:
    """Run the pumps until one ends (its side closed), then stop the others."""
    tasks = [asyncio.ensure_future(pump) for pump in pumps]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _pump(source: AnyWebSocket, sink: AnyWebSocket) -> None:
    with contextlib.suppress(ConnectionError, aiohttp.ClientError, RuntimeError):
        async for message in source:
            found = _message(message)
            if found is not None:
                await _send(sink, *found)


async def upgrade_direct(
    request: web.Request,
    session: aiohttp.ClientSession,
    target: DirectTarget,
    path_and_query: str,
    headers: Headers,
) -> web.StreamResponse:
    """Dial the Push member's WebSocket as the hub user, then relay the client's to it."""
    outgoing = [*headers, *target.config.headers().items()]
    try:
        member = await dial(
            session,
            target.config.server + path_and_query,
            headers=outgoing,
            protocols=offered_subprotocols(request.headers.items()),
            server_hostname=target.config.tls_server_name,
        )
    except (aiohttp.ClientError, OSError, TimeoutError) as exc:
        reason = str(exc) or type(exc).__name__
        raise errors.ServiceUnavailable(f"error trying to reach cluster {target.cluster}: {reason}") from exc
    if isinstance(member, Refused):
        return _refusal(member.status, member.headers, member.body)
    try:
        client = await _accept(request, member.protocol)
        await _first_done(_pump(client, member), _pump(member, client))
        await client.close(code=member.close_code or aiohttp.WSCloseCode.OK)
        return client
    finally:
        await member.close()


async def upgrade_through_tunnel(
    request: web.Request, tunnel: Tunnel, path: str, query: str, headers: Headers
) -> web.StreamResponse:
    """Have the Pull member's agent dial the member's WebSocket; relay the client's through the tunnel."""
    stream_id, stream = tunnel.open()
    ended = False
    try:
        try:
            protocols = offered_subprotocols(request.headers.items())
            await tunnel.send(upgrade_frame(stream_id, path, query, headers, protocols))
        except ConnectionError as exc:
            raise errors.ServiceUnavailable(
                f"error trying to reach cluster {tunnel.cluster}: its agent's tunnel closed"
            ) from exc
        status, answer_headers = await answer_head(tunnel, stream)
        if status != 101:
            body = bytearray()
            while (frame := await stream.frames.get()).type == FrameType.DATA:
                body += frame.payload
            ended = True
            return _refusal(status, answer_headers, bytes(body))
        protocol = next((v for n, v in answer_headers if n.lower() == "sec-websocket-protocol"), None)
        client = await _accept(request, protocol)
        ended = await _relay_tunnel(client, tunnel, stream_id, stream.frames)
        await client.close()
        return client
    finally:
        tunnel.close_stream(stream_id)
        if not ended and not stream.reset and not tunnel.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await tunnel.send(reset_frame(stream_id, "the client went away"))


async def _relay_tunnel(
    client: web.WebSocketResponse, tunnel: Tunnel, stream_id: int, frames: asyncio.Queue[Frame]
) -> bool:
    """Relay until either end closes; whether the stream ended cleanly (no RESET owed to the agent)."""
    ended = False

    async def up() -> None:
        nonlocal ended
        with contextlib.suppress(ConnectionError, RuntimeError):
            async for message in client:
                found = _message(message)
                if found is not None:
                    for frame in message_frames(stream_id, *found):
                        await tunnel.send(frame)
            await tunnel.send(Frame(stream_id, FrameType.END))
            ended = True

    async def down() -> None:
        nonlocal ended
        assembler = MessageAssembler()
        while True:
            frame = await frames.get()
            if frame.type != FrameType.MESSAGE:
                ended = True  # END: the member closed; RESET: the agent or the tunnel failed
                return
            try:
                whole = assembler.add(frame)
            except FrameError as exc:
                log.warning("clusterproxy.tunnel_bad_frame", cluster=tunnel.cluster, error=str(exc))
                return
            if whole is not None:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await _send(client, *whole)

    await _first_done(up(), down())
    return ended
