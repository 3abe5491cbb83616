"""How failback tells the user: Events on the binding, its template and, for a bad value, the policy.

- `Failback` (Normal) on the binding and on its template for every cluster a workload may move back
  to: how long the cluster has been healthy, the policy's failback-after that asked for it, and
  that the binding is rescheduled from scratch (whether replicas land there again is the
  scheduler's answer: its own Events say where they went).
- `InvalidFailbackAfter` (Warning) on a policy whose failback-after cannot be read, once per
  policy and value for the life of the process: nothing moves back for it until it is fixed.

The template is named from the binding's `spec.resource`, without reading it. Events are best effort
(`runtime.events`): failing to record one never fails a reconcile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flotilla.api.duration import human_duration
from flotilla.api.karmada import constants
from flotilla.api.times import format_time
from flotilla.client.interfaces import Writer
from flotilla.controllers.failback.decision import DueCluster
from flotilla.runtime.events import NORMAL, WARNING, object_event, record_event

EVENT_COMPONENT = "failback-controller"
EVENT_FAILBACK = "Failback"
EVENT_INVALID = "InvalidFailbackAfter"
WARNED_LIMIT = 10_000
"""Policies remembered as warned about; past this many the memory starts again."""

Object = Mapping[str, Any]


def template_of(binding: Object) -> dict[str, Any]:
    """The resource template as an Event's `involvedObject` needs it, from `spec.resource`."""
    resource = (binding.get("spec") or {}).get("resource") or {}
    metadata = {key: resource.get(key) for key in ("name", "namespace", "uid") if resource.get(key)}
    return {"apiVersion": resource.get("apiVersion"), "kind": resource.get("kind"), "metadata": metadata}


def policy_name(policy: Object) -> str:
    """`PropagationPolicy ns/name` or `ClusterPropagationPolicy name`."""
    metadata = policy.get("metadata") or {}
    namespace, name = metadata.get("namespace"), metadata.get("name")
    if namespace:
        return f"{constants.PROPAGATION_POLICY.kind} {namespace}/{name}"
    return f"{constants.CLUSTER_PROPAGATION_POLICY.kind} {name}"


def failback_message(due: DueCluster, policy: Object, now: datetime) -> str:
    value = ((policy.get("metadata") or {}).get("annotations") or {}).get(constants.FAILBACK_AFTER_ANNOTATION)
    return (
        f"Failback: cluster {due.cluster} healthy for {human_duration(now - due.healthy_since)} "
        f"(since {format_time(due.healthy_since)}; left {format_time(due.left_at)}), rescheduling from "
        f"scratch as {policy_name(policy)} asks ({constants.FAILBACK_AFTER_ANNOTATION}: {value})"
    )


def invalid_message(value: str, why: str) -> str:
    return (
        f"{constants.FAILBACK_AFTER_ANNOTATION}: {value!r} is not valid ({why}): it must be a Go duration "
        f"that is not negative, such as 10m; the policy's workloads do not move back until it is fixed"
    )


class FailbackReporter:
    def __init__(self, hub: Writer, *, controller: str, field_manager: str) -> None:
        self._hub = hub
        self._controller = controller
        self._field_manager = field_manager
        self._warned: set[tuple[str, str]] = set()
        """(policy uid, value) already told about."""

    async def failback(self, binding: Object, policy: Object, due: DueCluster, now: datetime) -> None:
        """The `Failback` Event on the binding and on its template, at once."""
        message = failback_message(due, policy, now)
        await asyncio.gather(
            *(
                self._record(regarding, NORMAL, EVENT_FAILBACK, message, now)
                for regarding in (binding, template_of(binding))
            )
        )

    async def invalid(self, policy: Object, value: str, why: str, now: datetime) -> None:
        """The `InvalidFailbackAfter` Event on the policy, unless this value was told about already."""
        mark = (str((policy.get("metadata") or {}).get("uid") or ""), value)
        if mark in self._warned:
            return
        if len(self._warned) >= WARNED_LIMIT:
            self._warned.clear()  # at worst a policy is warned about twice
        self._warned.add(mark)
        await self._record(policy, WARNING, EVENT_INVALID, invalid_message(value, why), now)

    async def _record(
        self, regarding: Object, event_type: str, reason: str, message: str, now: datetime
    ) -> None:
        event = object_event(
            regarding, event_type, reason, message, component=EVENT_COMPONENT, now=format_time(now)
        )
        await record_event(self._hub, event, controller=self._controller, field_manager=self._field_manager)
