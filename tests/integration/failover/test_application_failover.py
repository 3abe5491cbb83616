"""Application failover end to end: a copy whose pods cannot become ready is moved to another member.

Two simulated members in different regions; each test's Deployment asks for nodes of `region-b`
(`nodeSelector`), which only member2 has, so on member1 its pods stay Pending and the resource
interpreter reports the copy Unhealthy — a workload that cannot run on one member, as when that
member lacks the node type it needs. The policies tolerate that for a few seconds.

Evictions happen in seconds and the graceful eviction controller may finish a task soon after, so
the binding and member2's Deployments are watched (`kubectl get -w`) and every version they went
through is checked, not only the last one.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    MemberCluster,
    deployment,
    member_deployments,
    propagation_policy,
    ready_on,
    replicas_on,
    resource_selector,
    static_weights,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

REGION = "topology.kubernetes.io/region"
UNHEALTHY_SINCE = "failover.flotilla.io/application-unhealthy-since"
FAILED_ON = "failover.flotilla.io/application-failed-on"
STATE_LABEL = "failover.example.io/unavailable"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("application-failover")
    members = [
        MemberCluster("member1", labels={REGION: "region-a"}, region="region-a"),
        MemberCluster("member2", labels={REGION: "region-b"}, region="region-b"),
    ]
    with Federation(root, members) as federation:
        federation.start()
        yield federation


class Watch:
    """`kubectl get -w -o json` in the background: every version of the objects it saw, in order."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process
        self._text: list[str] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            with self._lock:
                self._text.append(line)

    def seen(self) -> list[dict[str, Any]]:
        with self._lock:
            text = "".join(self._text)
        decoder, found, position = json.JSONDecoder(), [], 0
        while True:
            while position < len(text) and text[position].isspace():
                position += 1
            if position >= len(text):
                return found
            try:
                document, position = decoder.raw_decode(text, position)
            except json.JSONDecodeError:
                return found  # a document still being written
            found.append(document)

    def stop(self) -> None:
        with self._process:  # closes its pipes
            self._process.terminate()
            self._process.wait(timeout=10)
            self._reader.join(timeout=10)


@contextmanager
def watching(kubectl: Kubectl, *args: str) -> Iterator[Watch]:
    watch = Watch(kubectl.popen("get", *args, "-w", "-o", "json"))
    try:
        yield watch
    finally:
        watch.stop()


def failing_deployment(name: str, replicas: int) -> dict[str, Any]:
    """A Deployment whose pods fit only on region-b nodes: Pending for good on member1."""
    return deployment(name, replicas, nodeSelector={REGION: "region-b"})


def application_failover(toleration: int, purge_mode: str, **more: Any) -> dict[str, Any]:
    return {
        "application": {
            "decisionConditions": {"tolerationSeconds": toleration},
            "purgeMode": purge_mode,
            **more,
        }
    }


def binding(hub: Kubectl, ns: str, name: str) -> dict[str, Any]:
    found: dict[str, Any] = hub.json("get", "resourcebinding", f"{name}-deployment", "-n", ns)
    return found


def targets(found: dict[str, Any]) -> dict[str, int]:
    return {t["name"]: t.get("replicas", 0) for t in found["spec"].get("clusters") or []}


def tasks(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["fromCluster"]: t for t in found["spec"].get("gracefulEvictionTasks") or []}


def annotation(found: dict[str, Any], key: str) -> dict[str, str]:
    text = (found["metadata"].get("annotations") or {}).get(key)
    return json.loads(text) if text else {}


def events(hub: Kubectl, ns: str, reason: str) -> dict[str, list[str]]:
    """Messages of the Events with `reason` in `ns`, by the kind of object they are about."""
    found: dict[str, list[str]] = {}
    for event in hub.json("get", "events", "-n", ns)["items"]:
        if event.get("reason") == reason:
            found.setdefault(event["involvedObject"]["kind"], []).append(event["message"])
    return found


def manager_metrics(federation: Federation) -> str:
    """The controller manager's /metrics text (it logs where its health endpoint listens)."""
    match = re.search(r"running \(health: (\S+)\)", federation.manager.log())
    assert match is not None, "the controller manager did not say where /metrics is"
    with urllib.request.urlopen(f"{match.group(1)}/metrics", timeout=10) as answer:
        return str(answer.read().decode())


def test_an_unhealthy_copy_moves_with_its_preserved_state(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str, tmp_path: Path
) -> None:
    """Directly, with state preservation: member1 is evicted two seconds after its copy turns
    Unhealthy, the task keeps `{ .unavailableReplicas }` of the failed copy, and the copy on
    member2 (the backup affinity) starts with that value as a label."""
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["member1"]},
            {"affinityName": "backup", "clusterNames": ["member2"]},
        ],
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    rules = [{"aliasLabelName": STATE_LABEL, "jsonPath": "{ .unavailableReplicas }"}]
    policy = propagation_policy(
        "flink",
        [resource_selector("Deployment", "flink")],
        placement,
        propagateDeps=True,
        failover=application_failover(2, "Directly", statePreservation={"rules": rules}),
    )
    member2 = federation.member("member2", tmp_path / "watch-member2")
    with (
        watching(hub, "resourcebindings", "-n", ns) as bindings,
        watching(member2, "deployments", "-n", ns) as member2_deployments,
    ):
        hub.apply_yaml([failing_deployment("flink", 2), policy], "-n", ns)

        def versions() -> list[dict[str, Any]]:
            return [b for b in bindings.seen() if b["metadata"]["name"] == "flink-deployment"]

        eventually(
            lambda: any("member1" in annotation(b, UNHEALTHY_SINCE) for b in versions()),
            what="the toleration of member1 recorded on the binding",
        )
        task = eventually(
            lambda: next((tasks(b)["member1"] for b in versions() if "member1" in tasks(b)), None),
            what="an eviction task for member1",
        )
        assert task["producer"] == "resource-binding-application-failover-controller"
        assert task["reason"] == "ApplicationFailure"
        assert task["purgeMode"] == "Directly"
        assert task["preservedLabelState"] == {STATE_LABEL: "2"}
        assert task["clustersBeforeFailover"] == ["member1"]
        assert task["replicas"] == 2
        assert "member1" in task["message"]
        assert "toleration of 2s" in task["message"]
        assert "creationTimestamp" in task
        assert "suppressDeletion" not in task
        assert "gracePeriodSeconds" not in task

        eventually(
            lambda: targets(binding(hub, ns, "flink")) == {"member2": 2}, what="rescheduled to member2"
        )
        carried = eventually(
            lambda: next(
                (
                    d
                    for d in member2_deployments.seen()
                    if d["metadata"]["name"] == "flink" and STATE_LABEL in (d["metadata"].get("labels") or {})
                ),
                None,
            ),
            what="member2's copy with the preserved label",
        )
        assert carried["metadata"]["labels"][STATE_LABEL] == "2"

    eventually(lambda: "member1" not in member_deployments(members, ns, "flink"), what="member1's copy gone")
    eventually(lambda: ready_on(members, ns, "flink") == {"member2": 2}, what="2 ready on member2")
    found = binding(hub, ns, "flink")
    assert "member1" in annotation(found, FAILED_ON)
    assert "member1" not in annotation(found, UNHEALTHY_SINCE)
    failovers = eventually(
        lambda: events(hub, ns, "ApplicationFailover"), until=lambda e: len(e) == 2, what="failover Events"
    )
    assert set(failovers) == {"ResourceBinding", "Deployment"}
    assert all("cluster member1" in message and "Directly" in message for message in failovers["Deployment"])
    assert any(
        "cluster member1" in message for message in events(hub, ns, "ApplicationUnhealthy")["Deployment"]
    )
    exposed = manager_metrics(federation)
    assert 'flotilla_application_failovers_total{purge_mode="Directly"} 1.0' in exposed
    assert "flotilla_application_unhealthy_seconds_count 1.0" in exposed


def test_a_duplicated_workload_is_not_placed_back_on_the_cluster_it_failed_on(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Duplicated over one cluster affinity (member1 and member2), a 2s toleration: member1 is evicted
    once, and once its task is dropped the scheduler keeps the workload on member2 — it remembers the
    failure (`application-failed-on`) instead of placing it straight back, which made the failover
    repeat every few seconds."""
    placement = {
        "clusterAffinity": {"clusterNames": ["member1", "member2"]},
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    policy = propagation_policy(
        "api",
        [resource_selector("Deployment", "api")],
        placement,
        propagateDeps=True,
        failover=application_failover(2, "Directly"),
    )
    with watching(hub, "resourcebindings", "-n", ns) as bindings:
        hub.apply_yaml([failing_deployment("api", 1), policy], "-n", ns)

        def versions() -> list[dict[str, Any]]:
            return [b for b in bindings.seen() if b["metadata"]["name"] == "api-deployment"]

        def settled_after_the_task(found: dict[str, Any]) -> bool:
            status = found.get("status") or {}
            return (
                "member1" in annotation(found, FAILED_ON)
                and not tasks(found)
                and status.get("schedulerObservedGeneration") == found["metadata"]["generation"]
            )

        eventually(
            lambda: any(targets(b) == {"member1": 1, "member2": 1} for b in versions()),
            what="on both members",
        )
        settled = eventually(
            lambda: binding(hub, ns, "api"),
            until=settled_after_the_task,
            what="member1's task dropped and the binding scheduled again after it",
        )
        assert targets(settled) == {"member2": 1}, "placed back on the cluster it failed on"
        eventually(lambda: ready_on(members, ns, "api") == {"member2": 1}, what="1 ready on member2")
        seen = versions()
    evicted = next(i for i, b in enumerate(seen) if "member1" in tasks(b))
    assert not any("member1" in targets(b) for b in seen[evicted:]), "member1 came back after its eviction"
    assert "member1" not in member_deployments(members, ns, "api")
    assert "member1" in annotation(binding(hub, ns, "api"), FAILED_ON)


def test_never_keeps_the_failed_copy_until_a_person_lets_it_go(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Divided 1:1, purgeMode Never: member2 takes both replicas while member1's copy stays as it
    was (same UID) with `suppressDeletion: true`; setting it to false lets the copy go."""
    placement = {
        "clusterAffinity": {"clusterNames": ["member1", "member2"]},
        "replicaScheduling": static_weights({"member1": 1, "member2": 1}),
    }
    policy = propagation_policy(
        "batch",
        [resource_selector("Deployment", "batch")],
        placement,
        propagateDeps=True,
        failover=application_failover(4, "Never"),
    )
    hub.apply_yaml([failing_deployment("batch", 2), policy], "-n", ns)
    eventually(lambda: replicas_on(members, ns, "batch") == {"member1": 1, "member2": 1}, what="1:1")
    member1_uid = members["member1"].json("get", "deploy", "batch", "-n", ns)["metadata"]["uid"]

    task = eventually(
        lambda: tasks(binding(hub, ns, "batch")).get("member1"), what="an eviction task for member1"
    )
    assert task["purgeMode"] == "Never"
    assert task["suppressDeletion"] is True
    assert "preservedLabelState" not in task
    eventually(lambda: targets(binding(hub, ns, "batch")) == {"member2": 2}, what="both replicas on member2")
    eventually(lambda: ready_on(members, ns, "batch").get("member2") == 2, what="2 ready on member2")
    kept = members["member1"].json("get", "deploy", "batch", "-n", ns)
    assert kept["metadata"]["uid"] == member1_uid
    assert kept["spec"]["replicas"] == 1

    position = list(tasks(binding(hub, ns, "batch"))).index("member1")
    confirm = [
        {"op": "replace", "path": f"/spec/gracefulEvictionTasks/{position}/suppressDeletion", "value": False}
    ]
    hub("patch", "resourcebinding", "batch-deployment", "-n", ns, "--type=json", "-p", json.dumps(confirm))
    eventually(lambda: "member1" not in tasks(binding(hub, ns, "batch")), what="the task finished")
    eventually(lambda: "member1" not in member_deployments(members, ns, "batch"), what="member1's copy gone")
    assert targets(binding(hub, ns, "batch")) == {"member2": 2}


def test_a_toleration_outlives_a_restart_of_the_controller_manager(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The controller manager is restarted while member1's toleration runs: the failover after the
    restart dates the unhealthy copy from the moment recorded before it, not from the restart
    (Karmada keeps that moment in memory and starts over)."""
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["member1"]},
            {"affinityName": "backup", "clusterNames": ["member2"]},
        ],
        "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
    }
    policy = propagation_policy(
        "stream",
        [resource_selector("Deployment", "stream")],
        placement,
        propagateDeps=True,
        failover=application_failover(8, "Directly"),
    )
    hub.apply_yaml([failing_deployment("stream", 1), policy], "-n", ns)
    recorded = eventually(
        lambda: annotation(binding(hub, ns, "stream"), UNHEALTHY_SINCE).get("member1"),
        what="the toleration of member1 recorded on the binding",
    )
    federation.manager.stop()
    federation.manager.start()
    restarted = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    task = eventually(lambda: tasks(binding(hub, ns, "stream")).get("member1"), what="member1 evicted")
    since = recorded.split(".")[0] + "Z"
    assert since < restarted  # so a toleration started over could not claim this moment
    assert f"(since {since})" in task["message"], task["message"]
    eventually(lambda: ready_on(members, ns, "stream") == {"member2": 1}, what="running on member2")
