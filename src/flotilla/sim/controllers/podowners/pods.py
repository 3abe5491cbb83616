"""What controllers read from pods: active, ready, available, and which to delete first.

Controllers never decide a pod's state; the kubelet reports it in `status.phase` and the `Ready`
condition. A pod is *active* while it is neither finished (Succeeded/Failed) nor being deleted,
*ready* when its Ready condition is True, and *available* once it has been ready for
`minReadySeconds`. When a controller has too many pods it deletes them in kube's order
(`ActivePodsWithRanks`): unscheduled before scheduled, Pending before Unknown before Running,
not ready before ready, lower `pod-deletion-cost` first, pods doubled up on a node first, then
the most recently ready, most restarted and newest first.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.times import timestamp

DELETION_COST_ANNOTATION = "controller.kubernetes.io/pod-deletion-cost"
_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def phase(pod: Mapping[str, Any]) -> str:
    return str((pod.get("status") or {}).get("phase") or "")


def is_terminating(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))


def is_finished(pod: Mapping[str, Any]) -> bool:
    return phase(pod) in ("Succeeded", "Failed")


def is_active(pod: Mapping[str, Any]) -> bool:
    """Counted by its controller: not finished and not being deleted (kube's `IsPodActive`)."""
    return not is_finished(pod) and not is_terminating(pod)


def condition(pod: Mapping[str, Any], kind: str) -> Mapping[str, Any] | None:
    for found in (pod.get("status") or {}).get("conditions") or ():
        if found.get("type") == kind:
            result: Mapping[str, Any] = found
            return result
    return None


def is_ready(pod: Mapping[str, Any]) -> bool:
    ready = condition(pod, "Ready")
    return ready is not None and ready.get("status") == "True"


def ready_since(pod: Mapping[str, Any]) -> datetime | None:
    """When the pod last became ready (None if not ready or unknown)."""
    ready = condition(pod, "Ready")
    if ready is None or ready.get("status") != "True":
        return None
    return timestamp(str(ready.get("lastTransitionTime") or ""))


def seconds_to_availability(pod: Mapping[str, Any], min_ready_seconds: int, now: datetime) -> float | None:
    """0 when available, the seconds left when ready but not yet for long enough, None when not ready."""
    if not is_ready(pod):
        return None
    if min_ready_seconds <= 0:
        return 0.0
    since = ready_since(pod)
    if since is None:
        return None
    return max(0.0, min_ready_seconds - (now - since).total_seconds())


def is_available(pod: Mapping[str, Any], min_ready_seconds: int, now: datetime) -> bool:
    """Ready for at least `min_ready_seconds` (kube's `IsPodAvailable`)."""
    if not is_ready(pod):
        return False
    if min_ready_seconds <= 0:
        return True
    since = ready_since(pod)
    return since is not None and (now - since).total_seconds() >= min_ready_seconds


def creation_time(obj: Mapping[str, Any]) -> datetime | None:
    return timestamp(str((obj.get("metadata") or {}).get("creationTimestamp") or ""))


def node_name(pod: Mapping[str, Any]) -> str:
    return str((pod.get("spec") or {}).get("nodeName") or "")


def _deletion_cost(pod: Mapping[str, Any]) -> int:
    text = ((pod.get("metadata") or {}).get("annotations") or {}).get(DELETION_COST_ANNOTATION)
    try:
        return int(text) if text is not None else 0
    except ValueError:
        return 0


def _restarts(pod: Mapping[str, Any]) -> int:
    statuses = (pod.get("status") or {}).get("containerStatuses") or ()
    return max((int(status.get("restartCount") or 0) for status in statuses), default=0)


def _age_rank(moment: datetime | None, now: datetime) -> int:
    """kube's logarithmic age bucket: pods of similar age (within a power of two) rank the same."""
    if moment is None:
        return -1
    nanoseconds = (now - moment).total_seconds() * 1e9
    return int(math.log2(nanoseconds)) if nanoseconds > 0 else -1


def _colocated_ready(pods: Sequence[Mapping[str, Any]], related: Sequence[Mapping[str, Any]]) -> list[int]:
    """For each pod, how many active ready related pods share its node (doubled-up pods go first)."""
    per_node: dict[str, int] = {}
    for pod in related:
        if is_active(pod) and is_ready(pod) and node_name(pod):
            per_node[node_name(pod)] = per_node.get(node_name(pod), 0) + 1
    return [per_node.get(node_name(pod), 0) if node_name(pod) else 0 for pod in pods]


def deletion_order(
    pods: Sequence[Mapping[str, Any]],
    now: datetime,
    related: Sequence[Mapping[str, Any]] | None = None,
) -> list[Mapping[str, Any]]:
    """Pods sorted so that the ones to delete first come first (`related`: pods to rank co-location by)."""
    ranks = _colocated_ready(pods, pods if related is None else related)
    ranked = list(zip(pods, ranks, strict=True))

    def before(first: tuple[Mapping[str, Any], int], second: tuple[Mapping[str, Any], int]) -> int:
        a, rank_a = first
        b, rank_b = second
        if node_name(a) != node_name(b) and (not node_name(a) or not node_name(b)):
            return -1 if not node_name(a) else 1
        phase_a, phase_b = _PHASE_ORDER.get(phase(a), 0), _PHASE_ORDER.get(phase(b), 0)
        if phase_a != phase_b:
            return -1 if phase_a < phase_b else 1
        if is_ready(a) != is_ready(b):
            return -1 if not is_ready(a) else 1
        if _deletion_cost(a) != _deletion_cost(b):
            return -1 if _deletion_cost(a) < _deletion_cost(b) else 1
        if rank_a != rank_b:
            return -1 if rank_a > rank_b else 1
        if is_ready(a) and is_ready(b):
            ready_a, ready_b = ready_since(a), ready_since(b)
            if ready_a != ready_b:
                difference = _age_rank(ready_a, now) - _age_rank(ready_b, now)
                if difference:
                    return -1 if difference < 0 else 1
        if _restarts(a) != _restarts(b):
            return -1 if _restarts(a) > _restarts(b) else 1
        created_a, created_b = creation_time(a), creation_time(b)
        if created_a != created_b:
            difference = _age_rank(created_a, now) - _age_rank(created_b, now)
            if difference:
                return -1 if difference < 0 else 1
        return 0

    ranked.sort(key=functools.cmp_to_key(before))
    return [pod for pod, _ in ranked]
