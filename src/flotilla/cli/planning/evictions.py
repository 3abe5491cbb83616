"""What a taint on a cluster would move: the taint manager's evictions, then the scheduler's re-placement.

`flotilla plan --taint` asks this for every binding — the hub's, and those the manifests would
create or change — twice: once with the Clusters as they are (*before*) and once with the what-if
taints laid on them (*after*, `planning.taints`). Each time the binding is settled as the
controllers would settle it, with their own pure decisions:

1. the taint manager (`controllers.failover.eviction.plan_evictions`, over `noexecute.judge`):
   for every cluster of `spec.clusters` with NoExecute taints, the placement's `clusterTolerations`
   decide — untolerated, evicted now; tolerated with `tolerationSeconds`, evicted when the first
   of them runs out (counted from the taint's `timeAdded`, `now` for a new taint); tolerated
   without, never. An evicted cluster leaves `spec.clusters` and gets a graceful eviction task;
2. the scheduler (`scheduler.preview.preview_placement`, the scheduler's own pipeline), at the
   moment of the eviction: a Divided binding whose replicas no longer add up is split again over
   what is left, a Duplicated one is placed again (the task keeps the evicted cluster out,
   ClusterEviction; an untolerated or run-out toleration keeps out a cluster not in the result,
   TaintToleration — which is also how a NoSchedule taint keeps new placements off while moving
   nothing already placed);
3. again from 1 on the new result, the clock moved to the next toleration's end when nothing is
   due now, until no eviction is left: a binding placed onto a cluster whose NoExecute taint it
   tolerates for a while is evicted from it when that while ends.

The *after* placement is therefore the one once every running toleration has ended; each evicted
cluster says when it goes (`now`, `after Ns`) and a tolerated one that it stays (`never`). A
binding the scheduler does not place (another scheduler, scheduling suspended) only loses its
evicted clusters. A binding in a workload (anti-)affinity group is placed again by where its peers
are before the taints (the what-if does not move the peers along with it). Nothing here does I/O:
the command reads the hub and prints the result.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from flotilla.api.karmada.constants import DEFAULT_SCHEDULER_NAME
from flotilla.api.objects import metadata_of
from flotilla.api.tolerations import NO_EXECUTE, NO_SCHEDULE
from flotilla.cli.membership.taints import TaintSpec
from flotilla.cli.planning.taints import LaidTaint
from flotilla.controllers.failover.eviction import Eviction, plan_evictions
from flotilla.controllers.failover.noexecute import no_execute_taints
from flotilla.scheduler.core.estimation import ReplicaEstimator
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster, clusters_from_objects
from flotilla.scheduler.core.placement import Placement
from flotilla.scheduler.core.workloadgroups import GroupMember
from flotilla.scheduler.framework import Registry
from flotilla.scheduler.plugins import in_tree_registry
from flotilla.scheduler.preview import PlacementPreview, preview_placement
from flotilla.scheduler.scheduler import is_responsible

Object = Mapping[str, Any]


class When(enum.StrEnum):
    """When a tainted cluster's copy of a binding goes."""

    NOW = "now"
    LATER = "after"
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class ClusterOutlook:
    """What a what-if taint means for one cluster of a binding: when it is evicted, and why."""

    cluster: str
    when: When
    reason: str
    taint: str = ""
    """The taint that decided (`key=value:Effect`)."""
    seconds: int | None = None
    """For `after`: seconds until the toleration ends."""
    replicas: int | None = None
    """Replicas the cluster ran before (None: it was not in the placement before)."""


@dataclass(frozen=True, slots=True)
class BindingOutlook:
    """One binding before and after the taints: the placements, the evictions and the scheduler's view."""

    kind: str
    namespace: str
    name: str
    resource_api_version: str
    resource_kind: str
    resource_name: str
    from_manifests: bool
    replicas: int | None
    placement: Placement
    before: tuple[TargetCluster, ...]
    after: tuple[TargetCluster, ...]
    clusters: tuple[ClusterOutlook, ...] = ()
    preview: PlacementPreview | None = None
    """The scheduler's last round after the taints (decisions per cluster); None when it does not place it."""
    unscheduled: str = ""
    """Why the scheduler does not re-place it, when it does not."""

    @property
    def affected(self) -> bool:
        return bool(self.clusters) or _as_map(self.before) != _as_map(self.after)

    @property
    def resource(self) -> str:
        """kubectl's `kind.group/name` form of the template, e.g. `deployment.apps/nginx`."""
        group = self.resource_api_version.rpartition("/")[0]
        kind = self.resource_kind.lower()
        return f"{kind}.{group}/{self.resource_name}" if group else f"{kind}/{self.resource_name}"

    def outlook_of(self, cluster: str) -> ClusterOutlook | None:
        return next((item for item in self.clusters if item.cluster == cluster), None)


@dataclass(frozen=True, slots=True)
class TaintPlan:
    """The what-if: the taints as laid, the bindings they affect, and how many they leave alone."""

    taints: tuple[LaidTaint, ...]
    affected: tuple[BindingOutlook, ...]
    unaffected: int
    notes: tuple[str, ...] = ()
    """What the whole what-if rests on (a member sized by its resource summary alone…)."""


@dataclass(frozen=True, slots=True)
class BindingSubject:
    """A binding to look at: as it will be once the manifests are applied (else as the hub has it)."""

    binding: Object
    from_manifests: bool = False


def taint_plan(
    subjects: Sequence[BindingSubject],
    clusters: Sequence[Object],
    tainted: Sequence[Object],
    laid: Sequence[LaidTaint],
    now: datetime,
    *,
    registry: Registry | None = None,
    estimators: Sequence[ReplicaEstimator] = (),
) -> TaintPlan:
    """Every subject settled before (`clusters`) and after (`tainted`, carrying `laid`) at `now`."""
    scheduler = _Scheduler(registry or in_tree_registry(), tuple(estimators), now)
    world_before = _World.of(clusters)
    world_after = _World.of(tainted)
    new_taints: dict[str, tuple[TaintSpec, ...]] = {}
    for item in laid:
        if item.new:
            new_taints[item.cluster] = (*new_taints.get(item.cluster, ()), item.taint)
    peers = [member for member in (GroupMember.of_binding(subject.binding) for subject in subjects) if member]
    outlooks = [
        _outlook_of(subject, world_before, world_after, new_taints, scheduler, peers)
        for subject in subjects
        if not metadata_of(subject.binding).get("deletionTimestamp")
    ]
    affected = tuple(item for item in outlooks if item.affected)
    return TaintPlan(tuple(laid), affected, len(outlooks) - len(affected))


@dataclass(frozen=True, slots=True)
class _World:
    """The Clusters a settling runs against: wire objects for the taint manager, records for the scheduler."""

    objects: Mapping[str, Object]
    infos: tuple[ClusterInfo, ...]

    @classmethod
    def of(cls, clusters: Sequence[Object]) -> _World:
        ordered = sorted(clusters, key=lambda cluster: str(metadata_of(cluster).get("name") or ""))
        return cls(
            {str(metadata_of(cluster).get("name") or ""): cluster for cluster in ordered},
            clusters_from_objects(list(ordered)),
        )

    def named(self, name: str) -> Object | None:
        return self.objects.get(name)

    def no_execute_tainted(self, name: str) -> bool:
        cluster = self.objects.get(name)
        return (
            cluster is not None
            and not metadata_of(cluster).get("deletionTimestamp")
            and bool(no_execute_taints(cluster))
        )


@dataclass(frozen=True, slots=True)
class _Scheduler:
    registry: Registry
    estimators: tuple[ReplicaEstimator, ...]
    now: datetime

    def preview(self, binding: BindingInfo, world: _World, moment: datetime) -> PlacementPreview:
        """The scheduler's round at `moment` (a toleration run out by then admits no new cluster)."""
        timed = replace(binding, now=moment)
        return preview_placement(timed, world.infos, self.registry, estimators=self.estimators)


@dataclass(frozen=True, slots=True)
class _Evicted:
    """An eviction the taint manager makes, and the moment it makes it."""

    eviction: Eviction
    moment: datetime


@dataclass(slots=True)
class _Settled:
    """A binding once the taint manager and the scheduler are done with it."""

    targets: tuple[TargetCluster, ...] = ()
    preview: PlacementPreview | None = None
    evicted: dict[str, _Evicted] = field(default_factory=dict)
    tolerated: set[str] = field(default_factory=set)


def _outlook_of(
    subject: BindingSubject,
    before_world: _World,
    after_world: _World,
    new_taints: Mapping[str, tuple[TaintSpec, ...]],
    scheduler: _Scheduler,
    peers: Sequence[GroupMember],
) -> BindingOutlook:
    """One binding before and after the taints."""
    binding = subject.binding
    metadata = metadata_of(binding)
    spec = binding.get("spec") or {}
    resource = spec.get("resource") or {}
    info = BindingInfo.from_object(binding, now=scheduler.now).with_group_peers(peers)
    responsible = is_responsible(binding)
    before = _settle(binding, info, before_world, scheduler, responsible)
    after = _settle(binding, info, after_world, scheduler, responsible)
    before_map = _as_map(before.targets)
    clusters = _cluster_outlooks(before, after, before_map, new_taints, scheduler.now)
    replicas = spec.get("replicas")
    return BindingOutlook(
        kind=str(binding.get("kind") or ""),
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        resource_api_version=str(resource.get("apiVersion") or ""),
        resource_kind=str(resource.get("kind") or ""),
        resource_name=str(resource.get("name") or ""),
        from_manifests=subject.from_manifests,
        replicas=replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else None,
        placement=info.placement,
        before=before.targets,
        after=after.targets,
        clusters=clusters,
        preview=after.preview,
        unscheduled="" if responsible else _not_placed(spec),
    )


def _settle(
    binding: Object, info: BindingInfo, world: _World, scheduler: _Scheduler, responsible: bool
) -> _Settled:
    """Evict and re-place, in time order, until the taint manager has nothing left to evict.

    The taint manager judges the binding at a moment (`now` first): what is due is evicted and the
    scheduler places the binding again at that moment; when nothing is due but a toleration runs,
    the next moment is when the first one ends. The first round schedules even when nothing is due,
    so a binding the manifests create is placed (and then judged where it landed).
    """
    placement = (binding.get("spec") or {}).get("placement") or {}
    settled = _Settled()
    moment = scheduler.now
    scheduled = not responsible
    for _ in range(2 * len(world.infos) + 3):  # each round evicts a cluster for good or moves the clock
        plan = plan_evictions({"placement": placement, "clusters": _wire(info.clusters)}, world.named, moment)
        due = [eviction for eviction in plan.evictions if eviction.cluster not in settled.evicted]
        if scheduled and not due:
            ends = [judgement.expires for _, judgement in plan.waiting if judgement.expires is not None]
            if not ends:
                break
            moment = max(moment, min(ends))
            continue
        settled.evicted.update((eviction.cluster, _Evicted(eviction, moment)) for eviction in due)
        info = replace(
            info,
            clusters=tuple(target for target in info.clusters if target.name not in settled.evicted),
            graceful_eviction_clusters=info.graceful_eviction_clusters | settled.evicted.keys(),
        )
        if responsible:
            settled.preview = scheduler.preview(info, world, moment)
            info = _after_round(info, settled.preview, moment)
        scheduled = True
    settled.targets = info.clusters
    settled.tolerated = {target.name for target in info.clusters if world.no_execute_tainted(target.name)}
    return settled


def _after_round(info: BindingInfo, preview: PlacementPreview, now: datetime) -> BindingInfo:
    """The binding as the scheduler leaves it: its result, and on success the placement marked applied."""
    info = replace(info, clusters=preview.targets)
    if preview.condition is None or preview.condition.status != "True":
        return info
    return replace(
        info,
        applied_placement=info.placement,
        last_scheduled_time=now,
        scheduler_observed_affinity_name=preview.affinity_name or info.scheduler_observed_affinity_name,
    )


def _cluster_outlooks(
    before: _Settled,
    after: _Settled,
    before_map: Mapping[str, int],
    new_taints: Mapping[str, tuple[TaintSpec, ...]],
    now: datetime,
) -> tuple[ClusterOutlook, ...]:
    """Each cluster the taints evict (beyond what goes anyway), and each tainted one the binding stays on.

    A cluster the binding leaves without an eviction (a new binding kept off by a NoSchedule taint)
    has no outlook: the scheduler's decision for it says why."""
    outlooks: dict[str, ClusterOutlook] = {}
    for name, eviction in after.evicted.items():
        if name not in before.evicted:
            outlooks[name] = _evicted(eviction, before_map.get(name), now)
    for name in sorted(after.tolerated):
        no_execute = _texts(new_taints.get(name, ()), (NO_EXECUTE,))
        if name not in outlooks and no_execute:
            reason = f"{no_execute} tolerated without tolerationSeconds"
            outlooks[name] = ClusterOutlook(name, When.NEVER, reason, no_execute, None, before_map.get(name))
    staying = {target.name for target in after.targets}
    for name in sorted(before_map.keys() & staying):
        taints = new_taints.get(name, ())
        if name in outlooks or not taints or any(taint.effect == NO_EXECUTE for taint in taints):
            continue
        text = _texts(taints, (NO_SCHEDULE,)) or _texts(taints)
        effect = "NoSchedule" if any(taint.effect == NO_SCHEDULE for taint in taints) else "PreferNoSchedule"
        reason = f"{text}: {effect} moves nothing already placed"
        if effect == NO_SCHEDULE:
            reason += "; new replicas keep off"
        outlooks[name] = ClusterOutlook(name, When.NEVER, reason, text, None, before_map[name])
    return tuple(outlooks[name] for name in sorted(outlooks))


def _texts(taints: Sequence[TaintSpec], effects: tuple[str, ...] = ()) -> str:
    return ", ".join(str(taint) for taint in taints if not effects or taint.effect in effects)


def _evicted(evicted: _Evicted, replicas: int | None, now: datetime) -> ClusterOutlook:
    """When and why the taint manager evicts: `now`, or once a toleration runs out."""
    judgement = evicted.eviction.judgement
    cluster = evicted.eviction.cluster
    taint = str(judgement.taint) if judgement.taint is not None else ""
    if evicted.moment > now:
        seconds = math.ceil((evicted.moment - now).total_seconds())
        reason = f"when the toleration of {taint} runs out (tolerationSeconds)"
        return ClusterOutlook(cluster, When.LATER, reason, taint, seconds, replicas)
    if judgement.untolerated:
        return ClusterOutlook(cluster, When.NOW, f"{taint} is not tolerated", taint, None, replicas)
    return ClusterOutlook(cluster, When.NOW, f"the toleration of {taint} has run out", taint, None, replicas)


def _not_placed(spec: Object) -> str:
    """Why the scheduler leaves the binding where the evictions leave it (`is_responsible` said no)."""
    scheduler = spec.get("schedulerName")
    if scheduler not in (None, "", DEFAULT_SCHEDULER_NAME):
        return f"scheduled by {scheduler}, not by Flotilla's scheduler: only the evictions are shown"
    if (spec.get("suspension") or {}).get("scheduling") is True:
        return "scheduling is suspended: only the evictions are shown"
    return "no policy claims it: only the evictions are shown"


def _wire(targets: Sequence[TargetCluster]) -> list[dict[str, Any]]:
    return [{"name": target.name, "replicas": target.replicas} for target in targets]


def _as_map(targets: Sequence[TargetCluster]) -> dict[str, int]:
    return {target.name: target.replicas for target in targets}
