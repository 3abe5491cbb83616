"""Which upgrade a proxied request asks for, and what of its handshake goes on to the member."""

from __future__ import annotations

from flotilla.apiserver.clusterproxy.headers import upgrade_request_headers
from flotilla.apiserver.clusterproxy.upgrades import (
    offered_subprotocols,
    spdy_request_headers,
    upgrade_protocol,
)
from flotilla.apiserver.users import UserInfo

KUBECTL_EXEC = [
    ("Connection", "Upgrade"),
    ("Upgrade", "websocket"),
    ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ("Sec-WebSocket-Version", "13"),
    ("Sec-WebSocket-Protocol", "v5.channel.k8s.io, v4.channel.k8s.io"),
    ("Sec-WebSocket-Protocol", "channel.k8s.io"),
    ("Authorization", "Bearer hub-token"),
    ("User-Agent", "kubectl/v1.32.4"),
]


def test_the_upgrade_and_the_offered_subprotocols_are_read_in_order() -> None:
    assert upgrade_protocol(KUBECTL_EXEC) == "websocket"
    assert upgrade_protocol([("Upgrade", "SPDY/3.1")]) == "spdy/3.1"
    assert upgrade_protocol([("Accept", "*/*")]) == ""
    assert offered_subprotocols(KUBECTL_EXEC) == ["v5.channel.k8s.io", "v4.channel.k8s.io", "channel.k8s.io"]


def test_the_member_gets_the_hub_users_identity_and_none_of_the_clients_handshake() -> None:
    user = UserInfo(username="alice", groups=("dev", "system:authenticated"))
    sent = upgrade_request_headers(KUBECTL_EXEC, user)
    names = {name.lower() for name, _ in sent}
    assert not {n for n in names if n.startswith("sec-websocket-")}
    assert not names & {"connection", "upgrade", "authorization"}
    assert ("Impersonate-User", "alice") in sent
    assert ("Impersonate-Group", "dev") in sent
    assert ("User-Agent", "kubectl/v1.32.4") in sent


def test_an_spdy_upgrade_keeps_its_handshake_for_the_member_to_answer() -> None:
    sent = spdy_request_headers([("X-Stream-Protocol-Version", "v4.channel.k8s.io")], "SPDY/3.1")
    assert ("Upgrade", "SPDY/3.1") in sent
    assert ("Connection", "Upgrade") in sent
