"""Whether a member object is healthy, as `Work.status.manifestStatuses[].health` reports it.

Health drives application failover and the binding's `FullyApplied`/health columns, so it follows
the checks `kubectl rollout status` and Karmada's native interpreter make:

- Deployment: the controller has observed the latest generation, `updatedReplicas` reached
  `spec.replicas`, and every updated replica is available;
- StatefulSet: latest generation observed; the replicas at or above the rolling update partition are
  updated, every replica is available, and no updated replica is unavailable;
- ReplicaSet: latest generation observed and `availableReplicas` reached `spec.replicas`;
- DaemonSet: latest generation observed, every scheduled pod updated and every updated pod available;
- Service: healthy unless it is a LoadBalancer still waiting for an ingress IP or hostname;
- Ingress: healthy once it has an ingress IP or hostname;
- PersistentVolumeClaim: bound; Pod: succeeded, or running with the Ready condition true;
- PodDisruptionBudget: `currentHealthy` at least `desiredHealthy`.

Kinds without a rule are `Unknown`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

from flotilla.interpreter import kinds
from flotilla.interpreter.kinds import GroupKind


class ResourceHealth(enum.StrEnum):
    """The values of `manifestStatuses[].health` and `aggregatedStatus[].health`."""

    HEALTHY = "Healthy"
    UNHEALTHY = "Unhealthy"
    UNKNOWN = "Unknown"


def _status_int(obj: Mapping[str, Any], field: str) -> int:
    return kinds.nested_int(obj, "status", field)


def _observed_latest(obj: Mapping[str, Any]) -> bool:
    return _status_int(obj, "observedGeneration") == kinds.nested_int(obj, "metadata", "generation")


def _desired_replicas(obj: Mapping[str, Any]) -> int | None:
    replicas = kinds.nested(obj, "spec", "replicas")
    return None if replicas is None else kinds.nested_int(obj, "spec", "replicas")


def _deployment_healthy(obj: Mapping[str, Any]) -> bool:
    if not _observed_latest(obj):
        return False
    replicas = _desired_replicas(obj)
    updated = _status_int(obj, "updatedReplicas")
    if replicas is not None and updated < replicas:
        return False
    return _status_int(obj, "availableReplicas") >= updated


def _stateful_set_healthy(obj: Mapping[str, Any]) -> bool:
    if not _observed_latest(obj):
        return False
    replicas = _desired_replicas(obj)
    available = _status_int(obj, "availableReplicas")
    if replicas is not None:
        partition = kinds.nested_int(obj, "spec", "updateStrategy", "rollingUpdate", "partition")
        if _status_int(obj, "updatedReplicas") < replicas - partition or available < replicas:
            return False
    return available >= _status_int(obj, "updatedReplicas")


def _replica_set_healthy(obj: Mapping[str, Any]) -> bool:
    if not _observed_latest(obj):
        return False
    replicas = _desired_replicas(obj)
    return replicas is None or _status_int(obj, "availableReplicas") >= replicas


def _daemon_set_healthy(obj: Mapping[str, Any]) -> bool:
    if not _observed_latest(obj):
        return False
    updated = _status_int(obj, "updatedNumberScheduled")
    if updated < _status_int(obj, "desiredNumberScheduled"):
        return False
    return _status_int(obj, "numberAvailable") >= updated


def _has_load_balancer_address(obj: Mapping[str, Any]) -> bool:
    return any(
        isinstance(ingress, Mapping) and bool(ingress.get("ip") or ingress.get("hostname"))
        for ingress in kinds.nested_list(obj, "status", "loadBalancer", "ingress")
    )


def _service_healthy(obj: Mapping[str, Any]) -> bool:
    return kinds.nested(obj, "spec", "type") != "LoadBalancer" or _has_load_balancer_address(obj)


def _claim_healthy(obj: Mapping[str, Any]) -> bool:
    return bool(kinds.nested(obj, "status", "phase") == "Bound")


def _pod_healthy(obj: Mapping[str, Any]) -> bool:
    phase = kinds.nested(obj, "status", "phase")
    if phase == "Succeeded":
        return True
    ready = any(
        isinstance(condition, Mapping)
        and condition.get("type") == "Ready"
        and condition.get("status") == "True"
        for condition in kinds.nested_list(obj, "status", "conditions")
    )
    return phase == "Running" and ready


def _disruption_budget_healthy(obj: Mapping[str, Any]) -> bool:
    return _status_int(obj, "currentHealthy") >= _status_int(obj, "desiredHealthy")


_CHECKS: Mapping[GroupKind, Callable[[Mapping[str, Any]], bool]] = {
    kinds.DEPLOYMENT: _deployment_healthy,
    kinds.STATEFUL_SET: _stateful_set_healthy,
    kinds.REPLICA_SET: _replica_set_healthy,
    kinds.DAEMON_SET: _daemon_set_healthy,
    kinds.SERVICE: _service_healthy,
    kinds.INGRESS: _has_load_balancer_address,
    kinds.PERSISTENT_VOLUME_CLAIM: _claim_healthy,
    kinds.POD: _pod_healthy,
    kinds.POD_DISRUPTION_BUDGET: _disruption_budget_healthy,
}

HEALTH_KINDS = frozenset(_CHECKS)
"""Kinds whose health the interpreter can judge; every other kind is `Unknown`."""


def interpret_health(obj: Mapping[str, Any]) -> ResourceHealth:
    """The health of a member object."""
    check = _CHECKS.get(kinds.group_kind(obj))
    if check is None:
        return ResourceHealth.UNKNOWN
    return ResourceHealth.HEALTHY if check(obj) else ResourceHealth.UNHEALTHY
