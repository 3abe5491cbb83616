"""kstatus's verdict on a built-in workload, for tests to judge the hub's aggregated status by.

kstatus (sigs.k8s.io/cli-utils `pkg/kstatus/status`) is what Helm's `--wait`, kpt, Flux and Argo CD
compute from an object: `Current`, `InProgress`, `Failed` or `Terminating`. These are its rules for
the kinds the hub aggregates, restated from its `generic.go` and `core.go`: first the generic checks
(deletion, `observedGeneration` against `metadata.generation`, the `Reconciling`/`Stalled`
conditions), then the kind's own. Only the verdict is kept, not kstatus's messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CURRENT = "Current"
IN_PROGRESS = "InProgress"
FAILED = "Failed"
TERMINATING = "Terminating"
_MAX_INT32 = 2**31 - 1


def _get(obj: Mapping[str, Any], path: str, default: Any = None) -> Any:
    value: Any = obj
    for step in path.split("."):
        if not isinstance(value, Mapping) or step not in value:
            return default
        value = value[step]
    return value


def _conditions(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(_get(obj, "status.conditions", []) or [])


def _has(obj: Mapping[str, Any], condition_type: str, status: str = "True") -> Mapping[str, Any] | None:
    return next((c for c in _conditions(obj) if c["type"] == condition_type and c["status"] == status), None)


def _generic(obj: Mapping[str, Any]) -> str | None:
    if _get(obj, "metadata.deletionTimestamp"):
        return TERMINATING
    observed = _get(obj, "status.observedGeneration")
    generation = _get(obj, "metadata.generation")
    if generation is not None and observed is not None and observed != generation:
        return IN_PROGRESS
    if _has(obj, "Reconciling"):
        return IN_PROGRESS
    if _has(obj, "Stalled"):
        return FAILED
    return None


def _deployment(obj: Mapping[str, Any]) -> str:
    progressing = _get(obj, "spec.progressDeadlineSeconds", _MAX_INT32) == _MAX_INT32
    available = False
    for condition in _conditions(obj):
        if condition["type"] == "Progressing":
            if condition.get("reason") == "ProgressDeadlineExceeded":
                return FAILED
            if condition["status"] == "True" and condition.get("reason") == "NewReplicaSetAvailable":
                progressing = True
        elif condition["type"] == "Available" and condition["status"] == "True":
            available = True
    spec = _get(obj, "spec.replicas", 1)
    replicas = _get(obj, "status.replicas", 0)
    updated = _get(obj, "status.updatedReplicas", 0)
    if spec > replicas or spec > updated or replicas > spec:
        return IN_PROGRESS
    if updated > _get(obj, "status.availableReplicas", 0) or spec > _get(obj, "status.readyReplicas", 0):
        return IN_PROGRESS
    return CURRENT if progressing and available else IN_PROGRESS


def _stateful_set(obj: Mapping[str, Any]) -> str:
    if _get(obj, "spec.updateStrategy.type") == "OnDelete":
        return CURRENT
    spec = _get(obj, "spec.replicas", 1)
    replicas = _get(obj, "status.replicas", 0)
    if spec > replicas or spec > _get(obj, "status.readyReplicas", 0) or replicas > spec:
        return IN_PROGRESS
    partition = _get(obj, "spec.updateStrategy.rollingUpdate.partition", -1)
    if partition != -1:
        return IN_PROGRESS if _get(obj, "status.updatedReplicas", 0) < spec - partition else CURRENT
    if spec > _get(obj, "status.currentReplicas", 0):
        return IN_PROGRESS
    same = _get(obj, "status.currentRevision", "") == _get(obj, "status.updateRevision", "")
    return CURRENT if same else IN_PROGRESS


def _daemon_set(obj: Mapping[str, Any]) -> str:
    if _get(obj, "metadata.generation") is None or _get(obj, "status.observedGeneration") is None:
        return IN_PROGRESS
    desired = _get(obj, "status.desiredNumberScheduled", -1)
    if desired == -1:
        return IN_PROGRESS
    counts = ("currentNumberScheduled", "updatedNumberScheduled", "numberAvailable", "numberReady")
    return IN_PROGRESS if any(desired > _get(obj, f"status.{field}", 0) for field in counts) else CURRENT


def _job(obj: Mapping[str, Any]) -> str:
    for condition in _conditions(obj):
        if condition["status"] != "True":
            continue
        if condition["type"] == "Complete":
            return CURRENT
        if condition["type"] == "Failed":
            return FAILED
        if condition["type"] == "Suspended" and _get(obj, "spec.suspend", False):
            return CURRENT
    return CURRENT if _get(obj, "status.startTime") else IN_PROGRESS


_KINDS = {"Deployment": _deployment, "StatefulSet": _stateful_set, "DaemonSet": _daemon_set, "Job": _job}


def kstatus(obj: Mapping[str, Any]) -> str:
    """What kstatus computes for `obj` (a Deployment, StatefulSet, DaemonSet or Job)."""
    return _generic(obj) or _KINDS[str(obj["kind"])](obj)
