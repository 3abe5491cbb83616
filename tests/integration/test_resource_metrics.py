"""Resource metrics: `kubectl top` on a simulated member follows its load; on the hub it spans members.

One federation: a hub, a Push member and a Pull member (read through its agent's tunnel), the
controller manager. A Deployment propagated to both (duplicated, 2 replicas each) carries a load
set by `flotilla sim load` in the Push member and by the `load.sim.flotilla.io/cpu` annotation of
its hub template in both. The system kubectl reads `kubectl top` and `get --raw` on a member and
on the hub. The member-down test runs last and leaves its member down.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    MemberCluster,
    deployment,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.processes import flotilla
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

PUSH, PULL = "push1", "pull1"
NS = "default"
APP = "web"
ANNOTATION = "resource.karmada.io/query-from-cluster"
PODS = f"/apis/metrics.k8s.io/v1beta1/namespaces/{NS}/pods"


def duplicated_web() -> list[dict[str, Any]]:
    template = deployment(APP, 2)
    template["metadata"]["annotations"] = {"load.sim.flotilla.io/cpu": "600m"}
    policy = propagation_policy(
        APP,
        [resource_selector("Deployment", APP)],
        {
            "clusterAffinity": {"clusterNames": [PUSH, PULL]},
            "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        },
    )
    return [template, policy]


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("resource-metrics")
    members = [MemberCluster(PUSH, nodes=2), MemberCluster(PULL, sync_mode="Pull")]
    with Federation(root, members) as federation:
        federation.start()
        federation.kubectl(root / "hub-cache").apply_yaml(duplicated_web())
        yield federation


def top(kubectl: Kubectl, *args: str) -> dict[str, tuple[str, str]]:
    """`kubectl top ... --no-headers` as {name: (cpu, memory)} (the first column is the name)."""
    rows = [line.split() for line in kubectl("top", *args, "--no-headers").splitlines() if line.strip()]
    return {row[0]: (row[1], row[3] if len(row) > 4 else row[2]) for row in rows}


def millis(cpu: str) -> int:
    match = re.fullmatch(r"(\d+)m", cpu)
    assert match, cpu
    return int(match.group(1))


def load(federation: Federation, cluster: str, *flags: str) -> str:
    data_dir = str(federation.sim.data_dir)
    return flotilla(
        "sim", "load", f"deployment/{APP}", "-n", NS, "--cluster", cluster, "--data-dir", data_dir, *flags
    ).stdout


def ready_web_pods(member: Kubectl) -> int:
    pods = member.json("get", "pods", "-l", f"app={APP}")["items"]
    return sum(
        any(
            c["type"] == "Ready" and c["status"] == "True"
            for c in (p.get("status") or {}).get("conditions") or []
        )
        for p in pods
    )


def test_kubectl_top_on_a_member_follows_the_load_set_by_the_sim(
    federation: Federation, tmp_path: Path
) -> None:
    """2 CPUs over 2 ready pods read 1000m each, nodes add them up, 3 read 1500m; cleared: the annotation."""
    member = federation.member(PUSH, tmp_path / "m1")
    eventually(lambda: ready_web_pods(member), until=lambda n: n == 2, what="two ready web pods in push1")
    assert "load cpu 2, memory 1Gi" in load(federation, PUSH, "--cpu", "2", "--memory", "1Gi")
    pods = top(member, "pods", "-l", f"app={APP}")
    assert len(pods) == 2
    assert {cpu for cpu, _ in pods.values()} == {"1000m"}
    assert {memory for _, memory in pods.values()} == {"512Mi"}
    nodes = top(member, "nodes")
    assert len(nodes) == 2
    # Each node: 100m of its own, plus its pods (1000m each, and the system pods' 1m).
    assert sum(millis(cpu) for cpu, _ in nodes.values()) >= 2200
    load(federation, PUSH, "--cpu", "3")
    raised = top(member, "pods", "-l", f"app={APP}")
    assert {cpu for cpu, _ in raised.values()} == {"1500m"}
    assert "load cleared" in load(federation, PUSH, "--clear")
    back = eventually(
        lambda: top(member, "pods", "-l", f"app={APP}"),
        until=lambda found: bool(found) and {cpu for cpu, _ in found.values()} == {"300m"},
        what="the template's annotation (600m) in force again",
    )
    assert back
    bad = member.run("get", "--raw", PODS + "?labelSelector=app%20in", check=False)
    assert bad.returncode != 0 and "BadRequest" in bad.stderr
    missing = member.run("get", "--raw", PODS + "/nope", check=False)
    assert 'podmetrics.metrics.k8s.io "default/nope" not found' in missing.stderr


def test_kubectl_top_on_the_hub_answers_for_a_propagated_deployment(
    federation: Federation, tmp_path: Path
) -> None:
    """The hub's list has the pods of both members (the Pull one through its tunnel), each annotated."""
    hub = federation.kubectl(tmp_path / "hub")
    load(federation, PUSH, "--cpu", "4")

    def listed() -> dict[str, Any]:
        found: dict[str, Any] = json.loads(hub("get", "--raw", PODS + f"?labelSelector=app%3D{APP}"))
        return found

    answer = eventually(
        listed,
        until=lambda found: (
            {i["metadata"]["annotations"][ANNOTATION] for i in found["items"]} == {PUSH, PULL}
            and any(i["containers"][0]["usage"]["cpu"] == "2" for i in found["items"])
        ),
        what="web pods from both members, push1's under its load",
    )
    assert answer["kind"] == "PodMetricsList"
    by_cluster: dict[str, set[str]] = {}
    for item in answer["items"]:
        by_cluster.setdefault(item["metadata"]["annotations"][ANNOTATION], set()).add(
            item["containers"][0]["usage"]["cpu"]
        )
    assert by_cluster[PUSH] == {"2"}
    assert by_cluster[PULL] == {"300m"}  # the annotation's 600m over two ready pods
    rows = top(hub, "pods", "-n", NS, "-l", f"app={APP}")
    assert len(rows) == len(answer["items"])  # kubectl lists the same pods (names may repeat across members)
    nodes = hub("top", "nodes", "--no-headers")
    assert len(nodes.splitlines()) == 3  # push1's two nodes and pull1's
    name = next(
        i["metadata"]["name"] for i in answer["items"] if i["metadata"]["annotations"][ANNOTATION] == PULL
    )
    one = json.loads(hub("get", "--raw", f"{PODS}/{name}"))
    assert one["metadata"]["annotations"][ANNOTATION] == PULL and one["kind"] == "PodMetrics"


def test_a_user_without_rights_on_pod_metrics_gets_403(federation: Federation, tmp_path: Path) -> None:
    """RBAC on the hub decides: nobody is asked for a user who may not list pods.metrics.k8s.io."""
    hub = federation.kubectl(tmp_path / "hub")
    refused = hub.run("top", "pods", "-n", NS, "--as", "mallory", check=False)
    assert refused.returncode != 0
    assert "forbidden" in refused.stderr and "pods.metrics.k8s.io" in refused.stderr
    raw = hub.run("get", "--raw", "/apis/metrics.k8s.io/v1beta1/nodes", "--as", "mallory", check=False)
    assert "forbidden" in raw.stderr


def test_a_member_down_is_left_out_of_the_hubs_answer(federation: Federation, tmp_path: Path) -> None:
    """push1 stops answering: the hub still answers, with the Pull member's pods."""
    hub = federation.kubectl(tmp_path / "hub")
    federation.sim.fault(PUSH, "--unreachable")  # the module's last test: push1 stays down
    answer = json.loads(hub("get", "--raw", PODS + f"?labelSelector=app%3D{APP}"))
    clusters = {item["metadata"]["annotations"][ANNOTATION] for item in answer["items"]}
    assert clusters == {PULL}
    assert len(answer["items"]) == 2
    assert hub.run("top", "pods", "-n", NS, check=False).returncode == 0
