from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.apiserver.registry.tables.batch import CRON_JOB, JOB, job_completions, job_status

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def job(spec: dict[str, Any], status: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    template = {"spec": {"containers": [{"name": "pi", "image": "perl:5.34"}], "restartPolicy": "Never"}}
    return {
        "metadata": {"name": "pi", "creationTimestamp": "2025-03-01T11:50:00Z", **metadata},
        "spec": {
            "template": template,
            "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u1"}},
            **spec,
        },
        "status": status,
    }


def test_completed_job_row() -> None:
    """A finished job shows Complete, succeeded/completions and the time from start to completion."""
    finished = job(
        {"completions": 1, "parallelism": 1},
        {
            "succeeded": 1,
            "startTime": "2025-03-01T11:50:00Z",
            "completionTime": "2025-03-01T11:50:42Z",
            "conditions": [
                {"type": "SuccessCriteriaMet", "status": "True"},
                {"type": "Complete", "status": "True"},
            ],
        },
    )
    assert JOB.cells(finished, NOW) == [
        "pi",
        "Complete",
        "1/1",
        "42s",
        "10m",
        "pi",
        "perl:5.34",
        "batch.kubernetes.io/controller-uid=u1",
    ]


def test_running_job_duration_counts_to_now_and_unstarted_is_empty() -> None:
    """A running job's duration runs until now; a job not started has an empty duration."""
    assert JOB.cells(job({}, {"startTime": "2025-03-01T11:57:00Z", "active": 1}), NOW)[1:4] == [
        "Running",
        "0/1",
        "3m",
    ]
    assert JOB.cells(job({}, {}), NOW)[3] == ""


@pytest.mark.parametrize(
    ("conditions", "deleting", "expected"),
    [
        ([{"type": "Failed", "status": "True"}], False, "Failed"),
        ([{"type": "Failed", "status": "True"}], True, "Failed"),
        ([], True, "Terminating"),
        ([{"type": "Suspended", "status": "True"}], False, "Suspended"),
        ([{"type": "FailureTarget", "status": "True"}], False, "FailureTarget"),
        ([{"type": "Suspended", "status": "False"}], False, "Running"),
    ],
)
def test_job_status_precedence(conditions: list[dict[str, Any]], deleting: bool, expected: str) -> None:
    """Complete and Failed beat Terminating, which beats Suspended and FailureTarget."""
    extra = {"deletionTimestamp": "2025-03-01T11:59:00Z"} if deleting else {}
    assert job_status(job({}, {"conditions": conditions}, **extra)) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [({"completions": 5}, "2/5"), ({"parallelism": 3}, "2/1 of 3"), ({"parallelism": 1}, "2/1"), ({}, "2/1")],
)
def test_job_completions(spec: dict[str, Any], expected: str) -> None:
    """Without completions a work-queue job shows `succeeded/1 of parallelism` when parallel."""
    assert job_completions(job(spec, {"succeeded": 2})) == expected


def test_cron_job_row() -> None:
    """A cron job shows schedule, time zone (`<none>` unset), suspend, active count and last schedule age."""
    cron_job: dict[str, Any] = {
        "metadata": {"name": "backup", "creationTimestamp": "2025-02-01T12:00:00Z"},
        "spec": {
            "schedule": "*/5 * * * *",
            "jobTemplate": {
                "spec": {"template": {"spec": {"containers": [{"name": "backup", "image": "restic:0.17"}]}}}
            },
        },
        "status": {"active": [{"name": "backup-1"}], "lastScheduleTime": "2025-03-01T11:55:00Z"},
    }
    assert CRON_JOB.cells(cron_job, NOW) == [
        "backup",
        "*/5 * * * *",
        "<none>",
        "False",
        1,
        "5m",
        "28d",
        "backup",
        "restic:0.17",
        "<none>",
    ]
    cron_job["spec"].update(timeZone="Etc/UTC", suspend=True)
    del cron_job["status"]["lastScheduleTime"]
    assert CRON_JOB.cells(cron_job, NOW)[2:6] == ["Etc/UTC", "True", 1, "<none>"]
