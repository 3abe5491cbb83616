"""Annotations mapping cluster names to moments: the failover records a binding carries.

The application failover controller remembers two things on a binding, each an annotation holding a
JSON object from cluster name to an RFC 3339 time with microseconds (what they mean and when they are
written: `controllers/applicationfailover/records.py`): when each copy was first seen unhealthy, and
the clusters the application failed over away from (`APPLICATION_FAILED_ON_ANNOTATION`). The
scheduler reads the second to keep those clusters out of new placements, so the format has its home
here, below both. The taint manager keeps a third in the same format, the clusters it evicted the
binding from (`EVICTED_FROM_ANNOTATION`). A user may read, edit or delete the annotations: an
unreadable value counts as empty, and an entry that does not read as a time is skipped.

Failback reads the evicted-from and failed-on records to move a workload back once a cluster has
been healthy for the policy's `FAILBACK_AFTER_ANNOTATION`; `parse_failback_after` is the one reading
of that value, shared by the API server's admission (which refuses a bad one) and the controller.

`failed_clusters` is the scheduler's reading: the clusters still remembered, except those a
reschedule from scratch was asked for after (`spec.rescheduleTriggeredAt`, a WorkloadRebalancer's
way to move workloads back) — the controller forgets those entries too, but the scheduler may see
the reschedule before it does.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import orjson

from flotilla.api.duration import parse_go_duration
from flotilla.api.karmada.constants import APPLICATION_FAILED_ON_ANNOTATION
from flotilla.api.times import format_micro_time, timestamp

ClusterTimes = dict[str, datetime]
"""Cluster name → a moment (timezone-aware UTC)."""


def read_times(annotations: Mapping[str, Any], key: str) -> ClusterTimes:
    """The times recorded under annotation `key`; entries that do not read as times are skipped."""
    text = annotations.get(key)
    if not isinstance(text, str) or not text:
        return {}
    try:
        decoded = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(decoded, dict):
        return {}
    times: ClusterTimes = {}
    for cluster, value in decoded.items():
        moment = timestamp(value)
        if moment is not None:
            times[str(cluster)] = moment
    return times


def encode_times(times: Mapping[str, datetime]) -> str | None:
    """The annotation's value for `times`, clusters sorted; None (remove it) when there are none."""
    if not times:
        return None
    ordered = {cluster: format_micro_time(times[cluster]) for cluster in sorted(times)}
    return orjson.dumps(ordered).decode()


def forgotten_by_reschedule(failed_at: datetime, reschedule_triggered_at: datetime | None) -> bool:
    """Whether a reschedule from scratch was asked for after the failure (it forgets the failure)."""
    return reschedule_triggered_at is not None and reschedule_triggered_at > failed_at


def failed_clusters(
    annotations: Mapping[str, Any], reschedule_triggered_at: datetime | None
) -> frozenset[str]:
    """The clusters a binding's application failed on that new placements should still avoid."""
    failed_on = read_times(annotations, APPLICATION_FAILED_ON_ANNOTATION)
    return frozenset(
        cluster
        for cluster, failed_at in failed_on.items()
        if not forgotten_by_reschedule(failed_at, reschedule_triggered_at)
    )


def parse_failback_after(text: str) -> float:
    """Seconds of a policy's failback-after value: a Go duration, not negative; ValueError says why."""
    seconds = parse_go_duration(text)
    if seconds < 0:
        raise ValueError(f'failback-after must not be negative, got "{text}"')
    return seconds
