"""The annotations a Deployment keeps on itself and its ReplicaSets (kube's `deployment/util`).

- `deployment.kubernetes.io/revision`: each ReplicaSet's rollout number; the new ReplicaSet gets
  one more than the highest old one, and the Deployment mirrors its new ReplicaSet's. A ReplicaSet
  brought back by a rollback (`kubectl rollout undo`) gets a new number and remembers its former
  ones in `deployment.kubernetes.io/revision-history`.
- Old ReplicaSets beyond `revisionHistoryLimit` are deleted, lowest revision first, once scaled
  down.
- `deployment.kubernetes.io/desired-replicas` / `max-replicas`: the Deployment's replicas and
  replicas + surge when the ReplicaSet was last sized, which proportional scaling reads.
- The Deployment's own annotations are copied onto its new ReplicaSet, except these and
  `kubectl.kubernetes.io/last-applied-configuration`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
ROLLBACK_TO = "deprecated.deployment.rollback.to"
_NOT_COPIED = frozenset(
    {REVISION, REVISION_HISTORY, DESIRED_REPLICAS, MAX_REPLICAS, LAST_APPLIED, ROLLBACK_TO}
)
REVISION_HISTORY_LIMIT_CHARS = 2000
"""Longest `revision-history` value kube keeps (it drops the oldest numbers first)."""


def annotations_of(obj: Mapping[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def annotation_int(obj: Mapping[str, Any], key: str) -> int | None:
    text = annotations_of(obj).get(key)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def revision(obj: Mapping[str, Any]) -> int:
    return annotation_int(obj, REVISION) or 0


def max_revision(replica_sets: Iterable[Mapping[str, Any]]) -> int:
    return max((revision(rs) for rs in replica_sets), default=0)


def _copy_deployment_annotations(deployment: Mapping[str, Any], target: dict[str, str]) -> bool:
    changed = False
    for key, value in annotations_of(deployment).items():
        if key in _NOT_COPIED or target.get(key) == value:
            continue
        target[key] = value
        changed = True
    return changed


def _remember_revision(target: dict[str, str], old_revision: str) -> None:
    history = target.get(REVISION_HISTORY, "")
    if not history:
        target[REVISION_HISTORY] = old_revision
        return
    kept = history.split(",")
    length = len(history) + len(old_revision) + 1
    start = 0
    while length > REVISION_HISTORY_LIMIT_CHARS and start < len(kept):
        length -= len(kept[start]) + 1
        start += 1
    if length <= REVISION_HISTORY_LIMIT_CHARS:
        target[REVISION_HISTORY] = ",".join([*kept[start:], old_revision])


def set_new_replica_set_annotations(
    deployment: Mapping[str, Any], replica_set: dict[str, Any], new_revision: int, *, exists: bool, surge: int
) -> bool:
    """Bring the new ReplicaSet's annotations up to date; whether anything changed."""
    meta = replica_set.setdefault("metadata", {})
    target: dict[str, str] = dict(meta.get("annotations") or {})
    changed = _copy_deployment_annotations(deployment, target)
    old_text = target.get(REVISION)
    try:
        old_revision = int(old_text) if old_text is not None else 0
    except ValueError:
        return changed  # kube leaves a ReplicaSet with an unreadable revision alone
    if old_revision < new_revision:
        target[REVISION] = str(new_revision)
        changed = True
        if old_text is not None:
            _remember_revision(target, old_text)
    if not exists:
        desired = int(deployment["spec"].get("replicas", 1))
        changed = set_replicas_annotations(target, desired, desired + surge) or changed
    if changed:
        meta["annotations"] = target
    return changed


def surplus_history(
    deployment: Mapping[str, Any], old: Iterable[Mapping[str, Any]], new: Mapping[str, Any] | None
) -> list[Mapping[str, Any]]:
    """Old ReplicaSets to delete: the lowest revisions beyond `revisionHistoryLimit`, if scaled down.

    One still running pods, or whose scale-down its controller has not seen yet, is kept.
    """
    limit = deployment["spec"].get("revisionHistoryLimit")
    if limit is None:
        return []
    new_name = new["metadata"]["name"] if new is not None else ""
    alive = [
        rs for rs in old if rs["metadata"]["name"] != new_name and not rs["metadata"].get("deletionTimestamp")
    ]
    surplus = len(alive) - int(limit)
    if surplus <= 0:
        return []
    alive.sort(key=lambda rs: (revision(rs), rs["metadata"].get("creationTimestamp", "")))
    deletable = []
    for replica_set in alive[:surplus]:
        status = replica_set.get("status") or {}
        if (
            int(status.get("replicas") or 0) == 0
            and int(replica_set["spec"].get("replicas", 1)) == 0
            and int(replica_set["metadata"].get("generation", 1))
            <= int(status.get("observedGeneration") or 0)
        ):
            deletable.append(replica_set)
    return deletable


def replicas_annotations_stale(replica_set: Mapping[str, Any], desired: int, maximum: int) -> bool:
    found = annotations_of(replica_set)
    return found.get(DESIRED_REPLICAS) != str(desired) or found.get(MAX_REPLICAS) != str(maximum)


def set_replicas_annotations(target: dict[str, str], desired: int, maximum: int) -> bool:
    changed = False
    for key, value in ((DESIRED_REPLICAS, str(desired)), (MAX_REPLICAS, str(maximum))):
        if target.get(key) != value:
            target[key] = value
            changed = True
    return changed
