"""Why a binding could not be scheduled, as the `Scheduled` condition reports it.

Each error carries the condition reason Karmada writes and whether the scheduler retries:

- `FitError` (`NoClusterFit`): no cluster passed the filters. The message is the reason
  histogram, `0/3 clusters are available: 1 cluster(s) had untolerated taint {a:NoSchedule},
  2 cluster(s) did not match the placement cluster affinity constraint.` Karmada then writes an
  empty result (the workload leaves every cluster) and does not retry; a later change to the
  binding or the clusters triggers the next attempt.
- `UnschedulableError` (`Unschedulable`): clusters fit but lack capacity (`Clusters available
  replicas 3 are not enough to schedule.`). The previous result stays; the binding is retried
  with backoff.
- `QuotaExceededError` (`QuotaExceeded`): the hub refused to store the result, which would take
  the namespace past a FederatedResourceQuota; the message is the refusal's. Retried with
  backoff, the previous result staying, as Karmada's `getConditionByError` does.
- `SchedulerError` (`SchedulerError`): anything else, such as spread constraints that cannot be
  met. Retried with backoff; the previous result stays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from flotilla.scheduler.framework import Result

SCHEDULED_CONDITION = "Scheduled"
SUCCESS_REASON = "Success"
SUCCESS_MESSAGE = "Binding has been scheduled successfully."


class SchedulingError(Exception):
    """A binding that could not be placed this round."""

    reason = "SchedulerError"
    retryable = True

    @property
    def message(self) -> str:
        return str(self)

    def wrapped(self, context: str) -> SchedulingError:
        """The same kind of error with `context: ` in front, as Go's `fmt.Errorf("%s: %w")` reads."""
        return type(self)(f"{context}: {self}")


class SchedulerError(SchedulingError):
    """A failure other than no fit or no capacity (spread constraints, an empty candidate list)."""


class UnschedulableError(SchedulingError):
    """Clusters fit, but together they cannot hold the replicas."""

    reason = "Unschedulable"


class QuotaExceededError(SchedulingError):
    """The hub refused the result with a 403 `QuotaExceeded` (a FederatedResourceQuota is full)."""

    reason = "QuotaExceeded"


class FitError(SchedulingError):
    """No cluster passed the filters; `diagnosis` holds each rejected cluster's result."""

    reason = "NoClusterFit"
    retryable = False

    def __init__(self, total_clusters: int, diagnosis: Mapping[str, Result]) -> None:
        self.total_clusters = total_clusters
        self.diagnosis = dict(diagnosis)
        super().__init__(fit_error_message(total_clusters, diagnosis))

    def wrapped(self, context: str) -> SchedulingError:
        return self


def fit_error_message(total_clusters: int, diagnosis: Mapping[str, Result]) -> str:
    """Karmada's `0/N clusters are available: <count> <reason>, ….` (entries sorted as strings)."""
    if total_clusters == 0 or not diagnosis:
        return f"0/{total_clusters} clusters are available: no cluster exists."
    counts = Counter(reason for result in diagnosis.values() for reason in result.reasons)
    histogram = sorted(f"{count} {reason}" for reason, count in counts.items())
    return f"0/{total_clusters} clusters are available: {', '.join(histogram)}."


@dataclass(frozen=True, slots=True)
class ScheduledCondition:
    """The `Scheduled` condition a scheduling outcome leads to."""

    status: str
    reason: str
    message: str


def scheduled_condition(error: SchedulingError | None) -> ScheduledCondition:
    """`Scheduled=True/Success` for no error, else `False` with the error's reason and message."""
    if error is None:
        return ScheduledCondition("True", SUCCESS_REASON, SUCCESS_MESSAGE)
    return ScheduledCondition("False", error.reason, error.message)
