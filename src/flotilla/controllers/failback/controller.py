"""The failback controller: a binding whose policy opts in moves back once a cluster it left is healthy.

Keys are `ObjectKey`s of bindings (a ClusterResourceBinding has the empty namespace) and, for a
policy whose failback-after cannot be read, a `PolicyKey`. A binding is looked at when its spec or
annotations change and it carries a record of clusters it left (`decision.RECORDS`), when such a
cluster's readiness or taints change, when its policy's `failover.flotilla.io/failback-after`
changes, and again at the moment its next cluster becomes due. One look, from the informers:

1. the policy, found through the binding's claim annotations (`propagationpolicy.karmada.io/name`
   and `/namespace`, or `clusterpropagationpolicy.karmada.io/name`); without failback-after there,
   nothing is done;
2. `decision.decide` over the records, the clusters' health, the eviction tasks and the placement;
3. when something changes, one merge patch pinned to the resourceVersion read: the records left
   and, when a cluster is due, `spec.rescheduleTriggeredAt` (the scheduler then divides from
   scratch); a Normal Event `Failback` on the binding and its template per due cluster.

The moment each cluster was first seen clear of NoExecute taints is kept in memory
(`decision.healthy_since`). An unreadable failback-after — the API server refuses one at admission,
so only a policy stored before can carry it — is a Warning Event on the policy, once per value, and
nothing else.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import structlog

from flotilla.api.karmada import constants
from flotilla.api.karmada.clustertimes import ClusterTimes, encode_times, read_times
from flotilla.api.objectkeys import KindKey, ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time, timestamp
from flotilla.client.client import MERGE_PATCH
from flotilla.client.errors import NotFound
from flotilla.client.informer import Informer
from flotilla.controllers.failback.decision import (
    RECORDS,
    Decision,
    clear,
    decide,
    failback_after,
    healthy_since,
    keeps_out,
    record_names,
    reschedule_moment,
)
from flotilla.controllers.failback.reporting import FailbackReporter
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.failback")

FIELD_MANAGER = "flotilla-failback"
SCHEDULE_WAIT_SECONDS = 1.0
"""How soon to look again when the binding was scheduled in this very second (see `reschedule_moment`)."""

Object = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class PolicyKey(KindKey):
    """A (Cluster)PropagationPolicy whose failback-after is to be told about."""


def records_of(binding: Object | None) -> dict[str, ClusterTimes]:
    """The binding's records of clusters it left, by annotation."""
    annotations = ((binding or {}).get("metadata") or {}).get("annotations") or {}
    return {key: read_times(annotations, key) for key in RECORDS}


def has_records(binding: Object | None) -> bool:
    return any(records_of(binding).values())


def claimed_by(binding: Object) -> PolicyKey | None:
    """The policy whose claim the binding carries."""
    annotations = (binding.get("metadata") or {}).get("annotations") or {}
    name = annotations.get(constants.PROPAGATION_POLICY_NAME_ANNOTATION)
    if name:
        namespace = str(annotations.get(constants.PROPAGATION_POLICY_NAMESPACE_ANNOTATION) or "")
        return PolicyKey(constants.PROPAGATION_POLICY, namespace, str(name))
    name = annotations.get(constants.CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION)
    if name:
        return PolicyKey(constants.CLUSTER_PROPAGATION_POLICY, "", str(name))
    return None


def _policy_key(policy: Object) -> PolicyKey:
    """A policy's key: a PropagationPolicy has a namespace, a ClusterPropagationPolicy none."""
    metadata = policy.get("metadata") or {}
    namespace = str(metadata.get("namespace") or "")
    gvk = constants.PROPAGATION_POLICY if namespace else constants.CLUSTER_PROPAGATION_POLICY
    return PolicyKey(gvk, namespace, str(metadata.get("name") or ""))


def _failback_value(policy: Object | None) -> Any:
    return (((policy or {}).get("metadata") or {}).get("annotations") or {}).get(
        constants.FAILBACK_AFTER_ANNOTATION
    )


def _health_changed(old: Object, new: Object) -> bool:
    """Whether a Cluster update can change a failback decision: its Ready condition or its taints."""
    if (old.get("spec") or {}).get("taints") != (new.get("spec") or {}).get("taints"):
        return True
    return _ready(old) != _ready(new)


def _ready(cluster: Object) -> tuple[Any, Any]:
    for condition in (cluster.get("status") or {}).get("conditions") or []:
        if condition.get("type") == constants.CLUSTER_CONDITION_READY:
            return condition.get("status"), condition.get("lastTransitionTime")
    return None, None


class FailbackController(HubController):
    NAME = "failback"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._cluster_bindings = ctx.informers.get(constants.CLUSTER_RESOURCE_BINDING)
        self._policies: dict[GroupVersionKind, Informer] = {
            gvk: ctx.informers.get(gvk)
            for gvk in (constants.PROPAGATION_POLICY, constants.CLUSTER_PROPAGATION_POLICY)
        }
        self._clear_since: dict[str, datetime] = {}
        """Cluster → when this process first saw it clear (Ready, no NoExecute taint) since it was not."""
        self._reporter = FailbackReporter(ctx.hub, controller=self.NAME, field_manager=FIELD_MANAGER)

    # -- events ---------------------------------------------------------------------------------

    def setup(self) -> None:
        self._clusters.add_handler(self._on_cluster)
        self._bindings.add_handler(self._on_binding)
        self._cluster_bindings.add_handler(self._on_binding)
        for informer in self._policies.values():
            informer.add_handler(self._on_policy)

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        obj = new if new is not None else old
        if obj is None:
            return
        name = str((obj.get("metadata") or {}).get("name") or "")
        self._seen(name, new)
        if new is not None and old is not None and not _health_changed(old, new):
            return
        for binding in self._all_bindings():
            if name in record_names(records_of(binding)):
                self.enqueue(ObjectKey.of(binding))

    def _on_binding(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None or not has_records(new):
            return
        if old is not None and old.get("spec") == new.get("spec"):
            old_annotations = (old.get("metadata") or {}).get("annotations")
            if old_annotations == (new.get("metadata") or {}).get("annotations"):
                return  # a status write: nothing failback reads
        self.enqueue(ObjectKey.of(new))

    def _on_policy(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None:
            return
        value = _failback_value(new)
        if value is None or (old is not None and _failback_value(old) == value):
            return
        policy = _policy_key(new)
        try:
            failback_after(new)
        except ValueError:
            self.enqueue(policy)
            return
        for binding in self._all_bindings():
            if has_records(binding) and claimed_by(binding) == policy:
                self.enqueue(ObjectKey.of(binding))

    def _seen(self, name: str, cluster: Object | None) -> None:
        """Note when `cluster` was first seen clear; forget it once it is not."""
        if clear(cluster):
            self._clear_since.setdefault(name, self.ctx.clock.now())
        else:
            self._clear_since.pop(name, None)

    def _all_bindings(self) -> Iterator[dict[str, Any]]:
        yield from self._bindings.list()
        yield from self._cluster_bindings.list()

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey | PolicyKey) -> float | None:
        if isinstance(key, PolicyKey):
            await self._tell_invalid(key)
            return None
        informer = self._bindings if key.namespace else self._cluster_bindings
        binding = informer.get(key.name, namespace=key.namespace)
        if binding is None or (binding.get("metadata") or {}).get("deletionTimestamp"):
            return None
        records = records_of(binding)
        if not any(records.values()):
            return None
        policy = self._policy_of(binding)
        try:
            after = failback_after(policy)
        except ValueError:
            return None  # told on the policy (its own key); nothing moves on a value nobody can read
        if after is None:
            return None
        return await self._failback(key, binding, records, after, policy or {})

    async def _failback(
        self, key: ObjectKey, binding: Object, records: dict[str, ClusterTimes], after: float, policy: Object
    ) -> float | None:
        spec = binding.get("spec") or {}
        now = self.ctx.clock.now()
        trigger = reschedule_moment(now, timestamp((binding.get("status") or {}).get("lastScheduledTime")))
        decision = self._decide(spec, records, after, now, trigger or now)
        if decision.due and trigger is None:
            return SCHEDULE_WAIT_SECONDS
        changes = {
            annotation: encode_times(decision.records[annotation])
            for annotation in RECORDS
            if decision.records[annotation] != records[annotation]
        }
        if not changes and not decision.due:
            return decision.next_due
        if not await self._write(key, binding, changes, trigger if decision.due else None):
            return None
        for due in decision.due:
            log.info(
                "failback.rescheduled",
                controller=self.NAME,
                kind=binding.get("kind"),
                namespace=key.namespace,
                name=key.name,
                cluster=due.cluster,
            )
            await self._reporter.failback(binding, policy, due, now)
        return decision.next_due

    def _decide(
        self, spec: Object, records: dict[str, ClusterTimes], after: float, now: datetime, trigger: datetime
    ) -> Decision:
        names = record_names(records)
        clusters = {name: self._clusters.get(name) for name in names}
        for name, cluster in clusters.items():
            self._seen(name, cluster)
        placement = spec.get("placement") or {}
        return decide(
            records=records,
            scheduled={str(target.get("name") or "") for target in spec.get("clusters") or []},
            evicting={str(task.get("fromCluster") or "") for task in spec.get("gracefulEvictionTasks") or []},
            healthy={
                name: healthy_since(cluster, self._clear_since[name])
                for name, cluster in clusters.items()
                if name in self._clear_since
            },
            kept_out={name for name, cluster in clusters.items() if keeps_out(cluster, placement)},
            failback_after=after,
            now=now,
            trigger=trigger,
        )

    async def _write(
        self, key: ObjectKey, binding: Object, changes: Mapping[str, str | None], trigger: datetime | None
    ) -> bool:
        """One merge patch, refused with 409 if the binding changed since it was read (then retried);
        False when the binding is gone."""
        metadata: dict[str, Any] = {"resourceVersion": (binding.get("metadata") or {}).get("resourceVersion")}
        if changes:
            metadata["annotations"] = dict(changes)
        patch: dict[str, Any] = {"metadata": metadata}
        if trigger is not None:
            patch["spec"] = {"rescheduleTriggeredAt": format_time(trigger)}
        gvk = constants.RESOURCE_BINDING if key.namespace else constants.CLUSTER_RESOURCE_BINDING
        try:
            await self.ctx.hub.patch(
                gvk,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return False
        return True

    def _policy_of(self, binding: Object) -> Object | None:
        claim = claimed_by(binding)
        if claim is None:
            return None
        return self._policies[claim.gvk].get(claim.name, namespace=claim.namespace)

    async def _tell_invalid(self, key: PolicyKey) -> None:
        policy = self._policies[key.gvk].get(key.name, namespace=key.namespace)
        if policy is None:
            return
        try:
            failback_after(policy)
        except ValueError as why:
            await self._reporter.invalid(policy, str(_failback_value(policy)), str(why), self.ctx.clock.now())
