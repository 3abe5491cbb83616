"""The Kubernetes remote command protocol over WebSocket, as kubectl ≥ 1.30 speaks it for exec and attach.

Every binary message is one channel byte then data: 0 stdin, 1 stdout, 2 stderr, 3 the error
channel (a `Status` JSON when the command ends: success, or kube's NonZeroExitCode with the exit code
as a cause, which kubectl turns into its own exit code), 4 terminal resize (JSON Width/Height).
`v5.channel.k8s.io` adds the close signal: channel 255 carrying the number of the stream the client
closes (stdin at its end of file). `v4.channel.k8s.io` is the same without it. Pure functions only.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import orjson

V5 = "v5.channel.k8s.io"
V4 = "v4.channel.k8s.io"
SERVED_PROTOCOLS = (V5, V4)
"""The subprotocols served, most preferred first."""


class Channel(enum.IntEnum):
    STDIN = 0
    STDOUT = 1
    STDERR = 2
    ERROR = 3
    RESIZE = 4
    CLOSE = 255


class ProtocolError(ValueError):
    """A message that breaks the protocol (empty, or a close signal without a stream)."""


@dataclass(frozen=True, slots=True)
class Message:
    channel: int
    data: bytes


def encode(channel: Channel, data: bytes) -> bytes:
    return bytes([channel]) + data


def decode(message: bytes) -> Message:
    if not message:
        raise ProtocolError("an empty remote command message has no channel")
    return Message(message[0], message[1:])


def closed_stream(message: Message) -> int:
    """The stream a v5 close signal closes."""
    if message.channel != Channel.CLOSE or len(message.data) != 1:
        raise ProtocolError("a close signal carries exactly the one byte of the stream it closes")
    return message.data[0]


def choose_protocol(offered: list[str]) -> str | None:
    """The served subprotocol the client prefers, or None when it offers none of them."""
    return next((protocol for protocol in offered if protocol in SERVED_PROTOCOLS), None)


def exit_status(command: list[str], code: int) -> bytes:
    """The error channel's last word: Success, or the exit code as kube's kubelet reports it."""
    status: dict[str, Any] = {"metadata": {}, "status": "Success"}
    words = " ".join(command)
    if code != 0:
        status = {
            "metadata": {},
            "status": "Failure",
            "message": (
                f"command terminated with non-zero exit code: error executing command [{words}], "
                f"exit code {code}"
            ),
            "reason": "NonZeroExitCode",
            "details": {"causes": [{"reason": "ExitCode", "message": str(code)}]},
        }
    return encode(Channel.ERROR, orjson.dumps(status))


def failure_status(message: str) -> bytes:
    """The error channel's word when the command could not run or was stopped (kubectl prints it)."""
    status = {"metadata": {}, "status": "Failure", "message": message, "reason": "InternalError", "code": 500}
    return encode(Channel.ERROR, orjson.dumps(status))
