"""A Job's and a CronJob's status on the hub, folded from the copies running in member clusters.

A Job split across clusters is one Job to its user, so its template reports:

- `active`, `succeeded`, `failed`: the sums over the members;
- `startTime`: the earliest member start; `completionTime`: the latest member completion, and only
  once every member has completed;
- a `Failed` condition (reason `JobFailed`) as soon as any member failed, naming the failed
  clusters; `SuccessCriteriaMet` and `Complete` (reason `Completed`) only when every member completed.

A Job whose template already carries a true `Complete` or `Failed` condition is finished: its status
is never rewritten again, as kube never rewrites a finished Job. Karmada stamps the conditions it
adds with the current time on every pass; here a condition that already exists with the same
status, reason and message keeps its timestamps, so aggregating twice yields the same object and
the status controller does not write for nothing.

A CronJob reports every member's `active` Job references, and the latest `lastScheduleTime` and
`lastSuccessfulTime` of any member.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flotilla.api.conditions import find_condition, kept_if_unchanged
from flotilla.api.times import format_time, timestamp
from flotilla.interpreter import kinds
from flotilla.interpreter.statusitems import StatusItems, counter, item_status

_FINISHED = ("Complete", "Failed")


def job_finished(status: Mapping[str, Any]) -> str | None:
    """`Complete` or `Failed` when a Job status carries that condition as true, else None."""
    for condition in kinds.nested_list(status, "conditions"):
        if (
            isinstance(condition, Mapping)
            and condition.get("type") in _FINISHED
            and condition.get("status") == "True"
        ):
            return str(condition["type"])
    return None


def _condition(kind: str, reason: str, message: str, previous: list[Any], now: datetime) -> dict[str, Any]:
    """A True condition, the previous one kept while unchanged (the Job controller's rule)."""
    stamp = format_time(now)
    condition = {
        "type": kind,
        "status": "True",
        "lastProbeTime": stamp,
        "lastTransitionTime": stamp,
        "reason": reason,
        "message": message,
    }
    existing = find_condition([c for c in previous if isinstance(c, Mapping)], kind)
    return kept_if_unchanged(condition, existing)


def aggregate_job(template: dict[str, Any], items: StatusItems, now: datetime) -> None:
    """Fold the members' Job statuses into the template, unless the template's Job has finished."""
    previous = kinds.nested_mapping(template, "status")
    if job_finished(previous):
        return
    totals = dict.fromkeys(("active", "succeeded", "failed"), 0)
    failed_clusters: list[str] = []
    completed = with_completion_time = 0
    start_time: datetime | None = None
    completion_time: datetime | None = None
    for item in items:
        status = item_status(item)
        if status is None:
            continue
        for field in totals:
            totals[field] += counter(status, field)
        finished = job_finished(status)
        if finished == "Complete":
            completed += 1
        elif finished == "Failed":
            failed_clusters.append(str(item.get("clusterName", "")))
        started = timestamp(status.get("startTime"))
        if started is not None and (start_time is None or started < start_time):
            start_time = started
        ended = timestamp(status.get("completionTime"))
        if ended is not None:
            with_completion_time += 1
            if completion_time is None or ended > completion_time:
                completion_time = ended

    old_conditions = kinds.nested_list(previous, "conditions")
    conditions: list[dict[str, Any]] = []
    if failed_clusters:
        message = f"Job executed failed in member clusters {','.join(failed_clusters)}"
        conditions.append(_condition("Failed", "JobFailed", message, old_conditions, now))
    if items and completed == len(items):
        conditions.append(_condition("SuccessCriteriaMet", "Completed", "Job completed", old_conditions, now))
        conditions.append(_condition("Complete", "Completed", "Job completed", old_conditions, now))

    aggregated: dict[str, Any] = {}
    if conditions:
        aggregated["conditions"] = conditions
    if start_time is not None:
        aggregated["startTime"] = format_time(start_time)
    if completion_time is not None and with_completion_time == len(items):
        aggregated["completionTime"] = format_time(completion_time)
    aggregated.update({field: value for field, value in totals.items() if value})
    template["status"] = aggregated


def aggregate_cron_job(template: dict[str, Any], items: StatusItems) -> None:
    """Fold the members' CronJob statuses into the template."""
    status = template.get("status")
    if not isinstance(status, dict):
        status = template["status"] = {}
    active: list[Any] = []
    latest: dict[str, tuple[datetime, Any]] = {}
    for item in items:
        member = item_status(item)
        if member is None:
            continue
        active.extend(copy.deepcopy(kinds.nested_list(member, "active")))
        for field in ("lastScheduleTime", "lastSuccessfulTime"):
            moment = timestamp(member.get(field))
            if moment is not None and (field not in latest or latest[field][0] < moment):
                latest[field] = (moment, member[field])
    if active:
        status["active"] = active
    else:
        status.pop("active", None)
    for field in ("lastScheduleTime", "lastSuccessfulTime"):
        if field in latest:
            status[field] = latest[field][1]
        else:
            status.pop(field, None)
