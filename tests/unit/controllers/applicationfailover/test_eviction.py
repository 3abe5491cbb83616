"""The eviction task per purge mode, the one patch that writes it, and the records kept on the binding."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.api.karmada.policy import ApplicationFailoverBehavior
from flotilla.controllers.applicationfailover.eviction import (
    Eviction,
    eviction_message,
    eviction_task,
    failover_patch,
)
from flotilla.controllers.applicationfailover.records import UNHEALTHY_SINCE_ANNOTATION, annotation_changes

NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


def behavior(**fields: Any) -> ApplicationFailoverBehavior:
    return ApplicationFailoverBehavior.from_object(
        {"decisionConditions": {"tolerationSeconds": 60}, **fields}
    )


def task(policy: ApplicationFailoverBehavior, state: dict[str, str] | None = None) -> dict[str, Any]:
    return eviction_task(
        policy,
        cluster="member1",
        replicas=3,
        message="m",
        preserved_label_state=state,
        clusters_before_failover=["member1", "member2"],
        now=NOW,
    )


def test_a_direct_purge_task() -> None:
    assert task(behavior(purgeMode="Directly")) == {
        "fromCluster": "member1",
        "purgeMode": "Directly",
        "reason": "ApplicationFailure",
        "message": "m",
        "producer": "resource-binding-application-failover-controller",
        "replicas": 3,
        "creationTimestamp": "2026-03-01T12:00:00Z",
    }


def test_a_graceful_purge_carries_its_grace_period() -> None:
    """The policy's, or Karmada's 600 s when a binding arrives without the admission defaults."""
    assert task(behavior(purgeMode="Gracefully", gracePeriodSeconds=120))["gracePeriodSeconds"] == 120
    assert task(behavior())["purgeMode"] == "Gracefully"
    assert task(behavior())["gracePeriodSeconds"] == 600


def test_never_suppresses_deletion_until_a_person_says_otherwise() -> None:
    never = task(behavior(purgeMode="Never"))
    assert never["suppressDeletion"] is True
    assert "gracePeriodSeconds" not in never


def test_preserved_state_comes_with_the_clusters_before_the_failover() -> None:
    with_state = task(behavior(purgeMode="Directly"), {"example.io/job-id": "job-2"})
    assert with_state["preservedLabelState"] == {"example.io/job-id": "job-2"}
    assert with_state["clustersBeforeFailover"] == ["member1", "member2"]
    assert "clustersBeforeFailover" not in task(behavior(purgeMode="Directly"))


def test_no_replicas_are_recorded_for_a_copy_that_had_none() -> None:
    none = eviction_task(
        behavior(purgeMode="Directly"),
        cluster="member1",
        replicas=0,
        message="m",
        preserved_label_state=None,
        clusters_before_failover=["member1"],
        now=NOW,
    )
    assert "replicas" not in none


def test_the_message_says_which_cluster_and_how_long() -> None:
    message = eviction_message("member1", NOW - timedelta(seconds=150), NOW, 120)
    assert message == (
        "the application on cluster member1 has been unhealthy for 2m30s (since 2026-03-01T11:57:30Z), "
        "longer than its toleration of 120s"
    )


def test_one_patch_evicts_every_due_cluster_against_the_version_read() -> None:
    binding = {
        "metadata": {"name": "web-deployment", "namespace": "apps", "resourceVersion": "42"},
        "spec": {
            "clusters": [{"name": "member1", "replicas": 2}, {"name": "member2", "replicas": 1}],
            "gracefulEvictionTasks": [
                {"fromCluster": "member3", "reason": "TaintUntolerated", "producer": "x"}
            ],
        },
    }
    new_task = {"fromCluster": "member1", "reason": "ApplicationFailure", "producer": "y"}
    patch = failover_patch(binding, [Eviction("member1", new_task)], {UNHEALTHY_SINCE_ANNOTATION: None})
    assert patch == {
        "metadata": {"resourceVersion": "42", "annotations": {UNHEALTHY_SINCE_ANNOTATION: None}},
        "spec": {
            "clusters": [{"name": "member2", "replicas": 1}],
            "gracefulEvictionTasks": [
                {"fromCluster": "member3", "reason": "TaintUntolerated", "producer": "x"},
                new_task,
            ],
        },
    }


def test_records_alone_are_not_pinned_to_a_version() -> None:
    """A record from a stale read is corrected by the next reconcile; pinning would race status writes."""
    binding = {"metadata": {"resourceVersion": "42"}, "spec": {"clusters": [{"name": "member1"}]}}
    assert failover_patch(binding, [], {UNHEALTHY_SINCE_ANNOTATION: "{}"}) == {
        "metadata": {"annotations": {UNHEALTHY_SINCE_ANNOTATION: "{}"}}
    }


def test_only_changed_records_are_written() -> None:
    annotations = {UNHEALTHY_SINCE_ANNOTATION: "{}", "other": "x"}
    assert annotation_changes(annotations, {UNHEALTHY_SINCE_ANNOTATION: "{}"}) == {}
    assert annotation_changes(annotations, {UNHEALTHY_SINCE_ANNOTATION: None, "absent": None}) == {
        UNHEALTHY_SINCE_ANNOTATION: None
    }
