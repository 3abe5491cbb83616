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
