"""The dashboard's pure summaries: overview tiles, workload states, paging, policies and the timeline."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.dashboard import fleet, timeline, workloads


def cluster(
    name: str, ready: str | None, *, nodes: int = 2, cpu: str = "8", used: str = "500m"
) -> dict[str, Any]:
    conditions = (
        []
        if ready is None
        else [
            {
                "type": "Ready",
                "status": ready,
                "reason": "R",
                "message": "m",
                "lastTransitionTime": f"2026-01-01T00:00:0{len(name)}Z",
            }
        ]
    )
    return {
        "metadata": {"name": name},
        "spec": {"syncMode": "Push", "taints": []},
        "status": {
            "conditions": conditions,
            "nodeSummary": {"totalNum": nodes, "readyNum": nodes - 1},
            "resourceSummary": {
                "allocatable": {"cpu": cpu, "memory": "1Gi", "pods": "110"},
                "allocated": {"cpu": used, "memory": "512Mi", "pods": "3"},
            },
        },
    }


def binding(
    name: str,
    *,
    scheduled: bool = True,
    targets: tuple[str, ...] = ("m1", "m2"),
    health: str = "Healthy",
    applied: bool = True,
    fully_applied: bool = True,
) -> dict[str, Any]:
    conditions = [{"type": "Scheduled", "status": "True" if scheduled else "False"}]
    if fully_applied:
        conditions.append({"type": "FullyApplied", "status": "True"})
    return {
        "metadata": {
            "name": f"{name}-deployment",
            "namespace": "default",
            "annotations": {
                "propagationpolicy.karmada.io/name": "pp",
                "propagationpolicy.karmada.io/namespace": "default",
            },
        },
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "default", "name": name},
            "clusters": [{"name": target, "replicas": 1} for target in targets],
        },
        "status": {
            "conditions": conditions,
            "aggregatedStatus": [{"clusterName": t, "applied": applied, "health": health} for t in targets],
        },
    }


def test_overview_counts_clusters_by_state_and_adds_up_resources() -> None:
    """Quantities are summed exactly (500m + 500m is 1 CPU) and every state is counted."""
    summary = fleet.overview([cluster("a", "True"), cluster("bb", "False"), cluster("ccc", None)])
    assert summary["clusters"] == {"total": 3, "Ready": 1, "NotReady": 1, "Unknown": 1}
    assert summary["nodes"] == {"ready": 3, "total": 6}
    assert summary["resources"]["cpu"] == {"allocated": 1.5, "total": 24}
    assert summary["resources"]["memory"] == {"allocated": 3 * 512 * 2**20, "total": 3 * 2**30}


def test_a_cluster_row_has_the_lease_age_and_the_cordon() -> None:
    item = cluster("a", "True")
    item["spec"]["taints"] = [{"key": "cluster.karmada.io/unschedulable", "effect": "NoSchedule"}]
    lease = {"spec": {"renewTime": "2026-01-01T00:00:00.000000Z"}}
    row = fleet.cluster_row(item, lease, datetime(2026, 1, 1, 0, 0, 30, tzinfo=UTC))
    assert row["cordoned"] and row["leaseAgeSeconds"] == 30
    assert fleet.cluster_row(item, None, datetime.now(UTC))["leaseAgeSeconds"] is None


@pytest.mark.parametrize(
    ("item", "state"),
    [
        (binding("a"), "ready"),
        (binding("a", scheduled=False), "unscheduled"),
        (binding("a", targets=()), "unscheduled"),
        (binding("a", health="Unhealthy"), "failed"),
        (binding("a", applied=False, health=""), "failed"),
        (binding("a", fully_applied=False), "progressing"),
        (binding("a", health="Unknown"), "progressing"),
    ],
)
def test_workload_state(item: dict[str, Any], state: str) -> None:
    assert workloads.workload_state(item) == state


def test_a_workload_row_shows_its_policy_and_its_split() -> None:
    row = workloads.workload_row(binding("web"))
    assert row["policy"] == "default/pp" and row["state"] == "ready"
    assert [(c["name"], c["replicas"], c["health"]) for c in row["clusters"]] == [
        ("m1", 1, "Healthy"),
        ("m2", 1, "Healthy"),
    ]


def test_filters_and_pages() -> None:
    """Filtering happens before paging; the next offset ends at the last page."""
    items = [binding(f"w{i:02}", targets=("m1",) if i % 2 else ("m2",)) for i in range(25)]
    chosen = [item for item in items if workloads.WorkloadFilter(cluster="m1", search="w1").matches(item)]
    assert [item["spec"]["resource"]["name"] for item in chosen] == ["w11", "w13", "w15", "w17", "w19"]
    page, following = workloads.page_of(items, 0, 10)
    assert len(page) == 10 and following == 10
    page, following = workloads.page_of(items, 20, 10)
    assert len(page) == 5 and following is None
    assert len(workloads.page_of(items, 0, 10**6)[0]) == 25


def test_a_policy_row_lists_what_it_claimed() -> None:
    policy = {"kind": "PropagationPolicy", "metadata": {"name": "pp", "namespace": "default"}, "spec": {}}
    row = workloads.policy_row(
        policy, workloads.bindings_by_policy([binding("a"), binding("b", targets=("m3",))])
    )
    assert row["resourceCount"] == 2 and row["clusters"] == ["m1", "m2", "m3"]


def test_the_timeline_merges_events_and_cluster_transitions_newest_first() -> None:
    event = {
        "type": "Warning",
        "reason": "ApplyFailed",
        "message": "boom",
        "lastTimestamp": "2026-01-01T00:00:05Z",
        "involvedObject": {"kind": "Work", "name": "web-1", "namespace": "karmada-es-m2"},
    }
    down = cluster("m2", "False")
    down["spec"]["taints"] = [{"key": "cluster.karmada.io/unreachable", "effect": "NoExecute"}]
    entries = timeline.timeline([event], [down, cluster("m1", "True")])
    assert [(e["reason"], e["cluster"]) for e in entries] == [
        ("ApplyFailed", "m2"),
        ("ClusterNotReady", "m2"),
        ("ClusterReady", "m1"),
    ]
    assert "unreachable" in entries[1]["message"]
    assert [
        e["cluster"] for e in timeline.timeline([event], [down, cluster("m1", "True")], cluster="m1")
    ] == ["m1"]
    assert [e["reason"] for e in timeline.timeline([event], [], workload="web")] == ["ApplyFailed"]


def test_a_compact_binding_reads_as_the_binding() -> None:
    """What a session keeps of a binding gives the same row, state and policy, without the rest."""
    full = binding("web", health="Unhealthy")
    full["metadata"]["managedFields"] = [{"manager": "x"}]
    full["status"]["aggregatedStatus"][0]["status"] = {"replicas": 3}
    compact = workloads.compact_binding(full)
    assert workloads.workload_row(compact) == workloads.workload_row(full)
    assert "managedFields" not in compact["metadata"]
    assert "status" not in compact["status"]["aggregatedStatus"][0]
