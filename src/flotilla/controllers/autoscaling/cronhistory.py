"""A CronFederatedHPA's status: one execution history per rule, trimmed to the rule's limits.

Karmada keeps, per rule, `nextExecutionTime` (absent while the rule is suspended) and the latest
successful and failed executions, newest first, at most `successfulHistoryLimit` (default 3) and
`failedHistoryLimit` (default 3, may be 0) of each. A renamed rule is a new rule: the old name's
history goes. Pure functions over the status dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.api.karmada.autoscaling import DEFAULT_HISTORY_LIMIT

Object = dict[str, Any]


def histories_for(rules: Sequence[Mapping[str, Any]], existing: Sequence[Mapping[str, Any]]) -> list[Object]:
    """The histories of `rules`, in their order: each rule's existing one (copied) or a new one."""
    by_name = {str(h.get("ruleName") or ""): h for h in existing}
    histories = []
    for rule in rules:
        name = str(rule.get("name") or "")
        found = by_name.get(name)
        histories.append(dict(found) if found is not None else {"ruleName": name})
    return histories


def _limit(rule: Mapping[str, Any], key: str) -> int:
    value = rule.get(key)
    return int(value) if isinstance(value, int) and value >= 0 else DEFAULT_HISTORY_LIMIT


def add_success(history: Object, rule: Mapping[str, Any], execution: Object) -> None:
    """Record a successful execution, newest first, within `successfulHistoryLimit`."""
    limit = _limit(rule, "successfulHistoryLimit")
    history["successfulExecutions"] = [execution, *(history.get("successfulExecutions") or [])][:limit]


def add_failure(history: Object, rule: Mapping[str, Any], execution: Object) -> None:
    """Record a failed execution, newest first, within `failedHistoryLimit` (0 keeps none)."""
    limit = _limit(rule, "failedHistoryLimit")
    kept = [execution, *(history.get("failedExecutions") or [])][:limit]
    if kept:
        history["failedExecutions"] = kept
    else:
        history.pop("failedExecutions", None)
