"""Hardening limits: in-flight seats, per-user fair shares, the masters exemption, deadlines and Go
durations."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from flotilla.apiserver import errors
from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.http.flowcontrol import (
    FlowSchema,
    PriorityLevel,
    Rejection,
    fair_share,
    flow_schema_of,
)
from flotilla.apiserver.http.limits import LimitSettings, RequestLimits, is_long_running
from flotilla.apiserver.users import UserInfo
from flotilla.runtime.health import FamiliesCollector, component_registry

ALICE = UserInfo("alice", ("system:authenticated",))
BOB = UserInfo("bob", ("system:authenticated",))
CAROL = UserInfo("carol", ("system:authenticated",))
ADMIN = UserInfo("admin", ("system:masters", "system:authenticated"))
ROBOT = UserInfo(
    "system:serviceaccount:apps:robot",
    ("system:serviceaccounts", "system:serviceaccounts:apps", "system:authenticated"),
)
AGENT = UserInfo("system:karmada:agent:edge", ("system:karmada:agents", "system:authenticated"))


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
    """Long-running requests take no slot, and system:masters passes a full limit without taking one."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=1))
    with limits.admit(attributes("get")):
        with limits.admit(attributes("watch")), limits.admit(attributes("get", subresource="log")):
            assert limits.read_only_inflight == 1
        with limits.admit(attributes("get", ADMIN)):
            assert limits.read_only_inflight == 1


def test_zero_means_unlimited() -> None:
    """A limit of 0 never refuses."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=0))
    with limits.admit(attributes("get")), limits.admit(attributes("get")):
        pass


@pytest.mark.parametrize(
    ("limit", "flows", "minimum", "share"),
    [
        (400, 1, 1, 200),  # alone: half, the other half kept for whoever comes
        (400, 2, 1, 133),
        (400, 3, 1, 100),
        (400, 399, 1, 1),
        (400, 1000, 1, 1),  # more users than seats: the minimum (the limit still caps the total)
        (400, 1000, 4, 4),
        (1, 1, 1, 1),
        (8, 1, 1, 4),
    ],
)
def test_the_fair_share_keeps_room_for_one_more_user(
    limit: int, flows: int, minimum: int, share: int
) -> None:
    """max(minimum, limit // (flows + 1))."""
    assert fair_share(limit, flows, minimum) == share


def fill(limits: RequestLimits, user: UserInfo, verb: str = "get") -> tuple[int, ExitStack]:
    """Admit `user`'s requests until one is refused; how many got in, and their seats (held until
    the stack is closed)."""
    seats = ExitStack()
    taken = 0
    while True:
        try:
            seats.enter_context(limits.admit(attributes(verb, user)))
        except errors.TooManyRequests:
            return taken, seats
        taken += 1


def test_a_lone_flooder_leaves_room_and_a_second_user_gets_in_at_once() -> None:
    """Alice alone gets half the seats; Bob, arriving while she floods, is admitted at once."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=8))
    taken, alices = fill(limits, ALICE)
    assert taken == 4
    with limits.admit(attributes("get", BOB)), limits.admit(attributes("get", BOB)):
        # Two flows now: each may hold 8 // 3 = 2; Alice (4) gets nothing more.
        with pytest.raises(errors.TooManyRequests):
            limits.admit(attributes("get", ALICE))
        with pytest.raises(errors.TooManyRequests):
            limits.admit(attributes("get", BOB))
    alices.close()
    assert limits.read_only_inflight == 0
    assert limits.read_only.held == {}


def test_the_share_of_each_user_shrinks_as_users_arrive_and_grows_as_they_leave() -> None:
    """Three flooders end up with what they held when each arrived, never the whole level."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=12))
    alice_count, alices = fill(limits, ALICE)
    bob_count, bobs = fill(limits, BOB)
    carol_count, carols = fill(limits, CAROL)
    assert (alice_count, bob_count, carol_count) == (6, 4, 2)  # 12//2, 12//3, then 12 - 10 left
    assert limits.read_only_inflight == 12
    alices.close()
    bobs.close()
    more, carols_again = fill(limits, CAROL)
    assert more == 4  # alone again: 12 // 2 = 6, two already held
    carols.close()
    carols_again.close()


def test_a_full_level_refuses_even_a_user_under_its_share() -> None:
    """With more users than seats the minimum share still meets the level's limit."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=2))
    with (
        limits.admit(attributes("get", ALICE)),
        limits.admit(attributes("get", BOB)),
        pytest.raises(errors.TooManyRequests),
    ):
        limits.admit(attributes("get", CAROL))
    counted = limits.metrics.rejected
    assert counted[("readOnly", FlowSchema.GLOBAL_DEFAULT, Rejection.CONCURRENCY_LIMIT)] == 1


def test_without_fairness_one_user_may_take_the_whole_limit() -> None:
    """--enable-priority-and-fairness=false keeps only the two global limits."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=8, priority_and_fairness=False))
    taken, seats = fill(limits, ALICE)
    assert taken == 8
    seats.close()


def test_reads_and_writes_have_separate_shares() -> None:
    """A user holding its share of reads can still write, and the other way round."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=4, max_mutating_requests_inflight=4))
    taken, reads = fill(limits, ALICE, "list")
    written, writes = fill(limits, ALICE, "create")
    assert (taken, written) == (2, 2)
    reads.close()
    writes.close()


def test_each_service_account_and_agent_is_a_flow_of_its_own() -> None:
    """Flows are user names; schemas come from the groups, as kube's FlowSchemas match them."""
    assert flow_schema_of(attributes("get", ROBOT)) is FlowSchema.SERVICE_ACCOUNTS
    assert flow_schema_of(attributes("get", AGENT)) is FlowSchema.KARMADA_AGENTS
    assert flow_schema_of(attributes("get", ALICE)) is FlowSchema.GLOBAL_DEFAULT
    assert flow_schema_of(attributes("get", ADMIN)) is FlowSchema.EXEMPT
    other_robot = UserInfo("system:serviceaccount:apps:other", ROBOT.groups)
    limits = RequestLimits(LimitSettings(max_mutating_requests_inflight=4))
    taken, seats = fill(limits, ROBOT, "update")
    assert taken == 2
    with limits.admit(attributes("update", other_robot)):
        pass
    seats.close()


def path_request(path: str, user: UserInfo = ALICE) -> AuthorizationAttributes:
    return AuthorizationAttributes(user, "get", False, path=path)


def test_health_probes_are_exempt_from_any_user() -> None:
    """/healthz, /readyz, /livez (and their checks) pass a full level uncounted; /metrics does not."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=1))
    anonymous = UserInfo("system:anonymous", ("system:unauthenticated",))
    with limits.admit(path_request("/version", BOB)):
        for path in ("/readyz", "/healthz", "/livez/ping", "/readyz/watch-cache"):
            with limits.admit(path_request(path, anonymous)):
                assert limits.read_only_inflight == 1
        with pytest.raises(errors.TooManyRequests):
            limits.admit(path_request("/metrics", ALICE))
        with pytest.raises(errors.TooManyRequests):
            limits.admit(path_request("/readyzz", ALICE))
    assert flow_schema_of(path_request("/readyz")) is FlowSchema.PROBES


def exposed(limits: RequestLimits) -> tuple[str, dict[tuple[str, frozenset[tuple[str, str]]], float]]:
    """The flow-control part of /metrics as prometheus_client writes it, and its samples parsed back."""
    text = generate_latest(component_registry(FamiliesCollector(limits.metric_families))).decode()
    samples = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return text, samples


def test_rejections_are_counted_by_level_schema_and_reason_never_by_user() -> None:
    """/metrics names flow schemas and reasons, not the users that were refused."""
    limits = RequestLimits(LimitSettings(max_requests_inflight=2))
    _, seats = fill(limits, ROBOT)
    with limits.admit(attributes("get", ADMIN)):
        pass
    text, samples = exposed(limits)
    robots = {"priority_level": "readOnly", "flow_schema": "service-accounts"}
    rejected = frozenset({**robots, "reason": "flow-share"}.items())
    assert samples[("apiserver_flowcontrol_rejected_requests_total", rejected)] == 1
    exempt = frozenset({"priority_level": "exempt", "flow_schema": "exempt"}.items())
    assert samples[("apiserver_flowcontrol_dispatched_requests_total", exempt)] == 1
    assert samples[("apiserver_flowcontrol_current_executing_seats", frozenset(robots.items()))] == 1
    assert samples[("apiserver_flowcontrol_current_executing_requests", frozenset(robots.items()))] == 1
    read_only = frozenset({"priority_level": "readOnly"}.items())
    assert samples[("flotilla_apiserver_flowcontrol_active_flows", read_only)] == 1
    assert "robot" not in text and "admin" not in text
    seats.close()
    assert exposed(limits)[1][("flotilla_apiserver_flowcontrol_active_flows", read_only)] == 0


def test_a_level_forgets_flows_that_hold_nothing() -> None:
    """The table of flows is bounded by the seats held, however many users came and went."""
    level = PriorityLevel("readOnly", 3)
    for number in range(1000):
        assert level.acquire(f"user-{number}") is None
        level.release(f"user-{number}")
    assert level.held == {} and level.executing == 0


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
