"""PriorityClasses get kube's default preemption policy."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.defaults.defaulting import defaulted

PRIORITY_CLASS = GroupVersionKind("scheduling.k8s.io", "v1", "PriorityClass")


def test_priority_classes_preempt_lower_priorities() -> None:
    """PreemptLowerPriority is kube's default preemption policy."""
    assert defaulted(PRIORITY_CLASS, {"value": 10})["preemptionPolicy"] == "PreemptLowerPriority"
