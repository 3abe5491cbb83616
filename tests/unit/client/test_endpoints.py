"""The pure rules of several API server endpoints: which URLs are accepted, how the rotation moves,
and which failed requests may be sent again."""

from __future__ import annotations

import ssl

import pytest

from flotilla.client import ClusterConfig
from flotilla.client.connections import ConnectFailed, ConnectionClosed
from flotilla.client.endpoints import (
    EndpointError,
    EndpointRotation,
    Failure,
    endpoint_list,
    failure_of,
    may_resend,
    parse_endpoints,
)
from flotilla.client.http1 import MalformedResponse
from flotilla.client.kubeconfig import KubeconfigError


def test_a_comma_separated_list_gives_each_url_once_trimmed() -> None:
    assert parse_endpoints(" https://a:6443/ , https://10.0.0.2:6443,, ") == (
        "https://a:6443",
        "https://10.0.0.2:6443",
    )
    assert parse_endpoints("") == ()


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("a:6443", "not an API server URL"),
        ("ftp://a:21", "not an API server URL"),
        ("https://:6443", "names no host"),
        ("https://a:99999", "not a valid URL"),
        ("https://a:port", "not a valid URL"),
        ("https://a:6443/?x=1", "no query"),
        ("https://user:pw@a:6443", "no query, fragment or user"),
    ],
)
def test_a_malformed_url_is_refused_with_its_reason(text: str, complaint: str) -> None:
    with pytest.raises(EndpointError, match=complaint):
        parse_endpoints(f"https://good:6443,{text}")


def test_the_kubeconfig_server_comes_first_and_duplicates_are_dropped() -> None:
    servers = endpoint_list("https://a:6443", ["https://b:6443", "https://a:6443/", "https://b:6443"])
    assert servers == ("https://a:6443", "https://b:6443")


def test_every_endpoint_shares_the_scheme_of_the_server() -> None:
    """One TLS setting serves them all, so plain http beside https is a mistake to report."""
    config = ClusterConfig(server="https://a:6443")
    with pytest.raises(KubeconfigError, match="scheme"):
        config.with_endpoints(["http://b:8080"])
    extended = config.with_endpoints(["https://b:6443"]).with_endpoints(["https://c:6443"])
    assert extended.servers == ("https://a:6443", "https://b:6443", "https://c:6443")


def test_the_rotation_moves_round_robin_once_per_failure_of_the_endpoint_in_use() -> None:
    rotation = EndpointRotation(["https://a", "https://b", "https://c"])
    assert rotation.failed(0) and rotation.current == "https://b"
    # Requests that were in flight on `a` report it too: the rotation does not skip `b`.
    assert not rotation.failed(0) and rotation.current == "https://b"
    assert rotation.failed(1) and rotation.failed(2)
    assert rotation.current == "https://a" and rotation.moves == 3


def test_a_single_endpoint_never_moves() -> None:
    rotation = EndpointRotation(["https://a"])
    assert not rotation.failed(0)
    assert rotation.index == 0 and rotation.moves == 0


def test_the_failure_kind_follows_what_the_connection_pool_raised() -> None:
    assert failure_of(ConnectFailed("a", 1, ConnectionRefusedError())) is Failure.NOT_SENT
    assert failure_of(ConnectFailed("a", 1, ssl.SSLError())) is Failure.NOT_SENT
    assert failure_of(ConnectFailed("a", 1, TimeoutError())) is Failure.NOT_SENT
    assert failure_of(ConnectionClosed(response_started=False)) is Failure.BROKEN
    assert failure_of(ConnectionResetError()) is Failure.BROKEN
    assert failure_of(TimeoutError()) is Failure.TIMED_OUT
    assert failure_of(MalformedResponse("bad status line")) is None


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "POST", "PATCH"])
def test_a_request_never_sent_may_be_sent_to_the_next_endpoint(method: str) -> None:
    assert may_resend(method, Failure.NOT_SENT)


@pytest.mark.parametrize("failure", [Failure.BROKEN, Failure.UNAVAILABLE])
def test_only_idempotent_methods_are_resent_once_the_request_went_out(failure: Failure) -> None:
    """A POST or PATCH may have committed before the connection broke: sending it again could act twice."""
    assert may_resend("GET", failure) and may_resend("PUT", failure) and may_resend("DELETE", failure)
    assert not may_resend("POST", failure) and not may_resend("PATCH", failure)


def test_a_timed_out_request_is_not_resent() -> None:
    """The caller's time is spent; the next request goes to the next endpoint."""
    assert not may_resend("GET", Failure.TIMED_OUT)
