"""FederatedHPAs and CronFederatedHPAs are checked as Karmada's webhook checks them."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.defaults.autoscaling import default_horizontal_pod_autoscaler
from flotilla.apiserver.registry.validation import karmada as validation

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}
FHPA_REF = {"apiVersion": "autoscaling.karmada.io/v1alpha1", "kind": "FederatedHPA", "name": "nginx"}


def fhpa_errors(**spec: Any) -> list[str]:
    obj = {
        "metadata": {"name": "nginx", "namespace": "default"},
        "spec": {"scaleTargetRef": DEPLOYMENT, **spec},
    }
    default_horizontal_pod_autoscaler(obj)
    return [str(e) for e in validation.validate_federated_hpa(obj)]


def cron_errors(reference: dict[str, Any], *rules: dict[str, Any]) -> list[str]:
    obj = {
        "metadata": {"name": "c", "namespace": "default"},
        "spec": {"scaleTargetRef": reference, "rules": list(rules)},
    }
    return [str(e) for e in validation.validate_cron_federated_hpa(obj)]


def rule(name: str = "scale-up", schedule: str = "*/1 * * * *", **fields: Any) -> dict[str, Any]:
    return {"name": name, "schedule": schedule, **fields}


def test_karmadas_tutorial_autoscaler_is_valid_and_defaulted() -> None:
    """min 1, max 10, CPU at 10%: valid; with no metrics the default is 80% average CPU."""
    metric = {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 10}},
    }
    assert fhpa_errors(minReplicas=1, maxReplicas=10, metrics=[metric]) == []
    obj: dict[str, Any] = {"spec": {"maxReplicas": 3}}
    default_horizontal_pod_autoscaler(obj)
    assert obj["spec"]["minReplicas"] == 1
    assert obj["spec"]["metrics"][0]["resource"]["target"] == {
        "type": "Utilization",
        "averageUtilization": 80,
    }


def test_max_below_min_and_min_below_one_are_refused() -> None:
    assert fhpa_errors(minReplicas=5, maxReplicas=2) == [
        "spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`"
    ]
    assert fhpa_errors(minReplicas=0, maxReplicas=2)[0] == (
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"
    )


def test_a_metric_needs_its_source_and_a_target() -> None:
    found = fhpa_errors(maxReplicas=3, metrics=[{"type": "Resource"}, {"type": "Nonsense"}])
    assert (
        "spec.metrics[0].resource: Required value: must populate information for the given metric source"
        in found
    )
    assert any(e.startswith('spec.metrics[1].type: Unsupported value: "Nonsense"') for e in found)


def test_behavior_windows_and_policies_are_bounded() -> None:
    behavior = {
        "scaleDown": {
            "stabilizationWindowSeconds": 4000,
            "policies": [{"type": "Pods", "value": 0, "periodSeconds": 15}],
        }
    }
    found = fhpa_errors(maxReplicas=3, behavior=behavior)
    assert (
        "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 4000: "
        "must be less than or equal to 3600" in found
    )
    assert "spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero" in found


def test_a_cron_rule_scaling_a_workload_needs_target_replicas() -> None:
    assert cron_errors(DEPLOYMENT, rule(targetReplicas=0)) == []
    assert cron_errors(DEPLOYMENT, rule()) == [
        'spec.rules[0].targetReplicas: Invalid value: "": '
        "targetReplicas cannot be nil if you want to scale Deployment"
    ]
    assert cron_errors(DEPLOYMENT, rule(targetReplicas=-1)) == [
        "spec.rules[0].targetReplicas: Invalid value: -1: targetReplicas should be larger than or equal to 0"
    ]


def test_a_cron_rule_scaling_an_autoscaler_sets_its_bounds() -> None:
    assert cron_errors(FHPA_REF, rule(targetMinReplicas=2)) == []
    assert cron_errors(FHPA_REF, rule(targetMaxReplicas=10, targetMinReplicas=2)) == []
    assert cron_errors(FHPA_REF, rule()) == [
        'spec.rules[0].targetMaxReplicas: Invalid value: "": targetMinReplicas and targetMaxReplicas '
        "cannot be nil at the same time if you want to scale FederatedHPA"
    ]
    assert cron_errors(FHPA_REF, rule(targetMinReplicas=5, targetMaxReplicas=2)) == [
        "spec.rules[0].targetMinReplicas: Invalid value: 5: "
        "targetMaxReplicas should be larger than or equal to targetMinReplicas"
    ]
    assert cron_errors(FHPA_REF, rule(targetMinReplicas=0)) == [
        "spec.rules[0].targetMinReplicas: Invalid value: 0: targetMinReplicas should be larger than 0"
    ]


def test_only_a_federated_hpa_of_the_autoscaling_group_is_a_target() -> None:
    reference = {**FHPA_REF, "kind": "CronFederatedHPA"}
    assert cron_errors(reference, rule(targetMinReplicas=1)) == [
        'spec.scaleTargetRef.kind: Invalid value: "CronFederatedHPA": invalid scaleTargetRef kind: '
        "CronFederatedHPA, only support FederatedHPA"
    ]


def test_rule_names_are_unique() -> None:
    assert cron_errors(DEPLOYMENT, rule(targetReplicas=1), rule(targetReplicas=2)) == [
        'spec.rules[1].name: Duplicate value: "scale-up"'
    ]


@pytest.mark.parametrize("schedule", ["* * * *", "61 * * * *", "@often", "TZ=UTC * * * * *", ""])
def test_schedules_are_cron_syntax(schedule: str) -> None:
    found = cron_errors(DEPLOYMENT, rule(schedule=schedule, targetReplicas=1))
    assert len(found) == 1 and found[0].startswith("spec.rules[0].schedule: Invalid value:")
    assert "invalid cron format" in found[0]


@pytest.mark.parametrize("schedule", ["@hourly", "0 9 * * mon-fri", "*/5 8-18 * * *", "@every 1h"])
def test_standard_schedules_pass(schedule: str) -> None:
    assert cron_errors(DEPLOYMENT, rule(schedule=schedule, targetReplicas=1)) == []


def test_time_zones_must_be_known() -> None:
    assert cron_errors(DEPLOYMENT, rule(targetReplicas=1, timeZone="Asia/Shanghai")) == []
    assert cron_errors(DEPLOYMENT, rule(targetReplicas=1, timeZone="Mars/Olympus")) == [
        'spec.rules[0].timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'
    ]
