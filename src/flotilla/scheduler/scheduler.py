"""The scheduler controller: the I/O shell that places bindings on clusters through the hub API.

It watches ResourceBindings, ClusterResourceBindings and Clusters (shared informers) and queues
binding keys — `ObjectKey`s, an empty namespace meaning a ClusterResourceBinding. A key is
queued when its binding is added, when its generation moves (a spec change; status and metadata
writes do not count), and on a Cluster change that could move it:

- any change a scheduler would see (labels, spec, API enablements, capacity, deletion) queues the
  bindings still waiting for a result (Scheduled not True, or an unobserved generation);
- a change other than capacity also queues Duplicated and non-workload bindings whose affinity
  selects the cluster before or after (they follow joins and label changes), and bindings that
  target a cluster being deleted or gone.

A reconcile reads the binding from the informer, skips it unless this scheduler is responsible
(`schedulerName`, `suspension.scheduling`, the policy labels Karmada's scheduler filters on), asks
`needs_scheduling`, and runs the pure core (`core.generic.schedule`) on a snapshot of the clusters
(rebuilt only when a Cluster's scheduling view changes), at the moment the injected clock reads
(`BindingInfo.now`: a NoExecute toleration whose seconds ran out no longer admits a new cluster).
A binding in a workload (anti-)affinity group is scheduled with where its peers are
(`groupplacements`: the informer's copies, indexed by group, and this scheduler's own results not
seen yet, so concurrent rounds and the informer's lag cannot put two of an anti-affinity group
together); when a grouped binding moves or goes, its peers still waiting for a result are queued.
The filters are on with the `WorkloadAffinity` feature gate (on by default here).
Workloads are sized by the general estimator (each Cluster's resource summary) and, with
`--enable-scheduler-estimator` (on by default), by the accurate estimator over the nodes and pods
of the members this process reaches (`nodesnapshots`), the smaller answer winning. Results are
written with server-side apply:

- `spec.clusters` and the `policy.karmada.io/applied-placement` annotation under field manager
  `flotilla-scheduler`, with the binding's resourceVersion as a precondition, so a decision made on
  a stale copy is refused (Conflict, retried) rather than written. A `FitError` writes an empty
  list (the workload leaves every cluster); other failures keep the previous result.
- on the status subresource, only the `Scheduled` condition (a list-map entry keyed by type) and
  the scheduler's fields: `schedulerObservedGeneration` (the generation the written spec has),
  `lastScheduledTime`, `schedulerObservingAffinityName`. Values this round does not change are
  applied again as they are, because apply drops fields a manager stops sending.

A round that changes nothing writes nothing. Every round that writes records an Event on the
binding: `ScheduleBindingSucceed` (Normal) or `ScheduleBindingFailed` (Warning), as Karmada's; a
result that had to fall back on clusters the application failed on says so in the message.
`UnschedulableError` and `SchedulerError` are raised again afterwards so the key is retried with
backoff; a `FitError` is not retried (a Cluster or binding change queues the binding again).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

import orjson
import structlog

from flotilla.api.conditions import find_condition, stamped_condition
from flotilla.api.karmada import constants
from flotilla.api.karmada.federatedquota import QUOTA_EXCEEDED_REASON
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.times import format_time
from flotilla.client import ClientError, Forbidden, NotFound
from flotilla.client.interfaces import StatusWriter, Writer
from flotilla.runtime.events import object_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.scheduler.core.affinity import affinity_tier
from flotilla.scheduler.core.errors import (
    FitError,
    QuotaExceededError,
    ScheduledCondition,
    SchedulingError,
    scheduled_condition,
)
from flotilla.scheduler.core.estimation import ReplicaEstimator
from flotilla.scheduler.core.generic import ScheduleResult, schedule
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, clusters_from_objects
from flotilla.scheduler.core.placement import SchedulingType
from flotilla.scheduler.core.triggers import needs_scheduling, reschedule_requested
from flotilla.scheduler.core.workloadgroups import GroupMember
from flotilla.scheduler.framework import Registry
from flotilla.scheduler.groupplacements import GroupPlacements
from flotilla.scheduler.nodesnapshots import MemberNodeSnapshots
from flotilla.scheduler.plugins import in_tree_registry

log = structlog.get_logger("flotilla.scheduler")

FIELD_MANAGER = "flotilla-scheduler"
EVENT_SUCCEEDED = "ScheduleBindingSucceed"
EVENT_FAILED = "ScheduleBindingFailed"
FAILED_CLUSTERS_NOTE = " (no other cluster fits, so clusters the application failed on were allowed)"
BINDING_MANAGED_BY_LABEL = "binding.karmada.io/managed-by"
"""Set by Karmada components that create bindings without a policy; the scheduler takes those too."""
_OWNER_LABELS = (
    constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL,
    constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL,
    BINDING_MANAGED_BY_LABEL,
)
WORKLOAD_AFFINITY_GATE = "WorkloadAffinity"
"""The feature gate that turns the WorkloadAffinity and WorkloadAntiAffinity filters on."""
_SCHEDULER_FIELDS = ("schedulerObservedGeneration", "lastScheduledTime", "schedulerObservingAffinityName")


class RetryScheduling(Exception):
    """The binding could not be placed this round and should be tried again with backoff."""


def is_responsible(binding: Mapping[str, Any]) -> bool:
    """Karmada's binding filter: our scheduler name, scheduling not suspended, claimed by a policy."""
    spec = binding.get("spec") or {}
    if spec.get("schedulerName") not in (None, "", constants.DEFAULT_SCHEDULER_NAME):
        return False
    if (spec.get("suspension") or {}).get("scheduling") is True:
        return False
    labels = (binding.get("metadata") or {}).get("labels") or {}
    return any(labels.get(label) for label in _OWNER_LABELS)


def awaits_result(binding: Mapping[str, Any]) -> bool:
    """True while the binding's last round did not succeed or its current generation was not seen."""
    status = binding.get("status") or {}
    condition = _scheduled_condition_of(status)
    generation = (binding.get("metadata") or {}).get("generation")
    return (
        condition is None
        or condition.get("status") != "True"
        or status.get("schedulerObservedGeneration") != generation
    )


AWAITING_INDEX = "scheduler.awaiting"
"""The binding informers' index of the bindings this scheduler owes a result (value True)."""


def _awaiting(binding: dict[str, Any]) -> tuple[bool, ...]:
    return (True,) if is_responsible(binding) and awaits_result(binding) else ()


def scheduled_status(
    binding: Mapping[str, Any],
    condition: ScheduledCondition,
    now: str,
    *,
    result: ScheduleResult | None,
    refresh_time: bool,
) -> dict[str, Any]:
    """The status the scheduler applies: its condition and fields, unchanged ones carried over.

    On success (`result` given) the observed generation becomes the binding's, and the observed
    affinity term the one that placed it; `lastScheduledTime` moves to `now` when `refresh_time`
    says the round acted or there is none yet. The condition keeps its transition time while its
    status stays the same.
    """
    current = binding.get("status") or {}
    previous = _scheduled_condition_of(current) or {}
    wanted = {
        "type": constants.CONDITION_SCHEDULED,
        "status": condition.status,
        "reason": condition.reason,
        "message": condition.message,
    }
    status: dict[str, Any] = {"conditions": [stamped_condition(wanted, previous, now)]}
    if result is not None:
        status["schedulerObservedGeneration"] = (binding.get("metadata") or {}).get("generation", 0)
        if refresh_time or not current.get("lastScheduledTime"):
            status["lastScheduledTime"] = now
        if result.affinity_name is not None:
            status["schedulerObservingAffinityName"] = result.affinity_name
    for field in _SCHEDULER_FIELDS:
        if field not in status and current.get(field) not in (None, ""):
            status[field] = current[field]
    return status


def status_differs(binding: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """True when applying `status` would change the binding's status."""
    current = binding.get("status") or {}
    previous = _scheduled_condition_of(current) or {}
    wanted = status["conditions"][0]
    if any(previous.get(key) != value for key, value in wanted.items()):
        return True
    return any(current.get(field) != status.get(field) for field in _SCHEDULER_FIELDS)


def applied_placement(binding: Mapping[str, Any]) -> str:
    """The applied-placement annotation for the binding's placement: its JSON, keys sorted."""
    placement = (binding.get("spec") or {}).get("placement") or {}
    return orjson.dumps(placement, option=orjson.OPT_SORT_KEYS).decode()


def result_differs(binding: Mapping[str, Any], clusters: list[dict[str, Any]]) -> bool:
    """True when `spec.clusters` would change, or the annotation does not record the placement."""
    annotation = ((binding.get("metadata") or {}).get("annotations") or {}).get(
        constants.APPLIED_PLACEMENT_ANNOTATION
    )
    try:
        recorded = orjson.loads(annotation) if isinstance(annotation, str) else None
    except orjson.JSONDecodeError:
        recorded = None
    if recorded != ((binding.get("spec") or {}).get("placement") or {}):
        return True
    current = (binding.get("spec") or {}).get("clusters") or []
    pairs = [(item.get("name"), item.get("replicas") or 0) for item in current]
    return pairs != [(item["name"], item.get("replicas") or 0) for item in clusters]


def binding_event(
    binding: Mapping[str, Any], event_type: str, reason: str, message: str, now: str
) -> dict[str, Any]:
    """A core/v1 Event about `binding` (cluster-scoped bindings report in `default`, as kube does)."""
    return object_event(
        binding, event_type, reason, message, component=constants.DEFAULT_SCHEDULER_NAME, now=now
    )


def _scheduled_condition_of(status: Mapping[str, Any]) -> Mapping[str, Any] | None:
    return find_condition(status.get("conditions"), constants.CONDITION_SCHEDULED)


class SchedulerController(HubController):
    """Karmada's scheduler as a hub controller: bindings in, `spec.clusters` and `Scheduled` out."""

    NAME: ClassVar[str] = "scheduler"
    WORKERS: ClassVar[int | None] = 32
    """Reconciles in flight: a round is pure computation around two or three API writes, so the
    scheduler's rate is bounded by how many writes it keeps the hub busy with, not by its CPU."""

    def __init__(
        self,
        ctx: ControllerContext,
        *,
        registry: Registry | None = None,
        enable_empty_workload_propagation: bool = False,
    ) -> None:
        super().__init__(ctx)
        workload_affinity = ctx.settings.feature_gates.enabled(WORKLOAD_AFFINITY_GATE)
        self._registry = registry or in_tree_registry(workload_affinity=workload_affinity)
        self._group_placements = GroupPlacements()
        self._keep_empty = enable_empty_workload_propagation
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._cluster_bindings = ctx.informers.get(constants.CLUSTER_RESOURCE_BINDING)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._snapshot: tuple[ClusterInfo, ...] | None = None
        self._cluster_infos: dict[str, ClusterInfo] = {}
        """Each Cluster as the scheduler reads it, kept by `_on_cluster` from the informer's events."""
        self._node_snapshots = (
            MemberNodeSnapshots(
                ctx.member_informers,
                self._cluster_object,
                reaches=ctx.reaches,
                sync_timeout=ctx.settings.scheduler_estimator_timeout,
            )
            if ctx.settings.enable_scheduler_estimator
            else None
        )
        # The shell reads only from its informers: of the hub client it needs the writes.
        self._writer: Writer = ctx.hub
        self._status_writer: StatusWriter = ctx.hub

    def setup(self) -> None:
        for informer in (self._bindings, self._cluster_bindings):
            informer.add_index(AWAITING_INDEX, _awaiting)
        self._bindings.add_handler(self._on_binding)
        self._bindings.add_handler(self._on_grouped_binding)
        self._cluster_bindings.add_handler(self._on_binding)
        self._clusters.add_handler(self._on_cluster)

    # -- event handlers (they only queue keys) ----------------------------------------------------

    def _on_binding(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None or not is_responsible(new):
            return
        if old is None or _generation(old) != _generation(new) or not is_responsible(old):
            self.enqueue(ObjectKey.of(new))

    def _on_grouped_binding(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        """Keep the workload affinity groups' placements; queue the waiting peers of a binding that moved."""
        for key in self._group_placements.observe(new, old):
            binding = self._bindings.get(key.name, namespace=key.namespace)
            if binding is not None and is_responsible(binding) and awaits_result(binding):
                self.enqueue(key)

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        name = _name_of(new if new is not None else old or {})
        before = self._cluster_infos.get(name)
        if before is None and old is not None:
            before = ClusterInfo.from_object(old)
        after = ClusterInfo.from_object(new) if new is not None else None
        if after is None:
            self._cluster_infos.pop(name, None)
        else:
            self._cluster_infos[name] = after
        if before == after:
            return
        self._snapshot = None
        placement_view_changed = _without_capacity(before) != _without_capacity(after)
        seen = [info for info in (before, after) if info is not None]
        leaving = after is None or after.deleting
        for informer in (self._bindings, self._cluster_bindings):
            # Capacity alone changes every status round: only the bindings that await a result
            # (from the index) can gain from it; a change of what placement sees looks at all.
            if not placement_view_changed:
                for binding in informer.indexed(AWAITING_INDEX, True):
                    self.enqueue(ObjectKey.of(binding))
                continue
            for binding in informer.list():
                if is_responsible(binding) and (
                    awaits_result(binding) or _moves_with_cluster(binding, seen, leaving)
                ):
                    self.enqueue(ObjectKey.of(binding))

    # -- reconcile --------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        """Schedule the binding of `key` (a ClusterResourceBinding when its namespace is empty)."""
        informer = self._bindings if key.namespace else self._cluster_bindings
        found = informer.get(key.name, namespace=key.namespace)
        if found is None or not is_responsible(found):
            return None
        binding = BindingInfo.from_object(found, now=self.ctx.clock.now())
        if binding.deleting:
            return None
        clusters = self._cluster_snapshot()
        present = {cluster.name for cluster in clusters}
        leaving = {cluster.name for cluster in clusters if cluster.deleting}
        leaving.update(target.name for target in binding.clusters if target.name not in present)
        result: ScheduleResult | None = None
        failure: SchedulingError | None = None
        try:
            if needs_scheduling(binding, leaving):
                estimators = await self._estimators(binding, clusters)
                # No await from reading the peers to assuming the result: concurrent rounds see it.
                binding = self._with_peers(binding)
                try:
                    result = schedule(
                        binding,
                        clusters,
                        self._registry,
                        enable_empty_workload_propagation=self._keep_empty,
                        estimators=estimators,
                    )
                except SchedulingError as error:
                    failure = error
                failure = await self._decide(key, found, binding, result, failure)
            elif (found.get("status") or {}).get("schedulerObservedGeneration") != _generation(found):
                # The result still stands for the new generation: record it as observed, as Karmada does.
                await self._apply_status(found, _observed(found.get("status") or {}, _generation(found)))
        except NotFound:
            return None  # deleted meanwhile; nothing left to schedule
        if failure is not None and failure.retryable:
            raise RetryScheduling(f"{failure.reason}: {failure}") from failure
        return None

    def _with_peers(self, binding: BindingInfo) -> BindingInfo:
        """The binding with where its workload (anti-)affinity peers are, decided or seen."""
        if not binding.workload_groups.grouped:
            return binding
        return binding.with_group_peers(
            self._group_placements.members(binding.namespace, binding.workload_groups)
        )

    async def _decide(
        self,
        key: ObjectKey,
        found: dict[str, Any],
        binding: BindingInfo,
        result: ScheduleResult | None,
        failure: SchedulingError | None,
    ) -> SchedulingError | None:
        """Write the round's outcome; a grouped binding's new result counts for its peers meanwhile.
        The round's failure is returned, the hub's refusal of the result included."""
        if binding.workload_groups.grouped and (result is not None or isinstance(failure, FitError)):
            placed = (
                frozenset(target.name for target in result.clusters) if result is not None else frozenset()
            )
            groups = replace(binding.workload_groups, affinity_peers=(), anti_affinity_peers=())
            self._group_placements.assume(key, GroupMember(key.namespace, key.name, groups, placed))
        try:
            return await self._write(key, found, binding, result, failure)
        finally:
            self._group_placements.forget_unwritten(key)

    async def _write(
        self,
        key: ObjectKey,
        found: dict[str, Any],
        binding: BindingInfo,
        result: ScheduleResult | None,
        failure: SchedulingError | None,
    ) -> SchedulingError | None:
        now = format_time(self.ctx.clock.now())
        live = found
        wrote_result = False
        if result is not None or isinstance(failure, FitError):
            clusters = result.spec_clusters() if result is not None else []
            if result_differs(found, clusters):
                try:
                    live = await self._apply_result(found, clusters)
                except Forbidden as error:
                    if error.reason != QUOTA_EXCEEDED_REASON:
                        raise
                    # Karmada's condition for a result its quota webhook refused; retried with backoff.
                    result, failure = None, QuotaExceededError(error.message)
                else:
                    revision = str((live.get("metadata") or {}).get("resourceVersion"))
                    self._group_placements.confirm(key, revision)
                    wrote_result = True
        refresh = wrote_result or reschedule_requested(binding) or awaits_result(found)
        status = scheduled_status(
            live, scheduled_condition(failure), now, result=result, refresh_time=refresh
        )
        if not (wrote_result or status_differs(live, status)):
            return failure
        await self._apply_status(live, status)
        log.info(
            "scheduler.scheduled" if failure is None else "scheduler.failed",
            controller=self.NAME,
            kind=found.get("kind"),
            namespace=binding.namespace,
            name=binding.name,
            clusters=[f"{t.name}:{t.replicas}" for t in result.clusters] if result else [],
            on_failed_clusters=result is not None and result.on_failed_clusters,
            reason=None if failure is None else failure.reason,
        )
        await self._record_event(live, result, failure, now)
        return failure

    async def _apply_result(
        self, binding: Mapping[str, Any], clusters: list[dict[str, Any]]
    ) -> dict[str, Any]:
        metadata = binding.get("metadata") or {}
        body = {
            "apiVersion": binding.get("apiVersion"),
            "kind": binding.get("kind"),
            "metadata": {
                **_identity(metadata),
                "resourceVersion": metadata.get("resourceVersion"),
                "annotations": {constants.APPLIED_PLACEMENT_ANNOTATION: applied_placement(binding)},
            },
            "spec": {"clusters": clusters},
        }
        return await self._writer.apply(body, field_manager=FIELD_MANAGER, force=True)

    async def _apply_status(self, binding: Mapping[str, Any], status: dict[str, Any]) -> None:
        body = {
            "apiVersion": binding.get("apiVersion"),
            "kind": binding.get("kind"),
            "metadata": _identity(binding.get("metadata") or {}),
            "status": status,
        }
        await self._status_writer.apply_status(body, field_manager=FIELD_MANAGER, force=True, decode=False)

    async def _record_event(
        self,
        binding: Mapping[str, Any],
        result: ScheduleResult | None,
        failure: SchedulingError | None,
        now: str,
    ) -> None:
        if failure is None and result is not None:
            placed = ", ".join(f"{t.name}:{t.replicas}" for t in result.clusters)
            note = FAILED_CLUSTERS_NOTE if result.on_failed_clusters else ""
            event = binding_event(
                binding,
                "Normal",
                EVENT_SUCCEEDED,
                f"{scheduled_condition(None).message} Result: {{{placed}}}{note}",
                now,
            )
        else:
            event = binding_event(binding, "Warning", EVENT_FAILED, str(failure), now)
        try:
            await self._writer.create(event, field_manager=FIELD_MANAGER, decode=False)
        except ClientError as error:  # events are best effort, as kube's recorder makes them
            log.info("scheduler.event_failed", controller=self.NAME, reason=event["reason"], error=str(error))

    async def _estimators(
        self, binding: BindingInfo, clusters: tuple[ClusterInfo, ...]
    ) -> tuple[ReplicaEstimator, ...]:
        """The estimators beside the general one: the accurate estimator, for a workload, when enabled."""
        if self._node_snapshots is None or binding.replicas <= 0:
            return ()
        names = [cluster.name for cluster in clusters if not cluster.deleting]
        return (await self._node_snapshots.estimator(names),)

    def _cluster_object(self, name: str) -> dict[str, Any] | None:
        return self._clusters.get(name)

    def _cluster_snapshot(self) -> tuple[ClusterInfo, ...]:
        if self._snapshot is None:
            # Each cluster was read once, when its event came (`_on_cluster`): a status round of
            # a hundred clusters re-reads one cluster per event, not all of them.
            infos = self._cluster_infos
            if len(infos) != len(self._clusters.store):  # events still on their way: read them all
                objects: list[Mapping[str, Any]] = sorted(self._clusters.list(), key=_name_of)
                self._snapshot = clusters_from_objects(objects)
            else:
                self._snapshot = tuple(infos[name] for name in sorted(infos))
        return self._snapshot


def _moves_with_cluster(binding: Mapping[str, Any], clusters: list[ClusterInfo], leaving: bool) -> bool:
    """Whether a change of `clusters` (before/after) can move this already scheduled binding."""
    info = BindingInfo.from_object(binding)
    if leaving and any(info.targets(cluster.name) for cluster in clusters):
        return True
    follows_clusters = info.replicas == 0 or info.placement.scheduling_type == SchedulingType.DUPLICATED
    return follows_clusters and any(affinity_tier(info, cluster) is not None for cluster in clusters)


def _without_capacity(cluster: ClusterInfo | None) -> ClusterInfo | None:
    return None if cluster is None else replace(cluster, resource_summary=None)


def _observed(status: Mapping[str, Any], generation: int) -> dict[str, Any]:
    """The scheduler's part of `status` with a new observed generation (the rest sent unchanged)."""
    owned: dict[str, Any] = {field: status[field] for field in _SCHEDULER_FIELDS if field in status}
    owned["schedulerObservedGeneration"] = generation
    condition = _scheduled_condition_of(status)
    if condition is not None:
        owned["conditions"] = [condition]
    return owned


def _identity(metadata: Mapping[str, Any]) -> dict[str, Any]:
    identity = {"name": metadata.get("name")}
    if metadata.get("namespace"):
        identity["namespace"] = metadata["namespace"]
    return identity


def _generation(obj: Mapping[str, Any]) -> int:
    generation = (obj.get("metadata") or {}).get("generation")
    return generation if isinstance(generation, int) else 0


def _name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")
