"""Hardening: bounded concurrency, request deadlines and header sizes, as kube-apiserver bounds them.

- **In-flight limits** (`--max-requests-inflight` 400, `--max-mutating-requests-inflight` 200): a
  request beyond the limit of its kind (read-only: get/list/watch; mutating: the rest) is refused at
  once with 429 TooManyRequests, `Retry-After: 1` and `details.retryAfterSeconds: 1`; client-go
  retries it. Long-running requests (watches, logs, exec/attach/port-forward/proxy) are not counted,
  and, as kube's exempt priority level, `system:masters` is never refused nor counted — it is the
  cluster's own super-user, and the hub's controllers and simulated clusters act as it — nor are
  health probes (`/healthz`, `/readyz`, `/livez`).
- **Per-user fairness** (`--enable-priority-and-fairness`, on by default): inside each limit a user
  may hold only a fair share of the seats, so one client cannot starve the others; see
  `flowcontrol.py` for the arithmetic and why it was chosen.
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
from prometheus_client.metrics_core import Metric

from flotilla.api.duration import parse_go_duration
from flotilla.apiserver import errors
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.http.flowcontrol import (
    EXEMPT_LEVEL,
    EXEMPT_SCHEMAS,
    MUTATING_LEVEL,
    READ_ONLY_LEVEL,
    FlowControlMetrics,
    FlowSchema,
    PriorityLevel,
    flow_schema_of,
)

READ_ONLY_VERBS = frozenset({"get", "list", "watch"})
LONG_RUNNING_VERBS = frozenset({"watch", "proxy"})
LONG_RUNNING_SUBRESOURCES = frozenset(
    {"attach", "exec", "proxy", "log", "portforward", "tunnel", "api", "apis"}
)
"""`tunnel` is Flotilla's: the connection a Pull member's agent holds open for the cluster proxy. `api` and
`apis` are the search API's (`search/cache/api/v1/pods?watch=true`): kube reads every search request, a
watch too, as a `get` of `search/cache` with one of them, so its lists count as long-running as well."""
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
    priority_and_fairness: bool = True
    """Hold each user to a fair share of each limit (kube's --enable-priority-and-fairness)."""
    min_inflight_per_user: int = 1
    """Seats of each limit any user may hold however many users share it (the limit still applies)."""
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
    """One API server's in-flight seats, fairness and deadline policy (the event loop is its only user)."""

    def __init__(self, settings: LimitSettings) -> None:
        self.settings = settings
        fair = settings.priority_and_fairness
        minimum = max(1, settings.min_inflight_per_user)
        self.read_only = PriorityLevel(READ_ONLY_LEVEL, settings.max_requests_inflight, minimum, fair)
        self.mutating = PriorityLevel(MUTATING_LEVEL, settings.max_mutating_requests_inflight, minimum, fair)
        self.metrics = FlowControlMetrics()

    @property
    def read_only_inflight(self) -> int:
        return self.read_only.executing

    @property
    def mutating_inflight(self) -> int:
        return self.mutating.executing

    def admit(self, attributes: AuthorizationAttributes) -> _Slot:
        """Take an in-flight seat for the request (held until the returned context exits), or
        refuse it with 429 at once."""
        if is_long_running(attributes.verb, attributes.subresource):
            return _Slot(self, None, "", FlowSchema.EXEMPT)
        schema = flow_schema_of(attributes)
        if schema in EXEMPT_SCHEMAS:
            self.metrics.dispatched[EXEMPT_LEVEL, schema] += 1
            return _Slot(self, None, "", schema)
        level = self.read_only if attributes.verb in READ_ONLY_VERBS else self.mutating
        flow = attributes.user.username
        rejection = level.acquire(flow)
        if rejection is not None:
            self.metrics.rejected[level.name, schema, rejection] += 1
            raise errors.TooManyRequests(TOO_MANY_REQUESTS, retry_after=RETRY_AFTER_SECONDS)
        self.metrics.dispatched[level.name, schema] += 1
        self.metrics.executing[level.name, schema] += 1
        return _Slot(self, level, flow, schema)

    def metric_families(self) -> list[Metric]:
        """The flow-control metrics, for `/metrics`."""
        return self.metrics.families([self.read_only, self.mutating])

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
    """A seat of `level` held by `flow`, given back on exit (`level` None: the request took none)."""

    __slots__ = ("_flow", "_level", "_limits", "_schema")

    def __init__(
        self, limits: RequestLimits, level: PriorityLevel | None, flow: str, schema: FlowSchema
    ) -> None:
        self._limits = limits
        self._level = level
        self._flow = flow
        self._schema = schema

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        level = self._level
        if level is not None:
            level.release(self._flow)
            self._limits.metrics.executing[level.name, self._schema] -= 1


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


LIMITS: web.AppKey[RequestLimits] = web.AppKey("flotilla.apiserver.http.limits", RequestLimits)
