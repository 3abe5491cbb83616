"""The descheduler controller: every `--descheduling-interval`, dynamically divided Deployments give
back the replicas their members cannot schedule.

A round (a `PeriodicTask`, the first one at start) queues the key of every ResourceBinding in scope
(`decision.in_scope`); a reconcile re-reads the binding from the informer and, for each target
cluster with fewer replicas ready than its share, counts the replicas unschedulable there for longer
than `--unschedulable-threshold` (`unschedulable`), from the member informers the process keeps:
the Karmada-managed Deployment informer the execution and work-status controllers share, the pods
the cluster status collection watches (one watch serves all), and a cache of the member's
ReplicaSets. A member this process does not reach (Pull), or one whose informers cannot list within
`--scheduler-estimator-timeout`, cannot tell, and its share is left alone.

A change is a merge patch of `spec.clusters` with the binding's resourceVersion as a precondition
(a binding that moved on since it was read is left to the next round), and an Event on the binding
and on its template — `DescheduleBindingSucceed`, "Binding has been descheduled, 2 replica(s) in
cluster(member1), 2 total descheduled replica(s)", as Karmada's — or `DescheduleBindingFailed`
when the write fails for another reason. The scheduler then places the difference elsewhere.
`/metrics` counts the replicas taken back per cluster (`flotilla_descheduled_replicas_total`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, ClassVar

import structlog
from prometheus_client.metrics_core import CounterMetricFamily, Metric

from flotilla.api.karmada import constants
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.client import ClientError, Conflict, NotFound
from flotilla.controllers.descheduler.decision import (
    ClusterReplicas,
    Descheduled,
    deschedule,
    descheduled_clusters,
    event_message,
    in_scope,
    replica_statuses,
    with_unschedulable,
)
from flotilla.controllers.descheduler.unschedulable import unschedulable_replicas
from flotilla.runtime.events import NORMAL, WARNING, object_event, record_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.runtime.members import MemberCredentialsError
from flotilla.runtime.periodic import PeriodicTask
from flotilla.scheduler.nodesnapshots import POD, UNFINISHED_PODS, SyncWindow

log = structlog.get_logger("flotilla.controllers.descheduler")

FIELD_MANAGER = "flotilla-descheduler"
COMPONENT = "karmada-descheduler"
EVENT_SUCCEEDED = "DescheduleBindingSucceed"
EVENT_FAILED = "DescheduleBindingFailed"
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
REPLICA_SET = GroupVersionKind("apps", "v1", "ReplicaSet")


class DeschedulerController(HubController):
    """Karmada's descheduler as a controller of the manager (Karmada runs it as its own component)."""

    NAME: ClassVar[str] = "descheduler"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._window = SyncWindow(ctx.settings.scheduler_estimator_timeout)
        self._rounds = PeriodicTask(
            f"{self.NAME}-rounds", self._queue_bindings, ctx.settings.descheduling_interval, first_delay=0
        )
        self._descheduled: Counter[str] = Counter()

    def start(self) -> None:
        super().start()
        self._rounds.start()

    async def stop(self) -> None:
        await self._rounds.stop()
        await super().stop()

    def metric_families(self) -> list[Metric]:
        family = CounterMetricFamily(
            "flotilla_descheduled_replicas_total",
            "Replicas the descheduler took back from a cluster that could not schedule them.",
            labels=["cluster"],
        )
        for cluster, count in sorted(self._descheduled.items()):
            family.add_metric([cluster], count)
        return [family]

    def _queue_bindings(self) -> None:
        """One round: every binding in scope, looked at once."""
        for binding in self._bindings.list():
            if in_scope(binding):
                self.enqueue(ObjectKey.of(binding))

    async def reconcile(self, key: ObjectKey) -> float | None:
        binding = self._bindings.get(key.name, namespace=key.namespace)
        if binding is None or not in_scope(binding):
            return None
        statuses = replica_statuses(binding)
        counts: dict[str, int] = {}
        for status in statuses:
            if status.undesired:
                found = await self._unschedulable(status, binding)
                if found is not None:
                    counts[status.cluster] = found
        changes = deschedule(with_unschedulable(statuses, counts))
        if changes:
            await self._apply(binding, changes)
        return None

    async def _unschedulable(self, status: ClusterReplicas, binding: Mapping[str, Any]) -> int | None:
        """The Deployment's replicas unschedulable past the threshold on the cluster; None: cannot tell."""
        cluster = self._clusters.get(status.cluster)
        if cluster is None or not self.ctx.reaches(cluster):
            return None
        resource = (binding.get("spec") or {}).get("resource") or {}
        namespace, name = str(resource.get("namespace") or ""), str(resource.get("name") or "")
        members = self.ctx.member_informers
        try:
            deployments = await members.informer(cluster, DEPLOYMENT)
            replica_sets = await members.cache(cluster, REPLICA_SET)
            pods = await members.cache(cluster, POD, field_selector=UNFINISHED_PODS)
        except MemberCredentialsError:
            return None
        if not await self._window.synced(status.cluster, deployments, replica_sets, pods):
            return None
        deployment = deployments.get(name, namespace=namespace)
        if deployment is None:
            return None
        return unschedulable_replicas(
            deployment,
            replica_sets.list(namespace=namespace),
            pods.list(namespace=namespace),
            self.ctx.clock.now(),
            self.ctx.settings.unschedulable_threshold,
        )

    async def _apply(self, binding: Mapping[str, Any], changes: list[Descheduled]) -> None:
        metadata = binding.get("metadata") or {}
        patch = {
            "metadata": {"resourceVersion": metadata.get("resourceVersion")},
            "spec": {"clusters": descheduled_clusters(binding, changes)},
        }
        try:
            await self.ctx.hub.patch(
                constants.RESOURCE_BINDING,
                str(metadata.get("name")),
                patch,
                namespace=str(metadata.get("namespace") or ""),
                field_manager=FIELD_MANAGER,
            )
        except (Conflict, NotFound):
            return  # moved on or gone since it was read: the next round looks again
        except ClientError as error:
            await self._record(binding, WARNING, EVENT_FAILED, str(error))
            raise
        message = event_message(changes)
        for change in changes:
            self._descheduled[change.cluster] += change.taken
        log.info(
            "descheduler.descheduled",
            controller=self.NAME,
            namespace=metadata.get("namespace"),
            name=metadata.get("name"),
            clusters=[f"{change.cluster}:{change.spec}->{change.target}" for change in changes],
        )
        await self._record(binding, NORMAL, EVENT_SUCCEEDED, message)

    async def _record(self, binding: Mapping[str, Any], event_type: str, reason: str, message: str) -> None:
        """The Event on the binding and on its template, as Karmada's descheduler records both."""
        now = format_time(self.ctx.clock.now())
        for involved in (binding, _template_of(binding)):
            event = object_event(involved, event_type, reason, message, component=COMPONENT, now=now)
            await record_event(self.ctx.hub, event, controller=self.NAME, field_manager=FIELD_MANAGER)


def _template_of(binding: Mapping[str, Any]) -> dict[str, Any]:
    """The template a binding is for, as far as an Event needs it (from `spec.resource`)."""
    resource = (binding.get("spec") or {}).get("resource") or {}
    metadata = {key: resource[key] for key in ("name", "namespace", "uid") if resource.get(key)}
    return {"apiVersion": resource.get("apiVersion"), "kind": resource.get("kind"), "metadata": metadata}
