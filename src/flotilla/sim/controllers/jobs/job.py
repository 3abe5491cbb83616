"""The Job controller: pods until enough succeed, then Complete; too many failures, then Failed.

A Job runs up to `parallelism` pods at a time while fewer than `completions` have succeeded (with
no `completions`, until one succeeds); Indexed Jobs run one pod per pending index. Pods come from
the template, which the API server labelled with the Job's identity (`job-name`,
`controller-uid` and their `batch.kubernetes.io/` forms), named `<job>-xxxxx` (`<job>-<index>-xxxxx`
when Indexed). As in kube 1.32, finishing takes two steps: an interim condition
(`SuccessCriteriaMet` / `FailureTarget`) as soon as the outcome is known, active pods deleted,
then the terminal one (`Complete` with `completionTime` / `Failed`) once no pod is left running
or terminating. Failure means more failed pods than `backoffLimit` (or, with `restartPolicy:
OnFailure`, that many container restarts) or running past `activeDeadlineSeconds`. A suspended
Job deletes its active pods and records `Suspended`. Status: startTime, active, ready,
terminating, succeeded, failed, completedIndexes, uncountedTerminatedPods (always empty here).

Simplifications: pods get no `batch.kubernetes.io/job-tracking` finalizer, so counts come from the
pods that exist and never go down (a finished pod deleted before the controller saw it is not
counted); failed pods are replaced at once, without kube's exponential back-off; no pod failure
or success policies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import structlog

from flotilla.api.conditions import find_condition
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import copy_object
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.api.times import format_time, timestamp
from flotilla.apiserver import errors
from flotilla.runtime.controller import TerminalError
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import JOB, POD
from flotilla.sim.controllers.framework.slowstart import slow_start
from flotilla.sim.controllers.jobs import completionindexes
from flotilla.sim.controllers.podowners import conditions, ownership, pods
from flotilla.sim.controllers.podowners.podtemplates import pod_from_template

log = structlog.get_logger("flotilla.sim.controllers")

COMPLETE = "Complete"
FAILED = "Failed"
SUCCESS_CRITERIA_MET = "SuccessCriteriaMet"
FAILURE_TARGET = "FailureTarget"
SUSPENDED = "Suspended"
COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")
MAX_POD_CREATE_DELETE_PER_SYNC = 500

Pod = dict[str, Any]


@dataclass(slots=True)
class JobPods:
    active: list[Pod] = field(default_factory=list)
    succeeded: list[Pod] = field(default_factory=list)
    failed: list[Pod] = field(default_factory=list)
    terminating: list[Pod] = field(default_factory=list)

    @staticmethod
    def of(owned: list[Pod]) -> JobPods:
        found = JobPods()
        for pod in owned:
            if pods.phase(pod) == "Succeeded":
                found.succeeded.append(pod)
            elif pods.phase(pod) == "Failed":
                found.failed.append(pod)
            elif pods.is_terminating(pod):
                found.terminating.append(pod)
            else:
                found.active.append(pod)
        return found


def is_finished(job: dict[str, Any]) -> bool:
    return any(
        c.get("type") in (COMPLETE, FAILED) and c.get("status") == "True"
        for c in (job.get("status") or {}).get("conditions") or ()
    )


def is_indexed(job: dict[str, Any]) -> bool:
    return str(job["spec"].get("completionMode")) == "Indexed"


def wanted_active(job: dict[str, Any], succeeded: int, active: int) -> int:
    """How many pods should run now (kube's `manageJob`)."""
    parallelism = int(job["spec"].get("parallelism", 1))
    completions = job["spec"].get("completions")
    if completions is None:
        return active if succeeded > 0 else parallelism
    return max(0, min(int(completions) - succeeded, parallelism))


def past_backoff_on_failure(job: dict[str, Any], active: list[Pod]) -> bool:
    """With restartPolicy OnFailure, container restarts count against the backoff limit."""
    if job["spec"]["template"].get("spec", {}).get("restartPolicy") != "OnFailure":
        return False
    restarts = sum(
        int(status.get("restartCount") or 0)
        for pod in active
        if pods.phase(pod) in ("Running", "Pending")
        for key in ("initContainerStatuses", "containerStatuses")
        for status in (pod.get("status") or {}).get(key) or ()
    )
    limit = int(job["spec"].get("backoffLimit", 6))
    return restarts > 0 if limit == 0 else restarts >= limit


def _active_condition(status: dict[str, Any], kind: str) -> dict[str, Any] | None:
    found = find_condition(status.get("conditions"), kind)
    return dict(found) if found is not None and found.get("status") == "True" else None


class JobController(SimController):
    NAME = "job-controller"
    KIND = JOB

    def watch(self) -> None:
        self.watch_kind(POD, self._pod_keys)

    def _pod_keys(self, pod: Pod) -> list[ObjectKey]:
        owner = ownership.controller_name(pod, JOB)
        return [ObjectKey(pod["metadata"].get("namespace", ""), owner)] if owner else []

    async def reconcile(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        job = self.client.get(JOB, name, namespace=namespace)
        if job is None or is_finished(job):
            return None
        await self._claim(job)
        now = self.clock.now()
        status = copy_object(job.get("status") or {})
        found = JobPods.of(self._owned(job))
        succeeded, completed = self._succeeded(job, status, found)
        failed = max(int(status.get("failed") or 0), len(found.failed))
        suspended = bool(job["spec"].get("suspend"))
        if status.get("startTime") is None and not suspended:
            status["startTime"] = format_time(now)
        recheck: float | None = None
        outcome = _active_condition(status, SUCCESS_CRITERIA_MET) or _active_condition(status, FAILURE_TARGET)
        if outcome is None:
            outcome, recheck = self._failure(job, status, found, failed, now)
        if outcome is not None:
            await self._delete_pods(job, found.active)
        elif not job["metadata"].get("deletionTimestamp"):
            if suspended:
                await self._delete_pods(job, found.active)
            else:
                await self._manage(job, found, succeeded, completed)
            self._record_suspension(job, status, now)
            found = JobPods.of(self._owned(job))
            if self._complete(job, succeeded, len(found.active)):
                outcome = conditions.job_condition(SUCCESS_CRITERIA_MET, "True", *COMPLETIONS_REACHED, now)
        found = JobPods.of(self._owned(job))
        if outcome is not None and find_condition(status.get("conditions"), outcome["type"]) is None:
            status["conditions"] = [*(status.get("conditions") or []), outcome]
        finished = outcome is not None and not found.active and not found.terminating
        if finished:
            assert outcome is not None
            self._finish(status, outcome, now)
        status.update(
            active=len(found.active),
            ready=sum(1 for pod in found.active if pods.is_ready(pod)),
            terminating=len(found.terminating),
            succeeded=succeeded,
            failed=failed,
            uncountedTerminatedPods={},
        )
        for counter in ("active", "succeeded", "failed"):  # `omitempty` in kube's JSON
            if not status[counter]:
                del status[counter]
        if is_indexed(job) and completed:
            status["completedIndexes"] = completionindexes.format_ranges(completed)
        if status != (job.get("status") or {}):
            await self.client.update(JOB, {**job, "status": status}, subresource="status")
            if finished:
                await self._record_finish(job, status)
        return recheck

    # -- counting -------------------------------------------------------------------------------

    def _owned(self, job: dict[str, Any]) -> list[Pod]:
        meta = job["metadata"]
        return self.client.controlled_by(POD, meta["uid"], namespace=meta["namespace"])

    async def _claim(self, job: dict[str, Any]) -> None:
        try:
            selector = label_selector_from_object(job["spec"].get("selector"))
        except SelectorError as exc:
            raise TerminalError(f"invalid selector: {exc}") from exc
        namespace = job["metadata"]["namespace"]
        candidates = self.client.claim_candidates(POD, job["metadata"]["uid"], namespace=namespace)
        claimed = ownership.claim([pod for pod in candidates if pods.is_active(pod)], job, selector.matches)
        reference = ownership.controller_reference(job, JOB)
        for pod in claimed.adopt:
            await self.client.mutate(
                POD,
                pod["metadata"]["name"],
                lambda o: ownership.with_controller(o, reference),
                namespace=namespace,
            )

    def _succeeded(self, job: dict[str, Any], status: dict[str, Any], found: JobPods) -> tuple[int, set[int]]:
        """(succeeded count, succeeded indexes when Indexed)."""
        if not is_indexed(job):
            return max(int(status.get("succeeded") or 0), len(found.succeeded)), set()
        completions = int(job["spec"].get("completions") or 0)
        completed = completionindexes.parse(status.get("completedIndexes"))
        completed |= {
            index
            for pod in found.succeeded
            if (index := completionindexes.index_of(pod)) is not None and 0 <= index < completions
        }
        return len(completed), completed

    def _failure(
        self, job: dict[str, Any], status: dict[str, Any], found: JobPods, failed: int, now: datetime
    ) -> tuple[dict[str, Any] | None, float | None]:
        """A FailureTarget condition when the Job has failed, else seconds until its deadline (if any)."""
        if failed > int(job["spec"].get("backoffLimit", 6)) or past_backoff_on_failure(job, found.active):
            return conditions.job_condition(FAILURE_TARGET, "True", *BACKOFF_LIMIT_EXCEEDED, now), None
        deadline = job["spec"].get("activeDeadlineSeconds")
        started = timestamp(str(status.get("startTime") or ""))
        if deadline is None or started is None or job["spec"].get("suspend"):
            return None, None
        left = int(deadline) - (now - started).total_seconds()
        if left <= 0:
            return conditions.job_condition(FAILURE_TARGET, "True", *DEADLINE_EXCEEDED, now), None
        return None, left

    def _complete(self, job: dict[str, Any], succeeded: int, active: int) -> bool:
        completions = job["spec"].get("completions")
        if completions is None:
            return succeeded > 0 and active == 0
        return succeeded >= int(completions) and active == 0

    # -- pods -----------------------------------------------------------------------------------

    async def _manage(self, job: dict[str, Any], found: JobPods, succeeded: int, completed: set[int]) -> None:
        active = len(found.active)
        wanted = wanted_active(job, succeeded, active)
        if active > wanted:
            surplus = pods.deletion_order(found.active, self.clock.now())[: active - wanted]
            await self._delete_pods(job, [dict(pod) for pod in surplus][:MAX_POD_CREATE_DELETE_PER_SYNC])
            return
        if job["spec"].get("podReplacementPolicy") == "Failed":
            wanted -= len(found.terminating)
        if is_indexed(job):
            running = {completionindexes.index_of(pod) for pod in [*found.active, *found.terminating]}
            completions = int(job["spec"].get("completions") or 0)
            pending = [i for i in range(completions) if i not in completed and i not in running]
            indexes: list[int | None] = list(pending[: max(0, wanted - active)])
        else:
            indexes = [None] * max(0, wanted - active)
        await self._create_pods(job, indexes[:MAX_POD_CREATE_DELETE_PER_SYNC])

    async def _create_pods(self, job: dict[str, Any], indexes: list[int | None]) -> None:
        meta = job["metadata"]
        queue = list(indexes)
        reference = ownership.controller_reference(job, JOB)

        async def create_one() -> None:
            index = queue.pop(0)
            template = copy_object(job["spec"]["template"])
            prefix = f"{meta['name']}-"
            if index is not None:
                _with_completion_index(template, meta["name"], index)
                prefix = f"{meta['name']}-{index}-"
            pod = pod_from_template(
                template, namespace=meta["namespace"], owner_reference=reference, generate_name=prefix
            )
            try:
                created = await self.client.create(POD, pod)
            except errors.APIError as exc:
                await self.events.record(job, JOB, WARNING, "FailedCreate", f"Error creating: {exc}")
                raise
            await self.events.record(
                job, JOB, NORMAL, "SuccessfulCreate", f"Created pod: {created['metadata']['name']}"
            )

        if queue:
            await slow_start(len(queue), create_one)
            log.info("job.pods_created", namespace=meta["namespace"], name=meta["name"], count=len(indexes))

    async def _delete_pods(self, job: dict[str, Any], victims: list[Pod]) -> None:
        for pod in victims:
            pod_meta = pod["metadata"]
            try:
                await self.client.delete(
                    POD, pod_meta["name"], namespace=pod_meta["namespace"], uid=pod_meta["uid"]
                )
            except errors.Conflict:
                continue
            await self.events.record(job, JOB, NORMAL, "SuccessfulDelete", f"Deleted pod: {pod_meta['name']}")

    # -- conditions -----------------------------------------------------------------------------

    def _record_suspension(self, job: dict[str, Any], status: dict[str, Any], now: datetime) -> None:
        """`Suspended` True while suspended; False (and a new startTime) on resume, if it was ever set."""
        suspended = bool(job["spec"].get("suspend"))
        current = find_condition(status.get("conditions"), SUSPENDED)
        if suspended and (current is None or current.get("status") != "True"):
            condition = conditions.job_condition(SUSPENDED, "True", "JobSuspended", "Job suspended", now)
        elif not suspended and current is not None and current.get("status") == "True":
            condition = conditions.job_condition(SUSPENDED, "False", "JobResumed", "Job resumed", now)
            status["startTime"] = format_time(now)
        else:
            return
        status["conditions"] = [*conditions.without(status.get("conditions"), SUSPENDED), condition]

    def _finish(self, status: dict[str, Any], outcome: dict[str, Any], now: datetime) -> None:
        terminal = COMPLETE if outcome["type"] == SUCCESS_CRITERIA_MET else FAILED
        if find_condition(status.get("conditions"), terminal) is None:
            final = conditions.job_condition(
                terminal, "True", outcome.get("reason", ""), outcome.get("message", ""), now
            )
            status["conditions"] = [*(status.get("conditions") or []), final]
        if terminal == COMPLETE:
            status["completionTime"] = format_time(now)

    async def _record_finish(self, job: dict[str, Any], status: dict[str, Any]) -> None:
        meta = job["metadata"]
        complete = find_condition(status.get("conditions"), COMPLETE)
        if complete is not None:
            await self.events.record(job, JOB, NORMAL, "Completed", "Job completed")
            log.info("job.completed", namespace=meta["namespace"], name=meta["name"])
            return
        failed = find_condition(status.get("conditions"), FAILED) or {}
        await self.events.record(
            job, JOB, WARNING, str(failed.get("reason", FAILED)), str(failed.get("message", ""))
        )
        log.info(
            "job.failed", namespace=meta["namespace"], name=meta["name"], reason=failed.get("reason", "")
        )


def _with_completion_index(template: dict[str, Any], job_name: str, index: int) -> None:
    """Mark an Indexed Job's pod with its index (annotation, label, env) and hostname `<job>-<i>`."""
    meta = template.setdefault("metadata", {})
    meta["annotations"] = {**(meta.get("annotations") or {}), completionindexes.COMPLETION_INDEX: str(index)}
    meta["labels"] = {**(meta.get("labels") or {}), completionindexes.COMPLETION_INDEX: str(index)}
    spec = template.setdefault("spec", {})
    spec.setdefault("hostname", f"{job_name}-{index}")
    source = {"fieldRef": {"fieldPath": f"metadata.annotations['{completionindexes.COMPLETION_INDEX}']"}}
    for container in [*spec.get("initContainers", []), *spec.get("containers", [])]:
        env = container.setdefault("env", [])
        if not any(variable.get("name") == "JOB_COMPLETION_INDEX" for variable in env):
            env.append({"name": "JOB_COMPLETION_INDEX", "valueFrom": source})
