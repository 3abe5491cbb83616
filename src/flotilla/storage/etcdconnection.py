"""The gRPC channels to an etcd cluster: endpoints, TLS, failover and error translation.

etcd is reached over gRPC with the protocol stubs `aetcd` ships (its high-level client speaks to
one plaintext host only, so the backend drives the stubs itself). One channel is open at a time, to
the endpoint in use; when a call finds that endpoint unavailable the connection moves to the next
endpoint in the list, so a cluster of several members keeps serving while one is down. A read is
retried on the next endpoint; a write is not (it may have committed before the connection broke),
its caller gets a StorageError and the next write goes to the next endpoint.

Every gRPC failure becomes a StorageError carrying what failed and where, and every call has a
deadline, so a lost etcd never hangs a request: the API server answers it with a Status error.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import grpc
import structlog
from aetcd import rpc

from flotilla.storage.backend import StorageError

log = structlog.get_logger("flotilla.storage.etcd")

T = TypeVar("T")

# Codes that say the endpoint, not the request, is the problem: try the next member.
_UNREACHABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


@dataclass(frozen=True, slots=True)
class EtcdSettings:
    """Where etcd is and how to reach it."""

    endpoints: tuple[str, ...]
    """Client URLs (`https://host:2379` or `http://host:2379`), tried in order."""
    prefix: str = "/registry"
    """Where the store's `/registry` tree lives in etcd (see etcd.py's key layout)."""
    cafile: Path | None = None
    certfile: Path | None = None
    keyfile: Path | None = None
    request_timeout: float = 10.0
    """Seconds a single read or write may take before it fails with a StorageError."""

    def __post_init__(self) -> None:
        parse_endpoints(self.endpoints)  # a ValueError saying which URL is wrong


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One etcd member's client address."""

    target: str  # host:port, as gRPC wants it
    secure: bool


def parse_endpoints(urls: str | tuple[str, ...]) -> tuple[Endpoint, ...]:
    """`https://a:2379,https://b:2379` → endpoints; a bare `host:port` is plaintext."""
    items = urls.split(",") if isinstance(urls, str) else list(urls)
    endpoints: list[Endpoint] = []
    for raw in (item.strip() for item in items):
        if not raw:
            continue
        parts = urlsplit(raw if "://" in raw else f"http://{raw}")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"etcd endpoint {raw!r} is not an http(s)://host:port URL")
        port = parts.port or 2379
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        endpoints.append(Endpoint(f"{host}:{port}", parts.scheme == "https"))
    if not endpoints:
        raise ValueError("no etcd endpoint given")
    return tuple(endpoints)


def _credentials(settings: EtcdSettings) -> grpc.ChannelCredentials:
    def read(path: Path | None) -> bytes | None:
        return path.read_bytes() if path is not None else None

    return grpc.ssl_channel_credentials(
        root_certificates=read(settings.cafile),
        private_key=read(settings.keyfile),
        certificate_chain=read(settings.certfile),
    )


async def _settle_grpc_tasks() -> None:
    """Wait for the tasks grpc.aio starts per streaming call to note its final status.

    They outlive a cancelled call by a few loop turns; a closed backend leaves nothing running.
    """
    pending = [
        task
        for task in asyncio.all_tasks()
        if not task.done()
        and getattr(task.get_coro(), "__qualname__", "").endswith("_handle_status_once_received")
    ]
    if pending:
        await asyncio.wait(pending, timeout=1.0)


class EtcdConnection:
    """The channel to the etcd member in use, and the stubs on it."""

    def __init__(self, settings: EtcdSettings) -> None:
        self.settings = settings
        self.endpoints = parse_endpoints(settings.endpoints)
        if any(e.secure for e in self.endpoints) and settings.cafile is None:
            # Without a CA gRPC would use the system roots; etcd's certificates are the cluster's own.
            log.warning("etcd.tls_without_cafile")
        self._index = 0
        self._channel: grpc.aio.Channel | None = None
        self.kv: rpc.KVStub | None = None
        self.watch: rpc.WatchStub | None = None
        self.maintenance: rpc.MaintenanceStub | None = None
        self._streams: set[Any] = set()

    @property
    def endpoint(self) -> Endpoint:
        return self.endpoints[self._index]

    def open(self) -> None:
        endpoint = self.endpoint
        options = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        if endpoint.secure:
            self._channel = grpc.aio.secure_channel(endpoint.target, _credentials(self.settings), options)
        else:
            self._channel = grpc.aio.insecure_channel(endpoint.target, options)
        self.kv = rpc.KVStub(self._channel)
        self.watch = rpc.WatchStub(self._channel)
        self.maintenance = rpc.MaintenanceStub(self._channel)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
        # A cancelled stream settles its status in a task of its own: wait for each to finish.
        for call in list(self._streams):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(call.code(), 1.0)
        self._streams.clear()
        await _settle_grpc_tasks()

    def stream(self) -> Any:
        """A new Watch stream on the current channel, tracked so `close` can wait for it to settle."""
        if self.watch is None:
            raise StorageError("the etcd connection is closed")
        call = self.watch.Watch()
        self._streams.add(call)
        call.add_done_callback(self._streams.discard)
        return call

    async def fail_over(self, failed: Endpoint) -> None:
        """Move to the next endpoint unless another caller already moved off `failed`."""
        if self.endpoint != failed or len(self.endpoints) == 1:
            return
        old = self._channel
        self._index = (self._index + 1) % len(self.endpoints)
        log.warning("etcd.failover", failed=failed.target, now=self.endpoint.target)
        self.open()
        if old is not None:
            await old.close(grace=1.0)

    async def call(self, what: str, fn: Callable[[], Awaitable[T]], *, retry: bool) -> T:
        """Run one unary call; on an unreachable member move on (and, if `retry`, try there)."""
        attempts = len(self.endpoints) if retry else 1
        for attempt in range(attempts):
            endpoint = self.endpoint
            try:
                return await fn()
            except grpc.aio.AioRpcError as exc:
                if exc.code() not in _UNREACHABLE:
                    raise
                await self.fail_over(endpoint)
                if attempt + 1 == attempts:
                    reason = f"{exc.code().name}: {exc.details()}"
                    raise StorageError(
                        f"etcd {what} failed: {endpoint.target} is unreachable ({reason})"
                    ) from exc
        raise AssertionError("unreachable")  # pragma: no cover
