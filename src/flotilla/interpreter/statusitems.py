"""Reading the per-cluster status entries that status aggregation folds together.

Aggregation works on `ResourceBinding.status.aggregatedStatus[]` entries, each `{clusterName,
status, applied, appliedMessage, health}` where `status` is what `reflect_status` returned for that
cluster, or nothing yet. The aggregators of every kind read them through these few functions, so a
missing status or a malformed counter is treated the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
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


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp of a status (`2024-05-01T10:00:00Z`), None when absent or unreadable."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def format_time(moment: datetime) -> str:
    """A timestamp written as kube writes `metav1.Time`: UTC, whole seconds, `Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
