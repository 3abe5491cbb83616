"""Job and CronJob status on the hub, folded from their member copies."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flotilla.interpreter import aggregate_status

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
LATER = datetime(2025, 3, 1, 12, 30, tzinfo=UTC)
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "batch"}}


def _items(**statuses: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {"clusterName": cluster, **({"status": status} if status is not None else {})}
        for cluster, status in statuses.items()
    ]


def _finished(kind: str, **counts: int) -> dict[str, Any]:
    return {
        "conditions": [{"type": kind, "status": "True"}],
        "startTime": "2025-03-01T10:00:00Z",
        "completionTime": "2025-03-01T11:00:00Z" if kind == "Complete" else None,
        **counts,
    }


def test_one_failed_member_fails_the_job_and_names_the_cluster() -> None:
    """A failure anywhere is a Failed condition listing the failed clusters; counters still add up."""
    items = _items(
        member1=_finished("Complete", succeeded=2),
        member2={**_finished("Failed", failed=3), "startTime": "2025-03-01T09:30:00Z"},
    )
    status = aggregate_status(JOB, items, now=NOW)["status"]
    assert status == {
        "conditions": [
            {
                "type": "Failed",
                "status": "True",
                "lastProbeTime": "2025-03-01T12:00:00Z",
                "lastTransitionTime": "2025-03-01T12:00:00Z",
                "reason": "JobFailed",
                "message": "Job executed failed in member clusters member2",
            }
        ],
        "startTime": "2025-03-01T09:30:00Z",
        "succeeded": 2,
        "failed": 3,
    }


def test_the_job_completes_when_every_member_completed() -> None:
    """Complete (with SuccessCriteriaMet) and the latest completion time appear only once all are done."""
    items = _items(
        member1=_finished("Complete", succeeded=1),
        member2={**_finished("Complete", succeeded=1), "completionTime": "2025-03-01T11:45:00Z"},
    )
    status = aggregate_status(JOB, items, now=NOW)["status"]
    assert [condition["type"] for condition in status["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    assert status["completionTime"] == "2025-03-01T11:45:00Z"
    assert status["succeeded"] == 2


def test_a_job_still_running_somewhere_is_not_complete() -> None:
    """One member still active, or not reporting yet, keeps the Job running."""
    items = _items(
        member1=_finished("Complete", succeeded=1), member2={"active": 1, "startTime": "2025-03-01T10:05:00Z"}
    )
    status = aggregate_status(JOB, items, now=NOW)["status"]
    assert "conditions" not in status and "completionTime" not in status
    assert (status["active"], status["succeeded"]) == (1, 1)
    status = aggregate_status(JOB, _items(member1=_finished("Complete", succeeded=1), member2=None), now=NOW)[
        "status"
    ]
    assert "conditions" not in status


def test_a_finished_job_is_never_rewritten() -> None:
    """Once the template's Job completed, later member reports do not change it."""
    finished = {**JOB, "status": {"conditions": [{"type": "Complete", "status": "True"}], "succeeded": 2}}
    items = _items(member1={"active": 5})
    assert aggregate_status(finished, items, now=NOW) == finished


def test_aggregating_again_keeps_the_condition_timestamps() -> None:
    """An unchanged failure keeps its timestamps, so a second pass writes nothing new."""
    items = _items(member1=_finished("Failed", failed=1), member2={"active": 1})
    first = aggregate_status(JOB, items, now=NOW)
    second = aggregate_status(first, items, now=LATER)
    assert second == first


def test_cron_job_lists_every_active_job_and_the_latest_times() -> None:
    """A CronJob shows all members' active Jobs and the most recent schedule and success."""
    cron_job = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "report"},
        "status": {"lastScheduleTime": "2025-02-01T00:00:00Z"},
    }
    items = _items(
        member1={
            "active": [{"kind": "Job", "name": "report-1"}],
            "lastScheduleTime": "2025-03-01T06:00:00Z",
            "lastSuccessfulTime": "2025-03-01T05:00:00Z",
        },
        member2={"active": [{"kind": "Job", "name": "report-2"}], "lastScheduleTime": "2025-03-01T07:00:00Z"},
    )
    assert aggregate_status(cron_job, items, now=NOW)["status"] == {
        "lastScheduleTime": "2025-03-01T07:00:00Z",
        "active": [{"kind": "Job", "name": "report-1"}, {"kind": "Job", "name": "report-2"}],
        "lastSuccessfulTime": "2025-03-01T05:00:00Z",
    }
