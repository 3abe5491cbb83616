"""Counting a Deployment's unschedulable replicas on a member, from its ReplicaSets and pods."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.api.times import format_time
from flotilla.controllers.descheduler.unschedulable import (
    newest_replica_set,
    unschedulable_pods,
    unschedulable_replicas,
)

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
DEPLOYMENT = {"metadata": {"name": "web", "namespace": "shop", "uid": "deploy-uid"}}


def owned(uid: str, owner: str, **metadata: Any) -> dict[str, Any]:
    reference = {"apiVersion": "apps/v1", "kind": "X", "name": "x", "uid": owner, "controller": True}
    return {"metadata": {"uid": uid, "ownerReferences": [reference], **metadata}}


def replica_set(
    uid: str, revision: str, created: str = "2026-01-01T00:00:00Z", owner: str = "deploy-uid"
) -> dict[str, Any]:
    return owned(
        uid, owner, annotations={"deployment.kubernetes.io/revision": revision}, creationTimestamp=created
    )


def pending(
    owner: str, seconds_ago: float, *, reason: str = "Unschedulable", status: str = "False"
) -> dict[str, Any]:
    pod = owned(f"pod-{owner}-{seconds_ago}", owner)
    since = format_time(NOW - timedelta(seconds=seconds_ago))
    condition = {"type": "PodScheduled", "status": status, "reason": reason, "lastTransitionTime": since}
    pod["status"] = {"phase": "Pending", "conditions": [condition]}
    return pod


def test_the_newest_replica_set_has_the_highest_revision() -> None:
    """Of the ReplicaSets the Deployment controls, the highest revision; another owner's never."""
    sets = [
        replica_set("rs-1", "1"),
        replica_set("rs-3", "3"),
        replica_set("rs-2", "10", owner="someone-else"),
    ]
    found = newest_replica_set(DEPLOYMENT, sets)
    assert found is not None and found["metadata"]["uid"] == "rs-3"
    assert newest_replica_set(DEPLOYMENT, [replica_set("rs-x", "1", owner="someone-else")]) is None


def test_on_a_revision_tie_the_latest_created_wins() -> None:
    sets = [replica_set("old", "2", "2026-01-01T00:00:00Z"), replica_set("new", "2", "2026-01-01T01:00:00Z")]
    found = newest_replica_set(DEPLOYMENT, sets)
    assert found is not None and found["metadata"]["uid"] == "new"


def test_pods_unschedulable_past_the_threshold_count() -> None:
    """PodScheduled=False, reason Unschedulable, for longer than the threshold — nothing else."""
    owner = replica_set("rs-1", "1")
    pods = [
        pending("rs-1", 400),
        pending("rs-1", 301),
        pending("rs-1", 100),  # not long enough yet
        pending("rs-1", 400, reason="SchedulingGated"),
        pending("rs-1", 400, status="True"),
        pending("rs-other", 400),  # another ReplicaSet's
    ]
    assert unschedulable_pods(pods, owner, NOW, 300) == 2


def test_only_the_newest_replica_sets_pods_count() -> None:
    """An old ReplicaSet's pending pods are a rollout, not a lack of room."""
    sets = [replica_set("rs-1", "1"), replica_set("rs-2", "2")]
    pods = [pending("rs-1", 400), pending("rs-2", 400), pending("rs-2", 400.5)]
    assert unschedulable_replicas(DEPLOYMENT, sets, pods, NOW, 60) == 2


def test_without_a_replica_set_there_is_no_answer() -> None:
    """None rather than 0: the member cannot tell yet."""
    assert unschedulable_replicas(DEPLOYMENT, [], [pending("rs-1", 400)], NOW, 60) is None
