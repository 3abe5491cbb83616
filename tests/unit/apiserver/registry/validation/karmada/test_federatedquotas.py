"""FederatedResourceQuotas are checked as Karmada's webhook checks them: quota resource lists, assignments
within the overall and named in it, valid (and here unique) cluster names, a name fit for a label."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import karmada as validation


def quota(
    overall: dict[str, Any], *assignments: tuple[str, dict[str, Any]], name: str = "team-a"
) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "apps"},
        "spec": {
            "overall": overall,
            "staticAssignments": [{"clusterName": c, "hard": hard} for c, hard in assignments],
        },
    }


def errors(obj: dict[str, Any]) -> list[str]:
    return [str(e) for e in validation.validate_federated_resource_quota(obj)]


def test_assignments_within_the_overall_are_valid() -> None:
    assert errors(quota({"cpu": "10", "memory": "8Gi"}, ("m1", {"cpu": "6"}), ("m2", {"cpu": "4"}))) == []


def test_the_overall_must_cover_the_sum_of_the_assignments() -> None:
    assert errors(quota({"cpu": "4"}, ("m1", {"cpu": "3"}), ("m2", {"cpu": "1500m"}))) == [
        'spec.overall[cpu]: Invalid value: "4": overall is less than assignments'
    ]


def test_an_assignment_limits_only_resources_of_the_overall() -> None:
    assert errors(quota({"cpu": "4"}, ("m1", {"memory": "1Gi"}))) == [
        'spec.staticAssignments[0].hard[memory]: Invalid value: "memory": '
        "assignment resourceName is not exist in overall"
    ]


def test_cluster_names_are_valid_and_unique() -> None:
    found = errors(quota({"cpu": "4"}, ("m1", {"cpu": "1"}), ("m1", {"cpu": "1"}), ("Bad_Name", {})))
    assert found[0] == 'spec.staticAssignments[1].clusterName: Duplicate value: "m1"'
    assert found[1].startswith('spec.staticAssignments[2].clusterName: Invalid value: "Bad_Name"')
    assert len(found) == 2


def test_resource_lists_hold_quota_resources_and_non_negative_quantities() -> None:
    found = errors(quota({"cpu": "-1", "bogus": "1", "pods": "1.5", "memory": "lots"}))
    assert any(e.startswith('spec.overall[cpu]: Invalid value: "-1"') for e in found), found
    assert any(e.startswith("spec.overall[bogus]") for e in found), found
    assert any(e.startswith("spec.overall[pods]") for e in found), found
    assert any(e.startswith("spec.overall[memory]") for e in found), found


def test_the_name_fits_a_label_value() -> None:
    assert errors(quota({"cpu": "1"}, name="q" * 64)) == [
        f'metadata.name: Invalid value: "{"q" * 64}": must be no more than 63 characters'
    ]


def test_the_status_lists_are_checked_too() -> None:
    obj = quota({"cpu": "1"})
    obj["status"] = {"overallUsed": {"cpu": "-1"}, "aggregatedStatus": [{"clusterName": "", "used": {}}]}
    found = errors(obj)
    assert found[0].startswith('status.overallUsed[cpu]: Invalid value: "-1"')
    assert found[1] == "status.aggregatedStatus[0].clusterName: Required value"
