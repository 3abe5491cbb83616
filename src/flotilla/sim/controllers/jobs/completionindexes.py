"""Completion indexes of Indexed Jobs: `status.completedIndexes` text and the pods' index.

An Indexed Job runs one successful pod per index 0 to completions-1; each pod carries its index in
the `batch.kubernetes.io/job-completion-index` annotation (and label). The Job's status lists the
indexes that succeeded as ranges, `"0-2,5,7-9"`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


def parse(text: str | None) -> set[int]:
    """The indexes in a `completedIndexes` value (unreadable parts are ignored)."""
    found: set[int] = set()
    for part in (text or "").split(","):
        first, _, last = part.strip().partition("-")
        try:
            low = int(first)
            high = int(last) if last else low
        except ValueError:
            continue
        found.update(range(low, high + 1))
    return found


def format_ranges(indexes: Iterable[int]) -> str:
    """Sorted indexes as comma-separated ranges."""
    ordered = sorted(set(indexes))
    parts: list[str] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            end += 1
        low, high = ordered[start], ordered[end]
        parts.append(str(low) if low == high else f"{low}-{high}")
        start = end + 1
    return ",".join(parts)


def index_of(pod: Mapping[str, Any]) -> int | None:
    text = ((pod.get("metadata") or {}).get("annotations") or {}).get(COMPLETION_INDEX)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None
