"""The taint manager: evicts clusters with NoExecute taints from the bindings that do not tolerate them.

Karmada's `NoExecuteTaintManager`, level-based per binding. A binding is looked at when it is
created, when its clusters or placement change, and when a cluster it targets gains or changes
NoExecute taints; each look re-reads the binding and the Clusters from the informers and plans
(`eviction.plan_evictions`): the clusters to evict now are taken out of `spec.clusters` with a
graceful eviction task each, in one merge patch against the resourceVersion read that also records
them in the binding's `failover.flotilla.io/evicted-from` annotation, for failback (a 409 re-reads
the binding from the hub and plans again); the clusters whose toleration still runs bring the binding
back when the first one ends. A restart loses nothing: the next look computes the same plan from
the taints' `timeAdded`.

Evictions pass a token bucket (`--resource-eviction-rate`, high by default: see `ratelimit.py`).
Each is told as a Warning Event `TaintManagerEviction` on the binding and on its template (which
cluster, which taint, when it was added or when its toleration ended) and counted on `/metrics`; a
toleration that starts running is told once as a Normal Event `EvictionScheduled` with the time it
ends. The controller runs with the `Failover` gate, `--enable-taint-manager` and
`--enable-no-execute-taint-eviction` all on (the registry leaves it out otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import structlog
from prometheus_client.metrics_core import Metric

from flotilla.api.karmada import constants
from flotilla.api.times import format_time
from flotilla.client import Conflict
from flotilla.controllers.failover.bindings import (
    GVKS,
    BindingKey,
    deleting,
    patch_spec,
    target_names,
    tell,
)
from flotilla.controllers.failover.eviction import (
    Eviction,
    EvictionPlan,
    evicted_from,
    evicted_spec,
    eviction_message,
    placement_tolerations,
    plan_evictions,
    purge_mode_for,
)
from flotilla.controllers.failover.metrics import (
    TRIGGER_TOLERATION_EXPIRED,
    TRIGGER_UNTOLERATED,
    EvictionMetrics,
)
from flotilla.controllers.failover.noexecute import Judgement, no_execute_taints
from flotilla.controllers.failover.ratelimit import EvictionRate
from flotilla.runtime.events import NORMAL, WARNING
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.failover")

FIELD_MANAGER = "flotilla-taint-manager"
EVENT_COMPONENT = "taint-manager"
EVENT_EVICTED = "TaintManagerEviction"
EVENT_SCHEDULED = "EvictionScheduled"
CONFLICT_ATTEMPTS = 5
"""Plans made again after a 409 before the binding goes back to the queue with backoff."""
ANNOUNCED_LIMIT = 100_000
"""Running tolerations remembered as told; past this many the memory starts again."""

Object = Mapping[str, Any]


class TaintManager(HubController):
    NAME = "taint-manager"
    WORKERS = 32
    """Bindings evicted at once: a dead member takes every binding on it at the same moment, each
    eviction is one patch and two Events, and the rate (`--resource-eviction-rate`) is the bound —
    not the 5 workers other controllers share their load with (300 bindings: 16/s → see bench)."""

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._bindings = {kind: ctx.informers.get(gvk) for kind, gvk in GVKS.items()}
        self._rate = EvictionRate(ctx.settings.resource_eviction_rate)
        self._announced: set[tuple[str, str, str, str]] = set()
        """(binding uid, cluster, taint, end) of the `EvictionScheduled` Events already recorded."""
        self.metrics = EvictionMetrics()

    def metric_families(self) -> list[Metric]:
        return self.metrics.families()

    # -- events ---------------------------------------------------------------------------------

    def setup(self) -> None:
        self._clusters.add_handler(self._on_cluster)
        for kind, informer in self._bindings.items():
            informer.add_handler(self._binding_handler(kind))

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None or not no_execute_taints(new):
            return  # no NoExecute taint: nothing to evict (a waiting binding's timer finds none)
        if old is not None and no_execute_taints(old) == no_execute_taints(new):
            return
        name = str((new.get("metadata") or {}).get("name") or "")
        for kind, informer in self._bindings.items():
            for binding in informer.list():
                if name in target_names(binding):
                    self.enqueue(BindingKey.of(kind, binding))

    def _binding_handler(
        self, kind: str
    ) -> Callable[[str, dict[str, Any] | None, dict[str, Any] | None], None]:
        def on_binding(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            if new is None or deleting(new):
                return
            if old is not None and not _placement_or_targets_changed(old, new):
                return
            if any(self._tainted(name) for name in target_names(new)):
                self.enqueue(BindingKey.of(kind, new))

        return on_binding

    def _tainted(self, cluster: str) -> bool:
        found = self._clusters.get(cluster)
        return found is not None and bool(no_execute_taints(found))

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: BindingKey) -> float | None:
        binding: Object | None = self._bindings[key.kind].get(key.name, namespace=key.namespace)
        for _ in range(CONFLICT_ATTEMPTS):
            if binding is None or deleting(binding):
                return None
            now = self.ctx.clock.now()
            plan = plan_evictions(binding.get("spec") or {}, self._clusters.get, now)
            if not plan.evictions:
                await self._announce(binding, plan)
                return plan.next_check(now)
            await self._rate.wait()
            try:
                await self._evict(key, binding, plan, now)
            except Conflict:
                binding = await self.ctx.hub.get_or_none(key.gvk, key.name, namespace=key.namespace)
                continue
            await self._announce(binding, plan)
            return plan.next_check(now)
        raise RuntimeError(f"{key} kept changing while evicting from it; trying again later")

    async def _evict(self, key: BindingKey, binding: Object, plan: EvictionPlan, now: datetime) -> None:
        spec = binding.get("spec") or {}
        purge_mode = purge_mode_for(spec, self.ctx.settings.no_execute_taint_eviction_purge_mode)
        written = await patch_spec(
            self.ctx.hub,
            key,
            binding,
            evicted_spec(spec, plan.evictions, purge_mode, now),
            field_manager=FIELD_MANAGER,
            annotations=evicted_from(binding, plan.evictions, now),
        )
        for eviction in plan.evictions:
            self._count(eviction, purge_mode, now)
            log.info(
                "taint_manager.evicted",
                controller=self.NAME,
                kind=key.kind,
                namespace=key.namespace,
                name=key.name,
                cluster=eviction.cluster,
                taint=str(eviction.judgement.taint),
                purge_mode=purge_mode,
            )
            reason = eviction_message(eviction)
            message = f"Evicted from cluster {eviction.cluster}: {reason}. {_purge_words(purge_mode)}"
            await self._tell(written, WARNING, EVENT_EVICTED, message, now)

    def _count(self, eviction: Eviction, purge_mode: str, now: datetime) -> None:
        judgement = eviction.judgement
        trigger = TRIGGER_UNTOLERATED if judgement.untolerated else TRIGGER_TOLERATION_EXPIRED
        self.metrics.evictions[(constants.EVICTION_REASON_TAINT_UNTOLERATED, trigger, purge_mode)] += 1
        if judgement.added is not None:
            self.metrics.taint_to_eviction.observe(max((now - judgement.added).total_seconds(), 0.0))

    async def _announce(self, binding: Object | None, plan: EvictionPlan) -> None:
        """Tell once per binding, cluster and taint that a toleration runs, and until when."""
        if binding is None:
            return
        uid = str((binding.get("metadata") or {}).get("uid") or "")
        for cluster, judgement in plan.waiting:
            if judgement.expires is None:
                continue
            mark = (uid, cluster, str(judgement.taint), format_time(judgement.expires))
            if mark in self._announced:
                continue
            if len(self._announced) >= ANNOUNCED_LIMIT:
                self._announced.clear()  # at worst a toleration is told about twice
            self._announced.add(mark)
            await self._tell(
                binding, NORMAL, EVENT_SCHEDULED, _scheduled_message(cluster, judgement), self.ctx.clock.now()
            )

    async def _tell(self, binding: Object, event_type: str, reason: str, message: str, now: datetime) -> None:
        """The Event on the binding and on its template (both at once)."""
        await tell(
            self.ctx.hub,
            binding,
            event_type,
            reason,
            message,
            now=format_time(now),
            component=EVENT_COMPONENT,
            controller=self.NAME,
            field_manager=FIELD_MANAGER,
        )


def _placement_or_targets_changed(old: Object, new: Object) -> bool:
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    return target_names(old) != target_names(new) or placement_tolerations(old_spec) != placement_tolerations(
        new_spec
    )


def _purge_words(purge_mode: str) -> str:
    if purge_mode == constants.PurgeMode.DIRECTLY:
        return "The old copy is removed at once (purgeMode Directly)."
    if purge_mode == constants.PurgeMode.NEVER:
        return "The old copy stays until suppressDeletion is set to false (purgeMode Never)."
    return (
        "The old copy stays until the workload is healthy elsewhere or the grace period ends "
        "(purgeMode Gracefully)."
    )


def _scheduled_message(cluster: str, judgement: Judgement) -> str:
    added = f" since {format_time(judgement.added)}" if judgement.added else ""
    expires = format_time(judgement.expires) if judgement.expires else "never"
    return (
        f"Cluster {cluster} has taint {judgement.taint}{added}; the placement tolerates it until "
        f"{expires}, then the workload is evicted from it."
    )
