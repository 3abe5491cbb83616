"""Which headers a proxied request and its answer keep, and the identity the member is asked to act as.

Pure functions: the direct path (`direct.py`) and the tunnel (`tunnels.py`) use the same rules.
"""

from __future__ import annotations

from collections.abc import Iterable

from flotilla.apiserver.users import UserInfo

Headers = list[tuple[str, str]]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""RFC 9110 §7.6.1: headers that belong to one connection, never forwarded."""

RELAYED_HEADER = "X-Flotilla-Tunnel-Relay"
"""Set by an API server relaying a request to the peer holding a Pull cluster's tunnel (`relay.py`)."""

_REQUEST_DROPPED = HOP_BY_HOP | {"host", "authorization", "content-length", RELAYED_HEADER.lower()}
"""Also dropped from a request: the hub's own host and the client's hub credential (the member gets
the Cluster's credential instead), the peers' relay marker; the length is the forwarder's to set."""

_RESPONSE_DROPPED = HOP_BY_HOP | {"content-length"}

SKIPPED_GROUPS = frozenset({"system:authenticated", "system:unauthenticated"})
"""Groups every member adds by itself, which Karmada's proxy does not impersonate."""


def _named_in_connection(headers: Iterable[tuple[str, str]]) -> set[str]:
    named: set[str] = set()
    for name, value in headers:
        if name.lower() == "connection":
            named |= {token.strip().lower() for token in value.split(",") if token.strip()}
    return named


def request_headers(incoming: Iterable[tuple[str, str]], user: UserInfo) -> Headers:
    """The headers to send the member: the client's, less hop-by-hop, credentials and impersonation,
    plus `Impersonate-User` and one `Impersonate-Group` per group of the hub user (Karmada's rule)."""
    pairs = list(incoming)
    dropped = _REQUEST_DROPPED | _named_in_connection(pairs)
    kept = [
        (name, value)
        for name, value in pairs
        if name.lower() not in dropped and not name.lower().startswith("impersonate-")
    ]
    kept.append(("Impersonate-User", user.username))
    kept.extend(("Impersonate-Group", group) for group in user.groups if group not in SKIPPED_GROUPS)
    return kept


def upgrade_request_headers(incoming: Iterable[tuple[str, str]], user: UserInfo) -> Headers:
    """`request_headers` of a WebSocket upgrade, less the client's handshake (`Sec-WebSocket-*`): the
    hub makes its own handshake with the member, offering the client's subprotocols."""
    return [
        (name, value)
        for name, value in request_headers(incoming, user)
        if not name.lower().startswith("sec-websocket-")
    ]


def response_headers(incoming: Iterable[tuple[str, str]]) -> Headers:
    """The member's answer headers to pass back to the client (hop-by-hop and length left out)."""
    pairs = list(incoming)
    dropped = _RESPONSE_DROPPED | _named_in_connection(pairs)
    return [(name, value) for name, value in pairs if name.lower() not in dropped]
