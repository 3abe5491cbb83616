"""Several API server endpoints of one cluster: which one a client uses, and when it moves on.

A highly available hub runs several API server processes on one etcd; any of them serves every
request. A client knows them as a list (the kubeconfig's `server` first, then `--hub-endpoints`),
sends to one at a time, and moves to the next when that one fails as an endpoint: it cannot be
connected to (refused, reset, TLS handshake, timeout), the connection broke or timed out before the
answer ended, or it answered 503 Service Unavailable. A request is sent again on the next endpoint
only when that cannot act twice: nothing was sent (the connection never opened), or its method is
idempotent (RFC 9110: GET, HEAD, OPTIONS, TRACE, PUT, DELETE). A POST or PATCH whose connection
broke after it went out may have committed, so the caller gets the error; its next request goes to
the next endpoint. A request that timed out is not sent again either: the caller's time is spent.

This module is the pure part (parsing, the rotation, the decisions); `transport.py` applies it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from flotilla.client.connections import IDEMPOTENT_METHODS, ConnectFailed


class EndpointError(ValueError):
    """An endpoint is not a usable API server URL; the message says which and why."""


def parse_endpoint(text: str) -> str:
    """One API server URL (`https://host:port[/path]`), without a trailing slash."""
    url = text.strip()
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError as exc:
        raise EndpointError(f"{text!r} is not a valid URL: {exc}") from exc
    if parts.scheme not in ("https", "http"):
        raise EndpointError(f"{text!r} is not an API server URL: expected https://host:port")
    if not parts.hostname:
        raise EndpointError(f"{text!r} names no host: expected https://host:port")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise EndpointError(f"{text!r}: an API server URL carries no query, fragment or user")
    return url.rstrip("/")


def parse_endpoints(text: str) -> tuple[str, ...]:
    """A comma-separated list of API server URLs (empty items are ignored)."""
    return tuple(parse_endpoint(item) for item in text.split(",") if item.strip())


def endpoint_list(server: str, extra: Iterable[str]) -> tuple[str, ...]:
    """`server` followed by the `extra` endpoints, each once; all of one scheme, since one TLS
    setting (CA, client certificate) serves them all."""
    scheme = urlsplit(server).scheme
    servers = [server.rstrip("/")]
    for endpoint in extra:
        url = parse_endpoint(endpoint)
        if urlsplit(url).scheme != scheme:
            raise EndpointError(f"{url}: every endpoint must use the scheme of {server} ({scheme})")
        if url not in servers:
            servers.append(url)
    return tuple(servers)


class Failure(enum.Enum):
    """How a request failed at its endpoint."""

    NOT_SENT = "not sent"
    """No connection opened: the server never saw the request."""
    BROKEN = "broken"
    """The connection ended after the request went out, before the whole answer came back."""
    TIMED_OUT = "timed out"
    """No (whole) answer in time."""
    UNAVAILABLE = "unavailable"
    """The server answered 503: it cannot serve now (not ready, its storage unreachable)."""


def failure_of(error: BaseException) -> Failure | None:
    """The endpoint failure an exception of the connection pool means; None when the endpoint is not
    to blame (a malformed answer is a bug to report, not a reason to move)."""
    if isinstance(error, ConnectFailed):
        return Failure.NOT_SENT
    if isinstance(error, TimeoutError):
        return Failure.TIMED_OUT
    if isinstance(error, OSError):  # ConnectionClosed, a reset, a TLS error mid-exchange
        return Failure.BROKEN
    return None


def may_resend(method: str, failure: Failure) -> bool:
    """Whether a request that failed this way can be sent again (to another endpoint) without the
    risk of acting twice."""
    if failure is Failure.NOT_SENT:
        return True
    if failure is Failure.TIMED_OUT:
        return False
    return method in IDEMPOTENT_METHODS


class EndpointRotation:
    """The endpoint in use among several, moving on (round robin) when it fails.

    Requests in flight when an endpoint dies all fail at once; each reports the index it used, and
    only the first report moves on, so the rest do not skip the next (healthy) endpoint.
    """

    def __init__(self, servers: Sequence[str]) -> None:
        if not servers:
            raise EndpointError("no API server endpoint")
        self.servers = tuple(servers)
        self.index = 0
        self.moves = 0
        """How many times the rotation moved on (for logs and tests)."""

    @property
    def current(self) -> str:
        return self.servers[self.index]

    def failed(self, index: int) -> bool:
        """Endpoint `index` failed a request: move to the next unless another report already did.
        Whether this report moved it."""
        if index != self.index or len(self.servers) == 1:
            return False
        self.index = (index + 1) % len(self.servers)
        self.moves += 1
        return True
