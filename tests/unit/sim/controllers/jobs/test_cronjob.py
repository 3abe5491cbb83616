"""CronJobs: the Jobs the controller makes when schedules fire (schedules: tests/unit/api/test_cron.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.times import format_time
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import ManualClock, SystemClock
from flotilla.sim.controllers.framework.kinds import CRON_JOB, EVENT, JOB
from flotilla.sim.controllers.jobs.cronjob import SCHEDULED_TIMESTAMP_ANNOTATION, CronJobController, job_name
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.harness import pod_template, running


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
