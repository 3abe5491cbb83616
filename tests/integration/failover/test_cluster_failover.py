"""Cluster failover end to end: a NoExecute taint on a member moves its workloads, each purge mode.

A hub, three simulated Push members `m1` `m2` `m3` and the whole controller manager with its
failover defaults (Failover on, NoExecute eviction on, Gracefully) and a short
`--graceful-eviction-timeout`, so a task's grace period passes within a test. `m3` is tainted with
`flotilla taint clusters` and untainted when each test ends. Where a test needs the new placements
to stay unhealthy, an OverridePolicy gives the copies on `m1` and `m2` a nodeSelector no node
matches: their pods stay Pending, which the scheduler (reading only the template) cannot foresee.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from flotilla.api.times import format_time, timestamp
from tests.integration.failover.clusterfailover import (
    DUPLICATED,
    binding,
    deployment_policy,
    event_items,
    events,
    metrics,
    sample,
    tainted,
    targets,
    tasks,
    uid,
)
from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    deployment,
    members_named,
    ready_on,
    replicas_on,
    static_weights,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("m1", "m2", "m3")
GRACE = 12
"""Seconds of --graceful-eviction-timeout: long enough to look at a kept copy, short for a test."""
OUTAGE = "failover.flotilla.io/outage"
NO_EXECUTE = f"{OUTAGE}:NoExecute"


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("failover")
    manager_args = [*FAST_CLUSTER_STATUS, "--graceful-eviction-timeout", f"{GRACE}s"]
    with Federation(root, members_named(*MEMBERS), manager_args=manager_args) as federation:
        yield federation.start()


def evenly() -> dict[str, Any]:
    """Placement fields dividing replicas 1:1:1 over the members (1:1 over those left)."""
    return {"replicaScheduling": static_weights(dict.fromkeys(MEMBERS, 1))}


def unschedulable_on(name: str, clusters: list[str]) -> dict[str, Any]:
    """An OverridePolicy that keeps the pods of Deployment `name` Pending on `clusters`."""
    selector = {"path": "/spec/template/spec/nodeSelector", "operator": "add", "value": {OUTAGE: "nowhere"}}
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": f"{name}-pending"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
            "overrideRules": [
                {"targetCluster": {"clusterNames": clusters}, "overriders": {"plaintext": [selector]}}
            ],
        },
    }


def running_on(members: dict[str, Kubectl], ns: str, name: str, clusters: tuple[str, ...]) -> int:
    """Replicas Deployment `name` is given on `clusters`, together."""
    return sum(
        replicas for cluster, replicas in replicas_on(members, ns, name).items() if cluster in clusters
    )


def work_on(hub: Kubectl, cluster: str, ns: str, name: str) -> dict[str, Any] | None:
    """The Work that delivers Deployment `name` of `ns` to `cluster`, if there is one."""
    works = hub.json("get", "works", "-n", f"karmada-es-{cluster}")["items"]
    for work in works:
        manifest = work["spec"]["workload"]["manifests"][0]
        metadata = manifest["metadata"]
        if manifest["kind"] == "Deployment" and metadata["name"] == name and metadata.get("namespace") == ns:
            found: dict[str, Any] = work
            return found
    return None


def test_divided_replicas_leave_a_tainted_member_and_its_copy_goes_once_they_run_elsewhere(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """6 replicas 2/2/2; m3 tainted NoExecute: 3/3 on m1 and m2, READY 6/6, then m3's copy removed."""
    hub.apply_yaml([deployment("web", 6), deployment_policy("web", list(MEMBERS), evenly())], "-n", ns)
    eventually(lambda: ready_on(members, ns, "web") == dict.fromkeys(MEMBERS, 2), what="2 ready on each")
    with tainted(federation, "m3", NO_EXECUTE):
        eventually(
            lambda: replicas_on(members, ns, "web") == {"m1": 3, "m2": 3}, what="3/3 and m3's copy gone"
        )
        assert ready_on(members, ns, "web") == {"m1": 3, "m2": 3}, "the old copy went before the new ones ran"
        eventually(lambda: template_ready(hub, ns, "web") == "6/6", what="READY 6/6 on the hub")
        found = binding(hub, ns, "web")
        assert targets(found) == {"m1": 3, "m2": 3}
        assert tasks(found) == {}, "the task was dropped once healthy elsewhere"
        evicted = events(hub, ns, "TaintManagerEviction")
        assert len(evicted) == 1
        assert f"Evicted from cluster m3: cluster m3 has taint {NO_EXECUTE} (added " in evicted[0]
        assert "not tolerated by the placement" in evicted[0]
        assert "purgeMode Gracefully" in evicted[0]
        assert events(hub, ns, "TaintManagerEviction", kind="Deployment") == evicted
        dropped = events(hub, ns, "EvictWorkloadFromClusterSucceed")
        assert dropped == ["Evict from cluster m3 succeed: the workload is healthy on m1, m2."]
        assert events(hub, ns, "EvictWorkloadFromClusterSucceed", kind="Deployment") == dropped
        text = metrics(federation)
        labels = {"reason": "TaintUntolerated", "trigger": "untolerated", "purge_mode": "Gracefully"}
        assert sample(text, "flotilla_failover_evictions_total", **labels) >= 1
        assert sample(text, "flotilla_failover_eviction_tasks_dropped_total", why="HealthyElsewhere") >= 1
        assert sample(text, "flotilla_failover_taint_to_eviction_seconds_count") >= 1


def test_gracefully_keeps_the_old_copy_while_the_new_ones_are_unhealthy_until_the_grace_period(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The new copies never become ready: m3's copy serves, untouched, until the timeout drops the task."""
    manifests = [
        deployment("held", 3),
        deployment_policy("held", list(MEMBERS), evenly()),
        unschedulable_on("held", ["m1", "m2"]),
    ]
    hub.apply_yaml(manifests, "-n", ns)
    eventually(lambda: ready_on(members, ns, "held").get("m3") == 1, what="1 ready on m3")
    kept_uid = uid(members["m3"], "deploy", "held", "-n", ns)
    with tainted(federation, "m3", NO_EXECUTE):
        eventually(lambda: running_on(members, ns, "held", ("m1", "m2")) == 3, what="3 given to m1 and m2")
        task = tasks(binding(hub, ns, "held"))["m3"]
        assert task["purgeMode"] == "Gracefully"
        assert task["producer"] == "TaintManager"
        assert task["reason"] == "TaintUntolerated"
        assert task["replicas"] == 1
        assert NO_EXECUTE in task["message"]
        work = work_on(hub, "m3", ns, "held")
        assert work is not None and not work["metadata"].get("deletionTimestamp"), "m3's Work kept"
        assert work["spec"]["workload"]["manifests"][0]["spec"]["replicas"] == 1, "and not rendered again"
        assert uid(members["m3"], "deploy", "held", "-n", ns) == kept_uid
        eventually(
            lambda: uid(members["m3"], "deploy", "held", "-n", ns) is None, timeout=GRACE + 30, what="gone"
        )
        assert tasks(binding(hub, ns, "held")) == {}
        [dropped] = events(hub, ns, "EvictWorkloadFromClusterSucceed")
        since = task["creationTimestamp"]
        assert (
            dropped == f"Evict from cluster m3 succeed: its grace period of {GRACE}s since {since} ran out."
        )


def test_directly_removes_the_old_copy_at_once(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """failover.cluster.purgeMode Directly: m3's copy goes while the task still waits for health."""
    policy = deployment_policy(
        "direct", list(MEMBERS), evenly(), failover={"cluster": {"purgeMode": "Directly"}}
    )
    hub.apply_yaml([deployment("direct", 3), policy, unschedulable_on("direct", ["m1", "m2"])], "-n", ns)
    eventually(lambda: ready_on(members, ns, "direct").get("m3") == 1, what="1 ready on m3")
    with tainted(federation, "m3", NO_EXECUTE):
        eventually(lambda: uid(members["m3"], "deploy", "direct", "-n", ns) is None, what="m3's copy removed")
        task = tasks(binding(hub, ns, "direct")).get("m3")
        assert task is not None, "removed while the task still waits for the new copies"
        assert task["purgeMode"] == "Directly"
        assert "purgeMode Directly" in events(hub, ns, "TaintManagerEviction")[0]


def test_never_keeps_the_old_copy_until_a_person_sets_suppress_deletion_false(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A Never task (as application failover writes it) outlives its grace period and health elsewhere."""
    hub.apply_yaml([deployment("manual", 3), deployment_policy("manual", list(MEMBERS), evenly())], "-n", ns)
    eventually(lambda: ready_on(members, ns, "manual") == dict.fromkeys(MEMBERS, 1), what="1 ready on each")
    kept_uid = uid(members["m3"], "deploy", "manual", "-n", ns)
    never = {
        "fromCluster": "m3",
        "purgeMode": "Never",
        "suppressDeletion": True,
        "reason": "ApplicationFailure",
        "producer": "resource-binding-application-failover-controller",
        "message": "written by the test as application failover would",
    }
    placed = [{"name": "m1", "replicas": 1}, {"name": "m2", "replicas": 1}]
    patch = {"spec": {"clusters": placed, "gracefulEvictionTasks": [never]}}
    hub("patch", "resourcebinding", "manual-deployment", "-n", ns, "--type=merge", "-p", json.dumps(patch))
    eventually(lambda: running_on(members, ns, "manual", ("m1", "m2")) == 3, what="3 given to m1 and m2")
    stamped = eventually(
        lambda: tasks(binding(hub, ns, "manual"))["m3"].get("creationTimestamp"), what="the task stamped"
    )
    created = timestamp(stamped)
    assert created is not None
    past_grace = created + timedelta(seconds=GRACE + 2)
    time.sleep(max(0.0, (past_grace - datetime.now(UTC)).total_seconds()))  # nothing may happen meanwhile
    assert "m3" in tasks(binding(hub, ns, "manual")), "kept past the grace period, healthy elsewhere"
    assert uid(members["m3"], "deploy", "manual", "-n", ns) == kept_uid
    confirm = [{"op": "replace", "path": "/spec/gracefulEvictionTasks/0/suppressDeletion", "value": False}]
    hub("patch", "resourcebinding", "manual-deployment", "-n", ns, "--type=json", "-p", json.dumps(confirm))
    eventually(lambda: uid(members["m3"], "deploy", "manual", "-n", ns) is None, what="m3's copy removed")
    assert events(hub, ns, "EvictWorkloadFromClusterSucceed") == [
        "Evict from cluster m3 succeed: deletion confirmed (suppressDeletion set to false)."
    ]


def test_duplicated_leaves_at_once_without_a_toleration_and_after_its_seconds_with_one(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """m3 tainted NoSchedule+NoExecute (as not-ready is): strict goes now, tolerant after 6s, neither back."""
    seconds = 6
    toleration = {"key": OUTAGE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds}
    hub.apply_yaml(
        [
            deployment("strict", 1),
            deployment_policy("strict", list(MEMBERS), DUPLICATED),
            deployment("tolerant", 1),
            deployment_policy("tolerant", list(MEMBERS), {**DUPLICATED, "clusterTolerations": [toleration]}),
        ],
        "-n",
        ns,
    )
    for name in ("strict", "tolerant"):
        eventually(
            lambda name=name: ready_on(members, ns, name) == dict.fromkeys(MEMBERS, 1), what=f"{name} on all"
        )
    with tainted(federation, "m3", f"{OUTAGE}:NoSchedule", NO_EXECUTE):
        eventually(lambda: set(targets(binding(hub, ns, "strict"))) == {"m1", "m2"}, what="strict evicted")
        assert "m3" in targets(binding(hub, ns, "tolerant")), "the tolerant one stays while tolerated"
        eventually(
            lambda: set(targets(binding(hub, ns, "tolerant"))) == {"m1", "m2"}, what="tolerant evicted"
        )
        added = next(
            timestamp(t["timeAdded"])
            for t in hub.json("get", "cluster", "m3")["spec"]["taints"]
            if t["key"] == OUTAGE and t["effect"] == "NoExecute"
        )
        assert added is not None
        [evicted] = [
            e
            for e in event_items(hub, ns, "TaintManagerEviction")
            if e["involvedObject"]["name"] == "tolerant-deployment"
        ]
        evicted_at = timestamp(evicted["firstTimestamp"])
        assert evicted_at is not None and evicted_at >= added + timedelta(seconds=seconds), (
            "evicted too early"
        )
        assert (
            f"its toleration ended at {format_time(added + timedelta(seconds=seconds))}" in evicted["message"]
        )
        [scheduled] = events(hub, ns, "EvictionScheduled")
        assert (
            f"the placement tolerates it until {format_time(added + timedelta(seconds=seconds))}" in scheduled
        )
        for name in ("strict", "tolerant"):
            eventually(
                lambda name=name: set(replicas_on(members, ns, name)) == {"m1", "m2"}, what=f"{name} off m3"
            )
        assert set(targets(binding(hub, ns, "strict"))) == {"m1", "m2"}, "not placed back on the tainted m3"
        assert set(targets(binding(hub, ns, "tolerant"))) == {"m1", "m2"}


def test_a_tolerant_duplicated_binding_is_not_placed_back_once_its_toleration_ran_out(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """m3 tainted NoExecute only, tolerated for 2s: evicted once, and after the task is dropped the
    scheduler keeps the binding off m3 — a toleration that ran out no longer admits a cluster the
    binding is not on (Karmada's scheduler puts it straight back, and the eviction repeats)."""
    toleration = {"key": OUTAGE, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 2}
    policy = deployment_policy("brief", list(MEMBERS), {**DUPLICATED, "clusterTolerations": [toleration]})
    hub.apply_yaml([deployment("brief", 1), policy], "-n", ns)
    eventually(lambda: ready_on(members, ns, "brief") == dict.fromkeys(MEMBERS, 1), what="brief on all")

    def settled_after_the_task() -> dict[str, Any] | None:
        # The Event first, the binding after it: a binding read before the eviction (no task, its
        # result observed, m3 still in it) must not pass for one read after the task was dropped.
        if not events(hub, ns, "EvictWorkloadFromClusterSucceed"):
            return None
        found = binding(hub, ns, "brief")
        status = found.get("status") or {}
        if tasks(found) or status.get("schedulerObservedGeneration") != found["metadata"]["generation"]:
            return None
        return found

    with tainted(federation, "m3", NO_EXECUTE):
        settled = eventually(
            settled_after_the_task, what="m3's task dropped and the binding scheduled again after it"
        )
        assert set(targets(settled)) == {"m1", "m2"}, "placed back on m3 after its toleration ran out"
        eventually(lambda: set(replicas_on(members, ns, "brief")) == {"m1", "m2"}, what="brief off m3")
        assert set(targets(binding(hub, ns, "brief"))) == {"m1", "m2"}
        assert len(events(hub, ns, "TaintManagerEviction")) == 1, "evicted more than once"
