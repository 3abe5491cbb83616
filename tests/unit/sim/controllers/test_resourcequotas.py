"""What the simulated resourcequota controller reports as a ResourceQuota's `status.used`."""

from __future__ import annotations

from typing import Any

from flotilla.sim.controllers.resourcequotas import quota_used


def pod(cpu: str, memory: str, phase: str = "Running", limit_cpu: str | None = None) -> dict[str, Any]:
    resources: dict[str, Any] = {"requests": {"cpu": cpu, "memory": memory}}
    if limit_cpu:
        resources["limits"] = {"cpu": limit_cpu}
    return {"spec": {"containers": [{"name": "c", "resources": resources}]}, "status": {"phase": phase}}


def test_used_counts_the_requests_and_limits_of_pods_that_have_not_finished() -> None:
    pods = [pod("500m", "64Mi", limit_cpu="1"), pod("250m", "64Mi"), pod("4", "1Gi", phase="Succeeded")]
    hard = {
        "pods": "10",
        "cpu": "2",
        "requests.memory": "1Gi",
        "limits.cpu": "4",
        "count/deployments.apps": "1",
    }
    assert quota_used(hard, pods) == {
        "pods": "2",
        "cpu": "750m",
        "requests.memory": "128Mi",
        "limits.cpu": "1",
    }


def test_nothing_running_uses_zero() -> None:
    assert quota_used({"cpu": "1", "memory": "1Gi"}, []) == {"cpu": "0", "memory": "0"}
