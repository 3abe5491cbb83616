"""Defaults of scheduling.k8s.io/v1 PriorityClasses: `preemptionPolicy: PreemptLowerPriority`."""

from __future__ import annotations

from typing import Any


def default_priority_class(priority_class: dict[str, Any]) -> None:
    if priority_class.get("preemptionPolicy") is None:
        priority_class["preemptionPolicy"] = "PreemptLowerPriority"
