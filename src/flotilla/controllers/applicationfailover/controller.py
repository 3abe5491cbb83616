"""The application failover controller: a copy unhealthy past its toleration is evicted from its cluster.

For every ResourceBinding and ClusterResourceBinding whose policy asks for application failover
(`spec.failover.application`, with `propagateDeps`, as Karmada requires), it reads the health the
resource interpreter gave each member copy (`status.aggregatedStatus[].health`), runs a toleration
per unhealthy copy (`decision`), and when one runs out evicts that cluster with a graceful eviction
task (`eviction`), preserving the state the policy names (`statepreservation`). Its memory —
when each toleration started, where the application failed — is kept on the binding (`records`),
so a restart or a new leader resumes every toleration where it stood.

It tells the user with Events on the binding and on the template when a toleration starts, when a
cluster is evicted, while a failover waits for state and when an eviction cannot be written
(`reporting`), and counts failovers and how long the copies were unhealthy on `/metrics`
(`metrics`).

Keys are `ObjectKey`s of bindings: a ClusterResourceBinding has the empty namespace. Not gated by
the `Failover` feature gate, as in Karmada; state preservation is always on (Karmada's
`StatefulFailoverInjection` gate is alpha and off by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import structlog
from prometheus_client.metrics_core import Metric

from flotilla.api.karmada import constants
from flotilla.api.karmada.clustertimes import encode_times, read_times
from flotilla.api.karmada.policy import ApplicationFailoverBehavior
from flotilla.api.karmada.work import ClusterResourceBinding, ResourceBinding
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.times import timestamp
from flotilla.client import APIStatusError
from flotilla.client.client import MERGE_PATCH
from flotilla.client.errors import Conflict
from flotilla.controllers.applicationfailover.decision import (
    DEFAULT_TOLERATION_SECONDS,
    DueEviction,
    cluster_health,
    decide,
    still_failed,
)
from flotilla.controllers.applicationfailover.eviction import (
    Eviction,
    eviction_message,
    eviction_task,
    failover_patch,
)
from flotilla.controllers.applicationfailover.metrics import FailoverMetrics
from flotilla.controllers.applicationfailover.records import (
    ANNOTATIONS,
    UNHEALTHY_SINCE_ANNOTATION,
    annotation_changes,
)
from flotilla.controllers.applicationfailover.reporting import FailoverReporter
from flotilla.controllers.applicationfailover.statepreservation import StateNotPreserved, preserved_state
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.applicationfailover")

FIELD_MANAGER = "flotilla-application-failover"
STATE_RETRY_SECONDS = 10.0
"""How soon a failover waiting for the failed copy's state looks again (status changes also wake it)."""

Binding = ResourceBinding | ClusterResourceBinding


def wants_application_failover(binding: Mapping[str, Any] | None) -> bool:
    """Whether a binding (as JSON) asks for application failover."""
    failover = ((binding or {}).get("spec") or {}).get("failover") or {}
    return isinstance(failover, Mapping) and failover.get("application") is not None


def relevant_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether a binding update can change a decision: its spec, its copies' status, our records."""
    if old.get("spec") != new.get("spec"):
        return True
    if (old.get("status") or {}).get("aggregatedStatus") != (new.get("status") or {}).get("aggregatedStatus"):
        return True
    old_annotations = (old.get("metadata") or {}).get("annotations") or {}
    new_annotations = (new.get("metadata") or {}).get("annotations") or {}
    return any(old_annotations.get(key) != new_annotations.get(key) for key in ANNOTATIONS)


class ApplicationFailoverController(HubController):
    NAME = "applicationFailover"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._cluster_bindings = ctx.informers.get(constants.CLUSTER_RESOURCE_BINDING)
        self.metrics = FailoverMetrics()
        self._reporter = FailoverReporter(
            ctx.hub, ctx.clock, controller=self.NAME, field_manager=FIELD_MANAGER
        )

    def metric_families(self) -> list[Metric]:
        return self.metrics.families()

    def setup(self) -> None:
        self._bindings.add_handler(self._on_binding)
        self._cluster_bindings.add_handler(self._on_binding)

    def _on_binding(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if not (wants_application_failover(new) or wants_application_failover(old)):
            return
        if new is not None and old is not None and not relevant_change(old, new):
            return
        obj = new if new is not None else old
        if obj is not None:
            self.enqueue(ObjectKey.of(obj))

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        informer = self._bindings if key.namespace else self._cluster_bindings
        obj = informer.get(key.name, namespace=key.namespace)
        if obj is None or (obj.get("metadata") or {}).get("deletionTimestamp"):
            self._forget(key)
            return None
        binding: Binding = (
            ResourceBinding.from_object(obj) if key.namespace else ClusterResourceBinding.from_object(obj)
        )
        failover = binding.spec.failover
        behavior = failover.application if failover is not None else None
        annotations = binding.metadata.annotations
        if behavior is None or not binding.spec.propagate_deps:
            # Karmada's filter: no application failover without propagateDeps. Forget what we kept.
            self._forget(key)
            await self._write(key, obj, [], annotation_changes(annotations, dict.fromkeys(ANNOTATIONS)))
            return None
        return await self._reconcile_failover(key, obj, binding, behavior)

    async def _reconcile_failover(
        self, key: ObjectKey, obj: Mapping[str, Any], binding: Binding, behavior: ApplicationFailoverBehavior
    ) -> float | None:
        now = self.ctx.clock.now()
        spec = binding.spec
        annotations = binding.metadata.annotations
        scheduled = [target.name for target in spec.clusters]
        health = cluster_health(binding.status.aggregated_status)
        toleration = _toleration_seconds(behavior)
        decision = decide(
            scheduled=scheduled,
            evicting={task.from_cluster for task in spec.graceful_eviction_tasks},
            health=health,
            recorded=read_times(annotations, UNHEALTHY_SINCE_ANNOTATION),
            toleration_seconds=toleration,
            now=now,
        )
        running = dict(decision.running)
        evictions: list[Eviction] = []
        waiting: list[tuple[str, str]] = []
        for due in decision.due:
            try:
                evictions.append(self._eviction(binding, behavior, due, toleration, now))
            except StateNotPreserved as why:
                running[due.cluster] = due.unhealthy_since  # the toleration ran out; the failover waits
                waiting.append((due.cluster, str(why)))
        failed_on = still_failed(
            read_times(annotations, constants.APPLICATION_FAILED_ON_ANNOTATION),
            scheduled=scheduled,
            health=health,
            reschedule_triggered_at=timestamp(spec.reschedule_triggered_at),
        )
        failed_on.update({eviction.cluster: now for eviction in evictions})
        changes = annotation_changes(
            annotations,
            {
                UNHEALTHY_SINCE_ANNOTATION: encode_times(running),
                constants.APPLICATION_FAILED_ON_ANNOTATION: encode_times(failed_on),
            },
        )
        if not await self._write(key, obj, evictions, changes):
            self._forget(key)
            return None
        for due in decision.due:
            if any(eviction.cluster == due.cluster for eviction in evictions):
                self.metrics.unhealthy.observe((now - due.unhealthy_since).total_seconds())
        for eviction in evictions:
            self.metrics.failovers[str(eviction.task.get("purgeMode"))] += 1
        if waiting:
            self.metrics.waiting[key] = len(waiting)
        else:
            self.metrics.waiting.pop(key, None)
        for cluster in decision.started:
            await self._reporter.toleration_started(obj, spec, cluster, decision.running[cluster], toleration)
        for eviction in evictions:
            await self._reporter.failed_over(obj, spec, eviction, behavior)
        await self._reporter.waiting(key, obj, spec, waiting)
        if waiting:
            return STATE_RETRY_SECONDS
        return decision.requeue_after

    def _forget(self, key: ObjectKey) -> None:
        self._reporter.forget(key)
        self.metrics.waiting.pop(key, None)

    def _eviction(
        self,
        binding: Binding,
        behavior: ApplicationFailoverBehavior,
        due: DueEviction,
        toleration: int,
        now: datetime,
    ) -> Eviction:
        spec = binding.spec
        status = next(
            (item.status for item in binding.status.aggregated_status if item.cluster_name == due.cluster),
            None,
        )
        state = preserved_state(
            behavior.state_preservation, status, spec.graceful_eviction_tasks, due.cluster
        )
        replicas = next((target.replicas for target in spec.clusters if target.name == due.cluster), None)
        task = eviction_task(
            behavior,
            cluster=due.cluster,
            replicas=replicas,
            message=eviction_message(due.cluster, due.unhealthy_since, now, toleration),
            preserved_label_state=state,
            clusters_before_failover=[target.name for target in spec.clusters],
            now=now,
        )
        return Eviction(due.cluster, task)

    async def _write(
        self,
        key: ObjectKey,
        obj: Mapping[str, Any],
        evictions: list[Eviction],
        annotations: Mapping[str, str | None],
    ) -> bool:
        """Write the evictions and records in one patch; False when the binding is gone."""
        if not evictions and not annotations:
            return True
        gvk = constants.RESOURCE_BINDING if key.namespace else constants.CLUSTER_RESOURCE_BINDING
        patch = failover_patch(obj, evictions, annotations)
        try:
            await self.ctx.hub.patch(
                gvk,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except Conflict:
            raise  # changed meanwhile: read it again (retried with backoff)
        except APIStatusError as error:
            if error.code == 404:
                return False
            if evictions:
                await self._reporter.write_failed(obj, evictions, str(error))
            raise
        for eviction in evictions:
            log.info(
                "application_failover.evicted",
                controller=self.NAME,
                kind=obj.get("kind"),
                namespace=key.namespace,
                name=key.name,
                cluster=eviction.cluster,
                purge_mode=eviction.task.get("purgeMode"),
            )
        return True


def _toleration_seconds(behavior: ApplicationFailoverBehavior) -> int:
    seconds = behavior.decision_conditions.toleration_seconds
    return DEFAULT_TOLERATION_SECONDS if seconds is None else max(seconds, 0)
