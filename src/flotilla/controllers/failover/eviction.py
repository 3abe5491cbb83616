"""What the taint manager writes when it evicts a cluster from a binding, as pure functions over the spec.

`plan_evictions` judges every cluster of `spec.clusters` that carries NoExecute taints
(`noexecute.judge`) and says which to evict now, which to look at again later, and when. A Cluster
being deleted is left out: its `cluster.karmada.io/terminating:NoExecute` taint is handled as before
the taint manager existed — the scheduler moves the binding off a deleting cluster at once and the
cluster controller deletes the Works in its execution namespace — so an eviction task, which promises
to keep the old copy for a while, would promise what the cluster's removal takes away.

`evicted_spec` is Karmada's `GracefulEvictCluster`: the cluster leaves `spec.clusters` and, unless a
task for it is already there, a `gracefulEvictionTasks[]` entry records it — producer `TaintManager`,
reason `TaintUntolerated`, a message naming the taint, the purge mode (`purge_mode_for`: the
binding's `spec.failover.cluster.purgeMode`, Gracefully when that block says none, else the
manager's `--no-execute-taint-eviction-purge-mode`), the replicas the cluster ran (when more than 0)
and the time. The caller writes both lists at once, against the resourceVersion it read, together
with `evicted_from`: the binding's record of the clusters it was evicted from and when (annotation
`failover.flotilla.io/evicted-from`), which failback reads to move the workload back once such a
cluster has been healthy for as long as its policy asks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flotilla.api.karmada.clustertimes import encode_times, read_times
from flotilla.api.karmada.constants import (
    EVICTED_FROM_ANNOTATION,
    EVICTION_PRODUCER_TAINT_MANAGER,
    EVICTION_REASON_TAINT_UNTOLERATED,
    PurgeMode,
)
from flotilla.api.times import format_time
from flotilla.controllers.failover.noexecute import Judgement, Verdict, judge, no_execute_taints

Object = Mapping[str, Any]

MESSAGE_LIMIT = 1024
"""The longest `message` a task may carry (Karmada's schema)."""


@dataclass(frozen=True, slots=True)
class Eviction:
    """A cluster to evict from a binding now, with the judgement that says why."""

    cluster: str
    judgement: Judgement
    replicas: int = 0


@dataclass(frozen=True, slots=True)
class EvictionPlan:
    evictions: list[Eviction] = field(default_factory=list)
    waiting: list[tuple[str, Judgement]] = field(default_factory=list)
    """Clusters whose toleration still runs, with the judgement saying until when."""

    def next_check(self, now: datetime) -> float | None:
        """Seconds until the first running toleration ends; None when none runs."""
        left = [j.seconds_left(now) for _, j in self.waiting]
        return min((s for s in left if s is not None), default=None)


def placement_tolerations(spec: Object) -> list[Object]:
    """The binding's `spec.placement.clusterTolerations`."""
    tolerations = ((spec.get("placement") or {}).get("clusterTolerations")) or []
    return [t for t in tolerations if isinstance(t, Mapping)]


def plan_evictions(
    spec: Object, cluster_named: Callable[[str], Object | None], now: datetime
) -> EvictionPlan:
    """Which scheduled clusters of a binding its placement no longer tolerates, now or later."""
    plan = EvictionPlan()
    tolerations = placement_tolerations(spec)
    for target in spec.get("clusters") or []:
        name = str(target.get("name") or "")
        cluster = cluster_named(name)
        if cluster is None or (cluster.get("metadata") or {}).get("deletionTimestamp"):
            continue
        taints = no_execute_taints(cluster)
        if not taints:
            continue
        judgement = judge(taints, tolerations, now)
        if judgement.verdict is Verdict.EVICT:
            plan.evictions.append(Eviction(name, judgement, _replicas(target)))
        elif judgement.verdict is Verdict.WAIT:
            plan.waiting.append((name, judgement))
    return plan


def purge_mode_for(spec: Object, default: str) -> str:
    """The purge mode of a taint eviction: the binding's cluster failover behaviour, else the manager's."""
    cluster_failover = (spec.get("failover") or {}).get("cluster")
    if isinstance(cluster_failover, Mapping):
        return str(cluster_failover.get("purgeMode") or PurgeMode.GRACEFULLY)
    return str(PurgeMode.DIRECTLY if default == PurgeMode.DIRECTLY else PurgeMode.GRACEFULLY)


def eviction_message(eviction: Eviction) -> str:
    """Why the cluster was evicted, naming the taint and when it was added or its toleration ended."""
    judgement = eviction.judgement
    added = f" (added {format_time(judgement.added)})" if judgement.added else ""
    if judgement.expires is None:
        text = (
            f"cluster {eviction.cluster} has taint {judgement.taint}{added}, not tolerated by the placement"
        )
    else:
        text = (
            f"cluster {eviction.cluster} has taint {judgement.taint}{added}; "
            f"its toleration ended at {format_time(judgement.expires)}"
        )
    return text[:MESSAGE_LIMIT]


def eviction_task(eviction: Eviction, purge_mode: str, now: datetime) -> dict[str, Any]:
    """The `gracefulEvictionTasks[]` entry of a taint eviction."""
    task: dict[str, Any] = {
        "fromCluster": eviction.cluster,
        "purgeMode": purge_mode,
        "reason": EVICTION_REASON_TAINT_UNTOLERATED,
        "message": eviction_message(eviction),
        "producer": EVICTION_PRODUCER_TAINT_MANAGER,
        "creationTimestamp": format_time(now),
    }
    if eviction.replicas > 0:
        task["replicas"] = eviction.replicas
    return task


def evicted_spec(spec: Object, evictions: list[Eviction], purge_mode: str, now: datetime) -> dict[str, Any]:
    """`spec.clusters` and `spec.gracefulEvictionTasks` once `evictions` are done (Karmada's
    `GracefulEvictCluster`, once per cluster)."""
    leaving = {eviction.cluster for eviction in evictions}
    clusters = [dict(t) for t in spec.get("clusters") or [] if t.get("name") not in leaving]
    tasks = [dict(t) for t in spec.get("gracefulEvictionTasks") or []]
    tracked = {task.get("fromCluster") for task in tasks}
    for eviction in evictions:
        if eviction.cluster not in tracked:
            tasks.append(eviction_task(eviction, purge_mode, now))
            tracked.add(eviction.cluster)
    return {"clusters": clusters, "gracefulEvictionTasks": tasks}


def evicted_from(binding: Object, evictions: list[Eviction], now: datetime) -> dict[str, str | None]:
    """The annotation change recording `evictions` at `now` in the binding's evicted-from record (a
    cluster evicted again takes the new time); empty when there is nothing to record."""
    annotations = (binding.get("metadata") or {}).get("annotations") or {}
    record = read_times(annotations, EVICTED_FROM_ANNOTATION)
    record.update({eviction.cluster: now for eviction in evictions})
    value = encode_times(record)
    return {} if value == annotations.get(EVICTED_FROM_ANNOTATION) else {EVICTED_FROM_ANNOTATION: value}


def _replicas(target: Object) -> int:
    replicas = target.get("replicas")
    return replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 0
