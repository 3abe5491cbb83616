"""ClusterAffinity: the cluster must be one the placement selects.

The affinity is the placement's `clusterAffinity`, or the `clusterAffinities` term the scheduler
is currently trying (its overflow tiers included, for dynamically divided workloads); without
either, every cluster fits. As a score plugin it gives every cluster 0, as Karmada's does.
"""

from __future__ import annotations

from flotilla.scheduler.core.affinity import affinity_tier
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import MIN_CLUSTER_SCORE, Result

NAME = "ClusterAffinity"
REASON = "cluster(s) did not match the placement cluster affinity constraint"


class ClusterAffinity:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        if affinity_tier(binding, cluster) is None:
            return Result.unschedulable(REASON)
        return Result.success()

    def score(self, binding: BindingInfo, cluster: ClusterInfo) -> int:
        return MIN_CLUSTER_SCORE


def new() -> ClusterAffinity:
    return ClusterAffinity()
