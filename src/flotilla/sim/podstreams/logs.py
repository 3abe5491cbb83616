"""`pods/<name>/log` of a simulated cluster: kwok's logs, a configured local file as a container's log.

A container that a `logs` rule selects logs what the rule's file holds (its `previousLogsFile` for
`--previous`); any other container has an empty log, as a container that printed nothing. kube's
options: `container`, `tailLines`, `limitBytes`, `timestamps` (each line prefixed with an RFC 3339
time: the file's modification time for what it held, the time it was read for what is appended
later) and `follow`, which keeps the answer open and sends lines appended to the file until the
client goes away or the pod is deleted. The file is read in a thread: the event loop never waits
on the disk.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from aiohttp import web

from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.podstreams.pods import POD, container_of, find_pod
from flotilla.sim.spec import PodStreams

_Send = Callable[[bytes, float], Awaitable[bool]]

POLL_INTERVAL = 0.2
"""Seconds between looks at a followed file."""
MAX_READ = 1024 * 1024
"""Bytes read from the file at a time."""


@dataclass(frozen=True, slots=True)
class _Chunk:
    data: bytes
    size: int
    """The file's size when read (a smaller one later: it was truncated, read it again from the start)."""
    modified: float


def _read_from(path: str, offset: int) -> _Chunk:
    try:
        with open(path, "rb") as file:
            stat = os.fstat(file.fileno())
            if stat.st_size < offset:
                offset = 0
            file.seek(offset)
            return _Chunk(file.read(MAX_READ), stat.st_size, stat.st_mtime)
    except FileNotFoundError:
        return _Chunk(b"", 0, 0.0)


def _int_option(request: web.Request, name: str) -> int | None:
    raw = request.query.get(name)
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError as exc:
        raise errors.BadRequest(f"{name}: invalid value {raw!r}: must be an integer") from exc
    if value < 0 or (name == "limitBytes" and value == 0):
        raise errors.BadRequest(
            f"{name}: invalid value {value}: must be {'positive' if value == 0 else 'non-negative'}"
        )
    return value


def tail(data: bytes, lines: int | None) -> bytes:
    """The last `lines` lines of `data` (all of it when None)."""
    if lines is None:
        return data
    if lines == 0:
        return b""
    kept = data.splitlines(keepends=True)[-lines:]
    return b"".join(kept)


def stamped(data: bytes, when: float) -> bytes:
    """Each line of `data` prefixed with `when` as kubelet prefixes log lines (RFC 3339, nanoseconds)."""
    moment = datetime.fromtimestamp(when, UTC)
    prefix = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond:06d}000Z "
    return b"".join(prefix.encode() + line for line in data.splitlines(keepends=True))


class LogServer:
    """Serves the log subresource of one simulated cluster's pods."""

    def __init__(
        self, client: LocalClient, streams: PodStreams, *, poll_interval: float = POLL_INTERVAL
    ) -> None:
        self._client = client
        self._streams = streams
        self._poll_interval = poll_interval

    async def serve(self, request: web.Request, namespace: str, name: str) -> web.StreamResponse:
        pod = find_pod(self._client, namespace, name)
        container = container_of(pod, request.query.get("container", ""))
        rule = self._streams.log_rule(namespace, name, container)
        previous = request.query.get("previous", "").lower() in ("true", "1")
        follow = request.query.get("follow", "").lower() in ("true", "1")
        timestamps = request.query.get("timestamps", "").lower() in ("true", "1")
        tail_lines, limit = _int_option(request, "tailLines"), _int_option(request, "limitBytes")
        path = rule.logs_file if rule is not None else ""
        if previous:
            path = rule.previous_logs_file if rule is not None else ""
            if not path:
                raise errors.BadRequest(
                    f'previous terminated container "{container}" in pod "{name}" not found'
                )
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        sent = 0

        async def send(data: bytes, when: float) -> bool:
            """Send lines; False once `limitBytes` is reached."""
            nonlocal sent
            out = stamped(data, when) if timestamps else data
            if limit is not None:
                out = out[: limit - sent]
            if out:
                await response.write(out)
                sent += len(out)
            return limit is None or sent < limit

        chunk = await asyncio.to_thread(_read_from, path, 0) if path else _Chunk(b"", 0, 0.0)
        going = await send(tail(chunk.data, tail_lines), chunk.modified)
        if follow and not previous and path and going:
            uid = str(pod["metadata"].get("uid", ""))
            await self._follow(request, (namespace, name, uid), path, chunk.size, send)
        await response.write_eof()
        return response

    async def _follow(
        self, request: web.Request, pod: tuple[str, str, str], path: str, offset: int, send: _Send
    ) -> None:
        """Send whole lines appended to `path` after `offset` until the client or the pod goes away."""
        namespace, name, uid = pod
        partial = b""
        while True:
            await asyncio.sleep(self._poll_interval)
            if request.transport is None or request.transport.is_closing():
                return  # the client went away
            current = self._client.peek(POD, name, namespace=namespace)
            if current is None or current["metadata"].get("uid", "") != uid:
                return  # the pod was deleted (or replaced by another of the same name)
            chunk = await asyncio.to_thread(_read_from, path, offset)
            if chunk.size < offset:
                offset, partial = 0, b""  # truncated: read from the start again
                continue
            offset += len(chunk.data)
            data = partial + chunk.data
            complete = data.rfind(b"\n") + 1
            partial = data[complete:]
            if complete and not await send(data[:complete], datetime.now(UTC).timestamp()):
                return
