"""Hardening limits: in-flight slots, the masters exemption, deadlines and Go durations."""

from __future__ import annotations

import asyncio

import pytest

from flotilla.apiserver import errors
from flotilla.apiserver.admission.attributes import UserInfo
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.limits import LimitSettings, RequestLimits, is_long_running

ALICE = UserInfo("alice", ("system:authenticated",))
ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))


def attributes(verb: str, user: UserInfo = ALICE, subresource: str = "") -> AuthorizationAttributes:
    return AuthorizationAttributes(user, verb, True, "", "v1", "pods", subresource, "default")


def test_requests_beyond_the_limit_of_their_kind_get_429_with_retry_after() -> None:
    """With one read slot taken a second read is refused; a write still has its own slot."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=1, max_mutating_requests_inflight=1))
    with limits.admit(attributes("get")):
        with pytest.raises(errors.TooManyRequests) as refused, limits.admit(attributes("list")):
            pass
        assert refused.value.retry_after == 1
        assert refused.value.status()["details"] == {"retryAfterSeconds": 1}
        with limits.admit(attributes("create")):
            assert limits.mutating_inflight == 1
    assert limits.read_only_inflight == 0
    with limits.admit(attributes("get")):
        pass


def test_watches_and_masters_are_never_refused() -> None:
    """Long-running requests take no slot, and system:masters passes a full limit."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=1))
    with limits.admit(attributes("get")):
        with limits.admit(attributes("watch")), limits.admit(attributes("get", subresource="log")):
            assert limits.read_only_inflight == 1
        with limits.admit(attributes("get", ADMIN)):
            pass


def test_zero_means_unlimited() -> None:
    """A limit of 0 never refuses."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=0))
    with limits.admit(attributes("get")), limits.admit(attributes("get")):
        pass


@pytest.mark.parametrize(
    ("verb", "subresource", "expected"),
    [
        ("watch", "", True),
        ("get", "exec", True),
        ("get", "log", True),
        ("get", "", False),
        ("create", "", False),
    ],
)
def test_long_running_requests_are_watches_proxies_and_streams(
    verb: str, subresource: str, expected: bool
) -> None:
    """kube's long-running check."""
    assert is_long_running(verb, subresource) is expected


def test_the_deadline_is_the_shorter_of_the_server_and_url_timeouts() -> None:
    """?timeout= shortens the server's deadline but never lengthens it; watches have none."""
    limits = RequestLimits(LimitSettings(request_timeout=60))
    assert limits.timeout_for(attributes("get"), None) == 60
    assert limits.timeout_for(attributes("get"), "32s") == 32
    assert limits.timeout_for(attributes("get"), "2h") == 60
    assert limits.timeout_for(attributes("get"), "0s") == 60
    assert limits.timeout_for(attributes("watch"), "5s") is None
    with pytest.raises(
        errors.BadRequest,
        match='invalid timeout specified in the request URL - time: invalid duration "soon"',
    ):
        limits.timeout_for(attributes("get"), "soon")


async def test_a_request_past_its_deadline_is_a_504() -> None:
    """The body is cancelled at the deadline and the request becomes 504 Timeout."""
    limits = RequestLimits(LimitSettings())
    with pytest.raises(
        errors.ServerTimeout, match="Timeout: request did not complete within the allotted timeout"
    ):
        async with limits.deadline(0.01):
            await asyncio.sleep(5)


async def test_timeouts_raised_by_the_body_itself_are_not_turned_into_504() -> None:
    """A TimeoutError of the handler's own making passes through unchanged."""
    limits = RequestLimits(LimitSettings())
    with pytest.raises(TimeoutError):
        async with limits.deadline(5):
            raise TimeoutError
