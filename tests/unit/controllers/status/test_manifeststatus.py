"""A member object's status as a Work manifest status."""

from __future__ import annotations

from typing import Any

from flotilla.api.objectkeys import ObjectKey
from flotilla.controllers.status.manifeststatus import manifest_status, work_of_member_object

MANIFEST = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "namespace": "default"},
}


def member(**status: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "nginx",
            "namespace": "default",
            "generation": 2,
            "annotations": {
                "resourcetemplate.karmada.io/generation": "5",
                "work.karmada.io/namespace": "karmada-es-sz",
                "work.karmada.io/name": "nginx-687f7fb96f",
            },
        },
        "spec": {"replicas": 1},
        "status": status,
    }


def test_a_ready_deployment_reports_its_counters_generations_and_health() -> None:
    """Replica counters, the member generation and the template generation are reflected; health Healthy."""
    observed = member(
        observedGeneration=2, replicas=1, updatedReplicas=1, readyReplicas=1, availableReplicas=1
    )
    entry = manifest_status(0, MANIFEST, observed, "deployments")
    assert entry["identifier"] == {
        "ordinal": 0,
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
        "resource": "deployments",
        "namespace": "default",
        "name": "nginx",
    }
    assert entry["status"]["readyReplicas"] == 1
    assert entry["status"]["generation"] == 2
    assert entry["status"]["resourceTemplateGeneration"] == 5
    assert entry["health"] == "Healthy"


def test_a_rolling_deployment_is_unhealthy() -> None:
    """A Deployment whose controller has not observed the latest generation is Unhealthy."""
    entry = manifest_status(0, MANIFEST, member(observedGeneration=1, replicas=1), "deployments")
    assert entry["health"] == "Unhealthy"


def test_member_objects_name_their_work() -> None:
    """The work annotations lead from a member object back to its Work."""
    assert work_of_member_object(member()) == ObjectKey("karmada-es-sz", "nginx-687f7fb96f")
    assert work_of_member_object({"metadata": {"name": "x"}}) is None
