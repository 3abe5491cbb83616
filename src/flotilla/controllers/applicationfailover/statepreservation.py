"""What a failover keeps of the failed copy: `preservedLabelState`, read from its status by rules.

A rule `{aliasLabelName, jsonPath}` reads one value from the status the failed cluster last
reported (`aggregatedStatus[].status`, the resource interpreter's view of the member object; the
path starts at `.status`, so `{ .jobStatus.jobID }` reads `status.jobStatus.jobID`) and keeps it
under the alias, which the binding controller later puts as a label on the copy that takes over
(`binding.render.preserved_labels`). Every rule must find its value: a failover that would lose
state waits instead, and `StateNotPreserved` says why (Karmada returns the same errors).

One step beyond Karmada (its issue #6232): when the copy failing now is itself the one a previous
failover moved the state to, and that failover's task is still on the binding — the graceful
eviction controller drops it once the new copy turns healthy, so the copy never ran healthy — the
state that failover preserved is carried on instead of being read afresh. A Flink job that never
got going on its new cluster has taken no savepoint under its new job id; the old one is the state
to resume from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.api.karmada.constants import PurgeMode
from flotilla.api.karmada.policy import StatePreservation
from flotilla.api.karmada.work import GracefulEvictionTask
from flotilla.controllers.applicationfailover.jsonpath import JSONPathError, parse_template


class StateNotPreserved(Exception):
    """The failed copy's state cannot be read yet (no status collected, or a rule finds nothing)."""


def read_label_state(
    preservation: StatePreservation, status: Mapping[str, Any] | None, cluster: str
) -> dict[str, str]:
    """Each rule's alias → the value its path reads from `status`; `StateNotPreserved` if any fails."""
    if status is None:
        raise StateNotPreserved(f"the application status has not yet been collected from cluster {cluster}")
    state: dict[str, str] = {}
    for rule in preservation.rules:
        try:
            state[rule.alias_label_name] = parse_template(rule.json_path).render(dict(status))
        except JSONPathError as error:
            raise StateNotPreserved(
                f"cannot read {rule.json_path!r} for label {rule.alias_label_name} from the status "
                f"of cluster {cluster}: {error}"
            ) from error
    return state


def carried_state(tasks: Sequence[GracefulEvictionTask], cluster: str) -> dict[str, str] | None:
    """The state a still-open failover handed to `cluster`, if it is that failover's destination.

    The newest task that preserved state decides. It handed its state to `cluster` when it purged
    `Directly` (only then is state injected) and the workload did not run on `cluster` before it
    (`clustersBeforeFailover`).
    """
    for task in reversed(tasks):
        if not task.preserved_label_state:
            continue
        if task.purge_mode != PurgeMode.DIRECTLY or cluster in task.clusters_before_failover:
            return None
        return dict(task.preserved_label_state)
    return None


def preserved_state(
    preservation: StatePreservation | None,
    status: Mapping[str, Any] | None,
    tasks: Sequence[GracefulEvictionTask],
    cluster: str,
) -> dict[str, str] | None:
    """The `preservedLabelState` of the task evicting `cluster`; None when the policy keeps no state."""
    if preservation is None or not preservation.rules:
        return None
    carried = carried_state(tasks, cluster)
    if carried is not None:
        return carried
    return read_label_state(preservation, status, cluster)
