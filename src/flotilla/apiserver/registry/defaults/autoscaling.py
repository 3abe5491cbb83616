"""Defaults of autoscaling/v2 HorizontalPodAutoscalers, as kube-apiserver sets them.

`minReplicas: 1`, a CPU target of 80% average utilization when no metric is given, and, when
`behavior` is given, kube's full scale-up and scale-down rules for whatever it leaves out.
"""

from __future__ import annotations

import copy
from typing import Any

from flotilla.apiserver.registry.validation import fields

DEFAULT_CPU_UTILIZATION = 80
_SCALE_UP_RULES: dict[str, Any] = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
# kube leaves the scale-down window unset: the controller manager's flag decides it.
_SCALE_DOWN_RULES: dict[str, Any] = {
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


def default_horizontal_pod_autoscaler(autoscaler: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(autoscaler, "spec")
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not fields.items(spec, "metrics"):
        spec["metrics"] = [
            {
                "type": "Resource",
                "resource": {
                    "name": "cpu",
                    "target": {"type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION},
                },
            }
        ]
    behavior = spec.get("behavior")
    if isinstance(behavior, dict):
        for direction, defaults in (("scaleUp", _SCALE_UP_RULES), ("scaleDown", _SCALE_DOWN_RULES)):
            given = fields.mapping(behavior, direction)
            rules = copy.deepcopy(defaults)
            rules.update({name: value for name, value in given.items() if value is not None})
            behavior[direction] = rules
