"""A member that comes back keeps what is still scheduled to it: no delete, no re-create, no restart.

A hub, two simulated Push members `m1` and `m2` and the whole controller manager. `m2` is made
unreachable with `flotilla sim fault` (the cluster controller turns it Ready=False and taints it
`not-ready:NoSchedule`), then tainted NoExecute as a ClusterTaintPolicy would; the hub (killed) and
the controller manager are restarted while `m2` is away; then `m2` answers again, still tainted.
What tolerates the taint was never evicted and must be on `m2` exactly as before — same UIDs for the
Deployments, their pods and a ConfigMap; what did not tolerate it was evicted, and only its copy is
removed from `m2`, through its eviction task, once `m2` answers. (Once the taint goes too, a
Duplicated workload is placed on `m2` again, as a fresh copy: that is scheduling, not the
reconnect.)
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from tests.integration.failover.clusterfailover import (
    DUPLICATED,
    binding,
    deployment_policy,
    tainted,
    targets,
    uid,
)
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
OUTAGE = "failover.flotilla.io/outage"
TOLERATE_FOREVER = [{"key": OUTAGE, "operator": "Exists", "effect": "NoExecute"}]


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("reconnect")
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    with Federation(root, members_named(*MEMBERS), manager_args=manager_args) as federation:
        yield federation.start()


def ready_status(hub: Kubectl, cluster: str) -> str:
    return str(condition(hub.json("get", "cluster", cluster), "Ready").get("status"))


def pod_uids(member: Kubectl, ns: str, app: str) -> set[str]:
    pods = member.json("get", "pods", "-n", ns, "-l", f"app={app}")["items"]
    return {pod["metadata"]["uid"] for pod in pods}


def test_a_member_back_from_unreachable_keeps_what_is_still_scheduled_to_it(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Tolerated workloads keep their UIDs on m2; only the evicted copy is removed, after m2 is back."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings"},
        "data": {"a": "1"},
    }
    config_policy = propagation_policy(
        "settings",
        [resource_selector("ConfigMap", "settings", api_version="v1")],
        {"clusterAffinity": {"clusterNames": list(MEMBERS)}, "clusterTolerations": TOLERATE_FOREVER},
    )
    tolerant = {"clusterTolerations": TOLERATE_FOREVER}
    hub.apply_yaml(
        [
            deployment("divided", 2),
            deployment_policy("divided", list(MEMBERS), tolerant),
            deployment("duplicated", 1),
            deployment_policy("duplicated", list(MEMBERS), {**DUPLICATED, **tolerant}),
            deployment("moved", 1),
            deployment_policy("moved", list(MEMBERS), DUPLICATED),
            config_map,
            config_policy,
        ],
        "-n",
        ns,
    )
    m2 = members["m2"]
    for name in ("divided", "duplicated", "moved"):
        eventually(
            lambda name=name: ready_on(members, ns, name).get("m2", 0) >= 1, what=f"{name} ready on m2"
        )
    eventually(lambda: uid(m2, "configmap", "settings", "-n", ns), what="settings on m2")
    kept = {
        "divided": uid(m2, "deploy", "divided", "-n", ns),
        "duplicated": uid(m2, "deploy", "duplicated", "-n", ns),
        "settings": uid(m2, "configmap", "settings", "-n", ns),
    }
    pods = {name: pod_uids(m2, ns, name) for name in ("divided", "duplicated")}

    federation.sim.fault("m2", "--unreachable")
    try:
        eventually(lambda: ready_status(hub, "m2") == "False", what="m2 NotReady")
        with tainted(federation, "m2", f"{OUTAGE}:NoExecute"):
            eventually(
                lambda: set(targets(binding(hub, ns, "moved"))) == {"m1"}, what="moved evicted from m2"
            )
            # Both restart while m2 is away: the hub killed (kill -9) and started again on its port
            # from its store, then the controller manager.
            port = urlparse(federation.hub.url).port
            federation.hub.kill()
            federation.hub.extra_args = ["--secure-port", str(port)]
            federation.hub.start()
            federation.manager.stop()
            federation.manager.start()
            federation.sim.fault("m2", "--recover")
            federation.wait_clusters_ready()
            eventually(lambda: uid(m2, "deploy", "moved", "-n", ns) is None, what="the evicted copy removed")
            assert uid(m2, "deploy", "divided", "-n", ns) == kept["divided"]
            assert uid(m2, "deploy", "duplicated", "-n", ns) == kept["duplicated"]
            assert uid(m2, "configmap", "settings", "-n", ns) == kept["settings"]
            assert {name: pod_uids(m2, ns, name) for name in pods} == pods, "no pod restarted on m2"
            for name in ("divided", "duplicated"):
                assert set(targets(binding(hub, ns, name))) == {"m1", "m2"}, f"{name} stayed scheduled to m2"
            assert set(targets(binding(hub, ns, "moved"))) == {"m1"}, "not placed back while still tainted"
    finally:
        federation.sim.fault("m2", "--recover")
