"""A CronFederatedHPA's execution histories: one per rule, newest first, within the rule's limits."""

from __future__ import annotations

from flotilla.controllers.autoscaling.cronhistory import add_failure, add_success, histories_for


def test_histories_follow_the_rules_and_drop_renamed_ones() -> None:
    """Existing histories are kept by rule name; a rule no longer there loses its history."""
    existing = [{"ruleName": "old", "nextExecutionTime": "t"}, {"ruleName": "kept", "nextExecutionTime": "u"}]
    found = histories_for([{"name": "kept"}, {"name": "new"}], existing)
    assert found == [{"ruleName": "kept", "nextExecutionTime": "u"}, {"ruleName": "new"}]


def test_successful_executions_are_newest_first_within_the_default_limit_of_three() -> None:
    history: dict[str, object] = {"ruleName": "r"}
    for n in range(5):
        add_success(history, {"name": "r"}, {"scheduleTime": str(n)})
    assert history["successfulExecutions"] == [
        {"scheduleTime": "4"},
        {"scheduleTime": "3"},
        {"scheduleTime": "2"},
    ]


def test_a_failed_history_limit_of_zero_keeps_no_failures() -> None:
    history: dict[str, object] = {"ruleName": "r", "failedExecutions": [{"message": "old"}]}
    add_failure(history, {"name": "r", "failedHistoryLimit": 0}, {"message": "new"})
    assert "failedExecutions" not in history


def test_limits_are_per_rule() -> None:
    history: dict[str, object] = {"ruleName": "r"}
    rule = {"name": "r", "successfulHistoryLimit": 1, "failedHistoryLimit": 2}
    for n in range(3):
        add_success(history, rule, {"scheduleTime": str(n)})
        add_failure(history, rule, {"message": str(n)})
    assert history["successfulExecutions"] == [{"scheduleTime": "2"}]
    assert history["failedExecutions"] == [{"message": "2"}, {"message": "1"}]
