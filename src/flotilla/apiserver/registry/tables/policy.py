"""Tables for scheduling policy: PodDisruptionBudget (`policy/v1`) and PriorityClass (`scheduling.k8s.io/v1`).

Both tell the scheduler and the eviction API how much a pod matters: a budget limits voluntary
disruptions (`MIN AVAILABLE`, `MAX UNAVAILABLE` as written, integer or percentage, `N/A` when unset),
a priority class ranks pods for preemption.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer, wide
from flotilla.apiserver.registry.tables.objects import child, created, flag, integer, name, text


def int_or_string(value: Any) -> str:
    """An `IntOrString` as Go's `String()` writes it; `N/A` when absent (the PDB printer's wording)."""
    if isinstance(value, bool) or value is None:
        return "N/A"
    return str(value)


def _budget_row(budget: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        name(budget),
        int_or_string(child(budget, "spec", "minAvailable")),
        int_or_string(child(budget, "spec", "maxUnavailable")),
        integer(budget, "status", "disruptionsAllowed"),
        since(created(budget), now),
    ]


POD_DISRUPTION_BUDGET = Printer(
    (
        NAME,
        Column("Min Available", "string", description="The minimum number of pods that must be available."),
        Column(
            "Max Unavailable", "string", description="The maximum number of pods that may be unavailable."
        ),
        Column(
            "Allowed Disruptions",
            "integer",
            description="Calculated number of pods that may be disrupted at this time.",
        ),
        AGE,
    ),
    _budget_row,
)


def _priority_class_row(priority_class: dict[str, Any], now: datetime) -> list[Cell]:
    return [
        name(priority_class),
        integer(priority_class, "value"),
        flag(priority_class, "globalDefault"),
        since(created(priority_class), now),
        # Defaulting sets preemptionPolicy on every stored PriorityClass.
        text(priority_class, "preemptionPolicy") or "PreemptLowerPriority",
    ]


PRIORITY_CLASS = Printer(
    (
        NAME,
        Column("Value", "integer", description=swagger_doc("PriorityClass.value")),
        Column("Global-Default", "boolean", description=swagger_doc("PriorityClass.globalDefault")),
        AGE,
        wide("PreemptionPolicy", swagger_doc("PriorityClass.preemptionPolicy")),
    ),
    _priority_class_row,
)
