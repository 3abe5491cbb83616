"""The Works a FederatedResourceQuota's assignments become, and the status its controller writes."""

from __future__ import annotations

from typing import Any

from flotilla.controllers.federatedquota.status import cluster_status, quota_status
from flotilla.controllers.federatedquota.works import assignments, is_quota_work, quota_work, work_up_to_date

QUOTA: dict[str, Any] = {
    "metadata": {"name": "team-a", "namespace": "apps"},
    "spec": {
        "overall": {"cpu": "10"},
        "staticAssignments": [
            {"clusterName": "m1", "hard": {"cpu": "6"}},
            {"clusterName": "m2", "hard": {"cpu": "4"}},
        ],
    },
}


def applied_work(cluster: str, reflected: dict[str, Any] | None, applied: str = "True") -> dict[str, Any]:
    work = quota_work(QUOTA, cluster, {"cpu": "6"})
    work["status"] = {"conditions": [{"type": "Applied", "status": applied}]}
    if reflected is not None:
        work["status"]["manifestStatuses"] = [{"status": reflected}]
    return work


def test_an_assignment_becomes_a_work_carrying_a_resource_quota_of_the_quotas_name() -> None:
    work = quota_work(QUOTA, "m1", {"cpu": "6"})
    assert work["metadata"]["namespace"] == "karmada-es-m1"
    assert work["metadata"]["finalizers"] == ["karmada.io/execution-controller"]
    assert is_quota_work(work, "apps", "team-a") and not is_quota_work(work, "apps", "team-b")
    (manifest,) = work["spec"]["workload"]["manifests"]
    assert (manifest["kind"], manifest["metadata"]["name"], manifest["metadata"]["namespace"]) == (
        "ResourceQuota",
        "team-a",
        "apps",
    )
    assert manifest["spec"] == {"hard": {"cpu": "6"}}
    assert manifest["metadata"]["labels"] == {"karmada.io/managed": "true"}
    assert work_up_to_date(work, quota_work(QUOTA, "m1", {"cpu": "6"}))
    assert not work_up_to_date(work, quota_work(QUOTA, "m1", {"cpu": "5"}))


def test_assignments_are_read_by_cluster_first_one_winning() -> None:
    quota = {
        "spec": {"staticAssignments": [{"clusterName": "m1", "hard": {"cpu": "1"}}, {"clusterName": "m1"}]}
    }
    assert assignments(quota) == {"m1": {"cpu": "1"}}
    assert assignments({"spec": {}}) == {}


def test_a_cluster_status_comes_only_from_an_applied_work_with_a_reflected_status() -> None:
    reflected = {"hard": {"cpu": "6"}, "used": {"cpu": "1500m"}}
    assert cluster_status(applied_work("m1", reflected)) == {"clusterName": "m1", **reflected}
    assert cluster_status(applied_work("m1", reflected, applied="False")) is None
    assert cluster_status(applied_work("m1", None)) is None


def test_the_status_echoes_overall_sums_the_bindings_and_orders_clusters_by_name() -> None:
    works = [
        applied_work("m2", {"hard": {"cpu": "4"}, "used": {"cpu": "0"}}),
        applied_work("m1", {"hard": {"cpu": "6"}, "used": {"cpu": "1"}}),
    ]
    bindings = [
        {
            "spec": {
                "replicaRequirements": {"resourceRequest": {"cpu": "500m"}},
                "clusters": [{"name": "m1", "replicas": 2}],
            }
        }
    ]
    status = quota_status(QUOTA, works, bindings)
    assert status["overall"] == {"cpu": "10"}
    assert status["overallUsed"] == {"cpu": "1"}
    assert [entry["clusterName"] for entry in status["aggregatedStatus"]] == ["m1", "m2"]
    assert "overallUsed" not in quota_status(QUOTA, [], [])
