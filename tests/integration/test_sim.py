"""`flotilla sim` with the system kubectl: simulated clusters behave like small real ones."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.kubectl import Kubectl
from tests.support.processes import SimProcess
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl


@pytest.fixture(scope="module")
def sim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SimProcess]:
    process = SimProcess(
        tmp_path_factory.mktemp("sim"),
        [
            "--clusters",
            "east,west",
            "--nodes",
            "3",
            "--node-cpu",
            "2",
            "--node-memory",
            "4Gi",
            "--pod-start-seconds",
            "0.2",
        ],
    ).start()
    yield process
    assert process.stop() == 0, process.log()


@pytest.fixture
def east(sim: SimProcess, tmp_path: Path) -> Kubectl:
    return Kubectl(sim.kubeconfig("east"), tmp_path / "cache-east")


def running_pods(kubectl: Kubectl, namespace: str, selector: str) -> list[dict[str, object]]:
    pods = kubectl.json("get", "pods", "-n", namespace, "-l", selector)["items"]
    return [p for p in pods if p["status"].get("phase") == "Running"]


def test_nodes_are_ready_with_capacity_and_topology(east: Kubectl) -> None:
    """Each simulated cluster has its nodes, Ready, with the configured capacity and zone labels."""
    nodes = east.json("get", "nodes")["items"]
    assert len(nodes) == 3
    for node in nodes:
        ready = {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"]
        assert ready == "True"
        assert node["status"]["allocatable"]["cpu"] == "2"
        assert "topology.kubernetes.io/zone" in node["metadata"]["labels"]
    table = east("get", "nodes")
    assert table.splitlines()[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert all(line.split()[1] == "Ready" for line in table.splitlines()[1:])
    leases = east.json("get", "leases", "-n", "kube-node-lease")["items"]
    assert {lease["metadata"]["name"] for lease in leases} == {n["metadata"]["name"] for n in nodes}


def test_deployment_gets_running_pods_and_ready_status(east: Kubectl) -> None:
    """A Deployment of 3 replicas gets 3 Running pods on nodes and READY 3/3."""
    east("create", "deployment", "web", "--image=nginx", "--replicas=3")
    eventually(lambda: len(running_pods(east, "default", "app=web")) == 3, what="3 running pods")
    pods = running_pods(east, "default", "app=web")
    assert all(p["spec"]["nodeName"] and p["status"]["podIP"] for p in pods)  # type: ignore[index]
    east("rollout", "status", "deploy/web", "--timeout=30s")
    row = east("get", "deploy", "web").splitlines()[1].split()
    assert row[:4] == ["web", "3/3", "3", "3"]


def test_overcommitted_pods_stay_pending_with_a_reason(east: Kubectl) -> None:
    """Asking for more CPU than the nodes hold leaves the surplus Pending with an Unschedulable reason."""
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "big"},
        "spec": {
            "replicas": 4,
            "selector": {"matchLabels": {"app": "big"}},
            "template": {
                "metadata": {"labels": {"app": "big"}},
                "spec": {
                    "containers": [
                        {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "1500m"}}}
                    ]
                },
            },
        },
    }
    east("apply", "-f", "-", input=yaml.safe_dump(manifest))
    eventually(lambda: len(running_pods(east, "default", "app=big")) == 3, what="3 of 4 big pods running")

    def pending_reason() -> str:
        for pod in east.json("get", "pods", "-l", "app=big")["items"]:
            for condition in pod["status"].get("conditions", []):
                if condition["type"] == "PodScheduled" and condition["status"] == "False":
                    return f"{condition['reason']}: {condition['message']}"
        return ""

    reason = eventually(pending_reason, what="a pending pod with a reason")
    assert reason.startswith("Unschedulable:") and "Insufficient cpu" in reason
    east("delete", "deploy", "big")


def test_cordoned_node_gets_no_new_pods(east: Kubectl) -> None:
    """After cordon, new pods land only on the other nodes."""
    node = east.json("get", "nodes")["items"][0]["metadata"]["name"]
    east("cordon", node)
    try:
        east("create", "deployment", "spread", "--image=nginx", "--replicas=6")
        eventually(lambda: len(running_pods(east, "default", "app=spread")) == 6, what="6 running pods")
        assert all(p["spec"]["nodeName"] != node for p in running_pods(east, "default", "app=spread"))  # type: ignore[index]
        assert "SchedulingDisabled" in east("get", "node", node)
    finally:
        east("uncordon", node)
        east("delete", "deploy", "spread")


def test_job_runs_to_completion(east: Kubectl) -> None:
    """A Job finishes and kubectl wait sees it Complete."""
    east("create", "job", "once", "--image=busybox", "--", "true")
    east("wait", "--for=condition=complete", "job/once", "--timeout=30s")
    job = east.json("get", "job", "once")
    assert job["status"]["succeeded"] == 1


def test_service_gets_endpoints_from_ready_pods(east: Kubectl) -> None:
    """A Service selecting ready pods gets a cluster IP, EndpointSlices and Endpoints."""
    east("create", "deployment", "api", "--image=nginx", "--replicas=2", "--port=80")
    east("expose", "deployment", "api", "--port=8080", "--target-port=80")
    service = east.json("get", "svc", "api")
    assert service["spec"]["clusterIP"]

    def endpoint_ips() -> list[str]:
        endpoints = east.json("get", "endpoints", "api")
        return [a["ip"] for subset in endpoints.get("subsets", []) for a in subset.get("addresses", [])]

    ips = eventually(lambda: len(endpoint_ips()) == 2 and endpoint_ips(), what="2 endpoint addresses")
    pod_ips = {p["status"]["podIP"] for p in running_pods(east, "default", "app=api")}  # type: ignore[index]
    assert set(ips) == pod_ips
    slices = east.json("get", "endpointslices", "-l", "kubernetes.io/service-name=api")["items"]
    assert len(slices) == 1 and slices[0]["ports"][0]["port"] == 80


def test_default_service_account_exists_in_new_namespaces(east: Kubectl) -> None:
    """Every namespace gets its default ServiceAccount."""
    east("create", "namespace", "fresh")
    eventually(
        lambda: east.run("get", "sa", "default", "-n", "fresh", check=False).returncode == 0,
        what="default service account",
    )


def test_unreachable_cluster_fails_fast_then_recovers(sim: SimProcess, tmp_path: Path) -> None:
    """An unreachable cluster refuses connections quickly; --recover brings it back."""
    west = Kubectl(sim.kubeconfig("west"), tmp_path / "cache-west")
    assert "Ready" in west("get", "nodes")
    sim.fault("west", "--unreachable")
    started = time.monotonic()
    failed = west.run("get", "nodes", "--request-timeout=5s", check=False)
    assert failed.returncode != 0
    assert time.monotonic() - started < 5
    assert "refused" in failed.stderr or "Unable to connect" in failed.stderr
    sim.fault("west", "--recover")
    assert "Ready" in west("get", "nodes")


def test_latency_fault_slows_requests(sim: SimProcess, tmp_path: Path) -> None:
    """--latency delays every request of that cluster only."""
    west = Kubectl(sim.kubeconfig("west"), tmp_path / "cache-lat")
    west("get", "ns")
    sim.fault("west", "--latency", "400")
    try:
        started = time.monotonic()
        west("get", "ns")
        assert time.monotonic() - started >= 0.4
    finally:
        sim.fault("west", "--recover")


def test_nodes_not_ready_fault(sim: SimProcess, tmp_path: Path) -> None:
    """--nodes-not-ready turns every node NotReady until --recover."""
    west = Kubectl(sim.kubeconfig("west"), tmp_path / "cache-nr")
    sim.fault("west", "--nodes-not-ready")
    try:
        eventually(
            lambda: all(
                line.split()[1].startswith("NotReady") for line in west("get", "nodes").splitlines()[1:]
            ),
            what="nodes NotReady",
        )
    finally:
        sim.fault("west", "--recover")
    eventually(
        lambda: all(line.split()[1] == "Ready" for line in west("get", "nodes").splitlines()[1:]),
        what="nodes Ready again",
    )


def test_state_survives_a_restart(tmp_path: Path) -> None:
    """Objects created in a simulated cluster are there after the sim process restarts."""
    process = SimProcess(
        tmp_path / "sim", ["--clusters", "solo", "--nodes", "1", "--pod-start-seconds", "0"]
    ).start()
    kubectl = Kubectl(process.kubeconfig("solo"), tmp_path / "cache")
    kubectl("create", "configmap", "kept", "--from-literal=a=b")
    port = json.loads((tmp_path / "sim" / "sim.json").read_text())["clusters"]["solo"]["url"]
    assert process.stop() == 0
    process.start()
    try:
        kubectl = Kubectl(process.kubeconfig("solo"), tmp_path / "cache2")
        assert kubectl.json("get", "cm", "kept")["data"] == {"a": "b"}
        assert json.loads((tmp_path / "sim" / "sim.json").read_text())["clusters"]["solo"]["url"] == port
        assert len(kubectl.json("get", "nodes")["items"]) == 1
    finally:
        assert process.stop() == 0
