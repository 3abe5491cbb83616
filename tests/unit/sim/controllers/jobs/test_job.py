"""The Job controller: parallelism, completions, the two-step finish, backoff limit, suspension."""

from __future__ import annotations

from typing import Any

from flotilla.api.conditions import find_condition
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.controllers.framework.kinds import EVENT, JOB, POD
from flotilla.sim.controllers.jobs import completionindexes
from flotilla.sim.controllers.jobs.job import JobController
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import pods_of, set_phase, set_ready
from tests.unit.sim.controllers.harness import pod_template, running


def job(**spec: Any) -> dict[str, Any]:
    template = pod_template({"app": "batch"}, image="busybox:1.36", restartPolicy="Never")
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi", "namespace": "default"},
        "spec": {"template": template, **spec},
    }


def get(client: LocalClient) -> dict[str, Any]:
    found = client.get(JOB, "pi", namespace="default")
    assert found is not None
    return found


def status_of(client: LocalClient) -> dict[str, Any]:
    return get(client).get("status") or {}


def condition_types(client: LocalClient) -> list[str]:
    return [c["type"] for c in status_of(client).get("conditions") or [] if c["status"] == "True"]


def running_pods(client: LocalClient, uid: str) -> list[dict[str, Any]]:
    return [p for p in pods_of(client, "default", uid) if p["status"]["phase"] in ("Pending", "Running")]


async def test_a_job_runs_parallel_pods_until_enough_succeed(api: EmbeddedAPI, client: LocalClient) -> None:
    """completions 3, parallelism 2: two pods at a time, three successes in all, then done."""
    async with running(api, JobController):
        uid = (await client.create(JOB, job(completions=3, parallelism=2)))["metadata"]["uid"]
        await eventually_async(lambda: len(running_pods(client, uid)) == 2)
        first = running_pods(client, uid)[0]
        assert first["metadata"]["name"].startswith("pi-")
        labels = first["metadata"]["labels"]
        assert labels["batch.kubernetes.io/job-name"] == "pi" and labels["job-name"] == "pi"
        assert labels["batch.kubernetes.io/controller-uid"] == uid and labels["controller-uid"] == uid
        await eventually_async(
            lambda: status_of(client).get("active") == 2 and "startTime" in status_of(client)
        )
        await set_ready(client, first)
        await eventually_async(lambda: status_of(client).get("ready") == 1)
        for _ in range(3):
            await eventually_async(lambda: bool(running_pods(client, uid)))
            await set_phase(client, running_pods(client, uid)[0], "Succeeded")
        await eventually_async(lambda: "Complete" in condition_types(client))
        status = status_of(client)
        assert status["succeeded"] == 3 and "active" not in status and status["ready"] == 0
        assert status["terminating"] == 0 and status["uncountedTerminatedPods"] == {}
        assert "completionTime" in status
        assert condition_types(client) == ["SuccessCriteriaMet", "Complete"]
        complete = find_condition(status["conditions"], "Complete")
        assert complete is not None and complete["reason"] == "CompletionsReached"
        assert len(pods_of(client, "default", uid)) == 3
        await eventually_async(
            lambda: any(e["reason"] == "Completed" for e in client.list(EVENT, namespace="default")),
            what="a Completed event is recorded",
        )


async def test_a_job_without_completions_is_done_when_one_pod_succeeds(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """A work-queue Job (parallelism only) completes once a pod succeeds and none is left running."""
    async with running(api, JobController):
        uid = (await client.create(JOB, job(parallelism=2)))["metadata"]["uid"]
        await eventually_async(lambda: len(running_pods(client, uid)) == 2)
        first, second = running_pods(client, uid)
        await set_phase(client, first, "Succeeded")
        await eventually_async(lambda: status_of(client).get("succeeded") == 1)
        assert len(running_pods(client, uid)) == 1
        assert "Complete" not in condition_types(client)
        await set_phase(client, second, "Succeeded")
        await eventually_async(lambda: "Complete" in condition_types(client))


async def test_failures_beyond_the_backoff_limit_fail_the_job(api: EmbeddedAPI, client: LocalClient) -> None:
    """backoffLimit 1: the first failure is replaced, the second fails the Job and its pods are removed."""
    async with running(api, JobController):
        uid = (await client.create(JOB, job(backoffLimit=1, parallelism=1, completions=2)))["metadata"]["uid"]
        await eventually_async(lambda: len(running_pods(client, uid)) == 1)
        await set_phase(client, running_pods(client, uid)[0], "Failed")
        await eventually_async(
            lambda: len(running_pods(client, uid)) == 1 and status_of(client).get("failed") == 1
        )
        await set_phase(client, running_pods(client, uid)[0], "Failed")
        await eventually_async(lambda: "Failed" in condition_types(client))
        assert condition_types(client) == ["FailureTarget", "Failed"]
        failed = find_condition(status_of(client)["conditions"], "Failed")
        assert failed is not None and failed["reason"] == "BackoffLimitExceeded"
        assert failed["message"] == "Job has reached the specified backoff limit"
        assert status_of(client)["failed"] == 2 and "completionTime" not in status_of(client)
        assert not running_pods(client, uid)


async def test_an_indexed_job_runs_one_pod_per_index(api: EmbeddedAPI, client: LocalClient) -> None:
    """Pods carry their completion index; succeeded indexes are listed as ranges."""
    async with running(api, JobController):
        spec = job(completions=3, parallelism=3, completionMode="Indexed")
        uid = (await client.create(JOB, spec))["metadata"]["uid"]
        await eventually_async(lambda: len(running_pods(client, uid)) == 3)
        by_index = {completionindexes.index_of(p): p for p in running_pods(client, uid)}
        assert set(by_index) == {0, 1, 2}
        assert by_index[1]["metadata"]["name"].startswith("pi-1-")
        assert by_index[1]["spec"]["hostname"] == "pi-1"
        [variable] = by_index[1]["spec"]["containers"][0]["env"]
        assert variable["name"] == "JOB_COMPLETION_INDEX"
        assert variable["valueFrom"]["fieldRef"]["fieldPath"] == (
            "metadata.annotations['batch.kubernetes.io/job-completion-index']"
        )
        await set_phase(client, by_index[0], "Succeeded")
        await set_phase(client, by_index[2], "Succeeded")
        await eventually_async(lambda: status_of(client).get("completedIndexes") == "0,2")
        await set_phase(client, by_index[1], "Succeeded")
        await eventually_async(
            lambda: (
                status_of(client).get("completedIndexes") == "0-2" and "Complete" in condition_types(client)
            )
        )


async def test_a_suspended_job_runs_no_pods_until_resumed(api: EmbeddedAPI, client: LocalClient) -> None:
    """suspend: no pods and a Suspended condition; resuming starts the pods and records JobResumed."""
    async with running(api, JobController):
        uid = (await client.create(JOB, job(suspend=True)))["metadata"]["uid"]
        await eventually_async(lambda: "Suspended" in condition_types(client))
        assert not pods_of(client, "default", uid) and "startTime" not in status_of(client)
        await client.patch(JOB, "pi", {"spec": {"suspend": False}}, namespace="default")
        await eventually_async(lambda: len(running_pods(client, uid)) == 1)
        await eventually_async(
            lambda: (
                (find_condition(status_of(client).get("conditions"), "Suspended") or {}).get("reason")
                == "JobResumed"
            )
        )
        assert "startTime" in status_of(client)


def test_completed_indexes_read_and_write_as_ranges() -> None:
    """`1,3-5` is {1, 3, 4, 5}; a set of indexes prints with runs collapsed."""
    assert completionindexes.parse("1,3-5") == {1, 3, 4, 5}
    assert completionindexes.parse("") == set()
    assert completionindexes.format_ranges({0, 1, 2, 5, 7, 8}) == "0-2,5,7-8"
    assert completionindexes.format_ranges([]) == ""


async def test_the_job_controller_counts_pods_by_phase(api: EmbeddedAPI, client: LocalClient) -> None:
    """A running, ready pod is active and ready; the Job's pods are owned by it."""
    async with running(api, JobController):
        uid = (await client.create(JOB, job()))["metadata"]["uid"]
        await eventually_async(lambda: len(running_pods(client, uid)) == 1)
        [pod] = running_pods(client, uid)
        assert pod["metadata"]["ownerReferences"][0]["kind"] == "Job"
        await set_ready(client, pod)
        await eventually_async(
            lambda: status_of(client).get("ready") == 1 and status_of(client).get("active") == 1
        )
        assert client.list(POD, namespace="default")
