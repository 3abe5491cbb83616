"""HorizontalPodAutoscalers get kube's defaults: one replica, an 80% CPU target, full scaling rules."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.defaults.defaulting import defaulted

HPA = GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler")


def test_hpas_default_to_one_replica_and_80_percent_cpu() -> None:
    """Without metrics an HPA targets 80% average CPU utilization."""
    spec = defaulted(HPA, {"spec": {"maxReplicas": 5}})["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
        }
    ]
    assert "behavior" not in spec


def test_hpa_behavior_is_completed_with_kubes_rules() -> None:
    """A partial behavior keeps what was given and fills both directions' defaults."""
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    result = defaulted(HPA, {"spec": {"maxReplicas": 5, "behavior": behavior}})["spec"]["behavior"]
    assert result == {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        },
        "scaleDown": {
            "stabilizationWindowSeconds": 60,
            "selectPolicy": "Max",
            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
        },
    }
