from datetime import UTC, datetime

from flotilla.apiserver.registry.tables.policy import POD_DISRUPTION_BUDGET, PRIORITY_CLASS

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
META = {"name": "web", "creationTimestamp": "2025-03-01T11:59:00Z"}


def test_disruption_budget_prints_int_or_percent_and_na() -> None:
    """MIN AVAILABLE and MAX UNAVAILABLE print as written, `N/A` when unset."""
    budget = {"metadata": META, "spec": {"minAvailable": 2}, "status": {"disruptionsAllowed": 1}}
    assert POD_DISRUPTION_BUDGET.cells(budget, NOW) == ["web", "2", "N/A", 1, "60s"]
    percent = {"metadata": META, "spec": {"maxUnavailable": "25%"}}
    assert POD_DISRUPTION_BUDGET.cells(percent, NOW)[1:4] == ["N/A", "25%", 0]


def test_priority_class_row_with_default_preemption() -> None:
    """A priority class prints value, global default and preemption policy (default PreemptLowerPriority)."""
    priority_class = {
        "metadata": {"name": "system-node-critical", "creationTimestamp": "2025-03-01T11:00:00Z"},
        "value": 2000001000,
    }
    assert PRIORITY_CLASS.cells(priority_class, NOW) == [
        "system-node-critical",
        2000001000,
        False,
        "60m",
        "PreemptLowerPriority",
    ]
    assert PRIORITY_CLASS.cells({**priority_class, "preemptionPolicy": "Never", "globalDefault": True}, NOW)[
        2::2
    ] == [
        True,
        "Never",
    ]
