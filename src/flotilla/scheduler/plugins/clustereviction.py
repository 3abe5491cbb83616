"""ClusterEviction: a cluster the binding was evicted from does not take it back too soon.

Clusters named as `fromCluster` in the binding's `gracefulEvictionTasks` are rejected until the
graceful eviction controller has finished with them, as in Karmada.

Beyond Karmada, the clusters the application failed over away from (the binding's
`failover.flotilla.io/application-failed-on` annotation, `BindingInfo.application_failed_clusters`)
are kept out of new placements after the task is gone: without that, a Duplicated workload over one
cluster affinity is placed straight back on the cluster its copy failed on, fails there again and is
evicted again, in a loop. Clusters already in the result pass (they are not a new placement). A
failed cluster is still better than none: when no cluster at all passes the filters with this rule,
the scheduler filters again without it (`core.generic.schedule` clears the failed clusters and tries
once more), so a workload with nowhere else to go runs where it failed rather than not at all. The
application failover controller forgets a failed cluster once the workload is Healthy there again,
or when a reschedule from scratch is asked for after the failure (`spec.rescheduleTriggeredAt`).
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "ClusterEviction"
REASON = "cluster(s) is in the process of eviction"
FAILED_REASON = "cluster(s) had the application fail over away from it"


class ClusterEviction:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        if cluster.name in binding.graceful_eviction_clusters:
            return Result.unschedulable(REASON)
        if cluster.name in binding.application_failed_clusters and not binding.targets(cluster.name):
            return Result.unschedulable(FAILED_REASON)
        return Result.success()


def new() -> ClusterEviction:
    return ClusterEviction()
