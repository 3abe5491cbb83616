"""Works folded into a binding's aggregatedStatus and FullyApplied condition."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flotilla.controllers.status.aggregation import (
    aggregated_status,
    fully_applied,
    fully_applied_condition,
    scheduled_items,
)

TEMPLATE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default"},
}
IDENTIFIER = {
    "ordinal": 0,
    "group": "apps",
    "version": "v1",
    "kind": "Deployment",
    "resource": "deployments",
    "namespace": "default",
    "name": "nginx",
}
NOW = datetime(2026, 3, 1, tzinfo=UTC)


def work(applied: str | None, *statuses: dict[str, Any], message: str = "") -> dict[str, Any]:
    conditions = [] if applied is None else [{"type": "Applied", "status": applied, "message": message}]
    return {
        "metadata": {"name": "w"},
        "status": {"conditions": conditions, "manifestStatuses": list(statuses)},
    }


def test_applied_works_report_their_manifest_status_and_health() -> None:
    """An applied Work's status for the template's object becomes the cluster's item."""
    reported = {"identifier": IDENTIFIER, "status": {"readyReplicas": 1}, "health": "Healthy"}
    items = aggregated_status({"sz": work("True", reported)}, TEMPLATE)
    assert items == [
        {"clusterName": "sz", "status": {"readyReplicas": 1}, "applied": True, "health": "Healthy"}
    ]


def test_unapplied_works_report_the_failure_message() -> None:
    """A failed Work is applied false, with its message and Unknown health."""
    items = aggregated_status({"sz": work("False", message="conflict")}, TEMPLATE)
    assert items == [
        {"clusterName": "sz", "applied": False, "appliedMessage": "conflict", "health": "Unknown"}
    ]


def test_items_are_sorted_by_cluster_and_missing_works_skipped() -> None:
    """Clusters without a Work (yet) have no item; the rest are sorted by name."""
    items = aggregated_status({"sz": work("True"), "fz": work(None), "gz": None}, TEMPLATE)
    assert [item["clusterName"] for item in items] == ["fz", "sz"]
    assert items[1] == {"clusterName": "sz", "applied": True, "health": "Unknown"}


def test_statuses_of_other_objects_are_not_the_templates() -> None:
    """A manifest status for another object in the Work is ignored."""
    other = {
        "identifier": {**IDENTIFIER, "name": "other"},
        "status": {"readyReplicas": 9},
        "health": "Healthy",
    }
    assert "status" not in aggregated_status({"sz": work("True", other)}, TEMPLATE)[0]


def test_fully_applied_needs_every_target_applied() -> None:
    """All targets need an applied item; a missing or failed one makes it False."""
    applied = [{"clusterName": "sz", "applied": True}, {"clusterName": "fz", "applied": True}]
    assert fully_applied(["sz", "fz"], applied)
    assert not fully_applied(["sz", "fz", "gz"], applied)
    assert not fully_applied(["sz", "fz"], [applied[0], {"clusterName": "fz", "applied": False}])
    assert not fully_applied([], [])


def test_fully_applied_condition_keeps_its_time_while_unchanged() -> None:
    """FullyApplied is stamped when its status changes and keeps that time afterwards."""
    items = [{"clusterName": "sz", "applied": True}]
    first = fully_applied_condition({}, ["sz"], items, NOW)
    assert (first["status"], first["reason"]) == ("True", "FullyAppliedSuccess")
    assert first["lastTransitionTime"] == "2026-03-01T00:00:00Z"
    binding = {"status": {"conditions": [{"type": "Scheduled", "status": "True"}, first]}}
    later = datetime(2027, 1, 1, tzinfo=UTC)
    assert fully_applied_condition(binding, ["sz"], items, later) == first
    failed = fully_applied_condition(binding, ["sz", "fz"], items, later)
    assert (failed["status"], failed["reason"]) == ("False", "FullyAppliedFailed")
    assert failed["lastTransitionTime"] == "2027-01-01T00:00:00Z"


def test_a_target_without_a_work_yet_counts_as_a_copy_not_applied() -> None:
    """The template's status is folded over every target: one whose Work is missing is not applied."""
    reported = {"identifier": IDENTIFIER, "status": {"readyReplicas": 1}, "health": "Healthy"}
    items = aggregated_status({"sz": work("True", reported), "fz": None}, TEMPLATE)
    assert [item["clusterName"] for item in items] == ["sz"]
    assert scheduled_items(["sz", "fz", "gz"], items) == [
        {"clusterName": "fz", "applied": False, "health": "Unknown"},
        {"clusterName": "gz", "applied": False, "health": "Unknown"},
        items[0],
    ]
    assert scheduled_items(["sz"], items) == items
