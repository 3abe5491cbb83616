"""Failover as `flotilla up` sets it up, end to end: nothing configured but the default policies.

A hub, three simulated Push members and the whole controller manager with its defaults (Failover on,
NoExecute eviction on, purge mode Gracefully), plus the two ClusterTaintPolicies the first `flotilla
up` installs. A member is made unreachable with `flotilla sim fault`: the cluster controller turns it
Ready=False, the policy taints it `cluster.karmada.io/not-ready:NoExecute`, the taint manager evicts
it from the Deployment's binding, the scheduler divides the replicas over the two others and the
hub's Deployment is READY again — no toleration, flag or policy written by the user. When the member
answers again its taint goes, and its old copy (evicted) is removed from it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from flotilla.cli.localhub.failover import install_failover_policies
from tests.integration.failover.clusterfailover import binding, deployment_policy, targets, tasks, uid
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
NOT_READY = "cluster.karmada.io/not-ready"
DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}
"""Equal static weights: one replica per member for three."""


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("default-failover")
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    with Federation(root, members_named(*MEMBERS), manager_args=manager_args) as federation:
        federation.start()
        asyncio.run(install_failover_policies(federation.hub.kubeconfig))
        yield federation


def no_execute_taints(hub: Kubectl, cluster: str) -> set[str]:
    taints = hub.json("get", "cluster", cluster)["spec"].get("taints") or []
    return {t["key"] for t in taints if t.get("effect") == "NoExecute"}


def hub_ready(hub: Kubectl, ns: str, name: str) -> int:
    return int(hub.json("get", "deploy", name, "-n", ns).get("status", {}).get("readyReplicas") or 0)


def test_a_dead_member_loses_its_replicas_to_the_others_with_the_defaults(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    hub.apply_yaml([deployment("web", 3), deployment_policy("web", list(MEMBERS), DIVIDED)], "-n", ns)
    eventually(lambda: ready_on(members, ns, "web") == dict.fromkeys(MEMBERS, 1), what="web 1/1/1")
    old_copy = uid(members["m2"], "deploy", "web", "-n", ns)

    federation.sim.fault("m2", "--unreachable")
    try:
        eventually(
            lambda: str(condition(hub.json("get", "cluster", "m2"), "Ready").get("status")) == "False",
            what="m2 NotReady",
        )
        eventually(
            lambda: NOT_READY in no_execute_taints(hub, "m2"), what="m2 tainted NoExecute by the policy"
        )
        eventually(lambda: "m2" not in targets(binding(hub, ns, "web")), what="web evicted from m2")
        found = binding(hub, ns, "web")
        assert sum(targets(found).values()) == 3, "the evicted replica is placed on the others"
        live = {m: c for m, c in members.items() if m != "m2"}
        eventually(lambda: sum(ready_on(live, ns, "web").values()) == 3, what="3 replicas ready on m1 and m3")
        eventually(lambda: hub_ready(hub, ns, "web") == 3, what="the hub's web READY 3/3")
        eventually(
            lambda: "m2" not in tasks(binding(hub, ns, "web")), what="the task dropped: healthy elsewhere"
        )
    finally:
        federation.sim.fault("m2", "--recover")
    federation.wait_clusters_ready()
    eventually(lambda: not no_execute_taints(hub, "m2"), what="the policy's taint removed on recovery")
    eventually(
        lambda: uid(members["m2"], "deploy", "web", "-n", ns) is None, what="the old copy removed from m2"
    )
    assert old_copy is not None
    assert "m2" not in targets(binding(hub, ns, "web")), "a Divided workload does not move back by itself"
    assert hub_ready(hub, ns, "web") == 3
