"""Failback end to end: a policy with `failover.flotilla.io/failback-after` moves its workload back.

A hub, three simulated Push members, the whole controller manager with its defaults and the
ClusterTaintPolicies the first `flotilla up` installs. Two Divided Deployments run 1/1/1: `back`,
whose policy says `failback-after: 3s`, and `stays`, whose policy says nothing. A member made
unreachable with `flotilla sim fault` is tainted NoExecute and evicted from both (the taint manager
records it in each binding's `failover.flotilla.io/evicted-from`), their replicas divided over the
other two. After `--recover`, once the member has been healthy for 3 s, `back` is rescheduled from
scratch and runs on it again, its record gone; `stays` stays where failover put it, as in Karmada.
A failback-after that is no duration is refused by the hub with the annotation named.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from flotilla.api.times import timestamp
from flotilla.cli.localhub.failover import install_failover_policies
from tests.integration.failover.clusterfailover import binding, deployment_policy, events, targets, tasks, uid
from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    condition,
    deployment,
    members_named,
    ready_on,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("m1", "m2", "m3")
DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}
"""Equal static weights: one replica per member for three."""
EVICTED_FROM = "failover.flotilla.io/evicted-from"
FAILBACK_AFTER = "failover.flotilla.io/failback-after"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("failback")
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    with Federation(root, members_named(*MEMBERS), manager_args=manager_args) as federation:
        federation.start()
        asyncio.run(install_failover_policies(federation.hub.kubeconfig))
        yield federation


def evicted_from(found: dict[str, Any]) -> dict[str, str]:
    """The binding's record of the clusters it was evicted from."""
    text = (found["metadata"].get("annotations") or {}).get(EVICTED_FROM)
    return dict(json.loads(text)) if text else {}


def test_a_workload_whose_policy_asks_moves_back_after_the_member_recovers(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    back_policy = deployment_policy("back", list(MEMBERS), DIVIDED)
    back_policy["metadata"]["annotations"] = {FAILBACK_AFTER: "3s"}
    stays_policy = deployment_policy("stays", list(MEMBERS), DIVIDED)
    hub.apply_yaml([deployment("back", 3), back_policy, deployment("stays", 3), stays_policy], "-n", ns)
    for name in ("back", "stays"):
        eventually(lambda n=name: ready_on(members, ns, n) == dict.fromkeys(MEMBERS, 1), what=f"{name} 1/1/1")

    federation.sim.fault("m2", "--unreachable")
    try:
        for name in ("back", "stays"):
            eventually(
                lambda n=name: "m2" not in targets(binding(hub, ns, n)), what=f"{name} evicted from m2"
            )
            assert "m2" in evicted_from(binding(hub, ns, name)), "the eviction is recorded on the binding"
        live = {m: c for m, c in members.items() if m != "m2"}
        for name in ("back", "stays"):
            eventually(lambda n=name: sum(ready_on(live, ns, n).values()) == 3, what=f"{name} 3 on m1, m3")
            eventually(lambda n=name: "m2" not in tasks(binding(hub, ns, n)), what=f"{name}'s task dropped")
        assert "rescheduleTriggeredAt" not in binding(hub, ns, "back")["spec"], (
            "m2 is not healthy: no failback"
        )
    finally:
        federation.sim.fault("m2", "--recover")
    federation.wait_clusters_ready()

    eventually(
        lambda: binding(hub, ns, "back")["spec"].get("rescheduleTriggeredAt") is not None,
        timeout=30,
        what="back rescheduled from scratch once m2 was healthy for 3s",
    )
    found = binding(hub, ns, "back")
    triggered = timestamp(found["spec"]["rescheduleTriggeredAt"])
    ready_since = timestamp(condition(hub.json("get", "cluster", "m2"), "Ready").get("lastTransitionTime"))
    assert triggered is not None and ready_since is not None
    assert (triggered - ready_since).total_seconds() >= 3, "not before m2 was healthy for failback-after"
    assert "m2" not in evicted_from(found), "the record of m2 is gone with the failback"
    eventually(
        lambda: targets(binding(hub, ns, "back")) == dict.fromkeys(MEMBERS, 1), what="back 1/1/1 again"
    )
    eventually(
        lambda: ready_on(members, ns, "back") == dict.fromkeys(MEMBERS, 1), what="back running on m2 again"
    )
    assert any("cluster m2 healthy for" in message for message in events(hub, ns, "Failback"))
    assert any("cluster m2" in message for message in events(hub, ns, "Failback", kind="Deployment"))

    stays = binding(hub, ns, "stays")
    assert "m2" not in targets(stays), "without failback-after a Divided workload stays where failover put it"
    assert "rescheduleTriggeredAt" not in stays["spec"]
    assert "m2" in evicted_from(stays), "its record is kept (nothing reads it without the annotation)"
    eventually(
        lambda: uid(members["m2"], "deploy", "stays", "-n", ns) is None, what="stays' old copy removed"
    )
    assert sum(targets(binding(hub, ns, "stays")).values()) == 3


def test_a_failback_after_that_is_no_duration_is_refused_at_admission(hub: Kubectl, ns: str) -> None:
    policy = deployment_policy("web", list(MEMBERS), DIVIDED)
    policy["metadata"]["annotations"] = {FAILBACK_AFTER: "ten minutes"}
    refused = hub.run("apply", "-n", ns, "-f", "-", input=json.dumps(policy), check=False)
    assert refused.returncode != 0
    assert f"metadata.annotations[{FAILBACK_AFTER}]: Invalid value" in refused.stderr
    assert not hub.succeeds("get", "propagationpolicy", "web", "-n", ns)
