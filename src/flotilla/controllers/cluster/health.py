"""A member cluster's Ready condition: what a probe observed, damped by success and failure thresholds.

Every status interval the cluster controller probes a Push member's `/readyz` (or `/healthz`). The
probe says one of three things, each a Ready condition as Karmada writes it:

- the member answered 200: `True`, reason `ClusterReady`;
- it answered something else: `False`, reason `ClusterNotReady`;
- it did not answer at all: `False`, reason `ClusterNotReachable`.

A network blip should not flip a cluster, so the condition on the Cluster only changes between
Ready and not Ready once the new observation has held for a while: healthy for
`success_threshold` seconds before Ready turns True again, unhealthy for `failure_threshold`
seconds before it turns False. Until then the current condition is kept as it is. A `ReadyHistory`
remembers since when the observation has been what it is; the controller keeps one per cluster and
passes it back in, so these functions stay pure.

Karmada starts every cluster's history afresh when its controller starts and lets the first
observation through undamped; here only a cluster that has no Ready condition yet (a new one) is
undamped, so restarting the controller manager does not flip clusters on a single failed probe.
Karmada also reports any non-2xx answer of the health endpoint as `ClusterNotReachable`; here an
answer, whatever its code, means the member is reachable, and the reason says `ClusterNotReady`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from flotilla.api.conditions import set_status_condition
from flotilla.api.karmada.constants import CLUSTER_CONDITION_READY
from flotilla.api.karmada.model import Condition, find_condition
from flotilla.api.times import format_time

REASON_READY = "ClusterReady"
REASON_NOT_READY = "ClusterNotReady"
REASON_NOT_REACHABLE = "ClusterNotReachable"
REASON_STATUS_COLLECTION_FAILED = "StatusCollectionFailed"

MESSAGE_READY = "cluster is healthy and ready to accept workloads"
MESSAGE_NOT_READY = "cluster is reachable but health endpoint responded without ok"
MESSAGE_NOT_REACHABLE = "cluster is not reachable"

ConditionStatus = Literal["True", "False", "Unknown"]

Probe = Literal["healthy", "unhealthy", "unreachable"]
"""What one health probe found: answered ok, answered otherwise, or did not answer."""


@dataclass(frozen=True, slots=True)
class ReadyHistory:
    """Since when the probes of a cluster have observed the Ready status they observe now."""

    observed: str
    since: datetime


def observed_ready_condition(probe: Probe) -> Condition:
    """The Ready condition a single probe result stands for (no transition time yet)."""
    if probe == "healthy":
        return Condition(
            type=CLUSTER_CONDITION_READY, status="True", reason=REASON_READY, message=MESSAGE_READY
        )
    if probe == "unhealthy":
        return Condition(
            type=CLUSTER_CONDITION_READY, status="False", reason=REASON_NOT_READY, message=MESSAGE_NOT_READY
        )
    return Condition(
        type=CLUSTER_CONDITION_READY,
        status="False",
        reason=REASON_NOT_REACHABLE,
        message=MESSAGE_NOT_REACHABLE,
    )


def status_collection_failed(message: str) -> Condition:
    """Ready=False because the cluster cannot even be contacted as configured (no credentials…)."""
    return Condition(
        type=CLUSTER_CONDITION_READY, status="False", reason=REASON_STATUS_COLLECTION_FAILED, message=message
    )


def threshold_adjusted(
    observed: Condition,
    current: Condition | None,
    history: ReadyHistory | None,
    now: datetime,
    *,
    success_threshold: float,
    failure_threshold: float,
) -> tuple[Condition, ReadyHistory]:
    """The Ready condition to report now, and the history to remember for the next probe.

    `current` is the Ready condition the Cluster carries. A flip between Ready and not Ready waits
    until the observation has held for the threshold of its direction; any other change (a new
    cluster, NotReachable to NotReady) is reported at once.
    """
    if history is None or history.observed != observed.status:
        history = ReadyHistory(observed.status, now)
    if current is None:
        return observed, history
    turning_ready = observed.status == "True" and current.status != "True"
    turning_unready = observed.status != "True" and current.status == "True"
    threshold = success_threshold if observed.status == "True" else failure_threshold
    if (turning_ready or turning_unready) and now < history.since + timedelta(seconds=threshold):
        return current, history
    return observed, history


def set_condition(conditions: list[Condition], condition: Condition, now: datetime) -> list[Condition]:
    """`conditions` with `condition` set by type, as `meta.SetStatusCondition` does it (see
    `flotilla.api.conditions`): the transition time moves only when the status changes."""
    updated = set_status_condition(
        [c.to_object() for c in conditions], condition.to_object(), format_time(now)
    )
    return [Condition.from_object(c) for c in updated]


def ready_condition(conditions: list[Condition]) -> Condition | None:
    """The Ready condition among a Cluster's conditions."""
    return find_condition(conditions, CLUSTER_CONDITION_READY)
