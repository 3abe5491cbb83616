"""InterpretHealth: rollout-status checks per kind."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.interpreter import ResourceHealth, interpret_health

HEALTHY, UNHEALTHY = ResourceHealth.HEALTHY, ResourceHealth.UNHEALTHY


def _object(
    api_version: str, kind: str, *, generation: int = 2, spec: Any = None, status: Any = None
) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "x", "generation": generation},
        "spec": spec or {},
        "status": status or {},
    }


@pytest.mark.parametrize(
    ("status", "health"),
    [
        ({"observedGeneration": 2, "updatedReplicas": 3, "availableReplicas": 3}, HEALTHY),
        ({"observedGeneration": 1, "updatedReplicas": 3, "availableReplicas": 3}, UNHEALTHY),
        ({"observedGeneration": 2, "updatedReplicas": 2, "availableReplicas": 2}, UNHEALTHY),
        ({"observedGeneration": 2, "updatedReplicas": 3, "availableReplicas": 2}, UNHEALTHY),
    ],
    ids=["rolled-out", "generation-not-observed", "update-incomplete", "updated-not-available"],
)
def test_deployment_is_healthy_once_rolled_out(status: dict[str, int], health: ResourceHealth) -> None:
    """Healthy means the latest generation observed and every replica updated and available."""
    deployment = _object("apps/v1", "Deployment", spec={"replicas": 3}, status=status)
    assert interpret_health(deployment) == health


def test_stateful_set_partition_limits_which_replicas_must_be_updated() -> None:
    """With a partition only the replicas at or above it must be updated, but all must be available."""
    spec = {"replicas": 4, "updateStrategy": {"rollingUpdate": {"partition": 2}}}
    status = {"observedGeneration": 2, "updatedReplicas": 2, "availableReplicas": 4}
    assert interpret_health(_object("apps/v1", "StatefulSet", spec=spec, status=status)) == HEALTHY
    status = {**status, "availableReplicas": 3}
    assert interpret_health(_object("apps/v1", "StatefulSet", spec=spec, status=status)) == UNHEALTHY


def test_replica_set_and_daemon_set_rules() -> None:
    """ReplicaSets need all replicas available; DaemonSets every scheduled pod updated and available."""
    replica_set = _object("apps/v1", "ReplicaSet", spec={"replicas": 2}, status={"observedGeneration": 2})
    assert interpret_health(replica_set) == UNHEALTHY
    replica_set["status"]["availableReplicas"] = 2
    assert interpret_health(replica_set) == HEALTHY
    status = {
        "observedGeneration": 2,
        "desiredNumberScheduled": 3,
        "updatedNumberScheduled": 3,
        "numberAvailable": 3,
    }
    assert interpret_health(_object("apps/v1", "DaemonSet", status=status)) == HEALTHY
    assert (
        interpret_health(_object("apps/v1", "DaemonSet", status={**status, "numberAvailable": 1}))
        == UNHEALTHY
    )


def test_load_balancers_wait_for_an_address() -> None:
    """A LoadBalancer Service or an Ingress is healthy once it has an IP or hostname."""
    service = _object("v1", "Service", spec={"type": "LoadBalancer"})
    assert interpret_health(service) == UNHEALTHY
    service["status"] = {"loadBalancer": {"ingress": [{"hostname": "lb.example.com"}]}}
    assert interpret_health(service) == HEALTHY
    assert interpret_health(_object("v1", "Service", spec={"type": "ClusterIP"})) == HEALTHY
    ingress = _object(
        "networking.k8s.io/v1", "Ingress", status={"loadBalancer": {"ingress": [{"ip": "192.0.2.1"}]}}
    )
    assert interpret_health(ingress) == HEALTHY


@pytest.mark.parametrize(
    ("status", "health"),
    [
        ({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}, HEALTHY),
        ({"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}, UNHEALTHY),
        ({"phase": "Succeeded"}, HEALTHY),
        ({"phase": "Pending"}, UNHEALTHY),
    ],
)
def test_pod_is_healthy_when_ready_or_succeeded(status: dict[str, Any], health: ResourceHealth) -> None:
    """A pod is healthy when it runs and is Ready, or finished successfully."""
    assert interpret_health(_object("v1", "Pod", status=status)) == health


def test_claim_and_disruption_budget_rules() -> None:
    """A claim must be bound; a budget needs its desired healthy pods."""
    assert interpret_health(_object("v1", "PersistentVolumeClaim", status={"phase": "Bound"})) == HEALTHY
    assert interpret_health(_object("v1", "PersistentVolumeClaim", status={"phase": "Pending"})) == UNHEALTHY
    budget = _object("policy/v1", "PodDisruptionBudget", status={"currentHealthy": 1, "desiredHealthy": 2})
    assert interpret_health(budget) == UNHEALTHY


def test_kinds_without_a_rule_are_unknown() -> None:
    """The interpreter does not guess the health of a ConfigMap or a custom resource."""
    assert interpret_health(_object("v1", "ConfigMap")) == ResourceHealth.UNKNOWN
    assert interpret_health(_object("example.com/v1", "Deployment")) == ResourceHealth.UNKNOWN
