"""Hardening: bounded concurrency, request deadlines and header sizes, as kube-apiserver bounds them.

- **In-flight limits** (`--max-requests-inflight` 400, `--max-mutating-requests-inflight` 200): a
  request beyond the limit of its kind (read-only: get/list/watch; mutating: the rest) is refused at
  once with 429 TooManyRequests, `Retry-After: 1` and `details.retryAfterSeconds: 1`; client-go
  retries it. Long-running requests (watches, logs, exec/attach/port-forward/proxy) are not counted,
  and, as in kube, `system:masters` is never refused — it is the cluster's own super-user, and the
  hub's controllers and simulated clusters act as it.
- **Deadlines** (`--request-timeout` 60 s, shortened by a request's `?timeout=` in Go duration syntax,
  as kubectl sends `timeout=32s`): a request still running at its deadline is cancelled and answered
  504 Timeout. Long-running requests have none; watches end on their own `timeoutSeconds`.
- **Header sizes**: aiohttp's parser limits on the request line, each header field and the number
  of headers (given to the `AppRunner`). An oversized request gets aiohttp's plain-text
  400 and the connection is closed, where Go's server answers a plain-text 431; neither is a Status.
Bodies are capped at 3 MiB elsewhere (`content.MAX_BODY_BYTES`, 413).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from types import TracebackType

from aiohttp import web

from flotilla.api.duration import parse_go_duration
from flotilla.apiserver import errors
from flotilla.apiserver.authz import MASTERS_GROUP, AuthorizationAttributes

READ_ONLY_VERBS = frozenset({"get", "list", "watch"})
LONG_RUNNING_VERBS = frozenset({"watch", "proxy"})
LONG_RUNNING_SUBRESOURCES = frozenset({"attach", "exec", "proxy", "log", "portforward"})
RETRY_AFTER_SECONDS = 1
TOO_MANY_REQUESTS = "Too many requests, please try again later."
TIMED_OUT = "Timeout: request did not complete within the allotted timeout"
INVALID_TIMEOUT = "invalid timeout specified in the request URL"


@dataclass(frozen=True, slots=True)
class LimitSettings:
    max_requests_inflight: int = 400
    """Read-only requests served at once; 0 means no limit."""
    max_mutating_requests_inflight: int = 200
    """Mutating requests served at once; 0 means no limit."""
    request_timeout: float = 60.0
    """Seconds a non-long-running request may take before 504; 0 means no deadline."""
    max_request_line_bytes: int = 64 * 1024
    """Longest request line (method, URL with its query, version): long label selectors fit."""
    max_header_field_bytes: int = 64 * 1024
    """Longest single header (large bearer tokens fit)."""
    max_headers: int = 128
    """Most header fields in one request."""


def is_long_running(verb: str, subresource: str) -> bool:
    """kube's long-running check: watches and proxies, and the streaming subresources."""
    return verb in LONG_RUNNING_VERBS or subresource in LONG_RUNNING_SUBRESOURCES


class RequestLimits:
    """One API server's in-flight counters and deadline policy (the event loop is its only user)."""

    def __init__(self, settings: LimitSettings) -> None:
        self.settings = settings
        self.read_only_inflight = 0
        self.mutating_inflight = 0

    def admit(self, attributes: AuthorizationAttributes) -> _Slot:
        """Take an in-flight slot for the request (held until the returned context exits), or
        refuse it with 429 at once."""
        if is_long_running(attributes.verb, attributes.subresource):
            return _Slot(self, None)
        mutating = attributes.verb not in READ_ONLY_VERBS
        limit = (
            self.settings.max_mutating_requests_inflight if mutating else self.settings.max_requests_inflight
        )
        current = self.mutating_inflight if mutating else self.read_only_inflight
        if limit and current >= limit:
            if MASTERS_GROUP in attributes.user.groups:
                return _Slot(self, None)
            raise errors.TooManyRequests(TOO_MANY_REQUESTS, retry_after=RETRY_AFTER_SECONDS)
        self._count(mutating, 1)
        return _Slot(self, mutating)

    def _count(self, mutating: bool, delta: int) -> None:
        if mutating:
            self.mutating_inflight += delta
        else:
            self.read_only_inflight += delta

    def timeout_for(self, attributes: AuthorizationAttributes, timeout_param: str | None) -> float | None:
        """The request's deadline in seconds (None: none), from the server's and the URL's timeouts."""
        if is_long_running(attributes.verb, attributes.subresource):
            return None
        timeout = self.settings.request_timeout or None
        if timeout_param:
            try:
                asked = parse_go_duration(timeout_param)
            except ValueError as exc:
                raise errors.BadRequest(f"{INVALID_TIMEOUT} - {exc}") from exc
            if asked > 0 and (timeout is None or asked < timeout):
                timeout = asked
        return timeout

    def deadline(self, seconds: float | None) -> _Deadline:
        """Run the body under the deadline; past it, the body is cancelled and the request is 504."""
        return _Deadline(seconds)


# Plain classes rather than generator-based context managers: every request enters both.
class _Slot:
    """An in-flight slot, given back on exit (`mutating` None: the request took none)."""

    __slots__ = ("_limits", "_mutating")

    def __init__(self, limits: RequestLimits, mutating: bool | None) -> None:
        self._limits = limits
        self._mutating = mutating

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        if self._mutating is not None:
            self._limits._count(self._mutating, -1)


class _Deadline:
    """`asyncio.timeout` whose expiry becomes kube's 504 (no deadline when `seconds` is None)."""

    __slots__ = ("_scope",)

    def __init__(self, seconds: float | None) -> None:
        self._scope = asyncio.timeout(seconds) if seconds is not None else None

    async def __aenter__(self) -> None:
        if self._scope is not None:
            await self._scope.__aenter__()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        scope = self._scope
        if scope is None:
            return
        try:
            await scope.__aexit__(kind, error, trace)
        except TimeoutError as exc:
            if scope.expired():
                raise errors.ServerTimeout(TIMED_OUT) from exc
            raise


LIMITS: web.AppKey[RequestLimits] = web.AppKey("flotilla.apiserver.limits", RequestLimits)
