"""What a proxied request and its answer keep of their headers, and whom the member is asked to act as."""

from __future__ import annotations

from flotilla.apiserver.clusterproxy.headers import request_headers, response_headers
from flotilla.apiserver.users import UserInfo

ALICE = UserInfo("alice", ("devs", "system:authenticated"))


def test_the_hub_user_is_impersonated_without_the_groups_every_member_adds() -> None:
    sent = request_headers([("Accept", "application/json")], ALICE)
    assert sent == [
        ("Accept", "application/json"),
        ("Impersonate-User", "alice"),
        ("Impersonate-Group", "devs"),
    ]


def test_the_clients_credential_and_its_own_impersonation_never_reach_the_member() -> None:
    incoming = [
        ("Authorization", "Bearer hub-token"),
        ("Impersonate-User", "admin"),
        ("Impersonate-Group", "system:masters"),
        ("Impersonate-Extra-scopes", "all"),
        ("Host", "hub:6443"),
        ("Content-Type", "application/json"),
    ]
    sent = request_headers(incoming, ALICE)
    assert ("Content-Type", "application/json") in sent
    assert [value for name, value in sent if name == "Impersonate-User"] == ["alice"]
    assert not any(name.lower() in ("authorization", "host", "impersonate-extra-scopes") for name, _ in sent)
    assert ("Impersonate-Group", "system:masters") not in sent


def test_hop_by_hop_headers_and_those_named_in_connection_are_dropped() -> None:
    incoming = [("Connection", "keep-alive, X-Trace"), ("X-Trace", "1"), ("Transfer-Encoding", "chunked")]
    assert response_headers([*incoming, ("Content-Type", "text/plain")]) == [("Content-Type", "text/plain")]
    assert [name for name, _ in request_headers(incoming, ALICE)] == ["Impersonate-User", "Impersonate-Group"]
