"""The frames of the cluster-proxy tunnel a Pull member's agent holds open to the hub.

A Pull member sits behind NAT: the hub cannot dial it, so its agent dials the hub (a WebSocket on
`clusters/<name>/tunnel`) and the hub sends the requests of `clusters/<name>/proxy/...` down that
connection. Many requests share one tunnel, each a stream of frames with its own id, as
Clusternet's and OCM's cluster proxies carry theirs. Every frame is one binary WebSocket message:

    stream id (4 bytes, big-endian) · frame type (1 byte) · payload

- `REQUEST`  hub → agent: JSON {method, path, query, headers, body}; when `body` is true the
  request body follows as `DATA` frames; `END` follows either way.
- `RESPONSE` agent → hub: JSON {status, headers}; the response body follows as `DATA`, then `END`.
- `DATA`     body bytes, either way.
- `END`      the sender's body is complete.
- `RESET`    either way: the stream is abandoned (the client went away, the member failed); JSON
  {message}. A `RESET` before any `RESPONSE` is answered to the client as 503 with that message.
- `UPGRADE`  hub → agent: JSON {path, query, headers, protocols}: open a WebSocket to the member
  (exec, attach, port-forward) offering those subprotocols. The agent answers `RESPONSE`: status 101
  with the subprotocol the member chose in `Sec-WebSocket-Protocol`, or the member's refusal (its
  status, then its body as `DATA` and `END`).
- `MESSAGE`  either way, once upgraded: one WebSocket message, a kind byte (1 text, 2 binary; 0x80
  set when the next `MESSAGE` frame continues it: messages larger than MAX_CHUNK are cut) then the
  data. `END` either way closes the WebSocket; `RESET` drops it.

This module only encodes and decodes (no I/O): the hub (`apiserver/clusterproxy`) and the agent
(`agent/tunnel.py`) share it.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass
from typing import Any

import orjson

_HEADER = struct.Struct(">IB")
MAX_CHUNK = 64 * 1024
"""The most body bytes one `DATA` frame carries."""


class FrameType(enum.IntEnum):
    REQUEST = 1
    RESPONSE = 2
    DATA = 3
    END = 4
    RESET = 5
    UPGRADE = 6
    MESSAGE = 7


class MessageKind(enum.IntEnum):
    """What a `MESSAGE` frame carries: the WebSocket message type."""

    TEXT = 1
    BINARY = 2


_MORE = 0x80


class FrameError(ValueError):
    """A tunnel message that is not a frame (too short, unknown type, or a bad JSON payload)."""


@dataclass(frozen=True, slots=True)
class Frame:
    stream: int
    type: FrameType
    payload: bytes = b""

    def encode(self) -> bytes:
        return _HEADER.pack(self.stream, self.type) + self.payload

    def json(self) -> dict[str, Any]:
        """The payload of a REQUEST, RESPONSE or RESET frame."""
        try:
            value = orjson.loads(self.payload) if self.payload else {}
        except orjson.JSONDecodeError as exc:
            raise FrameError(f"tunnel frame {self.type.name} carries invalid JSON") from exc
        if not isinstance(value, dict):
            raise FrameError(f"tunnel frame {self.type.name} carries no JSON object")
        return value


def decode(message: bytes) -> Frame:
    if len(message) < _HEADER.size:
        raise FrameError("tunnel message shorter than a frame header")
    stream, kind = _HEADER.unpack_from(message)
    try:
        frame_type = FrameType(kind)
    except ValueError as exc:
        raise FrameError(f"unknown tunnel frame type {kind}") from exc
    return Frame(stream, frame_type, message[_HEADER.size :])


Headers = list[tuple[str, str]]


def request_frame(
    stream: int, method: str, path: str, query: str, headers: Headers, *, has_body: bool
) -> Frame:
    payload = {
        "method": method,
        "path": path,
        "query": query,
        "headers": [list(h) for h in headers],
        "body": has_body,
    }
    return Frame(stream, FrameType.REQUEST, orjson.dumps(payload))


def response_frame(stream: int, status: int, headers: Headers) -> Frame:
    body = {"status": status, "headers": [list(h) for h in headers]}
    return Frame(stream, FrameType.RESPONSE, orjson.dumps(body))


def reset_frame(stream: int, message: str) -> Frame:
    return Frame(stream, FrameType.RESET, orjson.dumps({"message": message}))


def data_frames(stream: int, data: bytes) -> list[Frame]:
    """`data` cut into DATA frames of at most MAX_CHUNK bytes."""
    return [Frame(stream, FrameType.DATA, data[i : i + MAX_CHUNK]) for i in range(0, len(data), MAX_CHUNK)]


def headers_of(payload: dict[str, Any]) -> Headers:
    """The header list of a REQUEST or RESPONSE payload; FrameError when it is not pairs of strings."""
    found: Headers = []
    for entry in payload.get("headers") or ():
        if not (isinstance(entry, list) and len(entry) == 2 and all(isinstance(v, str) for v in entry)):
            raise FrameError("tunnel frame headers must be [name, value] string pairs")
        found.append((entry[0], entry[1]))
    return found


def upgrade_frame(stream: int, path: str, query: str, headers: Headers, protocols: list[str]) -> Frame:
    payload = {"path": path, "query": query, "headers": [list(h) for h in headers], "protocols": protocols}
    return Frame(stream, FrameType.UPGRADE, orjson.dumps(payload))


def protocols_of(payload: dict[str, Any]) -> list[str]:
    """The subprotocols of an UPGRADE payload; FrameError when they are not strings."""
    found = payload.get("protocols") or []
    if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
        raise FrameError("tunnel frame protocols must be a list of strings")
    return found


def message_frames(stream: int, kind: MessageKind, data: bytes) -> list[Frame]:
    """One WebSocket message as MESSAGE frames of at most MAX_CHUNK data bytes each."""
    chunks = [data[i : i + MAX_CHUNK] for i in range(0, len(data), MAX_CHUNK)] or [b""]
    last = len(chunks) - 1
    return [
        Frame(stream, FrameType.MESSAGE, bytes([kind | (_MORE if i < last else 0)]) + chunk)
        for i, chunk in enumerate(chunks)
    ]


class MessageAssembler:
    """Joins the MESSAGE frames of one stream back into whole WebSocket messages."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def add(self, frame: Frame) -> tuple[MessageKind, bytes] | None:
        """The message `frame` completes, or None while more frames are to come."""
        if not frame.payload:
            raise FrameError("tunnel frame MESSAGE carries no kind byte")
        flags = frame.payload[0]
        try:
            kind = MessageKind(flags & ~_MORE)
        except ValueError as exc:
            raise FrameError(f"unknown tunnel message kind {flags & ~_MORE}") from exc
        self._parts.append(frame.payload[1:])
        if flags & _MORE:
            return None
        data, self._parts = b"".join(self._parts), []
        return kind, data
