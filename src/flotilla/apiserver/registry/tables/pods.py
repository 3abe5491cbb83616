"""The Pod table: `NAME READY STATUS RESTARTS AGE` (+ wide `IP NODE NOMINATED NODE READINESS GATES`).

STATUS is not a stored field: kube-apiserver derives it from the phase and the container statuses,
and users read it more than anything else kubectl prints, so the derivation is followed step by step:

1. start from `status.phase`, or `status.reason` when set (`Evicted`, `NodeLost`...); a
   `SchedulingGated` PodScheduled condition wins;
2. walk init containers in order: a failed one gives `Init:<reason>` / `Init:ExitCode:N` /
   `Init:Signal:N`, a waiting one `Init:<reason>`, a running one `Init:i/n`; sidecars (restartable
   init containers) that have started count as ready containers instead;
3. once initialised, walk regular containers from last to first, so the first container's waiting or
   terminated reason wins (`CrashLoopBackOff`, `Completed`, `ExitCode:1`); `Completed` with a
   container still running reads `Running` (or `NotReady` without the Ready condition);
4. a pod being deleted reads `Terminating` (or `Unknown` when its node was lost), unless it finished.

RESTARTS sums restart counts (only sidecars while initialising) and appends the age of the latest
restart, `3 (5m ago)`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import between, since
from flotilla.api.times import timestamp
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer, wide
from flotilla.apiserver.registry.tables.objects import (
    child,
    created,
    deleting,
    flag,
    integer,
    mapping,
    name,
    objects,
    text,
)

NODE_UNREACHABLE_REASON = "NodeLost"
"""The reason the node lifecycle controller gives pods on an unreachable node."""

COLUMNS = (
    NAME,
    Column("Ready", "string", description="The aggregate readiness state of this pod for accepting traffic."),
    Column("Status", "string", description="The aggregate status of the containers in this pod."),
    Column(
        "Restarts",
        "string",
        description=(
            "The number of times the containers in this pod have been restarted and when the last "
            "container in this pod has restarted."
        ),
    ),
    AGE,
    wide("IP", swagger_doc("PodStatus.podIP")),
    wide("Node", swagger_doc("PodSpec.nodeName")),
    wide("Nominated Node", swagger_doc("PodStatus.nominatedNodeName")),
    wide("Readiness Gates", swagger_doc("PodSpec.readinessGates")),
)


class _Restarts:
    """A running restart count and the time of the latest restart it includes."""

    def __init__(self) -> None:
        self.count = 0
        self.last: datetime | None = None

    def add(self, status: dict[str, Any]) -> None:
        self.count += integer(status, "restartCount")
        finished = timestamp(child(status, "lastState", "terminated", "finishedAt"))
        if finished is not None and (self.last is None or finished > self.last):
            self.last = finished


def _terminated_reason(terminated: dict[str, Any], prefix: str = "") -> str:
    reason = text(terminated, "reason")
    if reason:
        return prefix + reason
    signal = integer(terminated, "signal")
    if signal != 0:
        return f"{prefix}Signal:{signal}"
    return f"{prefix}ExitCode:{integer(terminated, 'exitCode')}"


def _has_condition(pod: dict[str, Any], condition_type: str) -> bool:
    """Whether any condition of this type is True (`hasPodReadyCondition`)."""
    return any(
        condition.get("type") == condition_type and condition.get("status") == "True"
        for condition in objects(pod, "status", "conditions")
    )


def _initialized(pod: dict[str, Any]) -> bool:
    """The first Initialized condition is True (`isPodInitializedConditionTrue`)."""
    for condition in objects(pod, "status", "conditions"):
        if condition.get("type") == "Initialized":
            return bool(condition.get("status") == "True")
    return False


def _sidecar(container: dict[str, Any] | None) -> bool:
    """A restartable init container (`restartPolicy: Always`), which runs for the pod's lifetime."""
    return container is not None and container.get("restartPolicy") == "Always"


def _status_and_counts(pod: dict[str, Any]) -> tuple[str, int, int, _Restarts]:
    """STATUS, ready containers, total containers and restarts, in Kubernetes' order of precedence."""
    phase = text(pod, "status", "phase")
    reason = text(pod, "status", "reason") or phase
    for condition in objects(pod, "status", "conditions"):
        if condition.get("type") == "PodScheduled" and condition.get("reason") == "SchedulingGated":
            reason = "SchedulingGated"

    init_containers = objects(pod, "spec", "initContainers")
    init_by_name = {text(container, "name"): container for container in init_containers}
    total = len(objects(pod, "spec", "containers")) + sum(1 for c in init_containers if _sidecar(c))
    ready = 0
    restarts = _Restarts()
    sidecar_restarts = _Restarts()

    initializing = False
    for index, status in enumerate(objects(pod, "status", "initContainerStatuses")):
        restarts.add(status)
        is_sidecar = _sidecar(init_by_name.get(text(status, "name")))
        if is_sidecar:
            sidecar_restarts.add(status)
        terminated = mapping(status, "state", "terminated")
        waiting_reason = text(status, "state", "waiting", "reason")
        if child(status, "state", "terminated") is not None and integer(terminated, "exitCode") == 0:
            continue
        if is_sidecar and flag(status, "started"):
            ready += int(flag(status, "ready"))
            continue
        if child(status, "state", "terminated") is not None:
            reason = _terminated_reason(terminated, "Init:")
        elif waiting_reason and waiting_reason != "PodInitializing":
            reason = "Init:" + waiting_reason
        else:
            reason = f"Init:{index}/{len(init_containers)}"
        initializing = True
        break

    if not initializing or _initialized(pod):
        restarts = sidecar_restarts
        running = False
        for status in reversed(objects(pod, "status", "containerStatuses")):
            restarts.add(status)
            waiting_reason = text(status, "state", "waiting", "reason")
            terminated = child(status, "state", "terminated")
            if waiting_reason:
                reason = waiting_reason
            elif isinstance(terminated, dict):
                reason = _terminated_reason(terminated)
            elif flag(status, "ready") and child(status, "state", "running") is not None:
                running = True
                ready += 1
        if reason == "Completed" and running:
            reason = "Running" if _has_condition(pod, "Ready") else "NotReady"

    if deleting(pod):
        if text(pod, "status", "reason") == NODE_UNREACHABLE_REASON:
            reason = "Unknown"
        elif phase not in ("Succeeded", "Failed"):
            reason = "Terminating"
    return reason, ready, total, restarts


def _readiness_gates(pod: dict[str, Any]) -> str:
    gates = objects(pod, "spec", "readinessGates")
    if not gates:
        return "<none>"
    conditions = objects(pod, "status", "conditions")
    passed = 0
    for gate in gates:
        for condition in conditions:
            if condition.get("type") == gate.get("conditionType"):
                passed += int(condition.get("status") == "True")
                break
    return f"{passed}/{len(gates)}"


def pod_row(pod: dict[str, Any], now: datetime) -> list[Cell]:
    reason, ready, total, restarts = _status_and_counts(pod)
    restart_cell = str(restarts.count)
    if restarts.count != 0 and restarts.last is not None:
        restart_cell = f"{restarts.count} ({between(restarts.last, now)} ago)"
    pod_ips = objects(pod, "status", "podIPs")
    return [
        name(pod),
        f"{ready}/{total}",
        reason,
        restart_cell,
        since(created(pod), now),
        (text(pod_ips[0], "ip") if pod_ips else "") or "<none>",
        text(pod, "spec", "nodeName") or "<none>",
        text(pod, "status", "nominatedNodeName") or "<none>",
        _readiness_gates(pod),
    ]


def pod_row_conditions(pod: dict[str, Any]) -> list[dict[str, str]]:
    """The `conditions` kube-apiserver puts on the Table row of a finished pod (`Completed`)."""
    phase = text(pod, "status", "phase")
    if phase == "Succeeded":
        message = "The pod has completed successfully."
    elif phase == "Failed":
        message = "The pod failed."
    else:
        return []
    return [{"type": "Completed", "status": "True", "reason": phase, "message": message}]


POD = Printer(COLUMNS, pod_row)
