"""`pods/<name>/exec` of a simulated cluster: kwok's local exec, over the WebSocket kubectl ≥ 1.30 opens.

A simulated pod has no process to enter, so, as kwok does, an exec into a container that an `execs`
rule of the sim's configuration selects runs the requested command here, in the rule's working
directory with its variables added to the environment; without such a rule the exec is refused.
The command's output goes back on the channels of `channels.py` and its exit code on the error
channel, so `kubectl exec` exits as the command did. The command is a subprocess in a session of its
own, read and written asynchronously (the event loop never waits on it); it is killed, with what it
started, when the client goes away or the rule's timeout passes. A terminal (`tty`) is not
emulated: the command gets pipes either way, and resize messages are read and ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Coroutine
from typing import Any

import structlog
from aiohttp import WSMsgType, web

from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.podstreams.channels import (
    SERVED_PROTOCOLS,
    V5,
    Channel,
    ProtocolError,
    choose_protocol,
    closed_stream,
    decode,
    encode,
    exit_status,
    failure_status,
)
from flotilla.sim.podstreams.pods import container_of, find_pod
from flotilla.sim.spec import ExecRule, PodStreams

log = structlog.get_logger("flotilla.sim")

READ_CHUNK = 32 * 1024
"""Output bytes per message (kubelet's buffer size)."""


def _flag(request: web.Request, name: str) -> bool:
    return request.query.get(name, "").lower() in ("true", "1")


def offered_subprotocols(request: web.Request) -> list[str]:
    value = request.headers.get("Sec-WebSocket-Protocol", "")
    return [token.strip() for token in value.split(",") if token.strip()]


class ExecServer:
    """Serves the exec subresource of one simulated cluster's pods."""

    def __init__(self, client: LocalClient, streams: PodStreams) -> None:
        self._client = client
        self._streams = streams

    async def serve(self, request: web.Request, namespace: str, name: str) -> web.StreamResponse:
        pod = find_pod(self._client, namespace, name)
        container = container_of(pod, request.query.get("container", ""))
        phase = (pod.get("status") or {}).get("phase", "")
        if phase in ("Succeeded", "Failed"):
            raise errors.BadRequest(
                f"cannot exec into a container in a completed pod; current phase is {phase}"
            )
        command = request.query.getall("command", [])
        if not command:
            raise errors.BadRequest("you must specify at least one command for the container")
        stdin, stdout, stderr = _flag(request, "stdin"), _flag(request, "stdout"), _flag(request, "stderr")
        if not (stdin or stdout or stderr):
            raise errors.BadRequest("you must specify at least 1 of stdin, stdout, stderr")
        rule = self._streams.exec_rule(namespace, name, container)
        if rule is None:
            raise errors.BadRequest(
                f"the simulated cluster runs no command in container {container} of pod {namespace}/{name}: "
                "no `execs` rule of the sim's configuration selects it"
            )
        served = ", ".join(SERVED_PROTOCOLS)
        if request.headers.get("Upgrade", "").lower() != "websocket":
            raise errors.BadRequest(
                f"exec is served over WebSocket only ({served}, as kubectl 1.30 and later speak it); "
                "SPDY/3.1 and plain requests are not: use a newer kubectl"
            )
        protocol = choose_protocol(offered_subprotocols(request))
        if protocol is None:
            raise errors.BadRequest(
                f"exec speaks the WebSocket subprotocols {served}; the client offered none"
            )
        socket = web.WebSocketResponse(protocols=(protocol,), max_msg_size=4 * READ_CHUNK)
        await socket.prepare(request)
        log.info("sim.exec", namespace=namespace, pod=name, container=container, command=command)
        await _run(socket, protocol, command, rule, stdin=stdin, stdout=stdout, stderr=stderr)
        return socket


async def _run(
    socket: web.WebSocketResponse,
    protocol: str,
    command: list[str],
    rule: ExecRule,
    *,
    stdin: bool,
    stdout: bool,
    stderr: bool,
) -> None:
    pipe, devnull = asyncio.subprocess.PIPE, asyncio.subprocess.DEVNULL
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=pipe if stdin else devnull,
            stdout=pipe if stdout else devnull,
            stderr=pipe if stderr else devnull,
            cwd=rule.work_dir or None,
            env={**os.environ, **dict(rule.envs)},
            start_new_session=True,  # its own process group: killing it kills what it started
        )
    except OSError as exc:
        await socket.send_bytes(failure_status(f'exec: "{command[0]}": {exc.strerror or exc}'))
        await socket.close()
        return
    readers = [
        _pump(socket, stream, channel)
        for stream, channel in ((process.stdout, Channel.STDOUT), (process.stderr, Channel.STDERR))
        if stream is not None
    ]
    finished = asyncio.ensure_future(_finish(process, readers))
    receiver = asyncio.ensure_future(_receive(socket, process, protocol))
    try:
        async with asyncio.timeout(rule.timeout_seconds):
            await asyncio.wait((finished, receiver), return_when=asyncio.FIRST_COMPLETED)
        if finished.done():
            await socket.send_bytes(exit_status(command, finished.result()))
    except TimeoutError:
        message = f"the command was stopped after {rule.timeout_seconds:g}s (the sim's exec timeout)"
        with contextlib.suppress(ConnectionError, RuntimeError):
            await socket.send_bytes(failure_status(message))
    except (ConnectionError, RuntimeError):
        pass  # the client went away while the status was sent
    finally:
        _kill(process)
        for task in (finished, receiver):
            task.cancel()
        await asyncio.gather(finished, receiver, return_exceptions=True)
        await process.wait()
        await socket.close()


async def _pump(socket: web.WebSocketResponse, stream: asyncio.StreamReader, channel: Channel) -> None:
    while chunk := await stream.read(READ_CHUNK):
        with contextlib.suppress(ConnectionError, RuntimeError):
            await socket.send_bytes(encode(channel, chunk))


async def _finish(process: asyncio.subprocess.Process, readers: list[Coroutine[Any, Any, None]]) -> int:
    """The exit code, once the command has ended and all its output is sent."""
    await asyncio.gather(*readers)
    return await process.wait()


async def _receive(socket: web.WebSocketResponse, process: asyncio.subprocess.Process, protocol: str) -> None:
    """Feed the client's stdin to the command until the client closes the WebSocket."""
    async for message in socket:
        if message.type != WSMsgType.BINARY:
            continue
        try:
            found = decode(message.data)
            if found.channel == Channel.STDIN and process.stdin is not None:
                process.stdin.write(found.data)
                with contextlib.suppress(ConnectionError):
                    await process.stdin.drain()
            elif (
                found.channel == Channel.CLOSE
                and protocol == V5
                and closed_stream(found) == Channel.STDIN
                and process.stdin is not None
            ):
                process.stdin.close()
        except ProtocolError as exc:
            log.info("sim.exec_bad_message", error=str(exc))


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the command's process group: the command, and what it started and left running."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
