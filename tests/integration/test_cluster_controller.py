"""The cluster controller end to end: a hub, two simulated members joined in Push mode, kubectl.

Only the cluster controller runs (`--controllers cluster`) with short intervals: a probe every
half second, Ready again at once after recovery, NotReady after one second of failures. Tests
run in file order on shared processes: `east` is later unjoined while reachable, `west` is made
unreachable, recovered, made unreachable again and force-unjoined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import Federation, condition, members_named
from tests.support.kubectl import Kubectl
from tests.support.processes import flotilla
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("east", "west")
NOT_READY_TAINT = {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}
USER_TAINT = {"key": "maintenance", "value": "planned", "effect": "NoSchedule"}
MANAGER_ARGS = [
    "--controllers",
    "cluster",
    "--cluster-status-interval",
    "0.5",
    "--cluster-success-threshold",
    "0",
    "--cluster-failure-threshold",
    "1",
]


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    members = members_named(*MEMBERS, nodes=2, node_cpu="4", node_memory="8Gi", node_pods=50)
    with Federation(tmp_path_factory.mktemp("clusters"), members, manager_args=MANAGER_ARGS) as federation:
        yield federation.start(wait_ready=False)


def member(federation: Federation, name: str, tmp_path: Path) -> Kubectl:
    return federation.member(name, tmp_path / f"{name}-cache")


def cluster(hub: Kubectl, name: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = hub.json_or_none("get", "cluster", name)
    return found


def taint_keys(obj: dict[str, Any] | None) -> list[tuple[str, str]]:
    return [(t["key"], t["effect"]) for t in ((obj or {}).get("spec") or {}).get("taints") or []]


def ready(hub: Kubectl, name: str) -> dict[str, Any] | None:
    found = cluster(hub, name)
    return found if condition(found, "Ready").get("status") == "True" else None


def test_joined_clusters_become_ready_with_version_apis_and_summaries(
    hub: Kubectl, federation: Federation, tmp_path: Path
) -> None:
    """Each joined member turns Ready and reports its version, APIs, nodes and capacity."""
    for name in MEMBERS:
        found = eventually(lambda name=name: ready(hub, name), timeout=30, what=f"{name} Ready")
        status = found["status"]
        raw = member(federation, name, tmp_path)("get", "--raw", "/version")
        assert status["kubernetesVersion"] == json.loads(raw)["gitVersion"]
        assert condition(found, "Ready")["reason"] == "ClusterReady"
        assert condition(found, "CompleteAPIEnablements")["status"] == "True"
        enablements = {e["groupVersion"]: e["resources"] for e in status["apiEnablements"]}
        assert {"name": "deployments", "kind": "Deployment"} in enablements["apps/v1"]
        assert {"name": "pods", "kind": "Pod"} in enablements["v1"]
        assert not any("/" in r["name"] for resources in enablements.values() for r in resources)
        assert list(enablements) == sorted(enablements)
        assert status["nodeSummary"] == {"totalNum": 2, "readyNum": 2}
        allocatable = status["resourceSummary"]["allocatable"]
        assert allocatable["cpu"] == "8"
        assert allocatable["memory"] == "16Gi"
        assert allocatable["pods"] == "100"
        assert "karmada.io/cluster-controller" in found["metadata"]["finalizers"]
        assert taint_keys(found) == []
        hub("get", "namespace", f"karmada-es-{name}")


def test_kubectl_get_clusters_shows_version_mode_and_ready(hub: Kubectl) -> None:
    """`kubectl get clusters` prints NAME VERSION MODE READY AGE, as against Karmada."""
    lines = hub("get", "clusters").splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "MODE", "READY", "AGE"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    for name in MEMBERS:
        assert rows[name][1].startswith("v1.")
        assert rows[name][2:4] == ["Push", "True"]


def test_member_pods_are_counted_as_allocated_and_allocating(
    hub: Kubectl, federation: Federation, tmp_path: Path
) -> None:
    """Requests of scheduled pods show as allocated, of unschedulable ones as allocating, with pod counts."""
    east = member(federation, "east", tmp_path)
    container = {
        "name": "app",
        "image": "nginx",
        "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}},
    }
    east.apply_yaml(
        [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "placed", "namespace": "default"},
                "spec": {"containers": [container]},
            },
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "stuck", "namespace": "default"},
                "spec": {"containers": [container], "nodeSelector": {"no-such": "node"}},
            },
        ]
    )

    def summary() -> dict[str, Any] | None:
        found = ((cluster(hub, "east") or {}).get("status") or {}).get("resourceSummary") or {}
        allocated = found.get("allocated") or {}
        return found if allocated.get("cpu") == "500m" and found.get("allocating") else None

    found = eventually(summary, timeout=20, what="east reports its pods")
    assert found["allocated"]["memory"] == "256Mi"
    assert found["allocated"]["pods"] == "1"
    assert found["allocating"] == {"cpu": "500m", "memory": "256Mi", "pods": "1"}
    east("delete", "pod", "placed", "stuck", "-n", "default", "--wait=false")


def test_unreachable_cluster_turns_not_ready_with_taint_and_recovers(
    hub: Kubectl, federation: Federation
) -> None:
    """An unreachable member turns NotReady (ClusterNotReachable) and tainted; recovery undoes both."""
    hub("patch", "cluster", "west", "--type=merge", "-p", json.dumps({"spec": {"taints": [USER_TAINT]}}))
    federation.sim.fault("west", "--unreachable")

    def not_ready() -> dict[str, Any] | None:
        found = cluster(hub, "west")
        tainted = ("cluster.karmada.io/not-ready", "NoSchedule") in taint_keys(found)
        return found if condition(found, "Ready").get("status") == "False" and tainted else None

    found = eventually(not_ready, timeout=20, what="west NotReady and tainted")
    assert condition(found, "Ready")["reason"] == "ClusterNotReachable"
    assert ("maintenance", "NoSchedule") in taint_keys(found)
    assert found["status"]["kubernetesVersion"], "the last known version is kept while unreachable"
    assert hub("get", "cluster", "west").splitlines()[1].split()[3] == "False"

    federation.sim.fault("west", "--recover")

    def recovered() -> dict[str, Any] | None:
        found = ready(hub, "west")
        return found if found and taint_keys(found) == [("maintenance", "NoSchedule")] else None

    eventually(recovered, timeout=20, what="west Ready again, only the user's taint left")
    hub("patch", "cluster", "west", "--type=merge", "-p", '{"spec":{"taints":null}}')


def test_unjoin_force_of_an_unreachable_cluster_completes(hub: Kubectl, federation: Federation) -> None:
    """Unjoin waits on a member that cannot be cleaned up; with --force it completes anyway."""
    stuck_work = _work("stuck", "karmada-es-west", finalizers=["karmada.io/execution-controller"])
    hub.apply_yaml(stuck_work)
    federation.sim.fault("west", "--unreachable")
    eventually(
        lambda: condition(cluster(hub, "west"), "Ready").get("status") == "False",
        timeout=20,
        what="west NotReady",
    )
    kubeconfig = str(federation.hub.kubeconfig)
    refused = flotilla("unjoin", "west", "--kubeconfig", kubeconfig, "--wait", "2", check=False)
    assert refused.returncode != 0
    assert "--force" in refused.stderr
    assert cluster(hub, "west") is not None, "the Work's cleanup holds the Cluster"

    forced = flotilla("unjoin", "west", "--kubeconfig", kubeconfig, "--wait", "2", "--force")
    assert "unjoined" in forced.stdout
    assert cluster(hub, "west") is None
    # The execution controller drops its finalizer once the Cluster is gone; then the namespace goes.
    hub(
        "patch",
        "work",
        "stuck",
        "-n",
        "karmada-es-west",
        "--type=merge",
        "-p",
        '{"metadata":{"finalizers":null}}',
    )
    eventually(
        lambda: not hub.succeeds("get", "namespace", "karmada-es-west"),
        timeout=20,
        what="the execution namespace of the removed cluster is deleted",
    )
    federation.sim.fault("west", "--recover")


def test_unjoin_of_a_reachable_cluster_removes_its_works_and_namespace(
    hub: Kubectl, federation: Federation
) -> None:
    """Unjoining a reachable member deletes its Works, then its execution namespace, then the Cluster."""
    hub.apply_yaml(_work("greeting", "karmada-es-east"))
    result = flotilla("unjoin", "east", "--kubeconfig", str(federation.hub.kubeconfig), "--wait", "30")
    assert "unjoined successfully" in result.stdout
    assert cluster(hub, "east") is None
    assert not hub.succeeds("get", "namespace", "karmada-es-east")
    assert "cluster.finalizer_removed" in federation.manager.log()


def _work(name: str, namespace: str, finalizers: list[str] | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if finalizers:
        metadata["finalizers"] = finalizers
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}
    return {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": metadata,
        "spec": {"workload": {"manifests": [manifest]}},
    }
