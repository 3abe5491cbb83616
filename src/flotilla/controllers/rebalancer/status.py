"""A WorkloadRebalancer's status as Karmada's controller keeps it, as pure functions.

`observed_workloads` re-syncs `status.observedWorkloads` with the spec (Karmada's
`syncWorkloadsFromSpecToStatus`): a workload still listed keeps its entry and result; one no longer
listed keeps its entry only if it succeeded (what was done stays recorded); a newly listed one gets
an entry without a result, to be done; the list is sorted by apiVersion, kind, namespace and name.
`needs_trigger` says whether a binding's `rescheduleTriggeredAt` is to be moved to the rebalancer's
creation time, and `ttl_left` how long a finished rebalancer has before it is deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from flotilla.api.karmada.constants import RebalanceResult
from flotilla.api.karmada.rebalancer import ObservedWorkload, WorkloadReference


def observed_workloads(
    workloads: Sequence[WorkloadReference], observed: Sequence[ObservedWorkload]
) -> list[ObservedWorkload]:
    """The status's workload entries for the spec's list, results kept where they still apply."""
    wanted = {workload.identity(): workload for workload in workloads}
    entries: list[ObservedWorkload] = []
    for entry in observed:
        identity = entry.workload.identity()
        if identity in wanted:
            entries.append(entry.model_copy(deep=True))
            del wanted[identity]
        elif entry.result == RebalanceResult.SUCCESSFUL:
            entries.append(entry.model_copy(deep=True))
    entries += [ObservedWorkload(workload=workload.model_copy()) for workload in wanted.values()]
    return sorted(entries, key=lambda entry: entry.workload.identity())


def needs_trigger(created: datetime | None, triggered: datetime | None) -> bool:
    """Whether a binding triggered at `triggered` (None: never) is to be triggered at `created`."""
    return triggered is None or (created is not None and created > triggered)


def ttl_left(finished: datetime | None, ttl_seconds: int | None, now: datetime) -> float | None:
    """Seconds until a finished rebalancer is deleted (<= 0: now); None when it is never deleted.

    A rebalancer that has not finished is not deleted yet either."""
    if ttl_seconds is None or finished is None:
        return None
    return (finished + timedelta(seconds=ttl_seconds) - now).total_seconds()
