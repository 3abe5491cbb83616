"""Leader election between controller managers: one hub, one simulated member, managers as processes.

A `Federation` with one member starts the first manager; the test adds the others beside it. The
managers run with terms of their own (lease 3 s, renew deadline 2 s, retry 0.5 s), which the
timings asserted here depend on, so that takeovers happen within seconds; the Lease is
`kube-system/flotilla-controller-manager`.
"""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    deployment,
    members_named,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.processes import ControllerManagerProcess
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

CLUSTER = "solo"
LEASE_SECONDS = 3.0
ELECTION_FLAGS = [
    *FAST_CLUSTER_STATUS,
    "--cluster-failure-threshold",
    "2",
    "--leader-elect-lease-duration",
    f"{LEASE_SECONDS:g}s",
    "--leader-elect-renew-deadline",
    "2s",
    "--leader-elect-retry-period",
    "500ms",
]
HEALTH = re.compile(r"running \(health: (\S+)\)")
IDENTITY = re.compile(r"event='controller_manager.started'.*identity='([^']+)'")


def health_url(manager: ControllerManagerProcess) -> str:
    match = HEALTH.search(manager.log())
    assert match, manager.log()
    return match.group(1)


def identity(manager: ControllerManagerProcess) -> str:
    match = eventually(lambda: IDENTITY.search(manager.log()), timeout=10, what="identity logged")
    return str(match.group(1))


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def is_leader_metric(manager: ControllerManagerProcess) -> str:
    _, text = get(health_url(manager) + "/metrics")
    match = re.search(r"^flotilla_leader_is_leader (\d+)\.0$", text, re.MULTILINE)
    assert match, text
    return match.group(1)


def lease(hub: Kubectl) -> dict[str, Any]:
    found = hub.json("get", "lease", "-n", "kube-system", "flotilla-controller-manager")
    return dict(found["spec"])


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("leader")
    with Federation(root, members_named(CLUSTER), manager_args=ELECTION_FLAGS) as federation:
        yield federation.start(wait_ready=False)


def workload(name: str) -> list[dict[str, Any]]:
    """Deployment `name` and a policy placing it on the member."""
    placement = {"clusterAffinity": {"clusterNames": [CLUSTER]}}
    return [deployment(name, 1), propagation_policy(name, [resource_selector("Deployment", name)], placement)]


def on_member(member: Kubectl, ns: str, name: str) -> bool:
    return member.succeeds("get", "deploy", name, "-n", ns)


def test_one_manager_leads_a_standby_takes_over_and_a_lost_lease_ends_the_leader(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Only the holder acts; kill -9 hands over within a lease, SIGTERM at once; a lost Lease exits 1."""
    member = members[CLUSTER]
    first = federation.manager
    eventually(lambda: lease(hub).get("holderIdentity") == identity(first), what="first leads")
    second = federation.additional_manager().start()

    # Only the holder acts: it turns ready and propagates; the standby stays unready and idle.
    eventually(lambda: get(health_url(first) + "/readyz")[0] == 200, what="leader ready")
    hub.apply_yaml(workload("before"), "-n", ns)
    eventually(lambda: on_member(member, ns, "before"), what="propagated by the leader")
    status, reason = get(health_url(second) + "/readyz")
    assert status == 503 and "not the leader" in reason
    assert get(health_url(second) + "/healthz")[0] == 200
    assert (is_leader_metric(first), is_leader_metric(second)) == ("1", "0")
    assert "controller_manager.controllers_started" not in second.log()
    assert lease(hub).get("holderIdentity") == identity(first)

    # kill -9 of the leader: the standby takes over once the lease has run out, and acts.
    transitions = int(lease(hub).get("leaseTransitions") or 0)
    first.kill()
    killed = time.monotonic()
    eventually(lambda: lease(hub).get("holderIdentity") == identity(second), timeout=20)
    assert time.monotonic() - killed < LEASE_SECONDS + 3
    assert int(lease(hub).get("leaseTransitions") or 0) == transitions + 1
    hub.apply_yaml(workload("after"), "-n", ns)
    eventually(lambda: on_member(member, ns, "after"), what="propagated by the new leader")
    assert is_leader_metric(second) == "1"

    # SIGTERM: the Lease is released on the way out, so a standby needs no lease term to take over.
    assert second.stop() == 0
    released = lease(hub)
    assert not released.get("holderIdentity")
    assert released.get("leaseDurationSeconds") == 1
    third = federation.additional_manager().start()
    started = time.monotonic()
    eventually(lambda: lease(hub).get("holderIdentity") == identity(third), timeout=10)
    assert time.monotonic() - started < LEASE_SECONDS

    # A leader that cannot renew (someone else holds the Lease now) stops and exits non-zero.
    hub("patch", "lease", "-n", "kube-system", "flotilla-controller-manager", "--type", "merge",
        "-p", '{"spec":{"holderIdentity":"intruder"}}')  # fmt: skip
    assert third.process is not None
    code = third.process.wait(timeout=15)
    assert code != 0
    assert "lost the leader Lease" in third.log()
