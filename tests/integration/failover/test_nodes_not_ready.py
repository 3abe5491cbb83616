"""A member whose nodes all go NotReady: its API still answers, so only application failover helps.

`flotilla sim fault m1 --nodes-not-ready` silences every kubelet of m1. Its node controller marks the
nodes and then the pods NotReady, and the Deployment's copy there loses its available replicas.
The Cluster stays Ready, because Karmada's cluster health is the member API's and that still
answers, so cluster failover does nothing.

The resource interpreter reports the copy Unhealthy. A policy with `failover.application` (a
2-second toleration, purge mode Directly) moves the workload off m1: the replicas run on m2 and the
hub's Deployment is READY again. When m1's nodes recover, nothing is placed back while the failed
cluster is remembered.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integration.failover.clusterfailover import binding, events, targets, uid
from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    condition,
    deployment,
    members_named,
    propagation_policy,
    ready_on,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("m1", "m2")


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("nodes-not-ready")
    with Federation(root, members_named(*MEMBERS), manager_args=FAST_CLUSTER_STATUS) as federation:
        yield federation.start()


def nodes_ready(hub: Kubectl, cluster: str) -> bool:
    summary = hub.json("get", "cluster", cluster)["status"].get("nodeSummary") or {}
    return bool(summary.get("totalNum")) and summary.get("readyNum") == summary.get("totalNum")


def hub_ready(hub: Kubectl, ns: str, name: str) -> int:
    return int(hub.json("get", "deploy", name, "-n", ns).get("status", {}).get("readyReplicas") or 0)


def test_a_member_without_ready_nodes_loses_the_workload_by_application_failover(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    placement = {
        "clusterAffinity": {"clusterNames": list(MEMBERS)},
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
    }
    policy = propagation_policy(
        "api", [resource_selector("Deployment", "api")], placement, propagateDeps=True
    )
    policy["spec"]["failover"] = {
        "application": {"decisionConditions": {"tolerationSeconds": 2}, "purgeMode": "Directly"}
    }
    hub.apply_yaml([deployment("api", 2), policy], "-n", ns)
    eventually(lambda: ready_on(members, ns, "api") == dict.fromkeys(MEMBERS, 1), what="api 1/1")
    assert uid(members["m1"], "deploy", "api", "-n", ns) is not None

    federation.sim.fault("m1", "--nodes-not-ready")
    try:
        eventually(
            lambda: "m1" not in targets(binding(hub, ns, "api")), timeout=60, what="api evicted from m1"
        )
        cluster = hub.json("get", "cluster", "m1")
        assert condition(cluster, "Ready").get("status") == "True", "the member's API still answers"
        assert not any(t.get("effect") == "NoExecute" for t in cluster["spec"].get("taints") or [])
        eventually(lambda: ready_on(members, ns, "api").get("m2") == 2, what="both replicas ready on m2")
        eventually(lambda: hub_ready(hub, ns, "api") == 2, what="the hub's api READY 2/2")
        eventually(
            lambda: uid(members["m1"], "deploy", "api", "-n", ns) is None, what="Directly: m1's copy gone"
        )
        told = eventually(
            lambda: events(hub, ns, "ApplicationFailover"), what="the failover told as an Event"
        )
        assert any("m1" in message for message in told), told
    finally:
        federation.sim.fault("m1", "--recover")
    eventually(lambda: nodes_ready(hub, "m1"), what="m1's nodes Ready again")
    assert targets(binding(hub, ns, "api")) == {"m2": 2}, "not placed straight back on the failed member"
