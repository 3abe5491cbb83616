"""Tables for `batch/v1`: Job (`NAME STATUS COMPLETIONS DURATION AGE`) and CronJob.

A Job's STATUS comes from its conditions in a fixed precedence: `Complete`, `Failed`, then
`Terminating` while it is being deleted, `Suspended`, `FailureTarget`, else `Running`. COMPLETIONS is
`succeeded/completions`, or `succeeded/1 of parallelism` for a work queue without a completion count.
DURATION runs from `startTime` to `completionTime`, or to now while the job is still going.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import between, since
from flotilla.api.times import timestamp
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.labels import NONE, format_label_selector
from flotilla.apiserver.registry.tables.model import (
    AGE,
    CONTAINERS,
    IMAGES,
    NAME,
    Cell,
    Column,
    Printer,
    wide,
)
from flotilla.apiserver.registry.tables.objects import (
    child,
    container_cells,
    created,
    deleting,
    flag,
    has_condition,
    integer,
    items,
    mapping,
    name,
    objects,
    optional_integer,
    optional_text,
    text,
)


def job_status(job: dict[str, Any]) -> str:
    conditions = objects(job, "status", "conditions")
    if has_condition(conditions, "Complete"):
        return "Complete"
    if has_condition(conditions, "Failed"):
        return "Failed"
    if deleting(job):
        return "Terminating"
    if has_condition(conditions, "Suspended"):
        return "Suspended"
    if has_condition(conditions, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_completions(job: dict[str, Any]) -> str:
    succeeded = integer(job, "status", "succeeded")
    completions = optional_integer(job, "spec", "completions")
    if completions is not None:
        return f"{succeeded}/{completions}"
    parallelism = integer(job, "spec", "parallelism")
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def job_duration(job: dict[str, Any], now: datetime) -> str:
    start = timestamp(child(job, "status", "startTime"))
    if start is None:
        return ""
    completion = timestamp(child(job, "status", "completionTime"))
    return between(start, completion if completion is not None else now)


def _job_row(job: dict[str, Any], now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(job, "spec", "template", "spec"))
    return [
        name(job),
        job_status(job),
        job_completions(job),
        job_duration(job, now),
        since(created(job), now),
        names,
        images,
        format_label_selector(child(job, "spec", "selector")),
    ]


JOB = Printer(
    (
        NAME,
        Column("Status", "string", description="Status of the job."),
        Column("Completions", "string", description=swagger_doc("JobStatus.succeeded")),
        Column("Duration", "string", description="Time required to complete the job."),
        AGE,
        CONTAINERS,
        IMAGES,
        wide("Selector", swagger_doc("JobSpec.selector")),
    ),
    _job_row,
)


def _cron_job_row(cron_job: dict[str, Any], now: datetime) -> list[Cell]:
    job_spec = mapping(cron_job, "spec", "jobTemplate", "spec")
    names, images = container_cells(mapping(job_spec, "template", "spec"))
    last_schedule = child(cron_job, "status", "lastScheduleTime")
    # `suspend` defaults to false on every stored CronJob, so Kubernetes never shows `<unset>` for it.
    suspend = "True" if flag(cron_job, "spec", "suspend") else "False"
    time_zone = optional_text(cron_job, "spec", "timeZone")
    return [
        name(cron_job),
        text(cron_job, "spec", "schedule"),
        NONE if time_zone is None else time_zone,
        suspend,
        len(items(cron_job, "status", "active")),
        NONE if last_schedule is None else since(last_schedule, now),
        since(created(cron_job), now),
        names,
        images,
        format_label_selector(child(job_spec, "selector")),
    ]


CRON_JOB = Printer(
    (
        NAME,
        Column("Schedule", "string", description=swagger_doc("CronJobSpec.schedule")),
        Column("Timezone", "string", description=swagger_doc("CronJobSpec.timeZone")),
        Column("Suspend", "boolean", description=swagger_doc("CronJobSpec.suspend")),
        Column("Active", "integer", description=swagger_doc("CronJobStatus.active")),
        Column("Last Schedule", "string", description=swagger_doc("CronJobStatus.lastScheduleTime")),
        AGE,
        CONTAINERS,
        IMAGES,
        wide("Selector", swagger_doc("JobSpec.selector")),
    ),
    _cron_job_row,
)
