"""The CronJob controller: a Job for each time the schedule fires (kube's cronjob controller v2).

Each reconcile first brings `status.active` in line with the CronJob's Jobs (finished and vanished
ones leave it; a succeeded one may advance `lastSuccessfulTime`), then looks for the latest
firing time since `lastScheduleTime` (or creation) that has not been acted on. Unless the CronJob
is suspended, that time is past `startingDeadlineSeconds`, or a Job is still running under
`concurrencyPolicy: Forbid` (`Replace` deletes it instead), it creates the Job named
`<cronjob>-<minutes since the epoch>` from the job template — the name makes a second creation for
the same time fail harmlessly — and records it in `active` and `lastScheduleTime`. Finished Jobs
beyond `successfulJobsHistoryLimit` / `failedJobsHistoryLimit` are deleted, oldest first. The key
is looked at again just after the next firing: the one timer this controller keeps.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from email.utils import format_datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import structlog

from flotilla.api.conditions import find_condition
from flotilla.api.cron import CronSchedule, parse_schedule
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import copy_object
from flotilla.api.times import format_time, format_time_in, timestamp
from flotilla.apiserver import errors
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import CRON_JOB, JOB
from flotilla.sim.controllers.podowners import ownership

log = structlog.get_logger("flotilla.sim.controllers")

SCHEDULED_TIMESTAMP_ANNOTATION = "batch.kubernetes.io/cronjob-scheduled-timestamp"
NEXT_SCHEDULE_DELTA = 0.1
"""Seconds after a firing time at which the CronJob is looked at (kube's `nextScheduleDelta`)."""
TOO_MANY_MISSED = 100

CronJob = dict[str, Any]


def job_name(cron_job: CronJob, scheduled: datetime) -> str:
    return f"{cron_job['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def finished_condition(job: dict[str, Any]) -> str:
    """ "Complete" or "Failed" when the Job has finished, else ""."""
    for kind in ("Complete", "Failed"):
        found = find_condition((job.get("status") or {}).get("conditions"), kind)
        if found is not None and found.get("status") == "True":
            return kind
    return ""


def job_from_template(cron_job: CronJob, scheduled: datetime, zone: tzinfo) -> dict[str, Any]:
    template = cron_job["spec"]["jobTemplate"]
    template_meta = template.get("metadata") or {}
    annotations = dict(template_meta.get("annotations") or {})
    annotations[SCHEDULED_TIMESTAMP_ANNOTATION] = format_time_in(scheduled, zone)
    meta: dict[str, Any] = {
        "name": job_name(cron_job, scheduled),
        "namespace": cron_job["metadata"]["namespace"],
        "annotations": annotations,
        "ownerReferences": [ownership.controller_reference(cron_job, CRON_JOB)],
    }
    if template_meta.get("labels"):
        meta["labels"] = dict(template_meta["labels"])
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": copy_object(template.get("spec") or {}),
    }


def job_reference(job: dict[str, Any]) -> dict[str, Any]:
    meta = job["metadata"]
    return {
        "kind": "Job",
        "namespace": meta["namespace"],
        "name": meta["name"],
        "uid": meta["uid"],
        "apiVersion": "batch/v1",
        "resourceVersion": meta.get("resourceVersion", ""),
    }


class CronJobController(SimController):
    NAME = "cronjob-controller"
    KIND = CRON_JOB

    def watch(self) -> None:
        self.watch_kind(JOB, self._job_keys)

    def _job_keys(self, job: dict[str, Any]) -> list[ObjectKey]:
        owner = ownership.controller_name(job, CRON_JOB)
        return [ObjectKey(job["metadata"].get("namespace", ""), owner)] if owner else []

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        cron_job = self.client.get(CRON_JOB, name, namespace=namespace)
        if cron_job is None:
            return None
        now = self.clock.now()
        status = copy_object(cron_job.get("status") or {})
        jobs = self._owned(cron_job)
        await self._track_jobs(cron_job, status, jobs)
        recheck = None
        if not cron_job["metadata"].get("deletionTimestamp") and not cron_job["spec"].get("suspend"):
            recheck = await self._schedule(cron_job, status, now)
        await self._write_status(cron_job, status)
        await self._clean_history(cron_job)
        return recheck

    def _owned(self, cron_job: CronJob) -> list[dict[str, Any]]:
        meta = cron_job["metadata"]
        return self.client.controlled_by(JOB, meta["uid"], namespace=meta["namespace"])

    async def _track_jobs(
        self, cron_job: CronJob, status: dict[str, Any], jobs: list[dict[str, Any]]
    ) -> None:
        active = list(status.get("active") or [])
        known = {job["metadata"]["uid"] for job in jobs}
        for job in jobs:
            uid = job["metadata"]["uid"]
            listed = any(ref.get("uid") == uid for ref in active)
            outcome = finished_condition(job)
            if not listed and not outcome:
                await self.events.record(
                    cron_job,
                    CRON_JOB,
                    WARNING,
                    "UnexpectedJob",
                    f"Saw a job that the controller did not create or forgot: {job['metadata']['name']}",
                )
            elif listed and outcome:
                active = [ref for ref in active if ref.get("uid") != uid]
                await self.events.record(
                    cron_job,
                    CRON_JOB,
                    NORMAL,
                    "SawCompletedJob",
                    f"Saw completed job: {job['metadata']['name']}, condition: {outcome}",
                )
            if outcome == "Complete":
                completed = (job.get("status") or {}).get("completionTime")
                if completed and _later(completed, status.get("lastSuccessfulTime")):
                    status["lastSuccessfulTime"] = completed
        for ref in list(active):
            if ref.get("uid") not in known:
                active.remove(ref)
                await self.events.record(
                    cron_job, CRON_JOB, NORMAL, "MissingJob", f"Active job went missing: {ref.get('name')}"
                )
        if active:
            status["active"] = active
        else:
            status.pop("active", None)

    async def _schedule(self, cron_job: CronJob, status: dict[str, Any], now: datetime) -> float | None:
        spec = cron_job["spec"]
        try:
            zone: tzinfo = ZoneInfo(spec["timeZone"]) if spec.get("timeZone") else UTC
        except (ZoneInfoNotFoundError, ValueError):
            await self.events.record(
                cron_job, CRON_JOB, WARNING, "UnknownTimeZone", f"invalid timeZone: {spec['timeZone']!r}"
            )
            return None
        try:
            schedule = parse_schedule(str(spec.get("schedule", "")))
        except ValueError as exc:
            await self.events.record(
                cron_job, CRON_JOB, WARNING, "UnparseableSchedule", f"unparseable schedule: {exc}"
            )
            return None
        earliest = timestamp(
            status.get("lastScheduleTime") or cron_job["metadata"].get("creationTimestamp", "")
        )
        earliest = earliest or now
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None:
            earliest = max(earliest, now - timedelta(seconds=int(deadline)))
        scheduled, missed = schedule.most_recent(earliest, now, zone)
        if missed > TOO_MANY_MISSED:
            await self.events.record(
                cron_job,
                CRON_JOB,
                WARNING,
                "TooManyMissedTimes",
                f"too many missed start times: {missed}. "
                "Set or decrease .spec.startingDeadlineSeconds or check clock skew",
            )
        next_check = self._until_next(schedule, scheduled or earliest, now, zone)
        if scheduled is None:
            return next_check
        if deadline is not None and scheduled + timedelta(seconds=int(deadline)) < now:
            await self.events.record(
                cron_job,
                CRON_JOB,
                WARNING,
                "MissSchedule",
                f"Missed scheduled time to start a job: {format_datetime(scheduled.astimezone(UTC))}",
            )
            return next_check
        name = job_name(cron_job, scheduled)
        active = list(status.get("active") or [])
        if any(ref.get("name") == name for ref in active) or status.get("lastScheduleTime") == format_time(
            scheduled
        ):
            return next_check
        policy = spec.get("concurrencyPolicy", "Allow")
        if policy == "Forbid" and active:
            await self.events.record(
                cron_job,
                CRON_JOB,
                NORMAL,
                "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is Forbid",
            )
            return next_check
        if policy == "Replace":
            for ref in active:
                await self._delete_job(cron_job, str(ref.get("name", "")))
            active = []
        try:
            created = await self.client.create(JOB, job_from_template(cron_job, scheduled, zone))
        except errors.AlreadyExists:
            created = self.client.get(JOB, name, namespace=cron_job["metadata"]["namespace"]) or {}
            if not created or not ownership.controlled_by(created, cron_job["metadata"]["uid"]):
                return next_check
        except errors.APIError as exc:
            await self.events.record(
                cron_job, CRON_JOB, WARNING, "FailedCreate", f"Error creating job: {exc}"
            )
            raise
        else:
            await self.events.record(cron_job, CRON_JOB, NORMAL, "SuccessfulCreate", f"Created job {name}")
            log.info("cronjob.job_created", namespace=cron_job["metadata"]["namespace"], job=name)
        if not any(ref.get("uid") == created["metadata"]["uid"] for ref in active):
            active.append(job_reference(created))
        status["active"] = active
        status["lastScheduleTime"] = format_time(scheduled)
        return next_check

    def _until_next(
        self, schedule: CronSchedule, last: datetime, now: datetime, zone: tzinfo
    ) -> float | None:
        upcoming = schedule.next_run(max(last, now), zone)
        if upcoming is None:
            return None
        return max(0.0, (upcoming - now).total_seconds()) + NEXT_SCHEDULE_DELTA

    async def _write_status(self, cron_job: CronJob, status: dict[str, Any]) -> None:
        if status != (cron_job.get("status") or {}):
            await self.client.update(CRON_JOB, {**cron_job, "status": status}, subresource="status")

    async def _clean_history(self, cron_job: CronJob) -> None:
        spec = cron_job["spec"]
        jobs = self._owned(cron_job)
        for outcome, limit_field in (
            ("Complete", "successfulJobsHistoryLimit"),
            ("Failed", "failedJobsHistoryLimit"),
        ):
            limit = spec.get(limit_field)
            if limit is None:
                continue
            finished = [job for job in jobs if finished_condition(job) == outcome]
            finished.sort(
                key=lambda job: ((job.get("status") or {}).get("startTime") or "", job["metadata"]["name"])
            )
            for job in finished[: max(0, len(finished) - int(limit))]:
                await self._delete_job(cron_job, job["metadata"]["name"])

    async def _delete_job(self, cron_job: CronJob, name: str) -> None:
        if await self.client.delete(
            JOB, name, namespace=cron_job["metadata"]["namespace"], propagation="Background"
        ):
            await self.events.record(cron_job, CRON_JOB, NORMAL, "SuccessfulDelete", f"Deleted job {name}")


def _later(first: str, second: str | None) -> bool:
    """Whether timestamp `first` is after `second` (or `second` is missing)."""
    if not second:
        return True
    parsed_first, parsed_second = timestamp(first), timestamp(second)
    return parsed_first is not None and (parsed_second is None or parsed_first > parsed_second)
