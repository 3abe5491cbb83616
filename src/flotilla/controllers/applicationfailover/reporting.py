"""How the application failover controller tells the user: Events on the binding and on its template.

Karmada reports evictions on both objects, so `kubectl describe` of either says what happened:

- `ApplicationUnhealthy` (Warning) when a toleration starts: which cluster, and at what time the
  application fails over unless its copy recovers;
- `ApplicationFailover` (Normal) when a cluster is evicted: how long its copy was unhealthy against
  the toleration, what happens to the old copy (the purge mode), the state handed on;
- `StatePreservationFailed` (Warning) while a failover waits for state it cannot read — said once
  per binding and reason, not at every retry;
- `EvictWorkloadFromClusterFailed` (Warning, Karmada's reason) when the eviction cannot be written.

The template is named from the binding's `spec.resource`, without reading it. Events are best effort
(`runtime.events`): failing to record one never fails a reconcile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import structlog

from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import PurgeMode
from flotilla.api.karmada.policy import ApplicationFailoverBehavior
from flotilla.api.karmada.work import ResourceBindingSpec
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.times import format_time
from flotilla.client.interfaces import Writer
from flotilla.controllers.applicationfailover.eviction import Eviction, purge_mode
from flotilla.runtime.clock import Clock
from flotilla.runtime.events import NORMAL, WARNING, object_event, record_event

log = structlog.get_logger("flotilla.controllers.applicationfailover")

EVENT_COMPONENT = "application-failover-controller"
EVENT_UNHEALTHY = "ApplicationUnhealthy"
EVENT_FAILOVER = "ApplicationFailover"
EVENT_STATE_NOT_PRESERVED = "StatePreservationFailed"
EVENT_EVICTION_FAILED = "EvictWorkloadFromClusterFailed"


def template_reference(spec: ResourceBindingSpec) -> dict[str, Any]:
    """The template as an Event's `involvedObject` needs it."""
    resource = spec.resource
    metadata = {"name": resource.name, "namespace": resource.namespace or "", "uid": resource.uid or ""}
    return {"apiVersion": resource.api_version, "kind": resource.kind, "metadata": metadata}


def unhealthy_message(cluster: str, since: datetime, toleration_seconds: int) -> str:
    deadline = since + timedelta(seconds=toleration_seconds)
    return (
        f"the application on cluster {cluster} is unhealthy; it fails over to another cluster at "
        f"{format_time(deadline)} unless it recovers (toleration {toleration_seconds}s)"
    )


def purge_phrase(behavior: ApplicationFailoverBehavior) -> str:
    """What happens to the old copy, in words."""
    mode = purge_mode(behavior)
    if mode == PurgeMode.DIRECTLY:
        return "its copy there is deleted at once (purgeMode Directly)"
    if mode == PurgeMode.NEVER:
        return "its copy there is kept until suppressDeletion is set to false (purgeMode Never)"
    grace = behavior.grace_period_seconds or constants.DEFAULT_GRACEFUL_EVICTION_SECONDS
    return (
        f"its copy there is deleted once the workload is healthy elsewhere, or after {grace}s "
        "(purgeMode Gracefully)"
    )


def failover_message(eviction: Eviction, behavior: ApplicationFailoverBehavior) -> str:
    message = f"{eviction.task['message']}: evicted, {purge_phrase(behavior)}"
    state = eviction.task.get("preservedLabelState")
    if state:
        labels = ", ".join(f"{name}={value}" for name, value in sorted(state.items()))
        message += f"; state preserved for the next cluster: {labels}"
    return message


class FailoverReporter:
    """Records the controller's Events; remembers what `StatePreservationFailed` said per binding."""

    def __init__(self, hub: Writer, clock: Clock, *, controller: str, field_manager: str) -> None:
        self._hub = hub
        self._clock = clock
        self._controller = controller
        self._field_manager = field_manager
        self._said: dict[ObjectKey, set[str]] = {}

    def forget(self, key: ObjectKey) -> None:
        self._said.pop(key, None)

    async def toleration_started(
        self,
        binding: Mapping[str, Any],
        spec: ResourceBindingSpec,
        cluster: str,
        since: datetime,
        toleration: int,
    ) -> None:
        await self._event(
            binding, spec, WARNING, EVENT_UNHEALTHY, unhealthy_message(cluster, since, toleration)
        )

    async def failed_over(
        self,
        binding: Mapping[str, Any],
        spec: ResourceBindingSpec,
        eviction: Eviction,
        behavior: ApplicationFailoverBehavior,
    ) -> None:
        await self._event(binding, spec, NORMAL, EVENT_FAILOVER, failover_message(eviction, behavior))

    async def waiting(
        self,
        key: ObjectKey,
        binding: Mapping[str, Any],
        spec: ResourceBindingSpec,
        waiting: Sequence[tuple[str, str]],
    ) -> None:
        """Failovers waiting for state, as (cluster, why): each reason is told once while it lasts."""
        said = self._said.setdefault(key, set())
        said.intersection_update(why for _, why in waiting)
        for cluster, why in waiting:
            if why in said:
                continue
            said.add(why)
            log.info(
                "application_failover.state_not_preserved",
                name=key.name,
                namespace=key.namespace,
                cluster=cluster,
                why=why,
            )
            message = f"the failover from cluster {cluster} waits: {why}"
            await self._event(binding, spec, WARNING, EVENT_STATE_NOT_PRESERVED, message)
        if not said:
            self._said.pop(key, None)

    async def write_failed(self, binding: Mapping[str, Any], evictions: Sequence[Eviction], why: str) -> None:
        spec = ResourceBindingSpec.from_object(binding.get("spec") or {})
        for eviction in evictions:
            message = f"Evict from cluster {eviction.cluster} failed: {why}"
            await self._event(binding, spec, WARNING, EVENT_EVICTION_FAILED, message)

    async def _event(
        self,
        binding: Mapping[str, Any],
        spec: ResourceBindingSpec,
        event_type: str,
        reason: str,
        message: str,
    ) -> None:
        stamp = format_time(self._clock.now())
        for regarding in (binding, template_reference(spec)):
            event = object_event(regarding, event_type, reason, message, component=EVENT_COMPONENT, now=stamp)
            await record_event(
                self._hub, event, controller=self._controller, field_manager=self._field_manager
            )
