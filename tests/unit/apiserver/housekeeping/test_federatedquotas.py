"""What the hub's FederatedResourceQuota admission charges a workload template with."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.federatedquota import written
from flotilla.apiserver.housekeeping.federatedquotas import duplicated_copies, template_usage


def rb(scheduling: str | None, clusters: int) -> dict[str, Any]:
    placement = {"replicaScheduling": {"replicaSchedulingType": scheduling}} if scheduling else {}
    return {"spec": {"placement": placement, "clusters": [{"name": f"m{i}"} for i in range(clusters)]}}


def test_a_template_asks_its_replicas_times_the_effective_requests_of_one_pod() -> None:
    """A container's limit stands for its missing request, as the scheduler reads the pod."""
    container = {"name": "c", "resources": {"requests": {"cpu": "500m"}, "limits": {"memory": "1Gi"}}}
    template = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "spec": {"replicas": 3, "template": {"spec": {"containers": [container]}}},
    }
    assert written(template_usage(template, 1) or {}) == {"cpu": "1500m", "memory": "3Gi"}
    assert written(template_usage(template, 2) or {}) == {"cpu": "3", "memory": "6Gi"}
    assert template_usage({"apiVersion": "v1", "kind": "ConfigMap"}, 1) is None


def test_duplicated_templates_count_once_per_scheduled_cluster() -> None:
    """No placement type means Duplicated, as Karmada reads it; Divided counts once."""
    assert duplicated_copies(None) == 1
    assert duplicated_copies(rb(None, 3)) == 3
    assert duplicated_copies(rb("Duplicated", 2)) == 2
    assert duplicated_copies(rb("Divided", 3)) == 1
    assert duplicated_copies(rb("Duplicated", 0)) == 1
