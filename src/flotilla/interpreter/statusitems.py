"""Reading the per-cluster status entries that status aggregation folds together.

Aggregation works on `ResourceBinding.status.aggregatedStatus[]` entries, each `{clusterName,
status, applied, appliedMessage, health}` where `status` is what `reflect_status` returned for that
cluster, or nothing yet. The aggregators of every kind read them through these few functions, so a
missing status or a malformed counter is treated the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.interpreter.kinds import InterpreterError

StatusItems = Sequence[Mapping[str, Any]]
"""`ResourceBinding.status.aggregatedStatus[]` entries: `clusterName`, `status`, `applied`, `health`."""


def item_status(item: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The status a cluster reported, None while it has reported none."""
    status = item.get("status")
    return status if isinstance(status, Mapping) else None


def counter(status: Mapping[str, Any], field: str) -> int:
    """An integer status field, 0 when absent."""
    value = status.get(field)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise InterpreterError(f"status.{field}: expected an integer, got {value!r}")
    return value


def member_observed_latest(item: Mapping[str, Any], template_generation: int) -> bool:
    """Whether a member has observed its latest generation and runs a copy of the current template.

    Workloads reflect their own `generation` and the `resourceTemplateGeneration` their copy was
    rendered from beside `observedGeneration` (`workloadstatus`); a member that has reported
    nothing has observed nothing.
    """
    status = item_status(item)
    if status is None:
        return False
    observed = counter(status, "observedGeneration")
    generation = counter(status, "generation")
    return observed >= generation and counter(status, "resourceTemplateGeneration") >= template_generation
