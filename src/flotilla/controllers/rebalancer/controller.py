"""The WorkloadRebalancer reconciler: trigger, record, finish, expire.

The queue key is a rebalancer's `ObjectKey`; it is enqueued when created and when its spec changes
(Karmada's predicate: a status write or a re-apply of the same spec is not a new request). One
reconcile, from a live read of the rebalancer:

1. the status entries are re-synced with the spec (`status.observed_workloads`);
2. each entry without a result looks up its binding (`<name>-<kind>` in the workload's namespace,
   or the ClusterResourceBinding of that name) and, unless it was already triggered at this
   rebalancer's creation time or later, merge-patches `spec.rescheduleTriggeredAt` with the
   binding's resourceVersion as precondition (read again and retried once on 409). Found and
   triggered: `Successful`; no binding: `Failed`/`ReferencedBindingNotFound`; any other failure
   leaves the entry open and the reconcile is retried with backoff;
3. if the status changed, it is written (with the rebalancer's resourceVersion, so a concurrent
   spec change makes this pass start over), with `finishTime` = now once no entry is open;
4. a finished rebalancer with `ttlSecondsAfterFinished` is deleted when that time has passed —
   with its resourceVersion as precondition, so one changed meanwhile is not — or looked at
   again when it will have.
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.constants import RebalanceFailedReason, RebalanceResult
from flotilla.api.karmada.rebalancer import (
    ObservedWorkload,
    WorkloadRebalancer,
    WorkloadRebalancerStatus,
    WorkloadReference,
)
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time, timestamp
from flotilla.client import ClientError, Conflict, NotFound
from flotilla.controllers.rebalancer.status import needs_trigger, observed_workloads, ttl_left
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.rebalancer")

FIELD_MANAGER = "flotilla-workload-rebalancer"

Object = dict[str, Any]


class WorkloadsPending(Exception):
    """Some workloads' bindings could not be triggered yet (not for want of a binding): retry."""


class WorkloadRebalancerController(HubController):
    NAME = "workloadRebalancer"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._rebalancers = ctx.informers.get(constants.WORKLOAD_REBALANCER)

    def setup(self) -> None:
        self._rebalancers.add_handler(self._on_rebalancer)

    def _on_rebalancer(self, event: str, new: Object | None, old: Object | None) -> None:
        if event == "DELETED" or new is None:
            return
        if event == "MODIFIED" and old is not None and old.get("spec") == new.get("spec"):
            return
        self.enqueue(ObjectKey.of(new))

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        found = await self.ctx.hub.get_or_none(constants.WORKLOAD_REBALANCER, key.name)
        if found is None or (found.get("metadata") or {}).get("deletionTimestamp"):
            return None
        rebalancer = WorkloadRebalancer.from_object(found)
        status, pending = await self._trigger(rebalancer)
        if status != rebalancer.status:
            if pending == 0:
                status.finish_time = format_time(self.ctx.clock.now())
            rebalancer = await self._write_status(rebalancer, status)
        if pending:
            raise WorkloadsPending(f"{pending} workload(s) of {key.name} could not be triggered yet")
        return await self._expire(rebalancer)

    async def _trigger(self, rebalancer: WorkloadRebalancer) -> tuple[WorkloadRebalancerStatus, int]:
        """The new status (finishTime as it was) and how many workloads are still to be done."""
        entries = observed_workloads(rebalancer.spec.workloads, rebalancer.status.observed_workloads)
        created = rebalancer.metadata.creation_timestamp or ""
        pending = 0
        for entry in entries:
            if entry.result is None and not await self._trigger_one(entry, created):
                pending += 1
        status = WorkloadRebalancerStatus(
            observed_workloads=entries,
            observed_generation=rebalancer.metadata.generation,
            finish_time=rebalancer.status.finish_time,
        )
        return status, pending

    async def _trigger_one(self, entry: ObservedWorkload, created: str) -> bool:
        """Trigger one workload's binding and record the result; False when it is to be retried."""
        workload = entry.workload
        gvk = constants.RESOURCE_BINDING if workload.namespaced else constants.CLUSTER_RESOURCE_BINDING
        name = names.binding_name(workload.kind, workload.name)
        namespace = workload.namespace or ""
        try:
            try:
                await self._stamp(gvk, name, namespace, created)
            except Conflict:
                await self._stamp(gvk, name, namespace, created)
        except NotFound:
            entry.result = RebalanceResult.FAILED
            entry.reason = RebalanceFailedReason.REFERENCED_BINDING_NOT_FOUND
            return True
        except ClientError as error:  # retried with backoff, as Karmada counts it in retryNum
            log.info("rebalancer.trigger_failed", controller=self.NAME, binding=name, error=str(error))
            return False
        entry.result = RebalanceResult.SUCCESSFUL
        return True

    async def _stamp(self, gvk: GroupVersionKind, name: str, namespace: str, created: str) -> None:
        """Set the binding's `rescheduleTriggeredAt` to `created` unless it is already that late."""
        binding = await self.ctx.hub.get(gvk, name, namespace=namespace)
        triggered = timestamp((binding.get("spec") or {}).get("rescheduleTriggeredAt"))
        if not needs_trigger(timestamp(created), triggered):
            return
        patch = {
            "metadata": {"resourceVersion": binding["metadata"]["resourceVersion"]},
            "spec": {"rescheduleTriggeredAt": created},
        }
        await self.ctx.hub.patch(gvk, name, patch, namespace=namespace, field_manager=FIELD_MANAGER)
        log.info(
            "rebalancer.reschedule_triggered",
            controller=self.NAME,
            kind=gvk.kind,
            namespace=namespace,
            name=name,
            at=created,
        )

    async def _write_status(
        self, rebalancer: WorkloadRebalancer, status: WorkloadRebalancerStatus
    ) -> WorkloadRebalancer:
        meta = rebalancer.metadata
        patch = {"metadata": {"resourceVersion": meta.resource_version}, "status": status.to_object()}
        updated = await self.ctx.hub.patch_status(
            constants.WORKLOAD_REBALANCER, meta.name, patch, field_manager=FIELD_MANAGER
        )
        log.info(
            "rebalancer.status_updated",
            controller=self.NAME,
            rebalancer=meta.name,
            finished=status.finish_time is not None,
            results={_describe(e.workload): str(e.result or "") for e in status.observed_workloads},
        )
        return WorkloadRebalancer.from_object(updated)

    async def _expire(self, rebalancer: WorkloadRebalancer) -> float | None:
        """Delete a finished rebalancer whose TTL has passed; the seconds until it will have."""
        left = ttl_left(
            timestamp(rebalancer.status.finish_time),
            rebalancer.spec.ttl_seconds_after_finished,
            self.ctx.clock.now(),
        )
        if left is None:
            return None
        if left > 0:
            return left
        meta = rebalancer.metadata
        await self.ctx.hub.delete(
            constants.WORKLOAD_REBALANCER, meta.name, resource_version=meta.resource_version or ""
        )
        log.info("rebalancer.deleted", controller=self.NAME, rebalancer=meta.name, reason="ttl")
        return None


def _describe(workload: WorkloadReference) -> str:
    """`Kind namespace/name` (or `Kind name`), as a log line names a workload."""
    where = f"{workload.namespace}/{workload.name}" if workload.namespace else workload.name
    return f"{workload.kind} {where}"
