"""How many replicas of a Deployment a member cannot schedule (Karmada's `GetUnschedulablePodsOfWorkload`).

What Karmada's estimator answers to the descheduler, as a function of the member's objects:

- the Deployment's newest ReplicaSet: of the ReplicaSets it controls (owner reference with
  `controller: true` and its uid), the one with the highest `deployment.kubernetes.io/revision`
  (the member's deployment controller gives the ReplicaSet of the current template the highest
  revision, which is kube's `FindNewReplicaSet` once the rollout has started), the most recently
  created on a tie;
- its pods (controlled by that ReplicaSet) whose `PodScheduled` condition is False with reason
  `Unschedulable` since longer than the threshold: the member's scheduler has found no node for
  them for that long. Pods of older ReplicaSets are left out: a rollout in progress is not a lack
  of room.

No ReplicaSet yet answers None ("cannot tell"), not 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.api.conditions import find_condition
from flotilla.api.objects import controller_of, metadata_of
from flotilla.api.times import timestamp

REVISION_ANNOTATION = "deployment.kubernetes.io/revision"
POD_SCHEDULED = "PodScheduled"
UNSCHEDULABLE_REASON = "Unschedulable"
_NEVER = datetime.min.replace(tzinfo=UTC)


def newest_replica_set(
    deployment: Mapping[str, Any], replica_sets: Iterable[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """The ReplicaSet of the Deployment's current revision, or None when it controls none."""
    owned = [replica_set for replica_set in replica_sets if _controlled_by(replica_set, deployment)]
    if not owned:
        return None
    return max(owned, key=lambda replica_set: (_revision(replica_set), _created(replica_set)))


def unschedulable_pods(
    pods: Iterable[Mapping[str, Any]], owner: Mapping[str, Any], now: datetime, threshold: float
) -> int:
    """How many of `owner`'s pods have been unschedulable for longer than `threshold` seconds."""
    limit = timedelta(seconds=max(threshold, 0.0))
    count = 0
    for pod in pods:
        if not _controlled_by(pod, owner):
            continue
        condition = find_condition((pod.get("status") or {}).get("conditions"), POD_SCHEDULED)
        if condition is None or condition.get("status") != "False":
            continue
        if condition.get("reason") != UNSCHEDULABLE_REASON:
            continue
        since = timestamp(condition.get("lastTransitionTime"))
        if since is not None and since + limit < now:
            count += 1
    return count


def unschedulable_replicas(
    deployment: Mapping[str, Any],
    replica_sets: Iterable[Mapping[str, Any]],
    pods: Iterable[Mapping[str, Any]],
    now: datetime,
    threshold: float,
) -> int | None:
    """Unschedulable pods of the Deployment's newest ReplicaSet; None without a ReplicaSet."""
    replica_set = newest_replica_set(deployment, replica_sets)
    if replica_set is None:
        return None
    return unschedulable_pods(pods, replica_set, now, threshold)


def _controlled_by(obj: Mapping[str, Any], owner: Mapping[str, Any]) -> bool:
    reference = controller_of(obj)
    uid = metadata_of(owner).get("uid")
    return reference is not None and bool(uid) and reference.get("uid") == uid


def _revision(replica_set: Mapping[str, Any]) -> int:
    annotations = metadata_of(replica_set).get("annotations") or {}
    try:
        return int(str(annotations.get(REVISION_ANNOTATION, "0")))
    except ValueError:
        return 0


def _created(replica_set: Mapping[str, Any]) -> datetime:
    return timestamp(metadata_of(replica_set).get("creationTimestamp")) or _NEVER
