"""CronJobs: when schedules fire, and the Jobs the controller makes of them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.times import format_time
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import ManualClock, SystemClock
from flotilla.sim.controllers.framework.kinds import CRON_JOB, EVENT, JOB
from flotilla.sim.controllers.jobs.cronjob import SCHEDULED_TIMESTAMP_ANNOTATION, CronJobController, job_name
from flotilla.sim.controllers.jobs.cronschedule import CronSchedule
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.harness import pod_template, running

AT = datetime(2026, 1, 1, 10, 7, 30, tzinfo=UTC)  # a Thursday


def test_steps_ranges_and_names_select_the_next_firing() -> None:
    """`*/15`, `9-17`, `mon-fri`, descriptors: the next firing after a moment."""
    assert CronSchedule.parse("*/15 * * * *").next_after(AT, UTC) == datetime(2026, 1, 1, 10, 15, tzinfo=UTC)
    assert CronSchedule.parse("0 9-17 * * mon-fri").next_after(AT, UTC) == datetime(
        2026, 1, 1, 11, 0, tzinfo=UTC
    )
    assert CronSchedule.parse("@daily").next_after(AT, UTC) == datetime(2026, 1, 2, 0, 0, tzinfo=UTC)
    assert CronSchedule.parse("0 0 1 jan *").next_after(AT, UTC) == datetime(2027, 1, 1, 0, 0, tzinfo=UTC)


def test_restricted_day_fields_match_either_day() -> None:
    """`0 9 1 * MON` fires on the 1st and on Mondays (cron's OR of the day fields)."""
    schedule = CronSchedule.parse("0 9 1 * MON")
    assert schedule.next_after(AT, UTC) == datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    assert schedule.next_after(datetime(2026, 1, 26, 10, 0, tzinfo=UTC), UTC) == datetime(
        2026, 2, 1, 9, 0, tzinfo=UTC
    )


def test_firings_are_computed_in_the_cron_jobs_time_zone() -> None:
    """09:00 in Berlin is 08:00 UTC in winter."""
    fired = CronSchedule.parse("0 9 * * *").next_after(AT, ZoneInfo("Europe/Berlin"))
    assert fired is not None and fired.astimezone(UTC) == datetime(2026, 1, 2, 8, 0, tzinfo=UTC)


def test_the_most_recent_missed_firing_is_found_and_misses_counted() -> None:
    """Every five minutes from 09:00 to 10:07:30: the latest is 10:05, 13 were missed."""
    latest, missed = CronSchedule.parse("*/5 * * * *").most_recent(
        datetime(2026, 1, 1, 9, 0, tzinfo=UTC), AT, UTC
    )
    assert latest == datetime(2026, 1, 1, 10, 5, tzinfo=UTC) and missed == 13
    assert CronSchedule.parse("0 0 * * *").most_recent(datetime(2026, 1, 1, 9, 0, tzinfo=UTC), AT, UTC) == (
        None,
        0,
    )


def cron_job(**spec: Any) -> dict[str, Any]:
    template = pod_template({"app": "report"}, image="busybox:1.36", restartPolicy="Never")
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "report", "namespace": "default"},
        "spec": {
            "schedule": "* * * * *",
            "jobTemplate": {"metadata": {"labels": {"kind": "report"}}, "spec": {"template": template}},
            **spec,
        },
    }


def status_of(client: LocalClient) -> dict[str, Any]:
    return (client.get(CRON_JOB, "report", namespace="default") or {}).get("status") or {}


async def finish(client: LocalClient, name: str) -> None:
    """Stand in for the Job controller: mark a Job complete."""
    stamp = format_time(SystemClock().now())

    def change(job: dict[str, Any]) -> None:
        job["status"] = {
            "startTime": stamp,
            "completionTime": stamp,
            "succeeded": 1,
            "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": stamp},
                {"type": "Complete", "status": "True", "lastTransitionTime": stamp},
            ],
        }

    await client.mutate(JOB, name, change, namespace="default", subresource="status")


async def test_a_job_is_created_when_the_schedule_fires_and_tracked_until_done(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """A minute later: Job `report-<minutes>` from the template, listed active; done, it leaves the list."""
    clock = ManualClock(SystemClock().now())
    async with running(api, CronJobController, clock) as controller:
        await client.create(CRON_JOB, cron_job())
        clock.advance(61)
        controller.enqueue(ObjectKey("default", "report"))
        await eventually_async(lambda: len(status_of(client).get("active") or []) == 1)
        [job] = client.list(JOB, namespace="default")
        scheduled = datetime.fromisoformat(status_of(client)["lastScheduleTime"])
        assert job["metadata"]["name"] == job_name({"metadata": {"name": "report"}}, scheduled)
        assert job["metadata"]["labels"] == {"kind": "report"}
        assert (
            job["metadata"]["annotations"][SCHEDULED_TIMESTAMP_ANNOTATION]
            == status_of(client)["lastScheduleTime"]
        )
        assert job["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
        assert status_of(client)["active"][0]["name"] == job["metadata"]["name"]
        await finish(client, job["metadata"]["name"])
        await eventually_async(
            lambda: "active" not in status_of(client) and "lastSuccessfulTime" in status_of(client)
        )


async def test_forbid_skips_a_firing_while_a_job_runs(api: EmbeddedAPI, client: LocalClient) -> None:
    """concurrencyPolicy Forbid: no second Job while the first is active, and an event says why."""
    clock = ManualClock(SystemClock().now())
    async with running(api, CronJobController, clock) as controller:
        await client.create(CRON_JOB, cron_job(concurrencyPolicy="Forbid"))
        clock.advance(61)
        controller.enqueue(ObjectKey("default", "report"))
        await eventually_async(lambda: len(client.list(JOB, namespace="default")) == 1)
        clock.advance(60)
        controller.enqueue(ObjectKey("default", "report"))
        await eventually_async(
            lambda: any(e["reason"] == "JobAlreadyActive" for e in client.list(EVENT, namespace="default"))
        )
        assert len(client.list(JOB, namespace="default")) == 1


async def test_finished_jobs_beyond_the_history_limit_are_deleted(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """successfulJobsHistoryLimit 1: after two completed runs only the newer Job remains."""
    clock = ManualClock(SystemClock().now())
    async with running(api, CronJobController, clock) as controller:
        await client.create(CRON_JOB, cron_job(successfulJobsHistoryLimit=1))
        names: list[str] = []
        for _ in range(2):
            clock.advance(60)
            controller.enqueue(ObjectKey("default", "report"))
            await eventually_async(lambda: len(status_of(client).get("active") or []) == 1)
            names.append(status_of(client)["active"][0]["name"])
            await finish(client, names[-1])
            await eventually_async(lambda: "active" not in status_of(client))
        await eventually_async(
            lambda: [j["metadata"]["name"] for j in client.list(JOB, namespace="default")] == [names[1]]
        )


async def test_a_suspended_cron_job_creates_nothing(api: EmbeddedAPI, client: LocalClient) -> None:
    """suspend: firings pass without Jobs."""
    clock = ManualClock(SystemClock().now())
    async with running(api, CronJobController, clock) as controller:
        await client.create(CRON_JOB, cron_job(suspend=True))
        clock.advance(120)
        controller.enqueue(ObjectKey("default", "report"))
        await client.create(CRON_JOB, {**cron_job(), "metadata": {"name": "other", "namespace": "default"}})
        controller.enqueue(ObjectKey("default", "other"))
        await eventually_async(
            lambda: any(
                j["metadata"]["name"].startswith("other-") for j in client.list(JOB, namespace="default")
            )
        )
        assert not any(
            j["metadata"]["name"].startswith("report-") for j in client.list(JOB, namespace="default")
        )
