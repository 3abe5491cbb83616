"""Dialling a Kubernetes WebSocket (exec, attach, port-forward) so that a refusal keeps its body.

A proxy must hand its client the member's own refusal of the handshake — 403 with the member's
`Status` naming the user, 404 for a missing pod — but aiohttp's `ws_connect` raises
`WSServerHandshakeError` on a non-101 answer with the status alone and drops the body. Sessions made
with `handshake_trace()` read that body at the end of the request (aiohttp's tracing hook, awaited in
the dialling task) and leave it where `dial` looks for it (a context variable of that task), so `dial`
returns either the open WebSocket or the whole refusal. Used by the hub's cluster proxy (Push
members) and by the agent (the member end of the tunnel).
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from types import SimpleNamespace

import aiohttp

MAX_REFUSAL_BODY = 64 * 1024
"""The most bytes of a refused handshake's body kept (a Status is far smaller)."""

_REFUSAL: contextvars.ContextVar[list[bytes] | None] = contextvars.ContextVar(
    "flotilla.websocketdial.refusal", default=None
)


@dataclass(frozen=True, slots=True)
class Refused:
    """The member's answer to a handshake it did not accept."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


async def _keep_refusal_body(
    session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
) -> None:
    slot = _REFUSAL.get()
    if slot is not None and params.response.status != 101:
        slot.append(await params.response.content.read(MAX_REFUSAL_BODY))


def handshake_trace() -> aiohttp.TraceConfig:
    """The trace config a session needs for `dial` to see a refusal's body."""
    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(_keep_refusal_body)
    return trace


async def dial(
    session: aiohttp.ClientSession,
    url: str,
    *,
    headers: list[tuple[str, str]],
    protocols: list[str],
    server_hostname: str | None,
    max_msg_size: int = 0,
) -> aiohttp.ClientWebSocketResponse | Refused:
    """Open a WebSocket at `url` offering `protocols`, or the server's refusal (status, headers, body).

    Connection failures raise as aiohttp raises them (`aiohttp.ClientError`, `OSError`)."""
    slot: list[bytes] = []
    token = _REFUSAL.set(slot)
    try:
        return await session.ws_connect(
            url,
            headers=headers,
            protocols=protocols,
            server_hostname=server_hostname,
            autoclose=False,
            max_msg_size=max_msg_size,
        )
    except aiohttp.WSServerHandshakeError as exc:
        if exc.status == 101:
            raise  # switched protocols but a bad handshake: a broken server, not a refusal
        answer = [(name, value) for name, value in (exc.headers or {}).items()]
        return Refused(exc.status, answer, slot[0] if slot else b"")
    finally:
        _REFUSAL.reset(token)
