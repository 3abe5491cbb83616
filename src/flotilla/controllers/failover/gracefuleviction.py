"""The graceful eviction controller: drops a binding's eviction tasks once the old copies may go.

Karmada's `RBGracefulEvictionController` and `CRBGracefulEvictionController` in one, level-based
per binding. Any change of a binding with `spec.gracefulEvictionTasks` — its status included, where
the new clusters report their health — brings it here, and so does the earliest deadline among its
tasks. `assessment.assess` says which tasks stay; when that differs from the binding, the kept list
is written with a merge patch against the resourceVersion read (a 409 is retried with the informer's
newer copy). A dropped task lets the binding controller delete the evicted cluster's Work, which
removes the old copy from the member (`Directly` tasks never kept it).

Every dropped task is told as a Normal Event `EvictWorkloadFromClusterSucceed` (Karmada's reason) on
the binding and on its template, saying why — healthy elsewhere, the grace period ran out, or a
person confirmed — and counted on `/metrics`, beside the number of tasks pending. The controller
runs whatever the feature gates say: tasks from any producer (the taint manager, application
failover, a person) are finished here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import structlog
from prometheus_client.metrics_core import Metric

from flotilla.api.times import format_time
from flotilla.controllers.failover.assessment import Drop, DroppedTask, assess
from flotilla.controllers.failover.bindings import GVKS, BindingKey, deleting, patch_spec, target_names, tell
from flotilla.controllers.failover.metrics import TaskMetrics
from flotilla.runtime.events import NORMAL
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.failover")

FIELD_MANAGER = "flotilla-graceful-eviction"
EVENT_COMPONENT = "graceful-eviction-controller"
EVENT_DROPPED = "EvictWorkloadFromClusterSucceed"

Object = Mapping[str, Any]


_WITH_TASKS = "gracefulEviction.withTasks"
"""The binding informers' index of the bindings that hold graceful eviction tasks (value True)."""


def _tasks(binding: Object) -> list[Any]:
    return (binding.get("spec") or {}).get("gracefulEvictionTasks") or []


class GracefulEvictionController(HubController):
    NAME = "gracefulEviction"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._bindings = {kind: ctx.informers.get(gvk) for kind, gvk in GVKS.items()}
        self.metrics = TaskMetrics()

    def metric_families(self) -> list[Metric]:
        # From an index: a scrape must not decode every binding (about 20,000 at 100 members x
        # 10,000 workloads; scraped four times a second, that took most of a restarted manager's CPU).
        pending = sum(
            len(_tasks(binding))
            for informer in self._bindings.values()
            for binding in informer.indexed(_WITH_TASKS, True)
        )
        return self.metrics.families(pending)

    def setup(self) -> None:
        for kind, informer in self._bindings.items():
            informer.add_index(_WITH_TASKS, lambda binding: (True,) if _tasks(binding) else ())
            informer.add_handler(self._binding_handler(kind))

    def _binding_handler(
        self, kind: str
    ) -> Callable[[str, dict[str, Any] | None, dict[str, Any] | None], None]:
        def on_binding(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            # Created with tasks (a restart resumes them) or changed while it has some.
            if new is not None and (new.get("spec") or {}).get("gracefulEvictionTasks"):
                self.enqueue(BindingKey.of(kind, new))

        return on_binding

    async def reconcile(self, key: BindingKey) -> float | None:
        binding = self._bindings[key.kind].get(key.name, namespace=key.namespace)
        if binding is None or deleting(binding):
            return None
        if not (binding.get("spec") or {}).get("gracefulEvictionTasks"):
            return None
        now = self.ctx.clock.now()
        assessment = assess(binding, now, self.ctx.settings.graceful_eviction_timeout)
        if not assessment.changed:
            return assessment.next_check
        written = await patch_spec(
            self.ctx.hub,
            key,
            binding,
            {"gracefulEvictionTasks": assessment.kept or None},
            field_manager=FIELD_MANAGER,
        )
        for dropped in assessment.dropped:
            await self._report(key, written, dropped)
        return assessment.next_check

    async def _report(self, key: BindingKey, binding: Object, dropped: DroppedTask) -> None:
        cluster = str(dropped.task.get("fromCluster") or "")
        self.metrics.dropped[dropped.why] += 1
        log.info(
            "graceful_eviction.task_dropped",
            controller=self.NAME,
            kind=key.kind,
            namespace=key.namespace,
            name=key.name,
            cluster=cluster,
            why=str(dropped.why),
            purge_mode=dropped.task.get("purgeMode"),
        )
        message = f"Evict from cluster {cluster} succeed: {self._why(binding, dropped)}."
        await tell(
            self.ctx.hub,
            binding,
            NORMAL,
            EVENT_DROPPED,
            message,
            now=format_time(self.ctx.clock.now()),
            component=EVENT_COMPONENT,
            controller=self.NAME,
            field_manager=FIELD_MANAGER,
        )

    def _why(self, binding: Object, dropped: DroppedTask) -> str:
        if dropped.why is Drop.HEALTHY:
            return f"the workload is healthy on {', '.join(target_names(binding))}"
        if dropped.why is Drop.CONFIRMED:
            return "deletion confirmed (suppressDeletion set to false)"
        grace = dropped.task.get("gracePeriodSeconds")
        seconds = grace if isinstance(grace, int) else self.ctx.settings.graceful_eviction_timeout
        return f"its grace period of {seconds:g}s since {dropped.task.get('creationTimestamp')} ran out"
